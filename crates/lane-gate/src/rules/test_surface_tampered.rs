//! `test-surface-tampered`: a test module, a `conftest.py`, a configuration file or a folder
//! of test modules in the vote tree changed while pytest ran (DESIGN §9.6): code inside the
//! run redecorated the room its judges sit in.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Gate, GateFacts};

pub(crate) const DETECTOR: Detector<Gate> = Detector {
    rules: &[Rule::TestSurfaceTampered],
    check,
};

fn check(facts: &GateFacts<'_>, problems: &mut Vec<Problem>) {
    let GateFacts::SurfaceChanged(paths) = facts else {
        return;
    };
    for path in paths.iter() {
        problems.push(
            Problem::new(
                Rule::TestSurfaceTampered,
                "changed while pytest ran (written, made, removed, or a folder whose entries \
                 changed): the tests that voted need not be the ones the gate read, and the \
                 runs do not vote"
                    .to_string(),
            )
            .file(path.clone()),
        );
    }
}
