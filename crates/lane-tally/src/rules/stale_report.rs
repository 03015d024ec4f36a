//! `stale-report`: a report whose run manifest does not bind it to the document the vote
//! reads: a manifest naming another document's digest or another lane, a malformed one,
//! several in one file, or none where the document was made by lane-gate (it has a `run`
//! section, so every report it asked for carries one). Such a report does not vote.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Tally, TallyFacts};
use crate::shards::Binding;

pub(crate) const DETECTOR: Detector<Tally> = Detector {
    rules: &[Rule::StaleReport],
    check,
};

fn short(digest: &str) -> &str {
    &digest[..digest.len().min(12)]
}

fn check(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
    let shards = facts.shards;
    for report in &shards.reports {
        let why = match &report.binding {
            Binding::Unbound | Binding::Answers(_) => continue,
            Binding::NoManifest => "carries no run manifest (no <testsuite> named 'lanes-run \
                 ...'): it was not written by a run of this evidence document"
                .to_string(),
            Binding::Malformed(why) => format!("malformed run manifest: {why}"),
            Binding::Several(n) => format!(
                "holds {n} run manifests (reports of several runs merged into one file): give \
                 each shard's report on its own"
            ),
            Binding::OtherLane(m) => format!(
                "its run manifest says it is the {} lane's report (shard {}/{})",
                m.lane, m.shard, m.of
            ),
            Binding::OtherDocument(m) => format!(
                "answers evidence document {}, but the vote reads {}: a report from another \
                 scan or an earlier run",
                short(&m.evidence),
                short(&shards.digest)
            ),
        };
        problems.push(
            Problem::new(
                Rule::StaleReport,
                format!("{} ({} lane): {why}", report.name, report.lane),
            )
            .file(report.name.clone()),
        );
    }
}
