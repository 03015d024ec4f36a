//! lane-gate's rules: one file per rule, holding its decision and its message, and one table
//! of their detectors, generated at build time. The steps of the run compute the facts (what the patch changed, which
//! plugins stay unloaded, how each pytest run ended, what its report holds, which watched
//! files were written); the rule files decide.

use lane_core::Problem;
use lane_core::detector::{Facts, Registered};
use lane_core::scan::Lane;

use crate::exercised::ExercisedFacts;
use crate::mutants::MutantFacts;
use crate::pytest::Ended;
use crate::python::Plugin;
use crate::section::CandidateFile;
use crate::surface::Entry;
use crate::trial::TrialFacts;

pub(crate) use stale_report::ShardFolderFacts;

/// The gate's facts, by the scope a detector judges.
pub(crate) enum Gate {}

impl Facts for Gate {
    type Of<'a> = GateFacts<'a>;
}

/// What one step of the run found, for the detectors of that scope.
pub(crate) enum GateFacts<'a> {
    /// Every path the patch changed, with its class (`--base`).
    Surface(&'a [Entry]),
    /// The installed plugins that no dependency manifest of the voting tree names.
    NotLoaded(&'a [Plugin]),
    /// One lane's pytest run.
    Lane(&'a LaneRunFacts),
    /// The watched files (the lock, the ledger and what they name) whose inode change time
    /// moved while pytest ran, root-relative.
    Written(&'a [String]),
    /// The test surface's files and folders that changed while pytest ran, root-relative.
    SurfaceChanged(&'a [String]),
    /// The run of the patch's new or changed tests.
    Candidates(&'a CandidateFacts<'a>),
    /// A shard's out folder, as `--collect` read it.
    ShardFolder(&'a ShardFolderFacts),
    /// What a voting pytest run's outcome channel showed of the code on trial.
    Trial(&'a TrialFacts),
    /// Which changed product statements the voting runs executed.
    Exercised(&'a ExercisedFacts),
    /// What the mutants of the changed statements the voters ran gave.
    Mutants(&'a MutantFacts),
    /// The acknowledgment given, and the commit under judgment.
    Ack(&'a AckFacts),
}

/// How one lane's pytest run ended and what its report says.
#[derive(Debug, Clone)]
pub(crate) struct LaneRunFacts {
    pub(crate) lane: Lane,
    pub(crate) ended: Ended,
    /// `--lane-timeout`, in seconds.
    pub(crate) timeout_secs: u64,
    /// The report's counts, when pytest wrote one, was not killed for the timeout, and the
    /// report reads (an unreadable one is the tally's to refuse, with its line and column).
    pub(crate) report: Option<ReportCounts>,
}

/// What a JUnit report holds, counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReportCounts {
    pub(crate) cases: u64,
    /// Cases that failed or errored.
    pub(crate) failed: u64,
}

/// An acknowledgment (`--ack`, `LANES_ACK`) and the checkout's head commit.
pub(crate) struct AckFacts {
    pub(crate) text: String,
    /// HEAD's full id, lowercase; `None` outside a git checkout or before its first commit.
    pub(crate) head: Option<String>,
}

/// How the candidates' run ended and what each of their files gave.
pub(crate) struct CandidateFacts<'a> {
    pub(crate) ended: Ended,
    /// Whether pytest wrote a report.
    pub(crate) has_report: bool,
    pub(crate) files: &'a [CandidateFile],
}

// The rule files: every file of this folder that declares a `DETECTOR` is a module here and
// a line of `DETECTORS` (and `RULE_FILES`), written by build.rs (lane-build).
include!(concat!(env!("OUT_DIR"), "/detectors.rs"));

/// The problems every detector finds in `facts`.
pub(crate) fn check(facts: &GateFacts<'_>) -> Vec<Problem> {
    let mut problems = Vec::new();
    lane_core::detector::run_all(DETECTORS, facts, &mut problems);
    problems
}

/// The table as the rule registry lists it.
pub(crate) fn registry() -> Vec<Registered> {
    lane_core::detector::registry(DETECTORS, RULE_FILES)
}
