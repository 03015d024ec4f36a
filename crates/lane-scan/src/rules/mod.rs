//! The rules of DESIGN.md §4 as detectors: each takes the facts it needs and pushes the
//! problems it finds. A test's facts are gathered once ([`facts`]); what a lane allows and
//! requires is one table ([`lanes`]).
//!
//! A new rule: its catalogue entry in lane-core's `rule.rs`, one detector file here (or a
//! function in the file of its close family), its line in one of the lists below, its tests.

mod addopts_retry;
mod assertions;
mod coding_cookie;
pub mod facts;
mod lane_budget;
mod lane_count;
pub mod lanes;
pub(crate) mod markers;
mod missing_attachment;
mod param_marks;
mod runtime_hooks;
mod skips;
mod swallowed_failure;
mod test_redefined;
mod unresolved_marker;
mod unsafe_addopts;
mod voting_lane;
pub mod weakened_search;
mod witness_args;

use lane_core::scan::{Counts, Lane, ScanTest};
use lane_core::{Problem, Rule};

use crate::collect::TestFound;
use crate::config::Config;
use crate::marks::{ModuleFile, SourceTree};

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
    swallowed_failure::check,
    weakened_search::check,
];

/// A detector judging the suite as a whole.
type SuiteDetector = fn(&SuiteFacts, &mut Vec<Problem>);

/// The detectors run once per scan, after every test is counted.
const SUITE_DETECTORS: &[SuiteDetector] = &[
    markers::check,
    addopts_retry::check,
    lane_budget::check,
    unsafe_addopts::check,
];

/// Why an unmarked test cannot vote, as the scan's own rules judge it: `lane-scan --fix`
/// decides by this, so that every test it gives a voting lane passes these rules, and every
/// test they reject as a voter is a freeze candidate (issue 19).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NoVote {
    /// The test as a whole: the problems a voting lane would get from the lane rules
    /// (`unconditional-skip`: a skip mark or decorator, a `skipif` / `skipIf` / `skipUnless`
    /// decided as skipping, one reaching it from a class or module `pytestmark`, `pytest.skip()`
    /// in its body or at module level; `xfail-in-voting-lane`; `retry-in-voting-lane`), by
    /// rule id. Sorted, unique.
    pub whole: Vec<NoVoteAt>,
    /// One parameter set's (`pytest.param(..., marks=...)`, a parametrized fixture's params):
    /// an unconditional skip or an expected failure, by mark name. Sorted, unique.
    pub params: Vec<NoVoteAt>,
}

/// One reason in [`NoVote`], with its place.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct NoVoteAt {
    pub what: String,
    pub file: String,
    pub line: u64,
}

impl NoVote {
    fn is_empty(&self) -> bool {
        self.whole.is_empty() && self.params.is_empty()
    }
}

/// The lane rules that refuse a voter, and the detectors that raise them.
const NO_VOTE_RULES: [Rule; 3] = [
    Rule::UnconditionalSkip,
    Rule::XfailInVotingLane,
    Rule::RetryInVotingLane,
];

/// [`NoVote`] for an unmarked test: its lane detectors run as if it were in each voting lane.
fn no_vote(facts: &mut TestFacts) -> NoVote {
    let mut found = Vec::new();
    skips::check(facts, &mut found);
    let lane = facts.lane;
    for voting in Lane::ALL.into_iter().filter(|l| l.votes()) {
        facts.lane = Some(voting);
        voting_lane::check(facts, &mut found);
    }
    facts.lane = lane;
    let mut whole: Vec<NoVoteAt> = found
        .into_iter()
        .filter(|p| NO_VOTE_RULES.iter().any(|r| r.id() == p.rule))
        .map(|p| NoVoteAt {
            what: p.rule,
            file: p.file.unwrap_or_default(),
            line: p.line.unwrap_or(0),
        })
        .collect();
    whole.sort();
    whole.dedup();
    let mut params: Vec<NoVoteAt> = facts
        .param_marks
        .iter()
        .filter_map(|m| {
            let what = match &m.what {
                facts::ParamMark::Skip(name) => name.clone(),
                facts::ParamMark::Xfail => "xfail".to_string(),
                _ => return None,
            };
            Some(NoVoteAt {
                what,
                file: m.file.to_string(),
                line: m.line,
            })
        })
        .collect();
    params.sort();
    params.dedup();
    NoVote { whole, params }
}

