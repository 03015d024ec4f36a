//! The rules of DESIGN.md §4, one file each: a rule file holds its decision and its message
//! and declares its `Detector`; [`DETECTORS`] lists them all, generated at build time. The
//! passes that read the tree (collection, the facts of a test, doctests, product code) compute facts and
//! decide nothing; each detector judges the scopes of [`ScanFacts`] it cares about. What a lane
//! allows and requires is one table (`lane_core::rights`).
//!
//! A new rule: its catalogue entry in lane-core's `rule.rs` and one file here that declares its
//! `DETECTOR` (with its tests); docs/architecture.md walks through it.

pub(crate) mod facts;

use lane_core::detector::Facts;
use lane_core::scan::{Counts, Lane, ScanTest};
use lane_core::{Problem, Rule};
use lane_python::Target;

use crate::pytest::collect::{TestFound, Unsure};
use crate::pytest::config::Config;
use crate::pytest::marks::{ModuleFile, SourceTree};

pub(crate) use facts::TestFacts;
pub(crate) use parse_error::{Unreadable, Why, is_parse_error};
pub(crate) use test_aware_code::{ProductFile, Unjudged};
pub(crate) use unresolved_collect_ignore::{IgnoreUnsure, IgnoreWhy};

/// lane-scan's facts, as the detectors' table names them.
pub(crate) enum Scan {}

impl Facts for Scan {
    type Of<'a> = ScanFacts<'a>;
}

/// What one run of the detectors judges: one scope of the scan.
pub(crate) enum ScanFacts<'a> {
    /// A collected test function or method.
    Test(&'a TestFacts<'a>),
    /// A doctest item.
    Doctest(&'a DoctestFacts<'a>),
    /// A parsed module of the tree.
    Module(&'a ModuleFacts<'a>),
    /// A module collected with `--doctest-modules` (its docstrings' items).
    DoctestModule(&'a DoctestModuleFacts<'a>),
    /// A file the scan could not read.
    Unreadable(&'a Unreadable),
    /// A statement of a conftest about `collect_ignore` that cannot be read.
    CollectIgnore(&'a IgnoreUnsure<'a>),
    /// A product file judged for test-aware-code.
    Product(&'a ProductFile<'a>),
    /// The suite as a whole, once every test is counted.
    Suite(&'a SuiteFacts<'a>),
}

// The rule files: every file of this folder that declares a `DETECTOR` is a module here and
// a line of `DETECTORS` (and `RULE_FILES`), written by build.rs (lane-build).
include!(concat!(env!("OUT_DIR"), "/detectors.rs"));

/// Runs every detector on `facts`.
pub(crate) fn judge(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    lane_core::detector::run_all(DETECTORS, facts, problems);
}

/// Why an unmarked test cannot vote, as the scan's own rules judge it: `lane-scan --fix`
/// decides by this, so that every test it gives a voting lane passes these rules, and every
/// test they reject as a voter is a freeze candidate.
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
    /// What the test would still be refused for in each voting lane that nothing `--fix`
    /// writes can mend (`tautology`, `no-assertion`: its body is a human's to change), by
    /// lane: `--fix` lists them for the lane it gives. Sorted, unique.
    pub left: Vec<LeftFor>,
}

/// One problem of [`NoVote::left`]: the rule and the message the test gets in `lane`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct LeftFor {
    pub lane: Lane,
    pub rule: String,
    pub line: u64,
    pub message: String,
}

/// The rules whose problems `lane-scan --fix` cannot mend and lists as left for a human, for
/// the tests it gives a lane and wherever the scan already reports them.
pub const LEFT_FOR_HUMAN: &[Rule] = &[
    tautology::LEFT_FOR_HUMAN,
    no_assertion::LEFT_FOR_HUMAN,
    undecided_test_branch::LEFT_FOR_HUMAN,
];

/// One reason in [`NoVote`], with its place.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct NoVoteAt {
    pub what: String,
    pub file: String,
    pub line: u64,
}

