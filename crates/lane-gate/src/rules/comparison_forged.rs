//! `comparison-forged`: a voting test's comparison was answered by a comparison or truthiness
//! method a changed product class derived from a value type brings, and that type's own method
//! answers otherwise (DESIGN §9.6).

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Gate, GateFacts};

pub(crate) const DETECTOR: Detector<Gate> = Detector {
    rules: &[Rule::ComparisonForged],
    check,
};

fn check(facts: &GateFacts<'_>, problems: &mut Vec<Problem>) {
    let GateFacts::Trial(t) = facts else { return };
    for forged in &t.stream.forged {
        problems.push(Problem::new(
            Rule::ComparisonForged,
            format!(
                "{}: in {}, {}: the test's comparison was answered by the code on trial, and \
                 the run does not vote",
                t.run,
                forged.at,
                forged.what.join("; ")
            ),
        ));
    }
}
