//! docs/evidence.md documents every rule of the catalogue, and nothing else: one `### rule-id`
//! heading per `Rule::ALL` entry, naming the rule's severity, tool, when and how to fix.

use std::collections::BTreeMap;

use lane_core::Rule;

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/evidence.md");

/// docs/evidence.md as it is, or with `LANES_WRITE_DOCS=1` as it is about to be written (the
/// tests of one run judge the document that run writes).
fn evidence_md() -> String {
    let doc = std::fs::read_to_string(PATH).expect("docs/evidence.md is readable");
    if writing() { regenerated(&doc) } else { doc }
}

fn writing() -> bool {
    std::env::var_os("LANES_WRITE_DOCS").is_some_and(|v| v == "1")
}

/// `doc` with its generated block made from the catalogue.
fn regenerated(doc: &str) -> String {
    let (body_start, end) = block(doc);
    format!(
        "{}{}{}",
        &doc[..body_start],
        lane_core::rule::evidence_md(),
        &doc[end..]
    )
}

/// Where the generated block's text starts and ends.
fn block(doc: &str) -> (usize, usize) {
    let begin = doc.find(BEGIN).expect("the generated block's first marker");
    let body_start = begin + doc[begin..].find('\n').expect("a line after the marker") + 1;
    let end = doc.find(END).expect("the generated block's last marker");
    assert!(body_start <= end, "the markers are out of order");
    (body_start, end)
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
    let tools = [
        "lane-scan",
        "lane-lock",
        "freeze-ledger",
        "lane-tally",
        "lane-gate",
    ];
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

const BEGIN: &str = "<!-- rules: generated from crates/lane-core/src/rule.rs;";
const END: &str = "<!-- end of rules -->\n";

/// The rule sections of docs/evidence.md are the catalogue's, generated by `rule::evidence_md`:
/// a changed rule fails here until `LANES_WRITE_DOCS=1` rewrites the block (the hand-written
/// prose around it stays as it is).
#[test]
fn rule_sections_are_generated_from_the_catalogue() {
    let doc = std::fs::read_to_string(PATH).expect("docs/evidence.md is readable");
    let (body_start, end) = block(&doc);
    let want = lane_core::rule::evidence_md();
    if writing() {
        std::fs::write(PATH, regenerated(&doc)).expect("docs/evidence.md is writable");
        return;
    }
    assert!(
        doc[body_start..end] == want,
        "docs/evidence.md's rule sections differ from the catalogue: run \
         `LANES_WRITE_DOCS=1 cargo test -p lane-core --test rules_documented` to regenerate"
    );
}