impl NoVote {
    fn is_empty(&self) -> bool {
        self.whole.is_empty() && self.params.is_empty() && self.left.is_empty()
    }
}

/// [`NoVote`] for an unmarked test: the lane rules that refuse a voter (skips.rs and
/// voting_lane.rs, by the rules they name as refusing one) judge it as a whole, as if it were
/// in each voting lane.
fn no_vote(facts: &mut TestFacts) -> NoVote {
    let mut found = Vec::new();
    skips::whole_test(facts, &mut found);
    let lane = facts.lane;
    let mut left = Vec::new();
    for voting in Lane::ALL.into_iter().filter(|l| l.votes()) {
        facts.lane = Some(voting);
        (voting_lane::DETECTOR.check)(&ScanFacts::Test(facts), &mut found);
        let mut judged = Vec::new();
        for detector in [&tautology::DETECTOR, &no_assertion::DETECTOR] {
            (detector.check)(&ScanFacts::Test(facts), &mut judged);
        }
        left.extend(judged.into_iter().map(|p| LeftFor {
            lane: voting,
            rule: p.rule,
            line: p.line.unwrap_or(0),
            message: p.message,
        }));
    }
    facts.lane = lane;
    left.sort();
    left.dedup();
    let refuses = |rule: &str| {
        skips::REFUSES_VOTER
            .iter()
            .chain(voting_lane::REFUSES_VOTER)
            .any(|r| r.id() == rule)
    };
    let mut whole: Vec<NoVoteAt> = found
        .into_iter()
        .filter(|p| refuses(&p.rule))
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
    NoVote {
        whole,
        params,
        left,
    }
}

/// Checks one collected test: its record, and its problems pushed to `problems`; with why it
/// cannot vote when it has no lane ([`NoVote`]; None when nothing keeps it from voting).
pub(crate) fn check_test(
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
        judge(&ScanFacts::Test(&facts), problems);
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

/// A doctest item, as the lane rules judge it like a test function.
pub(crate) struct DoctestFacts<'a> {
    pub id: &'a str,
    /// Root-relative file of its text.
    pub file: &'a str,
    /// The line it is reported at (its first example's, its docstring's).
    pub line: u64,
    /// The lane the configuration gives every doctest item.
    pub lane: Option<Lane>,
    /// Its owner was found (a docstring's `owner:` line, or CODEOWNERS).
    pub has_owner: bool,
    /// Every example carries `+SKIP`.
    pub all_skipped: bool,
    /// The first and last line of its text.
    pub text: (u64, u64),
    /// The lines the patch changed in its file (`--changed`), when a diff is judged.
    pub changed: Option<&'a crate::aware::Ranges>,
    /// The configuration file (root-relative), for messages.
    pub config_file: &'a str,
}

/// One parsed module of the tree.
pub(crate) struct ModuleFacts<'a> {
    pub module: &'a ModuleFile,
    pub config: &'a Config,
    /// It is one of the test files (its tests are collected).
    pub is_test_file: bool,
    /// pytest loads its hooks: a conftest.py, or a module the configuration loads as a plugin.
    pub loads_hooks: bool,
    /// The interpreter `if` conditions are decided for, asked only when one needs it.
    pub target: &'a dyn Fn() -> Option<Target>,
    /// What collecting its tests left the scan unsure of.
    pub unsure: &'a [Unsure<'a>],
}

/// A module collected with `--doctest-modules`, and what its docstrings leave unsure.
pub(crate) struct DoctestModuleFacts<'a> {
    pub file: &'a str,
    /// The module's `__name__`.
    pub name: &'a str,
    pub unsure: &'a [lane_python::docfinder::Unsure],
}

/// What the suite detectors judge: the configuration and the lanes' sizes.
pub(crate) struct SuiteFacts<'a> {
    pub config: &'a Config,
    /// The configuration file, root-relative.
    pub config_rel: Option<String>,
    pub counts: &'a Counts,
    /// The runs load pytest-lanes-gate, which registers the lane markers.
    pub markers_plugin: bool,
    /// Some module is collected for its doctests (`--doctest-modules`).
    pub doctest_modules: bool,
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
pub(crate) fn check_suite(
    config: &Config,
    counts: &Counts,
    markers_plugin: bool,
    doctest_modules: bool,
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
        doctest_modules,
    };
    judge(&ScanFacts::Suite(&facts), problems);
}

