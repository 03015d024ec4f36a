//! `mutants-off`: `lane-gate --mutants off` skipped the mutants of the changed lines; the
//! verdict says so (a local run's shortcut, never a silent one).

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Gate, GateFacts};

pub(crate) const DETECTOR: Detector<Gate> = Detector {
    rules: &[Rule::MutantsOff],
    check,
};

fn check(facts: &GateFacts<'_>, problems: &mut Vec<Problem>) {
    let GateFacts::Mutants(m) = facts else {
        return;
    };
    if m.off {
        problems.push(Problem::new(
            Rule::MutantsOff,
            "--mutants off: no changed product statement's mutants ran, so this verdict does not \
             say whether the voters would notice a changed line going wrong",
        ));
    }
}
