//! SARIF 2.1.0 (OASIS), for code-scanning uploads: one run, the whole rule catalogue as the
//! driver's `rules[]`, one result per problem.
//!
//! - `partialFingerprints["lanes/rule-test/v1"]` is the SHA-256 of the rule id and the test id
//!   (the file when a problem names no test, the message when it names neither), never the
//!   line: an alert follows its test when code above it moves.
//! - `artifactLocation`s are root-relative (`uriBaseId` `SRCROOT`, the `--rootdir`); the log
//!   names no absolute path, so the same inputs give the same bytes on any machine.
//! - A rule id this build does not know (a document written by a newer tool) gets a rule entry
//!   of its own after the catalogue's, so every result's `ruleIndex` points at its rule.

use serde_json::{Map, Value, json};

use crate::problem::{Problem, Severity};
use crate::rule::Rule;

/// The schema the log declares (the OASIS errata 01 schema of SARIF 2.1.0).
pub(crate) const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The key of every result's partial fingerprint.
pub(crate) const FINGERPRINT: &str = "lanes/rule-test/v1";

/// The base every `artifactLocation` is relative to.
pub(crate) const SRCROOT: &str = "SRCROOT";

/// The SARIF log of `tool`'s `problems`, pretty-printed, ending in a newline.
pub fn log(tool: &str, problems: &[Problem]) -> String {
    let mut unknown: Vec<&str> = problems
        .iter()
        .map(|p| p.rule.as_str())
        .filter(|id| Rule::from_id(id).is_none())
        .collect();
    unknown.sort_unstable();
    unknown.dedup();

    let mut rules: Vec<Value> = Rule::ALL.iter().map(|r| rule_entry(*r)).collect();
    rules.extend(unknown.iter().map(|id| unknown_rule_entry(id)));
    let index = |id: &str| -> usize {
        match Rule::ALL.iter().position(|r| r.id() == id) {
            Some(i) => i,
            None => Rule::ALL.len() + unknown.iter().position(|u| *u == id).unwrap_or(0),
        }
    };
    let results: Vec<Value> = problems.iter().map(|p| result(p, index(&p.rule))).collect();

    let run = json!({
        "tool": {
            "driver": {
                "name": tool,
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": env!("CARGO_PKG_REPOSITORY"),
                "rules": rules,
            }
        },
        "originalUriBaseIds": {
            SRCROOT: {
                "description": { "text": "The project's root (--rootdir): test ids and files are relative to it." }
            }
        },
        "columnKind": "unicodeCodePoints",
        "results": results,
    });
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [run],
    });
    let mut text = serde_json::to_string_pretty(&log)
        .unwrap_or_else(|e| panic!("a JSON value always serializes: {e}"));
    text.push('\n');
    text
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// `unconditional-skip` -> `UnconditionalSkip` (SARIF's `name` is an identifier-like word).
fn camel(id: &str) -> String {
    id.split('-')
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

fn rule_entry(rule: Rule) -> Value {
    json!({
        "id": rule.id(),
        "name": camel(rule.id()),
        "shortDescription": { "text": rule.summary() },
        "fullDescription": { "text": rule.explanation() },
        "help": {
            "text": format!("Fix: {}", rule.fix()),
            "markdown": format!("**Fix:** {}\n\nExplain it locally: `{} --explain {}`", rule.fix(), rule.tool(), rule.id()),
        },
        "defaultConfiguration": { "level": level(rule.severity()) },
        "properties": {
            "tool": rule.tool(),
            "acknowledgeable": rule.acknowledgeable(),
        },
    })
}

fn unknown_rule_entry(id: &str) -> Value {
    json!({
        "id": id,
        "shortDescription": { "text": format!("{id}: a rule this build of lanes does not know (reported by a newer tool)") },
    })
}

/// The file a problem is in: its own, else the file part of its test id.
fn file_of(p: &Problem) -> Option<&str> {
    if let Some(file) = &p.file {
        return Some(file);
    }
    let test = p.test.as_deref()?;
    let file = test.split("::").next()?;
    (!file.is_empty() && file != test).then_some(file)
}

/// SHA-256 of `rule`, NUL, then the test id (else the file, else the message).
pub(crate) fn fingerprint(p: &Problem) -> String {
    let subject = match (&p.test, &p.file) {
        (Some(test), _) => format!("test\0{test}"),
        (None, Some(file)) => format!("file\0{file}"),
        (None, None) => format!("message\0{}", p.message),
    };
    crate::io::sha256_bytes(format!("{}\0{subject}", p.rule).as_bytes())
}

fn result(p: &Problem, rule_index: usize) -> Value {
    let mut text = p.message.clone();
    if let Some(test) = &p.test
        && !text.contains(test.as_str())
    {
        text.push_str(&format!(" ({test})"));
    }
    let mut out = Map::new();
    out.insert("ruleId".into(), json!(p.rule));
    out.insert("ruleIndex".into(), json!(rule_index));
    out.insert("level".into(), json!(level(p.severity)));
    out.insert("message".into(), json!({ "text": text }));
    let mut location = Map::new();
    if let Some(file) = file_of(p) {
        let mut physical = Map::new();
        physical.insert(
            "artifactLocation".into(),
            json!({ "uri": uri(file), "uriBaseId": SRCROOT }),
        );
        if let (Some(line), Some(_)) = (p.line, &p.file)
            && line >= 1
        {
            physical.insert("region".into(), json!({ "startLine": line }));
        }
        location.insert("physicalLocation".into(), Value::Object(physical));
    }
    if let Some(test) = &p.test {
        location.insert(
            "logicalLocations".into(),
            json!([{ "fullyQualifiedName": test, "kind": "function" }]),
        );
    }
    if !location.is_empty() {
        out.insert("locations".into(), json!([Value::Object(location)]));
    }
    out.insert(
        "partialFingerprints".into(),
        json!({ FINGERPRINT: fingerprint(p) }),
    );
    Value::Object(out)
}

/// A root-relative path as a relative URI reference: `/`-separated, percent-encoding what a
/// URI may not carry literally.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn every_catalogue_rule_is_a_driver_rule_in_catalogue_order() {
        let log = parse(&log("lane-scan", &[]));
        let rules = log["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap();
        assert_eq!(rules.len(), Rule::ALL.len());
        for (entry, rule) in rules.iter().zip(Rule::ALL) {
            assert_eq!(entry["id"], rule.id());
            assert_eq!(entry["shortDescription"]["text"], rule.summary());
            assert_eq!(entry["fullDescription"]["text"], rule.explanation());
            assert!(entry["help"]["text"].as_str().unwrap().contains(rule.fix()));
            assert_eq!(
                entry["defaultConfiguration"]["level"],
                level(rule.severity())
            );
        }
        assert_eq!(log["version"], "2.1.0");
        assert_eq!(log["runs"][0]["results"], json!([]));
    }

    #[test]
    fn results_point_at_their_rule_file_line_and_test() {
        let p = Problem::new(Rule::UnconditionalSkip, "skipped")
            .at("tests/a b.py", 7)
            .test("tests/a b.py::test_x");
        let log = parse(&log("lane-scan", std::slice::from_ref(&p)));
        let r = &log["runs"][0]["results"][0];
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(
            log["runs"][0]["tool"]["driver"]["rules"][index]["id"],
            "unconditional-skip"
        );
        assert_eq!(r["level"], "error");
        let loc = &r["locations"][0];
        assert_eq!(
            loc["physicalLocation"]["artifactLocation"],
            json!({"uri": "tests/a%20b.py", "uriBaseId": "SRCROOT"})
        );
        assert_eq!(loc["physicalLocation"]["region"]["startLine"], 7);
        assert_eq!(
            loc["logicalLocations"][0]["fullyQualifiedName"],
            "tests/a b.py::test_x"
        );
        assert_eq!(r["message"]["text"], "skipped (tests/a b.py::test_x)");
    }

    #[test]
    fn the_fingerprint_follows_rule_and_test_not_line() {
        let a = Problem::new(Rule::Unmarked, "no lane")
            .at("tests/t.py", 3)
            .test("tests/t.py::test_a");
        let moved = a.clone().line(40);
        let other_test = a.clone().test("tests/t.py::test_b");
        let other_rule = Problem {
            rule: "tautology".into(),
            ..a.clone()
        };
        assert_eq!(fingerprint(&a), fingerprint(&moved));
        assert_ne!(fingerprint(&a), fingerprint(&other_test));
        assert_ne!(fingerprint(&a), fingerprint(&other_rule));
        let log = parse(&log("lane-scan", std::slice::from_ref(&a)));
        assert_eq!(
            log["runs"][0]["results"][0]["partialFingerprints"][FINGERPRINT],
            fingerprint(&a)
        );
    }

    #[test]
    fn a_test_without_a_file_is_located_by_its_test_id() {
        let p = Problem::new(Rule::Unmarked, "no lane").test("tests/t.py::C::test_a");
        let log = parse(&log("lane-tally", &[p]));
        let loc = &log["runs"][0]["results"][0]["locations"][0];
        assert_eq!(
            loc["physicalLocation"]["artifactLocation"]["uri"],
            "tests/t.py"
        );
        assert!(loc["physicalLocation"].get("region").is_none());
    }

    #[test]
    fn an_unknown_rule_gets_its_own_entry_and_no_location() {
        let p = Problem {
            rule: "from-the-future".into(),
            severity: Severity::Warning,
            message: "new".into(),
            file: None,
            line: None,
            test: None,
        };
        let log = parse(&log("lane-tally", &[p]));
        let r = &log["runs"][0]["results"][0];
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(index, Rule::ALL.len());
        assert_eq!(
            log["runs"][0]["tool"]["driver"]["rules"][index]["id"],
            "from-the-future"
        );
        assert!(r.get("locations").is_none());
        assert_eq!(r["level"], "warning");
    }

    #[test]
    fn camel_case_names() {
        assert_eq!(camel("unconditional-skip"), "UnconditionalSkip");
        assert_eq!(camel("unmarked"), "Unmarked");
    }
}
