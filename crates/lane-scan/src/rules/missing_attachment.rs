//! missing-attachment: what the test's lane needs besides its mark (the lane rights' `needs`),
//! and witness arguments that give no attachment (`fixture=` that is not text, a `locked_on=`
//! that is not a date, a snapshot folder or file name that is not a literal).

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::facts::{BadWitnessArg, TestFacts};
use super::{DoctestFacts, Scan, ScanFacts};
use crate::pytest::doctest::LANE_KEY;
use lane_core::rights::{Needs, of as rights};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::MissingAttachment],
    check,
};

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    match facts {
        ScanFacts::Test(t) => {
            lane_needs(t, problems);
            witness_args(t, problems);
        }
        ScanFacts::Doctest(d) => doctest(d, problems),
        _ => {}
    }
}

fn lane_needs(t: &TestFacts, problems: &mut Vec<Problem>) {
    let Some(lane) = t.lane else { return };
    let (id, have) = (t.id, &t.attachments);
    let msg = match rights(lane).needs {
        Needs::Nothing => return,
        Needs::OwnerOrPropertyNotes if t.given => {
            let mut missing = Vec::new();
            if have.domain.is_none() {
                missing.push("a domain (@given strategies)");
            }
            if have.shrinking.is_none() {
                missing.push("a 'shrinking:' note in the docstring");
            }
            if missing.is_empty() {
                return;
            }
            format!("{lane} property {id} needs {}", missing.join(" and "))
        }
        Needs::OwnerOrPropertyNotes if have.owner.is_none() => {
            format!("{lane} test {id} needs an 'owner:' line in its docstring")
        }
        Needs::OwnerOrPropertyNotes => return,
        Needs::FixtureOrLockDate if have.fixtures.is_empty() && have.locked_on.is_none() => {
            format!(
                "{lane} test {id} needs fixture= (locked golden bytes) or locked_on= (a lock date)"
            )
        }
        Needs::FixtureOrLockDate => return,
    };
    problems.push(t.problem(Rule::MissingAttachment, msg, t.func_file, t.func.line));
}

/// The witness mark's arguments that give no attachment.
fn witness_args(t: &TestFacts, problems: &mut Vec<Problem>) {
    let id = t.id;
    for arg in &t.bad_witness_args {
        let msg = match &arg.what {
            BadWitnessArg::FixtureNotText => {
                format!("{id}: fixture= must be a string or a list of strings")
            }
            BadWitnessArg::BadLockDate => {
                format!("{id}: locked_on= must be a date string YYYY-MM-DD")
            }
            BadWitnessArg::SnapshotUnresolved(u) if u.literal.is_none() => format!(
                "{id}: {} is not a string literal: its snapshot files cannot be found; {}",
                u.what, u.hint
            ),
            _ => continue,
        };
        problems.push(t.problem(Rule::MissingAttachment, msg, arg.file, arg.line));
    }
}

/// A doctest item's lane needs, by the same rights: an owner in a lane that needs one (from
/// docstrings or CODEOWNERS: a doctest is no property); locked bytes or a lock date, which a
/// doctest item cannot carry.
fn doctest(d: &DoctestFacts, problems: &mut Vec<Problem>) {
    let Some(lane) = d.lane else { return };
    let (id, file) = (d.id, d.file);
    let msg = match rights(lane).needs {
        Needs::OwnerOrPropertyNotes if !d.has_owner => format!(
            "{lane} test {id} needs an 'owner:' line in its docstring (or an enclosing class's \
             or the module's, or a CODEOWNERS entry for {file})"
        ),
        Needs::FixtureOrLockDate => format!(
            "{lane} test {id} needs fixture= (locked golden bytes) or locked_on= (a lock date), \
             which a doctest item cannot carry: give doctests ({LANE_KEY} in {}) the merge or \
             freeze lane",
            d.config_file
        ),
        _ => return,
    };
    problems.push(
        Problem::new(Rule::MissingAttachment, msg)
            .at(file, d.line)
            .test(id),
    );
}
