//! no-assertion: in a lane whose assertions must be able to fail, a test with no `assert` that
//! checks nothing else either (`pytest.raises` / `warns`, `self.assert*`, `pytest.fail` /
//! `self.fail`, `raise AssertionError`), and calls no helper of the test tree that does (a
//! function of its module, a conftest or `tests/helpers.py`, or a method of the test's class
//! called on `self`, followed a few calls deep).

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Scan, ScanFacts};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::NoAssertion],
    check,
};

/// `lane-scan --fix` cannot mend this rule's problems by inserting a line: it lists them as
/// left for a human.
pub(crate) const LEFT_FOR_HUMAN: Rule = Rule::NoAssertion;

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Test(t) = facts else { return };
    let Some(lane) = t.lane_of_real_assertions() else {
        return;
    };
    let counted = &t.func.asserts;
    if counted.checks > 0 || counted.asserts > 0 || t.asserting_helper.is_some() {
        return;
    }
    let msg = format!("{lane} test {} asserts nothing", t.id);
    problems.push(t.problem(Rule::NoAssertion, msg, t.func_file, t.func.line));
}
