//! `tracer-tampered`: the gate's tracer of the changed product files was switched off or
//! replaced while a voting run went on (DESIGN §9.6).

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Gate, GateFacts};

pub(crate) const DETECTOR: Detector<Gate> = Detector {
    rules: &[Rule::TracerTampered],
    check,
};

fn check(facts: &GateFacts<'_>, problems: &mut Vec<Problem>) {
    let GateFacts::Trial(t) = facts else { return };
    if let Some(at) = t.stream.tracer.first() {
        problems.push(Problem::new(
            Rule::TracerTampered,
            format!(
                "{}: the gate's tracer was switched off or replaced, first seen before {at}: \
                 which changed lines the voters ran is unknown, and the run does not vote",
                t.run
            ),
        ));
    }
}
