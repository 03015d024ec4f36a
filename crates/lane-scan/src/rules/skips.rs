//! unconditional-skip and conditional-skip: a skip deletes evidence; a conditional one may.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::facts::{Effect, ParamMark, TestFacts};
use super::{DoctestFacts, Scan, ScanFacts};
use crate::pytest::collect::EmptySetMark;

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::UnconditionalSkip, Rule::ConditionalSkip],
    check,
};

/// The rules of this file that keep a test from voting (`lane-scan --fix` asks).
pub(crate) const REFUSES_VOTER: &[Rule] = &[Rule::UnconditionalSkip];

/// The rule of this file that keeps a test from running in any lane: `lane-scan --fix` says a
/// ticket waits until the skip is gone.
pub(crate) const RUNS_IN_NO_LANE: Rule = Rule::UnconditionalSkip;

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    match facts {
        ScanFacts::Test(t) => {
            whole_test(t, problems);
            parameter_sets(t, problems);
        }
        ScanFacts::Doctest(d) => doctest(d, problems),
        _ => {}
    }
}

/// The skips of the test as a whole, not of one parameter set's (`lane-scan --fix` asks
/// these, with [`REFUSES_VOTER`], why a test cannot vote).
pub(crate) fn whole_test(t: &TestFacts, problems: &mut Vec<Problem>) {
    let id = t.id;
    for (effect, a) in &t.effects {
        let (rule, msg) = match effect {
            Effect::Skip => (
                Rule::UnconditionalSkip,
                format!("{id} is skipped unconditionally: a skip deletes evidence"),
            ),
            Effect::ConditionalSkip => (
                Rule::ConditionalSkip,
                format!(
                    "{id} has a conditional skip; when it skips on the gate's runner it cannot vote"
                ),
            ),
            _ => continue,
        };
        problems.push(t.problem(rule, msg, a.file, a.line));
    }
    // A used fixture's params written empty: its one item is skipped.
    if t.empty_set_mark == EmptySetMark::Skip {
        for f in &t.empty_fixture_params {
            problems.push(t.problem(
                Rule::UnconditionalSkip,
                format!(
                    "{id} uses fixture {} whose params are empty: pytest gives it one item, \
                     skipped (empty_parameter_set_mark)",
                    f.what
                ),
                f.file,
                f.line,
            ));
        }
    }
    // Written in the body: `pytest.skip()` or `self.skipTest()` as a top-level statement.
    for call in &t.body_skips {
        problems.push(t.problem(
            Rule::UnconditionalSkip,
            format!("{id} calls {}() unconditionally in its body", call.what),
            call.file,
            call.line,
        ));
    }
    if let Some(line) = t.module_skip {
        let file = t.file;
        problems.push(
            Problem::new(
                Rule::UnconditionalSkip,
                format!("{file} calls pytest.skip() at module level: every test in it is skipped"),
            )
            .at(file, line),
        );
    }
}

/// A parameter set's `pytest.param(..., marks=skip)` (or a `skipif` decided as skipping).
fn parameter_sets(t: &TestFacts, problems: &mut Vec<Problem>) {
    for mark in &t.param_marks {
        if let ParamMark::Skip(_) = mark.what {
            let msg = format!("{}: a parameter set is skipped unconditionally", t.id);
            problems.push(t.problem(Rule::UnconditionalSkip, msg, mark.file, mark.line));
        }
    }
}

/// A doctest item in a lane whose every example carries `+SKIP`. (One without a lane is
/// reported as unmarked alone.)
fn doctest(d: &DoctestFacts, problems: &mut Vec<Problem>) {
    if d.lane.is_none() || !d.all_skipped {
        return;
    }
    problems.push(
        Problem::new(
            Rule::UnconditionalSkip,
            format!(
                "{} is skipped unconditionally: every example of the doctest has `+SKIP`, so \
                 pytest reports it skipped; a skip deletes evidence",
                d.id
            ),
        )
        .at(d.file, d.line)
        .test(d.id),
    );
}
