//! unresolved-marker: a decorator or `pytestmark` that refers to pytest marks but cannot be
//! read statically, marks inside `pytest.param(..., marks=...)` that cannot be resolved, or a
//! used fixture's `params` that cannot be read (the marks of its `pytest.param` entries).

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::facts::{Effect, ParamMark};
use super::{Scan, ScanFacts};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::UnresolvedMarker],
    check,
};

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Test(t) = facts else { return };
    let id = t.id;
    for (effect, a) in &t.effects {
        if !matches!(effect, Effect::Unresolved) {
            continue;
        }
        let msg = if a.from_pytestmark {
            "pytestmark cannot be resolved statically: write the marks literally, e.g. pytestmark = [pytest.mark.merge]"
        } else {
            "a decorator refers to pytest marks but cannot be resolved statically"
        };
        problems.push(t.problem(Rule::UnresolvedMarker, msg.to_string(), a.file, a.line));
    }
    for mark in &t.param_marks {
        let msg = match &mark.what {
            ParamMark::Unresolved => {
                format!("{id}: pytest.param(marks=...) cannot be resolved statically")
            }
            ParamMark::UnresolvedFixture(name) => format!(
                "{id}: the params of fixture {name} ({}:{}) cannot be read statically: the \
                 marks of its pytest.param entries are unknown",
                mark.file, mark.line
            ),
            _ => continue,
        };
        problems.push(t.problem(Rule::UnresolvedMarker, msg, mark.file, mark.line));
    }
}
