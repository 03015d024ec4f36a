//! The rules of DESIGN.md §4 as detectors: each takes the facts it needs and pushes the
//! problems it finds. A test's facts are gathered once ([`facts`]); what a lane allows and
//! requires is one table ([`lanes`]).
//!
//! A new rule: its catalogue entry in lane-core's `rule.rs`, one detector file here (or a
//! function in the file of its close family), its line in one of the lists below, its tests.

mod addopts_retry;
mod assertions;
pub mod facts;
mod lane_budget;
mod lane_count;
pub mod lanes;
mod markers;
mod missing_attachment;
mod param_marks;
mod runtime_hooks;
mod skips;
mod unresolved_marker;
mod voting_lane;
mod witness_args;

use lane_core::scan::{Counts, ScanTest};
use lane_core::{Problem, Rule};

use crate::collect::TestFound;
use crate::config::Config;
use crate::marks::{ModuleFile, Tree};

pub use facts::TestFacts;

/// A detector judging one test.
type TestDetector = fn(&TestFacts, &mut Vec<Problem>);

/// The detectors run on every collected test.
const TEST_DETECTORS: &[TestDetector] = &[
    skips::check,
    voting_lane::check,
    unresolved_marker::check,
    param_marks::check,
    witness_args::check,
    lane_count::check,
    missing_attachment::check,
    assertions::check,
];

/// A detector judging the suite as a whole.
type SuiteDetector = fn(&SuiteFacts, &mut Vec<Problem>);

/// The detectors run once per scan, after every test is counted.
const SUITE_DETECTORS: &[SuiteDetector] =
    &[markers::check, addopts_retry::check, lane_budget::check];

/// Checks one collected test: its record, and its problems pushed to `problems`.
pub fn check_test(tree: &Tree, found: TestFound, problems: &mut Vec<Problem>) -> ScanTest {
    let test = {
        let facts = TestFacts::gather(tree, &found);
        for detect in TEST_DETECTORS {
            detect(&facts, problems);
        }
        ScanTest {
            id: String::new(),
            file: facts.file.to_string(),
            line: facts.func.line,
            lane: facts.lane,
            lanes: facts.lanes,
            marks: facts.marks,
            parametrized: facts.parametrized,
            attachments: facts.attachments,
        }
    };
    ScanTest {
        id: found.id,
        ..test
    }
}

/// A conftest.py's problems of its own (hooks that act at run time).
pub fn check_conftest(module: &ModuleFile, problems: &mut Vec<Problem>) {
    runtime_hooks::check(module, problems);
}

/// What the suite detectors judge: the configuration and the lanes' sizes.
pub struct SuiteFacts<'a> {
    pub config: &'a Config,
    /// The configuration file, root-relative.
    pub config_rel: Option<String>,
    pub counts: &'a Counts,
}

impl SuiteFacts<'_> {
    /// `p` placed at `line` of the configuration file (at the file when the line is unknown).
    fn locate(&self, p: Problem, line: Option<u64>) -> Problem {
        match (&self.config_rel, line) {
            (Some(f), Some(l)) if l > 0 => p.at(f, l),
            (Some(f), _) => p.file(f),
            _ => p,
        }
    }
}

/// Checks the suite as a whole.
pub fn check_suite(config: &Config, counts: &Counts, problems: &mut Vec<Problem>) {
    let facts = SuiteFacts {
        config,
        config_rel: config
            .file
            .as_ref()
            .and_then(|f| lane_core::paths::relative_to(f, &config.rootdir)),
        counts,
    };
    for detect in SUITE_DETECTORS {
        detect(&facts, problems);
    }
}

impl TestFacts<'_> {
    /// A problem of this test at `file:line`.
    fn problem(&self, rule: Rule, msg: String, file: &str, line: u64) -> Problem {
        Problem::new(rule, msg).at(file, line).test(self.id)
    }
}
