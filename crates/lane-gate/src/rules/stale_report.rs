//! `stale-report` (lane-gate's own detector, for `--collect`): a shard's out folder that mixes two
//! runs (its manifest names other evidence than its evidence.json), or a lane report that is not
//! the one its shard's gate wrote (the manifest records another digest, or none). lane-tally
//! reports the rule too, for a report bound to another document.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Gate, GateFacts};
use crate::shard::MANIFEST_FILE;

pub(crate) const DETECTOR: Detector<Gate> = Detector {
    rules: &[Rule::StaleReport],
    check,
};

/// One shard's out folder as `--collect` read it.
pub(crate) struct ShardFolderFacts {
    /// The folder, as given.
    pub(crate) name: String,
    /// The evidence digest the manifest names, and the digest of the folder's evidence.json.
    pub(crate) named_evidence: String,
    pub(crate) evidence: String,
    /// Each lane report in the folder: its path, the digest the manifest records for it, and
    /// its own.
    pub(crate) reports: Vec<(String, Option<String>, String)>,
}

fn check(facts: &GateFacts<'_>, problems: &mut Vec<Problem>) {
    let GateFacts::ShardFolder(f) = facts else {
        return;
    };
    if f.named_evidence != f.evidence {
        problems.push(
            Problem::new(
                Rule::StaleReport,
                format!(
                    "{}: {MANIFEST_FILE} names evidence {}, but the folder's evidence.json is {}: \
                     the folder mixes two runs",
                    f.name,
                    &f.named_evidence[..f.named_evidence.len().min(12)],
                    &f.evidence[..f.evidence.len().min(12)]
                ),
            )
            .file(format!("{}/{MANIFEST_FILE}", f.name)),
        );
    }
    for (path, recorded, actual) in &f.reports {
        if recorded.as_deref() == Some(actual.as_str()) {
            continue;
        }
        problems.push(
            Problem::new(
                Rule::StaleReport,
                format!(
                    "{path}: the report is not the one its shard's gate wrote ({MANIFEST_FILE} \
                     records {}): replaced or left over from another run",
                    recorded
                        .as_deref()
                        .map_or("no report", |r| &r[..r.len().min(12)])
                ),
            )
            .file(path.clone()),
        );
    }
}
