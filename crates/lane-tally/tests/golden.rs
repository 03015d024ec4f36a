//! Golden cases: each folder under tests/golden/ is an input tree, a command line and the exact
//! stdout, stderr and exit code lane-tally must give (lane_testkit::golden). `LANES_BLESS=1 cargo test
//! -p lane-tally --test golden` rewrites the expected files outside CI; review the diff.

#[test]
fn golden_cases() {
    lane_testkit::golden::check_all(
        env!("CARGO_BIN_EXE_lane-tally"),
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden")),
    );
}