/// Checks one collected test: its record, and its problems pushed to `problems`; with why it
/// cannot vote when it has no lane ([`NoVote`]; None when nothing keeps it from voting).
pub fn check_test(
    tree: &SourceTree,
    found: TestFound,
    profile: Option<&weakened_search::Profile>,
    snapshots: Option<&crate::snapshots::TestSnapshots>,
    problems: &mut Vec<Problem>,
) -> (ScanTest, Option<NoVote>) {
    let (test, no_vote) = {
        let mut facts = TestFacts::gather(tree, &found, profile);
        if let Some(s) = snapshots {
            facts.snapshot_fixtures(s);
        }
        for detect in TEST_DETECTORS {
            detect(&facts, problems);
        }
        let no_vote = if facts.lanes.is_empty() {
            Some(no_vote(&mut facts)).filter(|n| !n.is_empty())
        } else {
            None
        };
        let empty_params = facts.empty_params();
        let test = ScanTest {
            id: String::new(),
            defined_in: (facts.func_file != facts.file).then(|| facts.func_file.to_string()),
            file: facts.file.to_string(),
            line: facts.func.line,
            lane: facts.lane,
            lanes: facts.lanes,
            marks: facts.marks,
            parametrized: facts.parametrized,
            attachments: facts.attachments,
            empty_params,
        };
        (test, no_vote)
    };
    (
        ScanTest {
            id: found.id,
            ..test
        },
        no_vote,
    )
}

/// A conftest.py's problems of its own (hooks that act at run time).
pub fn check_conftest(module: &ModuleFile, problems: &mut Vec<Problem>) {
    runtime_hooks::check(module, problems);
}

/// Any parsed module's problems of its own: its encoding, and in a test file, test names
/// bound twice (decided for the interpreter `target` gives, asked for only when needed).
pub fn check_module(
    module: &ModuleFile,
    config: &Config,
    is_test_file: bool,
    target: &dyn Fn() -> Option<lane_python::Target>,
    problems: &mut Vec<Problem>,
) {
    coding_cookie::check(module, problems);
    if is_test_file {
        test_redefined::check(module, config, target, problems);
    }
}

