//! The lanes' rights: one row per lane saying what the lane allows and requires of its tests
//! (what lane-scan's detectors judge in the source) and what each of its run-time outcomes
//! means for the patch (what lane-tally's detectors judge in the reports). Detectors consult
//! this one table instead of matching on the lane themselves, and the markdown verdict prints
//! its decision-table columns (DESIGN.md §1).

use crate::rule::Rule;
use crate::scan::Lane;

/// What a test in one lane must carry besides its mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    Nothing,
    /// An `owner:` docstring line, or for a hypothesis property its domain and a `shrinking:`
    /// note.
    OwnerOrPropertyNotes,
    /// `fixture=` (locked golden bytes) or `locked_on=` (a lock date) on the witness mark.
    FixtureOrLockDate,
}

/// A lane-specific verdict: the rule it reports and the words its message starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    pub rule: Rule,
    pub says: &'static str,
}

/// What a case that needed a rerun (retry evidence, or a pass beside a failed try) means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rerun {
    /// Reported under its own rule, beside the case's outcome: a voter that needed a rerun
    /// cannot vote, and a failure on the last try still counts as a failure.
    Flaky(Verdict),
    /// The case failed once: it did not pass, whatever the last try said.
    Failed,
    /// Reruns are what the lane is for.
    Allowed,
}

/// The decision table's columns for one lane (DESIGN.md §1).
#[derive(Debug, Clone, Copy)]
pub struct Shown {
    pub belongs: &'static str,
    pub may_fail: &'static str,
    pub may_approve: &'static str,
    pub attachment: &'static str,
}

/// One lane's row of the table.
#[derive(Debug, Clone, Copy)]
pub struct LaneRights {
    pub lane: Lane,
    /// An expected failure (`xfail`, `expectedFailure`) is refused in the source.
    pub no_xfail: bool,
    /// A retry on failure (`flaky`, `--reruns`) is refused in the source.
    pub no_retry: bool,
    pub needs: Needs,
    /// Its assertions must be able to fail (no-assertion, tautology).
    pub real_assertions: bool,
    /// Whether the lane's failures reject the patch (its `failed` rule is an error).
    pub may_fail: bool,
    /// Whether the lane's passes count as votes for the patch.
    pub may_approve: bool,
    /// A case that failed or errored.
    pub failed: Verdict,
    /// A case skipped (or xfailed, unless the lane has a `known_failure`) at run time.
    pub skipped: Verdict,
    /// A scanned test of the lane with no case in the lane's reports.
    pub missing: Verdict,
    pub rerun: Rerun,
    /// A failed case must name its replay artifact, or this verdict is reported.
    pub replay: Option<Verdict>,
    /// An xfail here is a recorded known failure (it ran, and is not a skip); a strict xpass
    /// of one reports this verdict instead of a failure.
    pub known_failure: Option<Verdict>,
    /// The decision table's words for the lane, as the markdown verdict prints them.
    pub shown: Shown,
}

