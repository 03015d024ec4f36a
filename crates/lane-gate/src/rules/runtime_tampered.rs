//! `runtime-tampered`: code inside the run replaced an identity the vote relies on (built-ins,
//! import hooks, file I/O, pytest's runner and reports, hypothesis), or loaded a hypothesis
//! profile from product code (DESIGN §9.6).

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Gate, GateFacts};

pub(crate) const DETECTOR: Detector<Gate> = Detector {
    rules: &[Rule::RuntimeTampered],
    check,
};

fn check(facts: &GateFacts<'_>, problems: &mut Vec<Problem>) {
    let GateFacts::Trial(t) = facts else { return };
    for tamper in &t.stream.tampered {
        problems.push(Problem::new(
            Rule::RuntimeTampered,
            format!(
                "{}: {} changed, first seen before {}: the code on trial steered its own \
                 judges, and the run does not vote",
                t.run,
                tamper.what.join(", "),
                tamper.at
            ),
        ));
    }
}
