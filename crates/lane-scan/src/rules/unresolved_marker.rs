//! unresolved-marker on a decorator or `pytestmark` that cannot be read statically.

use lane_core::{Problem, Rule};

use super::facts::{Effect, TestFacts};

pub fn check(t: &TestFacts, problems: &mut Vec<Problem>) {
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
}
