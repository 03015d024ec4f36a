//! The vote: lane-tally over the evidence, with the gate's own reasons to reject and the
//! acknowledgment applied, and the verdict it makes. Shared by a single run and `--collect`.

use lane_core::{Document, Problem};
use lane_tally::{Decision, TallySection};

use crate::{GateError, ack, from_tool};

/// lane-tally's vote over `doc`; each problem of `extra` (the gate's own findings about the
/// reports) is a reason to reject; acknowledgeable reasons lifted by `ack`.
pub(crate) fn vote(
    doc: &Document,
    options: &lane_tally::Options,
    extra: Vec<Problem>,
    ack: Option<&str>,
) -> Result<TallySection, GateError> {
    let mut tally = lane_tally::vote::tally(doc, options).map_err(from_tool("lane-tally"))?;
    if !extra.is_empty() {
        tally.problems.extend(extra.iter().cloned());
        lane_core::problem::normalize(&mut tally.problems);
        tally.reasons.extend(extra);
        lane_core::problem::normalize(&mut tally.reasons);
        tally.decision = Decision::Reject;
    }
    if let Some(text) = ack {
        ack::acknowledge_tally(&mut tally, text);
    }
    Ok(tally)
}
