//! `lane-scan --fix` is idempotent: run again on each golden case's `after/` tree (the first
//! run's result), it changes no byte and reports nothing to do. The first run itself is pinned
//! by the golden cases (tests/golden/fix-*: tree/ before, after/ after, the printed report).

#![allow(clippy::unwrap_used)]

use std::path::Path;

use lane_testkit::{Cmd, Scratch, golden};

#[test]
fn a_second_run_changes_nothing() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden"));
    let mut cases: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name().unwrap().to_string_lossy().starts_with("fix-") && p.join("after").is_dir()
        })
        .collect();
    cases.sort();
    assert!(cases.len() >= 5, "fix golden cases: {cases:?}");
    let mut checked = 0;
    for case in &cases {
        let args = std::fs::read_to_string(case.join("args")).unwrap();
        if !args.lines().any(|a| a == "--fix") {
            continue;
        }
        let code = std::fs::read_to_string(case.join("code")).unwrap();
        let scratch = Scratch::new("fix-again");
        golden::copy_into(&case.join("after"), scratch.path());
        let before = golden::tree_files(scratch.path());
        let run = Cmd::new(env!("CARGO_BIN_EXE_lane-scan"))
            .args(args.lines())
            .dir(scratch.path())
            .run();
        assert_eq!(
            golden::tree_files(scratch.path()),
            before,
            "{}: the second run changed files",
            case.display()
        );
        assert_eq!(
            format!("{}\n", run.code),
            code,
            "{}: {}",
            case.display(),
            run.stderr
        );
        assert!(
            run.stdout
                .contains("lane-scan --fix: 0 files changed, 0 tests given a lane"),
            "{}: {}",
            case.display(),
            run.stdout
        );
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} --fix cases");
}

/// The lane rules that refuse a test as a voter (or find it without a lane).
const REFUSED: [&str; 4] = [
    "unmarked",
    "unconditional-skip",
    "xfail-in-voting-lane",
    "retry-in-voting-lane",
];

/// `--fix` decides by the scan's own facts: scanned after the fix, a tree has no
/// test the lane rules refuse (unmarked, skipped unconditionally, an expected failure or a
/// retry in a voting lane) other than the freeze candidates `--fix` listed (and the tests it
/// listed to be marked by hand); and a listed test in a voting lane is one whose parameter set
/// alone cannot vote. Checked on every `--fix` golden case.
#[test]
fn the_fixed_tree_passes_the_lane_rules_but_for_the_listed_candidates() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden"));
    let mut checked = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let case = entry.unwrap().path();
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let args = std::fs::read_to_string(case.join("args")).unwrap_or_default();
        if !name.starts_with("fix-") || !args.lines().any(|a| a == "--fix") {
            continue;
        }
        // --fix on the case's tree (not its pinned after/ tree: this judges the fix itself).
        let scratch = Scratch::new("fix-then-scan");
        golden::copy_into(&case.join("tree"), scratch.path());
        let fixed = Cmd::new(env!("CARGO_BIN_EXE_lane-scan"))
            .args(args.lines())
            .dir(scratch.path())
            .run();
        let report = fixed.stdout + &fixed.stderr;
        // The freeze candidates, and the tests listed to be marked by hand.
        let listed: Vec<&str> = report
            .lines()
            .filter_map(|l| {
                let head = match l.split_once(" is a freeze candidate (") {
                    Some((head, _)) => head,
                    None => l.split_once(": not marked: ")?.0,
                };
                head.rsplit(' ')
                    .next()?
                    .strip_suffix(':')
                    .or(head.rsplit(' ').next())
            })
            .collect();
        let run = Cmd::new(env!("CARGO_BIN_EXE_lane-scan"))
            .args(["--format", "json"])
            .dir(scratch.path())
            .run();
        let doc: serde_json::Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("{name}: {e}: {}{}", run.stdout, run.stderr));
        for p in doc["scan"]["problems"].as_array().unwrap() {
            let rule = p["rule"].as_str().unwrap();
            if !REFUSED.contains(&rule) {
                continue;
            }
            // A problem of a whole module (`pytest.skip()` at module level) is each of its tests'.
            let tests: Vec<&str> = match p["test"].as_str() {
                Some(test) => vec![test],
                None => doc["scan"]["tests"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|t| t["file"] == p["file"])
                    .map(|t| t["id"].as_str().unwrap())
                    .collect(),
            };
            assert!(!tests.is_empty(), "{name}: {p}");
            for test in tests {
                assert!(
                    listed.contains(&test),
                    "{name}: {rule} on {test}, which --fix did not list as a freeze candidate:\n{report}"
                );
            }
        }
        for t in doc["scan"]["tests"].as_array().unwrap() {
            let id = t["id"].as_str().unwrap();
            if matches!(t["lane"].as_str(), Some("merge" | "witness")) && listed.contains(&id) {
                // A candidate given a voting lane is one whose parameter set alone cannot vote.
                assert!(
                    report.contains(&format!(
                        "{id} is a freeze candidate (fix-freeze-candidate) for a parameter set only"
                    )),
                    "{name}: {id} is listed and votes:\n{report}"
                );
            }
        }
        checked.push(name);
    }
    checked.sort();
    assert!(
        checked.iter().any(|c| c == "fix-skip-forms") && checked.len() >= 5,
        "{checked:?}"
    );
}

