//! swallowed-failure: in a lane whose assertions must be able to fail, a test with an `assert`
//! whose failure is caught and let go (a `try` whose first handler catching a failed assertion
//! neither re-raises, asserts, calls `*.fail(...)` nor keeps something for a later assert; a
//! `with suppress(...)` of such a type), or that cannot fail through an `or` operand that is
//! always true.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};
use lane_python::{Asserts, Called, CatchBy, Catcher, Handler, HandlerBody};

use super::{Scan, ScanFacts};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::SwallowedFailure],
    check,
};

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Test(t) = facts else { return };
    let Some(lane) = t.lane_of_real_assertions() else {
        return;
    };
    let Some((count, line)) = swallowed(&t.func.asserts) else {
        return;
    };
    let msg = format!(
        "{lane} test {} has {count} assertion(s) that cannot fail it (first at line {line}): a \
         handler or suppress() catches the AssertionError and lets it go, or an `or` operand is \
         always true",
        t.id
    );
    problems.push(t.problem(Rule::SwallowedFailure, msg, t.func_file, line));
}

/// How many assertions cannot fail the test, and the line of the first.
fn swallowed(asserts: &Asserts) -> Option<(u32, u64)> {
    let guarded = asserts.guarded.as_deref()?;
    let lost = |place: u32| {
        guarded
            .catchers
            .iter()
            .any(|c| c.asserts.contains(&place) && lets_go(c))
    };
    let mut found = guarded
        .asserts
        .iter()
        .filter(|a| a.or_always_true || lost(a.place));
    let first = found.next()?.line;
    Some((1 + found.count() as u32, first))
}

/// Whether a failed assertion in `catcher`'s body is caught and let go.
fn lets_go(catcher: &Catcher) -> bool {
    match &catcher.by {
        CatchBy::Suppress(types) => types.iter().any(|t| is_assertion_catcher(t)),
        // The first handler that catches a failed assertion decides.
        CatchBy::Handlers(handlers) => handlers
            .iter()
            .find(|h| catches_assertions(h))
            .is_some_and(|h| !escapes(&h.body)),
    }
}

/// An `except` that catches a failed `assert`: bare, or naming `AssertionError`, `Exception` or
/// `BaseException`.
fn catches_assertions(handler: &Handler) -> bool {
    match &handler.types {
        None => true,
        Some(types) => types.iter().any(|t| is_assertion_catcher(t)),
    }
}

fn is_assertion_catcher(name: &str) -> bool {
    matches!(name, "AssertionError" | "Exception" | "BaseException")
}

/// Methods that keep a value in a container for a later assertion.
const KEEPING_METHODS: &[&str] = &[
    "append",
    "add",
    "extend",
    "insert",
    "update",
    "appendleft",
    "put",
    "put_nowait",
    "setdefault",
    "__setitem__",
];

/// A handler body that lets the failure out or keeps it: `raise`, `assert`, a call of
/// `*.fail(...)`, an assignment, or a call of a keeping method (`errors.append(e)`: the
/// soft-assert pattern). One nested too deep to read counts as one that does.
fn escapes(body: &HandlerBody) -> bool {
    body.raises
        || body.asserts
        || body.assigns
        || body.too_deep
        || body.calls.iter().any(|call| match call {
            Called::Method(m) => m == "fail" || KEEPING_METHODS.contains(&m.as_str()),
            Called::Function(f) => f == "fail",
        })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// How many assertions of the only function in `body` (indented by 4) cannot fail it.
    fn count(body: &str) -> u32 {
        let m = lane_python::summarize(&format!("def t():\n{body}")).unwrap();
        swallowed(&m.functions[0].asserts).map_or(0, |(n, _)| n)
    }

    #[test]
    fn swallowed_assertions() {
        let swallowed = [
            "    try:\n        assert f() == 1\n    except AssertionError:\n        pass\n",
            "    try:\n        assert f() == 1\n    except:\n        print('no')\n",
            "    try:\n        assert f()\n    except (ValueError, Exception) as e:\n        log(e)\n",
            "    try:\n        for x in xs:\n            assert f(x)\n    except BaseException:\n        return\n",
            "    with contextlib.suppress(AssertionError):\n        assert f() == 1\n",
            "    with suppress(Exception):\n        if c:\n            assert f()\n",
            "    assert f() == 2 or True\n",
            "    assert f() or 'always'\n",
        ];
        for body in swallowed {
            assert_eq!(count(body), 1, "{body}");
        }
        let failing = [
            "    try:\n        assert f() == 1\n    except AssertionError:\n        raise\n",
            "    try:\n        assert f() == 1\n    except AssertionError as e:\n        pytest.fail(str(e))\n",
            "    failures = []\n    try:\n        assert f()\n    except AssertionError as e:\n        failures.append(e)\n    assert not failures\n",
            "    try:\n        assert f()\n    except AssertionError:\n        failed = True\n    assert not failed\n",
            "    try:\n        assert f()\n    except ValueError:\n        pass\n",
            "    try:\n        assert f()\n    except AssertionError:\n        raise\n    except Exception:\n        pass\n",
            "    with suppress(KeyError):\n        assert f()\n",
            "    with pytest.raises(AssertionError):\n        assert f()\n",
            "    assert f() == 2 or g() == 3\n",
            "    try:\n        x = f()\n    except Exception:\n        pass\n    assert x\n",
        ];
        for body in failing {
            assert_eq!(count(body), 0, "{body}");
        }
    }

    #[test]
    fn each_assertion_counts_once_and_the_first_names_the_line() {
        let body = "    try:\n        assert a\n        try:\n            assert b or True\n\
                    \x20       except Exception:\n            pass\n    except:\n        pass\n\
                    \x20   assert c\n";
        let m = lane_python::summarize(&format!("def t():\n{body}")).unwrap();
        assert_eq!(swallowed(&m.functions[0].asserts), Some((2, 3)));
    }
}
