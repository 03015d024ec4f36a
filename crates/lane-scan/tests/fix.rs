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
