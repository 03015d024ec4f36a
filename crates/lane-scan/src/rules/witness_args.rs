//! The witness mark's arguments: a `fixture=` or `locked_on=` that gives no attachment
//! (missing-attachment), a fixture outside the root or not there (missing-fixture).

use lane_core::{Problem, Rule};

use super::facts::{BadWitnessArg, TestFacts};

pub fn check(t: &TestFacts, problems: &mut Vec<Problem>) {
    let id = t.id;
    for arg in &t.bad_witness_args {
        let (rule, msg) = match &arg.what {
            BadWitnessArg::FixtureNotText => (
                Rule::MissingAttachment,
                format!("{id}: fixture= must be a string or a list of strings"),
            ),
            BadWitnessArg::BadLockDate => (
                Rule::MissingAttachment,
                format!("{id}: locked_on= must be a date string YYYY-MM-DD"),
            ),
            BadWitnessArg::FixtureOutside(p) => (
                Rule::MissingFixture,
                format!("{id}: fixture '{p}' is outside the root"),
            ),
            BadWitnessArg::SnapshotDirUnresolved(None) => (
                Rule::MissingAttachment,
                format!(
                    "{id}: snapshot.snapshot_dir is not a string literal: its snapshot files \
                     cannot be found; write the folder as a literal relative to the rootdir"
                ),
            ),
            BadWitnessArg::SnapshotDirUnresolved(Some(p)) => (
                Rule::MissingFixture,
                format!("{id}: snapshot_dir '{p}' is outside the root"),
            ),
            BadWitnessArg::FixtureMissing(rel) => (
                Rule::MissingFixture,
                format!("{id}: fixture '{rel}' does not exist"),
            ),
        };
        problems.push(t.problem(rule, msg, arg.file, arg.line));
    }
}
