//! `capsule-mismatch`: a valid ticket's capsule (`input_path`) is unsafe, missing, unreadable
//! or hashes to another digest than `input_sha256`.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{FreezeLedger, LedgerFacts};

pub(crate) const DETECTOR: Detector<FreezeLedger> = Detector {
    rules: &[Rule::CapsuleMismatch],
    check,
};

fn check(facts: &LedgerFacts<'_>, problems: &mut Vec<Problem>) {
    let LedgerFacts::Row(row) = facts else {
        return;
    };
    if let Err(why) = row.capsule {
        problems.push(row.place(Problem::new(Rule::CapsuleMismatch, why.clone())));
    }
}
