//! no-assertion and tautology: in a lane whose assertions must be able to fail, a test asserts
//! something that can.

use lane_core::{Problem, Rule};

use super::facts::TestFacts;
use super::lanes::rights;

pub fn check(t: &TestFacts, problems: &mut Vec<Problem>) {
    let Some(lane) = t.lane.filter(|&l| rights(l).real_assertions) else {
        return;
    };
    let (id, counted) = (t.id, &t.func.asserts);
    if counted.checks > 0 {
        return;
    }
    let (rule, msg, line) = if counted.asserts > 0 && counted.tautologies == counted.asserts {
        (
            Rule::Tautology,
            format!("{lane} test {id} only asserts things that cannot fail"),
            counted.first_tautology.unwrap_or(t.func.line),
        )
    } else if counted.asserts == 0 {
        (
            Rule::NoAssertion,
            format!("{lane} test {id} asserts nothing"),
            t.func.line,
        )
    } else {
        return;
    };
    problems.push(t.problem(rule, msg, t.func_file, line));
}
