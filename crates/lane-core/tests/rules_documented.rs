//! docs/evidence.md documents every rule of the catalogue, and nothing else: one `### rule-id`
//! heading per `Rule::ALL` entry, naming the rule's severity, tool, when and how to fix.

use std::collections::BTreeMap;

use lane_core::Rule;

fn evidence_md() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/evidence.md");
    std::fs::read_to_string(path).expect("docs/evidence.md is readable")
}

/// Every `### heading` of the document with its text up to the next heading of any level.
fn rule_sections(doc: &str) -> BTreeMap<String, String> {
    fn close(sections: &mut BTreeMap<String, String>, current: &mut Option<(String, String)>) {
        if let Some((id, body)) = current.take() {
            assert!(
                sections.insert(id.clone(), body).is_none(),
                "docs/evidence.md has two '### {id}' headings"
            );
        }
    }
    let mut sections = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    let mut in_code = false;
    for line in doc.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        }
        if in_code {
            continue;
        }
        if let Some(heading) = line.strip_prefix("### ") {
            close(&mut sections, &mut current);
            current = Some((heading.trim().to_string(), String::new()));
        } else if line.starts_with('#') {
            close(&mut sections, &mut current);
        } else if let Some((_, body)) = current.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    close(&mut sections, &mut current);
    sections
}

#[test]
fn every_rule_has_a_heading() {
    let sections = rule_sections(&evidence_md());
    let missing: Vec<&str> = Rule::ALL
        .iter()
        .map(|r| r.id())
        .filter(|id| !sections.contains_key(*id))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/evidence.md lacks a '### id' heading for: {missing:?}"
    );
}

#[test]
fn every_heading_is_a_known_rule() {
    let sections = rule_sections(&evidence_md());
    let unknown: Vec<&String> = sections
        .keys()
        .filter(|id| Rule::from_id(id).is_none())
        .collect();
    assert!(
        unknown.is_empty(),
        "docs/evidence.md documents rules the catalogue does not know: {unknown:?}"
    );
}

#[test]
fn each_section_states_severity_tool_when_and_fix() {
    let sections = rule_sections(&evidence_md());
    for rule in Rule::ALL {
        let Some(body) = sections.get(rule.id()) else {
            continue; // reported by every_rule_has_a_heading
        };
        let severity = format!("**Severity:** {}", rule.severity().as_str());
        let tool = format!("**Tool:** `{}`", rule.tool());
        assert!(
            body.contains(&severity),
            "{}: expected '{severity}'",
            rule.id()
        );
        assert!(body.contains(&tool), "{}: expected '{tool}'", rule.id());
        assert!(body.contains("**When:**"), "{}: no 'When'", rule.id());
        assert!(
            body.contains("**How to fix:**"),
            "{}: no 'How to fix'",
            rule.id()
        );
    }
}

#[test]
fn rule_ids_named_in_the_rules_part_are_known() {
    // A `kebab-id` code span in the rules part that is not a tool, a flag or a file name must
    // be a rule of the catalogue, so a renamed rule cannot linger in another rule's advice.
    let doc = evidence_md();
    let start = doc.find("\n## Rules").expect("a '## Rules' section");
    let tools = ["lane-scan", "lane-lock", "freeze-ledger", "lane-tally"];
    for line in doc[start..].lines() {
        for (i, span) in line.split('`').enumerate() {
            let looks_like_rule = i % 2 == 1
                && span.contains('-')
                && span.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
                && !span.starts_with('-')
                && !tools.contains(&span);
            if looks_like_rule {
                assert!(
                    Rule::from_id(span).is_some(),
                    "docs/evidence.md names unknown rule `{span}`"
                );
            }
        }
    }
}
