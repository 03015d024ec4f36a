//! unmarked and multiple-lanes: a test has exactly one lane.

use lane_core::{Problem, Rule};

use super::facts::TestFacts;

pub fn check(t: &TestFacts, problems: &mut Vec<Problem>) {
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
