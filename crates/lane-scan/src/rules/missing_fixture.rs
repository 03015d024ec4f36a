//! missing-fixture: a witness fixture (`fixture=`, or a snapshot file a test names) outside
//! the root, or one that does not exist.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::facts::BadWitnessArg;
use super::{Scan, ScanFacts};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::MissingFixture],
    check,
};

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Test(t) = facts else { return };
    let id = t.id;
    for arg in &t.bad_witness_args {
        let msg = match &arg.what {
            BadWitnessArg::FixtureOutside(p) => format!("{id}: fixture '{p}' is outside the root"),
            BadWitnessArg::SnapshotUnresolved(u) => match &u.literal {
                Some(p) => format!("{id}: {} '{p}' is outside the root", u.name),
                None => continue,
            },
            BadWitnessArg::FixtureMissing(rel) => format!("{id}: fixture '{rel}' does not exist"),
            _ => continue,
        };
        problems.push(t.problem(Rule::MissingFixture, msg, arg.file, arg.line));
    }
}
