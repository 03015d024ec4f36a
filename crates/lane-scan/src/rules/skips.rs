//! unconditional-skip and conditional-skip: a skip deletes evidence; a conditional one may.

use lane_core::{Problem, Rule};

use super::facts::{Effect, TestFacts};
use crate::collect::EmptySetMark;

pub fn check(t: &TestFacts, problems: &mut Vec<Problem>) {
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
    // A used fixture's params written empty: its one item is skipped (issue 18 (fid5)).
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
