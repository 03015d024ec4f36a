//! What the lane-scan integration tests share: a suite written to a scratch folder, the real
//! binary run on it, and readers of the document it prints.
// Each test file uses its own share of these.
#![allow(dead_code)]

use serde_json::Value;

/// A pytest.ini registering the three lanes.
pub const LANES_INI: &str =
    "[pytest]\nmarkers =\n    merge: votes\n    witness: corroborates\n    freeze: never votes\n";

/// Runs lane-scan with `args` on a suite made of `files` in a scratch folder named
/// `{prefix}-{name}`, with `ini` as its pytest.ini unless `files` has one.
pub fn run(
    prefix: &str,
    name: &str,
    files: &[(&str, &str)],
    ini: Option<&str>,
    args: &[&str],
) -> lane_testkit::Run {
    let dir = lane_testkit::Scratch::new(&format!("{prefix}-{name}"));
    let mut all: Vec<(&str, &str)> = files.to_vec();
    if let Some(ini) = ini
        && !files.iter().any(|(p, _)| *p == "pytest.ini")
    {
        all.push(("pytest.ini", ini));
    }
    for (path, text) in all {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    lane_testkit::Cmd::new(env!("CARGO_BIN_EXE_lane-scan"))
        .dir(dir.path())
        .args(args)
        .run()
}

/// The document of a run that did not fail (exit 0 or 1).
pub fn doc(name: &str, run: &lane_testkit::Run) -> Value {
    assert!(run.code < 2, "{name}: exit {}: {}", run.code, run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

/// Every test id the scan lists, in its order.
pub fn ids(doc: &Value) -> Vec<&str> {
    doc["scan"]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect()
}

/// Every problem of `rule`.
pub fn problems<'d>(doc: &'d Value, rule: &str) -> Vec<&'d Value> {
    doc["scan"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["rule"] == rule)
        .collect()
}

/// (file, line, message) of each problem of `rule`.
pub fn found(doc: &Value, rule: &str) -> Vec<(String, u64, String)> {
    problems(doc, rule)
        .into_iter()
        .map(|p| {
            (
                p["file"].as_str().unwrap_or("").to_string(),
                p["line"].as_u64().unwrap_or(0),
                p["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}