impl TestFacts<'_> {
    /// The test's lane, when the lane rights say its assertions must be able to fail
    /// (tautology, no-assertion, swallowed-failure judge only those).
    fn lane_of_real_assertions(&self) -> Option<Lane> {
        self.lane
            .filter(|&l| lane_core::rights::of(l).real_assertions)
    }

    /// A problem of this test at `file:line`.
    fn problem(&self, rule: Rule, msg: String, file: &str, line: u64) -> Problem {
        Problem::new(rule, msg).at(file, line).test(self.id)
    }
}

/// Where a test class of line `line`, written in `written_in`, is, for a message about the test
/// module `home` that collects it: `file:line`, and the line where it is in `home` itself.
fn class_place(home: &str, written_in: &str, line: u64) -> (String, Option<u64>) {
    if written_in == home {
        (format!("{written_in}:{line}"), Some(line))
    } else {
        (format!("{written_in}:{line} (collected in {home})"), None)
    }
}

/// `problem` at `file` and, when known, `line`.
fn located(problem: Problem, file: &str, line: Option<u64>) -> Problem {
    match line {
        Some(line) => problem.at(file, line),
        None => problem.file(file),
    }
}

/// This tool's detectors, as the rule registry lists them.
pub(crate) fn registry() -> Vec<lane_core::detector::Registered> {
    lane_core::detector::registry(DETECTORS, RULE_FILES)
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
            calls: Vec::new(),
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
            empty_set_mark: crate::pytest::collect::EmptySetMark::Skip,
            computed_params: Vec::new(),
            empty_fixture_params: Vec::new(),
            plugin_xfail: false,
            tests_project_eq: false,
            asserting_helper: None,
        }
    }

    fn rules(
        detector: &lane_core::detector::Detector<Scan>,
        t: &TestFacts,
    ) -> Vec<(String, Option<u64>)> {
        let mut problems = Vec::new();
        (detector.check)(&ScanFacts::Test(t), &mut problems);
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
        let of = |lanes: &[Lane]| rules(&lane_count::DETECTOR, &facts(&f, lanes));
        assert_eq!(of(&[]), [("unmarked".to_string(), Some(7))]);
        assert_eq!(of(&[Lane::Freeze]), []);
        assert_eq!(
            of(&[Lane::Merge, Lane::Freeze]),
            [("multiple-lanes".to_string(), Some(7))]
        );
    }

    #[test]
    fn assertions_are_judged_only_where_the_lane_rights_say() {
        let of = |a: Asserts, lanes: &[Lane]| {
            let t = facts(&function(a), lanes);
            let mut found = rules(&tautology::DETECTOR, &t);
            found.extend(rules(&no_assertion::DETECTOR, &t));
            found
        };
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
        // The facts of a helper that asserts, and of a reflexivity test of a project class's
        // `__eq__` (gathered from the tree: tests/golden/helpers-and-reflexivity).
        let mut helped = facts(&function(asserts(0, 0, 0)), &[Lane::Merge]);
        helped.asserting_helper = Some(facts::At {
            what: "check",
            file: "tests/helpers.py",
            line: 3,
        });
        assert_eq!(rules(&no_assertion::DETECTOR, &helped), []);
        let mut reflexive = facts(&function(asserts(1, 1, 0)), &[Lane::Merge]);
        assert_eq!(
            rules(&tautology::DETECTOR, &reflexive),
            [("tautology".to_string(), Some(9))]
        );
        reflexive.tests_project_eq = true;
        assert_eq!(rules(&tautology::DETECTOR, &reflexive), []);
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
        let of = |t: &TestFacts| rules(&missing_attachment::DETECTOR, t);
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
