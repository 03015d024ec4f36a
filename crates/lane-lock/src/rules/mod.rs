//! lane-lock's detectors: one file per rule (or close family), each holding its decision and
//! its messages and declaring its `Detector` over the facts of the scope it judges (verify's
//! or diff's), all listed in [`DETECTORS`], generated at build time. A new rule is a variant in
//! lane-core's catalogue and one file here.
//!
//! Detectors only read facts (the files were read and hashed before), so they can run in any
//! order: the problems are sorted and deduplicated afterwards.

use lane_core::detector::Facts;

use crate::diff::DiffFacts;
use crate::verify::VerifyFacts;

/// The facts of lane-lock, as the detectors' table names them.
pub(crate) enum Lock {}

impl Facts for Lock {
    type Of<'a> = LockFacts<'a>;
}

/// What a detector judges: the facts of `lane-lock verify` or of `lane-lock diff`.
pub(crate) enum LockFacts<'a> {
    Verify(&'a VerifyFacts),
    Diff(&'a DiffFacts<'a>),
}

// The rule files: every file of this folder that declares a `DETECTOR` is a module here and
// a line of `DETECTORS` (and `RULE_FILES`), written by build.rs (lane-build).
include!(concat!(env!("OUT_DIR"), "/detectors.rs"));

#[cfg(test)]
mod tests {
    use lane_core::Rule;

    use super::*;

    /// Every rule the catalogue gives lane-lock has a detector here.
    #[test]
    fn every_lock_rule_has_a_detector() {
        for rule in Rule::ALL.iter().filter(|r| r.tool() == "lane-lock") {
            assert!(
                DETECTORS.iter().any(|d| d.rules.contains(rule)),
                "{rule} has no detector"
            );
        }
    }
}
