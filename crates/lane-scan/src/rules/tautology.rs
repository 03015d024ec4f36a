//! tautology: in a lane whose assertions must be able to fail, a test whose every `assert`
//! cannot (`assert True`, `assert x == x`) and that checks nothing else (`pytest.raises`,
//! `self.assert*` ...).

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Scan, ScanFacts};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::Tautology],
    check,
};

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Test(t) = facts else { return };
    let Some(lane) = t.lane_of_real_assertions() else {
        return;
    };
    let counted = &t.func.asserts;
    if counted.checks > 0 || counted.asserts == 0 || counted.tautologies != counted.asserts {
        return;
    }
    let msg = format!("{lane} test {} only asserts things that cannot fail", t.id);
    let line = counted.first_tautology.unwrap_or(t.func.line);
    problems.push(t.problem(Rule::Tautology, msg, t.func_file, line));
}
