//! `LANES_TRACE`: phase timings on stderr, and not a byte of stdout changed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

const TESTS: &str = "import pytest\n\n@pytest.mark.merge\ndef test_a():\n    assert 1\n\n\
                     @pytest.mark.witness(locked_on=\"2026-01-15\")\ndef test_b():\n    pass\n";

fn scan(trace: Option<&str>) -> lane_testkit::Run {
    let dir = lane_testkit::Scratch::new(&format!("trace-{}", trace.unwrap_or("unset")));
    std::fs::write(dir.path().join("pytest.ini"), common::LANES_INI).unwrap();
    std::fs::write(dir.path().join("test_a.py"), TESTS).unwrap();
    let cmd = lane_testkit::Cmd::new(env!("CARGO_BIN_EXE_lane-scan")).dir(dir.path());
    match trace {
        Some(value) => cmd.env("LANES_TRACE", value),
        None => cmd.env_remove("LANES_TRACE"),
    }
    .run()
}

#[test]
fn trace_goes_to_stderr_and_leaves_stdout_alone() {
    let plain = scan(None);
    assert!(plain.code < 2, "{}", plain.stderr);
    assert!(plain.stdout.starts_with('{'), "{}", plain.stdout);
    assert!(!plain.stderr.contains("trace"), "{}", plain.stderr);
    for off in ["0", ""] {
        let quiet = scan(Some(off));
        assert_eq!(quiet.code, plain.code, "LANES_TRACE={off:?}");
        assert_eq!(quiet.stdout, plain.stdout, "LANES_TRACE={off:?}");
        assert!(
            !quiet.stderr.contains("trace"),
            "LANES_TRACE={off:?}: {}",
            quiet.stderr
        );
    }
    let traced = scan(Some("1"));
    assert_eq!(traced.code, plain.code, "{}", traced.stderr);
    assert_eq!(traced.stdout, plain.stdout);
    let phases: Vec<&str> = traced
        .stderr
        .lines()
        .filter_map(|l| l.strip_prefix("lane-scan trace: "))
        .map(|l| {
            l.split(" ms (at ")
                .next()
                .unwrap()
                .rsplit_once(' ')
                .unwrap()
                .0
        })
        .collect();
    for phase in [
        "config and discovery",
        "parse",
        "per-module tests",
        "output",
    ] {
        assert!(
            phases.contains(&phase),
            "{phase} missing: {}",
            traced.stderr
        );
    }
    // In the order they run.
    let at = |p: &str| phases.iter().position(|q| *q == p).unwrap();
    assert!(at("config and discovery") < at("parse") && at("parse") < at("output"));
}
