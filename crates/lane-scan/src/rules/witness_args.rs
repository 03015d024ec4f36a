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
            BadWitnessArg::SnapshotUnresolved(u) => match &u.literal {
                None => (
                    Rule::MissingAttachment,
                    format!(
                        "{id}: {} is not a string literal: its snapshot files cannot be \
                         found; {}",
                        u.what, u.hint
                    ),
                ),
                Some(p) => (
                    Rule::MissingFixture,
                    format!("{id}: {} '{p}' is outside the root", u.name),
                ),
            },
            BadWitnessArg::FixtureMissing(rel) => (
                Rule::MissingFixture,
                format!("{id}: fixture '{rel}' does not exist"),
            ),
        };
        problems.push(t.problem(rule, msg, arg.file, arg.line));
    }
}
