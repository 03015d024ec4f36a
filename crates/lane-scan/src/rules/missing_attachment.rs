//! missing-attachment: what the test's lane needs besides its mark (the lane rights' `needs`).

use lane_core::{Problem, Rule};

use super::facts::TestFacts;
use super::lanes::{Needs, rights};

pub fn check(t: &TestFacts, problems: &mut Vec<Problem>) {
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
