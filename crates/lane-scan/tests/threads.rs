//! `lane_scan::start_threads`: the binary starts rayon's global pool with the parser's stack,
//! and scans run on it (its output is then rendered on the same threads). In a test binary of
//! its own, so that no other test starts the global pool first.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

/// A test whose assertion nests 100,000 `not`s: parsing it and dropping its syntax tree
/// recurse far deeper than a default thread stack allows.
fn deep_suite() -> lane_testkit::Scratch {
    let dir = lane_testkit::Scratch::new("threads-deep");
    std::fs::write(dir.path().join("pytest.ini"), common::LANES_INI).unwrap();
    let test = format!(
        "import pytest\n\n@pytest.mark.merge\ndef test_deep():\n    \"\"\"owner: a\"\"\"\n    \
         assert {}False\n",
        "not ".repeat(100_000)
    );
    std::fs::write(dir.path().join("test_deep.py"), test).unwrap();
    std::fs::write(
        dir.path().join("test_plain.py"),
        "import pytest\n\n@pytest.mark.merge\ndef test_plain():\n    \"\"\"owner: a\"\"\"\n    \
         assert 1 + 1 == 2\n",
    )
    .unwrap();
    dir
}

fn scan(dir: &lane_testkit::Scratch) -> lane_scan::Scan {
    lane_scan::scan(&lane_scan::Options {
        dir: None,
        paths: vec![dir.path().to_path_buf()],
        rootdir: Some(dir.path().to_path_buf()),
        target: None,
        python: None,
        markers_plugin: false,
        changed: None,
        plugin_root: None,
    })
    .unwrap()
}

fn ids(scan: &lane_scan::Scan) -> Vec<String> {
    scan.runs.iter().flatten().map(|t| t.id.clone()).collect()
}

#[test]
fn scans_on_the_global_pool_match_scans_on_their_own() {
    let dir = deep_suite();
    // Before: the scan starts a pool of its own.
    let own = scan(&dir);
    assert_eq!(
        ids(&own),
        ["test_deep.py::test_deep", "test_plain.py::test_plain"]
    );
    assert!(
        lane_scan::start_threads(),
        "the global pool was started before"
    );
    assert!(
        !lane_scan::start_threads(),
        "the global pool can start only once"
    );
    // After: on the global pool, whose threads must have the parser's stack for the deep test.
    let global = scan(&dir);
    assert_eq!(global.section, own.section);
    assert_eq!(global.runs, own.runs);
    // And from a worker of the global pool itself (a caller already on rayon's threads).
    let nested = rayon::scope(|_| scan(&dir));
    assert_eq!(nested.runs, own.runs);
}
