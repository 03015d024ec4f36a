//! freeze-ledger: the freeze lane's queue with a capsule. Every freeze test has exactly one
//! ticket in `freeze_ledger.json` (seed, input digest, expiry, last replay job); `check`
//! verifies them into the `ledger` section of the evidence document, `add` / `renew` /
//! `remove` edit the file atomically, `list` shows it, and `diff` shows what a patch did to
//! it as the `ledger_diff` section.

pub mod app;
mod capsule;
mod capture;
pub mod check;
pub mod diff;
mod edit;
pub mod ledger;
mod list;
mod rules;
mod ticket_status;

/// This tool's detectors, as the rule registry lists them (lane-gate's `rule_registry` test).
pub fn registry() -> Vec<lane_core::detector::Registered> {
    lane_core::detector::registry(rules::DETECTORS, rules::RULE_FILES)
}
