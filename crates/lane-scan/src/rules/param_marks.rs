//! `pytest.param(..., marks=...)` inside a parametrize: a lane mark there (param-lane-mark),
//! an unconditional skip, or marks that cannot be read (unresolved-marker).

use lane_core::{Problem, Rule};

use super::facts::{ParamMark, TestFacts};
use crate::collect::EmptySetMark;

pub fn check(t: &TestFacts, problems: &mut Vec<Problem>) {
    let id = t.id;
    for mark in &t.param_marks {
        let (rule, msg) = match &mark.what {
            ParamMark::Lane(name) => (
                Rule::ParamLaneMark,
                format!(
                    "{id}: a {name} mark inside pytest.param(marks=...): split the cases into separate tests"
                ),
            ),
            ParamMark::Skip(_) => (
                Rule::UnconditionalSkip,
                format!("{id}: a parameter set is skipped unconditionally"),
            ),
            ParamMark::Xfail => continue,
            ParamMark::Unresolved => (
                Rule::UnresolvedMarker,
                format!("{id}: pytest.param(marks=...) cannot be resolved statically"),
            ),
            ParamMark::EmptySetFailsCollection => (
                Rule::EmptyParameterSet,
                format!(
                    "{id}: parametrized over an empty list with empty_parameter_set_mark = \
                     fail_at_collect (or a value pytest does not accept): pytest fails \
                     collecting {}, and none of its tests run",
                    mark.file
                ),
            ),
            ParamMark::UnresolvedFixture(name) => (
                Rule::UnresolvedMarker,
                format!(
                    "{id}: the params of fixture {name} ({}:{}) cannot be read statically: \
                     the marks of its pytest.param entries are unknown",
                    mark.file, mark.line
                ),
            ),
        };
        problems.push(t.problem(rule, msg, mark.file, mark.line));
    }
    if t.empty_set_mark == EmptySetMark::FailAtCollect {
        for f in &t.empty_fixture_params {
            let msg = format!(
                "{id}: uses fixture {} whose params are empty, with empty_parameter_set_mark = \
                 fail_at_collect (or a value pytest does not accept): pytest fails collecting \
                 {}, and none of its tests run",
                f.what, t.file
            );
            problems.push(t.problem(Rule::EmptyParameterSet, msg, f.file, f.line));
        }
    }
}
