//! swallowed-failure: a merge test with an assertion whose failure is caught and let go, or
//! that cannot fail through an `or` (issue 16).

use lane_core::{Problem, Rule};

use super::facts::TestFacts;
use super::lanes::rights;

pub fn check(t: &TestFacts, problems: &mut Vec<Problem>) {
    let Some(lane) = t.lane.filter(|&l| rights(l).real_assertions) else {
        return;
    };
    let counted = &t.func.asserts;
    if counted.swallowed == 0 {
        return;
    }
    let line = counted.first_swallowed.unwrap_or(t.func.line);
    let msg = format!(
        "{lane} test {} has {} assertion(s) that cannot fail it (first at line {line}): a handler \
         or suppress() catches the AssertionError and lets it go, or an `or` operand is always true",
        t.id, counted.swallowed
    );
    problems.push(t.problem(Rule::SwallowedFailure, msg, t.func_file, line));
}