/// What the suite detectors judge: the configuration and the lanes' sizes.
pub struct SuiteFacts<'a> {
    pub config: &'a Config,
    /// The configuration file, root-relative.
    pub config_rel: Option<String>,
    pub counts: &'a Counts,
    /// The runs load pytest-lanes-gate, which registers the lane markers.
    pub markers_plugin: bool,
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
pub fn check_suite(
    config: &Config,
    counts: &Counts,
    markers_plugin: bool,
    problems: &mut Vec<Problem>,
) {
    let facts = SuiteFacts {
        config,
        config_rel: config
            .file
            .as_ref()
            .and_then(|f| lane_core::paths::relative_to(f, &config.rootdir)),
        counts,
        markers_plugin,
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

#[cfg(test)]
mod tests {
    use lane_core::scan::Lane;

    use super::*;
    use lane_python::{Asserts, Function};

    fn function(asserts: Asserts) -> Function {
        Function {
            name: "test_x".into(),
            line: 7,
            decorators: Vec::new(),
            docstring: None,
            is_async: false,
            async_generator: false,
            asserts,
            body_calls: Vec::new(),
            assumes: Vec::new(),
            mentions_mark: false,
            params: Vec::new(),
            snapshot_dirs: Vec::new(),
            guards: Vec::new(),
            returns_call_of_param: None,
            regression_checks: Vec::new(),
        }
    }

    /// The facts of a test `t.py::test_x` at line 7 in `lanes`, nothing else reaching it.
    fn facts(func: &Function, lanes: &[Lane]) -> TestFacts<'static> {
        // Leaked: a test's facts borrow what they describe.
        let func: &'static Function = Box::leak(Box::new(func.clone()));
        TestFacts {
            id: "t.py::test_x",
            func,
            func_file: "t.py",
            file: "t.py",
            lane: if let [lane] = lanes {
                Some(*lane)
            } else {
                None
            },
            lanes: lanes.to_vec(),
            marks: Vec::new(),
            param_only_marks: Vec::new(),
            parametrized: false,
            given: false,
            attachments: Default::default(),
            effects: Vec::new(),
            param_marks: Vec::new(),
            bad_witness_args: Vec::new(),
            body_skips: Vec::new(),
            module_skip: None,
            empty_set_mark: crate::collect::EmptySetMark::Skip,
            computed_params: Vec::new(),
            empty_fixture_params: Vec::new(),
            plugin_xfail: false,
        }
    }

    fn rules(detector: TestDetector, t: &TestFacts) -> Vec<(String, Option<u64>)> {
        let mut problems = Vec::new();
        detector(t, &mut problems);
        problems.into_iter().map(|p| (p.rule, p.line)).collect()
    }

    fn asserts(asserts: u32, tautologies: u32, checks: u32) -> Asserts {
        Asserts {
            asserts,
            tautologies,
            first_tautology: (tautologies > 0).then_some(9),
            checks,
            ..Asserts::default()
        }
    }

    #[test]
    fn lane_count_wants_exactly_one_lane() {
        let f = function(Asserts::default());
        let of = |lanes: &[Lane]| rules(lane_count::check, &facts(&f, lanes));
        assert_eq!(of(&[]), [("unmarked".to_string(), Some(7))]);
        assert_eq!(of(&[Lane::Freeze]), []);
        assert_eq!(
            of(&[Lane::Merge, Lane::Freeze]),
            [("multiple-lanes".to_string(), Some(7))]
        );
    }

    #[test]
    fn assertions_are_judged_only_where_the_lane_rights_say() {
        let of = |a: Asserts, lanes: &[Lane]| rules(assertions::check, &facts(&function(a), lanes));
        assert_eq!(
            of(asserts(0, 0, 0), &[Lane::Merge]),
            [("no-assertion".to_string(), Some(7))]
        );
        assert_eq!(
            of(asserts(2, 2, 0), &[Lane::Merge]),
            [("tautology".to_string(), Some(9))]
        );
        assert_eq!(of(asserts(2, 1, 0), &[Lane::Merge]), []);
        assert_eq!(of(asserts(2, 2, 1), &[Lane::Merge]), []);
        assert_eq!(of(asserts(0, 0, 1), &[Lane::Merge]), []);
        for lanes in [
            &[Lane::Witness][..],
            &[Lane::Freeze],
            &[],
            &[Lane::Merge, Lane::Freeze],
        ] {
            assert_eq!(of(asserts(0, 0, 0), lanes), [], "{lanes:?}");
        }
    }

    #[test]
    fn missing_attachment_follows_each_lanes_needs() {
        let f = function(Asserts::default());
        let of = |t: &TestFacts| rules(missing_attachment::check, t);
        let missing = [("missing-attachment".to_string(), Some(7))];
        assert_eq!(of(&facts(&f, &[Lane::Merge])), missing);
        assert_eq!(of(&facts(&f, &[Lane::Witness])), missing);
        assert_eq!(of(&facts(&f, &[Lane::Freeze])), []);
        let mut owned = facts(&f, &[Lane::Merge]);
        owned.attachments.owner = Some("team".into());
        assert_eq!(of(&owned), []);
        // A property needs its domain and a shrinking note, not an owner.
        owned.given = true;
        assert_eq!(of(&owned), missing);
        owned.attachments.domain = Some("st.integers()".into());
        owned.attachments.shrinking = Some("toward zero".into());
        owned.attachments.owner = None;
        assert_eq!(of(&owned), []);
        let mut dated = facts(&f, &[Lane::Witness]);
        dated.attachments.locked_on = Some("2026-01-01".into());
        assert_eq!(of(&dated), []);
    }
}