/// Every lane's rights, in `Lane::ALL` order; a voting lane refuses expected failures and
/// retries.
pub const RIGHTS: [LaneRights; 3] = [
    LaneRights {
        lane: Lane::Merge,
        no_xfail: true,
        no_retry: true,
        needs: Needs::OwnerOrPropertyNotes,
        real_assertions: true,
        may_fail: true,
        may_approve: true,
        failed: Verdict {
            rule: Rule::MergeFailed,
            says: "merge test failed",
        },
        skipped: Verdict {
            rule: Rule::MergeSkipped,
            says: "merge test was skipped at run time",
        },
        missing: Verdict {
            rule: Rule::MissingVote,
            says: "merge test did not vote",
        },
        rerun: Rerun::Flaky(Verdict {
            rule: Rule::FlakyVoter,
            says: "merge test is flaky and cannot vote",
        }),
        replay: None,
        known_failure: None,
        shown: Shown {
            belongs: "invariants over a generated domain; human-written input/output pairs",
            may_fail: "yes",
            may_approve: "yes",
            attachment: "domain + `shrinking:` note, or an `owner:` line",
        },
    },
    LaneRights {
        lane: Lane::Witness,
        no_xfail: true,
        no_retry: true,
        needs: Needs::FixtureOrLockDate,
        real_assertions: false,
        may_fail: true,
        may_approve: false,
        failed: Verdict {
            rule: Rule::WitnessFailed,
            says: "witness test failed",
        },
        skipped: Verdict {
            rule: Rule::WitnessSkipped,
            says: "witness test was skipped",
        },
        missing: Verdict {
            rule: Rule::MissingWitness,
            says: "witness test did not run",
        },
        rerun: Rerun::Failed,
        replay: None,
        known_failure: None,
        shown: Shown {
            belongs: "golden files / snapshot bytes; characterization of current behaviour",
            may_fail: "yes, when a digest moves",
            may_approve: "no",
            attachment: "SHA-256 in the lock, or a lock date",
        },
    },
    LaneRights {
        lane: Lane::Freeze,
        no_xfail: false,
        no_retry: false,
        needs: Needs::Nothing,
        real_assertions: false,
        may_fail: false,
        may_approve: false,
        failed: Verdict {
            rule: Rule::FreezeFailed,
            says: "freeze test failed (recorded, not a vote)",
        },
        skipped: Verdict {
            rule: Rule::MissingFreezeRun,
            says: "freeze test was skipped",
        },
        missing: Verdict {
            rule: Rule::MissingFreezeRun,
            says: "freeze test did not run",
        },
        rerun: Rerun::Allowed,
        replay: Some(Verdict {
            rule: Rule::MissingReplayArtifact,
            says: "failed freeze case without a replay artifact",
        }),
        known_failure: Some(Verdict {
            rule: Rule::KnownFailurePassed,
            says: "known failure passed (xfail strict=True reported XPASS): promote it",
        }),
        shown: Shown {
            belongs: "intermittent failure with a captured seed",
            may_fail: "no (non-voting)",
            may_approve: "no",
            attachment: "ledger row: seed, input digest, expiry, last replay job",
        },
    },
];

/// The rights of `lane`.
pub fn of(lane: Lane) -> &'static LaneRights {
    match lane {
        Lane::Merge => &RIGHTS[0],
        Lane::Witness => &RIGHTS[1],
        Lane::Freeze => &RIGHTS[2],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Severity;

    #[test]
    fn one_row_per_lane_in_order() {
        let lanes: Vec<Lane> = RIGHTS.iter().map(|r| r.lane).collect();
        assert_eq!(lanes, Lane::ALL);
        for lane in Lane::ALL {
            assert_eq!(of(lane).lane, lane);
        }
    }

    #[test]
    fn every_lane_has_one_row_and_voting_lanes_refuse_xfail_and_retry() {
        for lane in Lane::ALL {
            assert_eq!(
                RIGHTS.iter().filter(|r| r.lane == lane).count(),
                1,
                "{lane}"
            );
            let r = of(lane);
            assert_eq!(r.lane, lane);
            assert_eq!(r.no_xfail, lane.votes(), "{lane}");
            assert_eq!(r.no_retry, lane.votes(), "{lane}");
        }
    }

    /// The table's rights agree with the catalogue's severities and with the words the
    /// verdict prints: a lane that may fail the patch reports its failures as errors.
    #[test]
    fn rights_agree_with_severities_and_words() {
        for r in &RIGHTS {
            let fails = r.failed.rule.severity() == Severity::Error;
            assert_eq!(fails, r.may_fail, "{}", r.lane);
            assert_eq!(
                r.shown.may_fail.starts_with("yes"),
                r.may_fail,
                "{}",
                r.lane
            );
            assert_eq!(
                r.shown.may_approve.starts_with("yes"),
                r.may_approve,
                "{}",
                r.lane
            );
            // Not running, and being skipped, reject the patch in every lane.
            for v in [r.skipped, r.missing] {
                assert_eq!(v.rule.severity(), Severity::Error, "{}", r.lane);
            }
            for v in [r.failed, r.skipped, r.missing] {
                assert!(
                    v.says.starts_with(r.lane.as_str()),
                    "{}: {}",
                    r.lane,
                    v.says
                );
            }
            // Only a lane that may approve has voters to be flaky.
            assert_eq!(
                matches!(r.rerun, Rerun::Flaky(_)),
                r.may_approve,
                "{}",
                r.lane
            );
        }
    }
}
