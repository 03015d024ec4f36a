//! The rule registry: the table of detectors from the rule files of src/rules (lane-build).

fn main() {
    lane_build::detectors("Gate");
}
