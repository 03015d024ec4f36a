//! `digest-moved`, lane-gate's own detector: a file whose bytes decide the vote (the lock, the
//! ledger, a file either names) was written while pytest ran, seen by its inode change time
//! even when its bytes were put back before the run ended. (lane-lock's detector of the rule
//! compares bytes with the lock; the gate re-runs that one after the runs as well.)

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Gate, GateFacts};

pub(crate) const DETECTOR: Detector<Gate> = Detector {
    rules: &[Rule::DigestMoved],
    check,
};

fn check(facts: &GateFacts<'_>, problems: &mut Vec<Problem>) {
    let GateFacts::Written(paths) = facts else {
        return;
    };
    for path in paths.iter() {
        problems.push(
            Problem::new(
                Rule::DigestMoved,
                "written while pytest ran (its inode change time moved): the bytes the tests \
                 read need not be the locked ones, even if they match the lock again now"
                    .to_string(),
            )
            .file(path.clone()),
        );
    }
}
