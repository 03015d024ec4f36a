//! unmarked and multiple-lanes: a test has exactly one lane. A doctest item's lane is the one
//! the configuration gives every doctest item (`lanes_doctest_lane`), or none.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{DoctestFacts, Scan, ScanFacts, TestFacts};
use crate::pytest::doctest::LANE_KEY;

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::Unmarked, Rule::MultipleLanes],
    check,
};

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    match facts {
        ScanFacts::Test(t) => test(t, problems),
        ScanFacts::Doctest(d) => doctest(d, problems),
        _ => {}
    }
}

fn test(t: &TestFacts, problems: &mut Vec<Problem>) {
    let id = t.id;
    let (rule, msg) = match &t.lanes[..] {
        [] => (
            Rule::Unmarked,
            format!("{id} has no lane: mark it merge, witness or freeze"),
        ),
        [_] => return,
        lanes => {
            let names: Vec<&str> = lanes.iter().map(|l| l.as_str()).collect();
            (
                Rule::MultipleLanes,
                format!("{id} is in {} lanes: {}", lanes.len(), names.join(", ")),
            )
        }
    };
    problems.push(t.problem(rule, msg, t.func_file, t.func.line));
}

fn doctest(d: &DoctestFacts, problems: &mut Vec<Problem>) {
    if d.lane.is_some() {
        return;
    }
    let id = d.id;
    problems.push(
        Problem::new(
            Rule::Unmarked,
            format!(
                "doctest {id} has no lane: pytest runs its examples as a test, and a docstring \
                 or text file cannot carry a lane mark; give every doctest item its lane with \
                 `{LANE_KEY} = merge` (or witness, freeze) in {}, or take the examples out of \
                 pytest's reach",
                d.config_file
            ),
        )
        .at(d.file, d.line)
        .test(id),
    );
}