/// The rules whose problems no inserted line mends.
const LEFT_FOR_HUMAN: [&str; 3] = ["tautology", "no-assertion", "undecided-test-branch"];

/// What `--fix` cannot mend, `--diff` names first: scanned after `--fix`, a tree has no
/// `tautology`, `no-assertion` or `undecided-test-branch` problem that the `--diff` report
/// did not list as left for a human, in its file, with its rule and its test (or, for a
/// module's problem, its message). Checked on every `fix-*`
/// golden case (tests/golden/fix-left-for-human has one of each, before and after a lane).
#[test]
fn what_the_fix_leaves_the_diff_lists_for_a_human() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden"));
    let mut found = 0;
    let mut checked = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let case = entry.unwrap().path();
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with("fix-") {
            continue;
        }
        let scratch = Scratch::new("diff-then-fix");
        golden::copy_into(&case.join("tree"), scratch.path());
        let run = |args: &[&str]| {
            Cmd::new(env!("CARGO_BIN_EXE_lane-scan"))
                .args(args.iter().copied())
                .dir(scratch.path())
                .run()
        };
        let preview = run(&["--diff"]).stderr;
        run(&["--fix"]);
        let scanned = run(&["--format", "json"]);
        let doc: serde_json::Value = serde_json::from_str(&scanned.stdout)
            .unwrap_or_else(|e| panic!("{name}: {e}: {}{}", scanned.stdout, scanned.stderr));
        for p in doc["scan"]["problems"].as_array().unwrap() {
            let rule = p["rule"].as_str().unwrap();
            if !LEFT_FOR_HUMAN.contains(&rule) {
                continue;
            }
            found += 1;
            // The report speaks of the tree before the fix: lines may have moved since.
            let file = p["file"].as_str().unwrap();
            let message = p["message"].as_str().unwrap();
            let what = match p["test"].as_str() {
                Some(test) => test,
                // Its message without its `file:line: ` (the line after the fix).
                None => message.split_once(": ").map_or(message, |(_, m)| m),
            };
            let tag = format!(": left for a human ({rule}): ");
            assert!(
                preview.lines().any(|l| l.starts_with(&format!("{file}:"))
                    && l.contains(&tag)
                    && l.contains(what)),
                "{name}: {p} is not listed by --diff:\n{preview}"
            );
        }
        checked.push(name);
    }
    assert!(
        checked.iter().any(|c| c == "fix-left-for-human"),
        "{checked:?}"
    );
    assert!(found >= 4, "only {found} problems left");
}
