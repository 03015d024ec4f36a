//! param-lane-mark: a lane mark inside `pytest.param(..., marks=...)` gives one parameter set
//! a lane of its own; split the cases into separate tests.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::facts::ParamMark;
use super::{Scan, ScanFacts};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::ParamLaneMark],
    check,
};

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Test(t) = facts else { return };
    for mark in &t.param_marks {
        if let ParamMark::Lane(name) = &mark.what {
            let msg = format!(
                "{}: a {name} mark inside pytest.param(marks=...): split the cases into separate tests",
                t.id
            );
            problems.push(t.problem(Rule::ParamLaneMark, msg, mark.file, mark.line));
        }
    }
}
