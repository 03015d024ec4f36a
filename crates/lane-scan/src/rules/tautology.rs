//! tautology: in a lane whose assertions must be able to fail, a test whose every `assert`
//! cannot (`assert True`, `assert x == x`) and that checks nothing else (`pytest.raises`,
//! `self.assert*` ...). A value built by a project class that defines `__eq__`, compared with
//! itself (`u = URL(...)`; `assert u == u`), is a reflexivity test of that `__eq__`, not a
//! tautology; a function's result compared with itself still is.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Scan, ScanFacts};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::Tautology],
    check,
};

/// `lane-scan --fix` cannot mend this rule's problems by inserting a line: it lists them as
/// left for a human.
pub(crate) const LEFT_FOR_HUMAN: Rule = Rule::Tautology;

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Test(t) = facts else { return };
    let Some(lane) = t.lane_of_real_assertions() else {
        return;
    };
    let counted = &t.func.asserts;
    if counted.checks > 0
        || counted.asserts == 0
        || counted.tautologies != counted.asserts
        || t.tests_project_eq
    {
        return;
    }
    let msg = format!("{lane} test {} only asserts things that cannot fail", t.id);
    let line = counted.first_tautology.unwrap_or(t.func.line);
    problems.push(t.problem(Rule::Tautology, msg, t.func_file, line));
}
