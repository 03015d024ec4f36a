//! test-redefined: a name pytest collects as a test is bound more than once in its module or
//! class body, so what runs may not be the definition the scan judged.
//! `sys.version_info` / `sys.platform` conditions are decided for the target interpreter; a
//! binding in a branch that does not run there does not count.

use std::collections::{BTreeMap, HashSet};

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use crate::pytest::config::Config;
use crate::pytest::fnmatch::matches_prefix_or_glob;
use crate::pytest::marks::ModuleFile;
use lane_python::{Binding, Class, Target};

use super::{Scan, ScanFacts};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::TestRedefined],
    check,
};

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Module(m) = facts else { return };
    if m.is_test_file {
        redefined(m.module, m.config, m.target, problems);
    }
}

fn redefined(
    module: &ModuleFile,
    config: &Config,
    target: &dyn Fn() -> Option<Target>,
    problems: &mut Vec<Problem>,
) {
    let m = &module.module;
    let mut report = |bindings: &[Binding], scope: &str, test_name: &dyn Fn(&str) -> bool| {
        judge(bindings, target, test_name, |name, lines| {
            let list: Vec<String> = lines.iter().map(u64::to_string).collect();
            problems.push(
                Problem::new(
                    Rule::TestRedefined,
                    format!(
                        "{name} is bound {} times in {scope} (lines {}): pytest runs the last \
                         binding, which may not be the definition that was checked",
                        lines.len(),
                        list.join(", ")
                    ),
                )
                .at(&module.rel, lines[1]),
            );
        });
    };
    let collected = |name: &str| {
        matches_prefix_or_glob(&config.python_functions, name)
            || matches_prefix_or_glob(&config.python_classes, name)
    };
    // A name only ever bound to values (`test_content = [...]`, a loop's `test_name = "..."`)
    // is no test: pytest collects functions and classes. A def, class or import of the name
    // makes it one (real suites: pygments, pyfakefs).
    let module_defines = |name: &str| {
        collected(name)
            && (m.function_named(name).is_some()
                || m.class_named(name).is_some()
                || m.import_named(name).is_some())
    };
    report(&m.rebound, &module.rel, &module_defines);
    let mut stack: Vec<(String, &Class)> = m
        .classes
        .iter()
        .map(|c| (format!("{}::{}", module.rel, c.name), c))
        .collect();
    while let Some((scope, class)) = stack.pop() {
        if !matches_prefix_or_glob(&config.python_classes, &class.name) {
            continue;
        }
        // The names the body defines, asked once per binding of a name bound twice: a set,
        // built only for a class that binds a name twice (a class of thousands of methods
        // that redefines thousands of them stays linear).
        let defined: HashSet<&str> = if class.rebound.is_empty() {
            HashSet::new()
        } else {
            class
                .methods
                .iter()
                .map(|f| f.name.as_str())
                .chain(class.classes.iter().map(|c| c.name.as_str()))
                .collect()
        };
        let class_defines = |name: &str| collected(name) && defined.contains(name);
        report(&class.rebound, &scope, &class_defines);
        for inner in &class.classes {
            stack.push((format!("{scope}::{}", inner.name), inner));
        }
    }
}

/// Calls `found(name, lines)` for every collected name bound more than once on the paths
/// that run on the target (lines ascending). The target is asked for only when a binding
/// depends on it.
fn judge(
    bindings: &[Binding],
    target: &dyn Fn() -> Option<Target>,
    collected: &dyn Fn(&str) -> bool,
    mut found: impl FnMut(&str, &[u64]),
) {
    let mut by_name: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    let mut known: Option<Option<Target>> = None;
    for b in bindings {
        if !collected(&b.name) {
            continue;
        }
        let runs = b.guards.iter().all(|(cond, want)| {
            let value = match cond.eval(None) {
                Some(v) => Some(v),
                None => cond.eval(known.get_or_insert_with(target).as_ref()),
            };
            value.is_none_or(|v| v == *want)
        });
        if runs {
            by_name.entry(b.name.as_str()).or_default().push(b.line);
        }
    }
    for (name, mut lines) in by_name {
        if lines.len() > 1 {
            lines.sort_unstable();
            found(name, &lines);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use lane_python::summarize;

    fn target(minor: u64, platform: &str) -> Target {
        Target {
            version: (3, minor, 0),
            platform: platform.to_string(),
            implementation: "cpython".to_string(),
            builtin_modules: Vec::new(),
        }
    }

    /// The collected names bound twice in `src`'s module body, for `t`.
    fn redefined(src: &str, t: Option<Target>) -> Vec<(String, Vec<u64>)> {
        let m = summarize(src).unwrap();
        let mut out = Vec::new();
        judge(
            &m.rebound,
            &|| t.clone(),
            &|n| n.starts_with("test"),
            |n, l| out.push((n.to_string(), l.to_vec())),
        );
        out
    }

    fn one(name: &str, lines: &[u64]) -> Vec<(String, Vec<u64>)> {
        vec![(name.to_string(), lines.to_vec())]
    }

    #[test]
    fn later_bindings_of_a_test_name_are_found() {
        let t = Some(target(12, "linux"));
        let src = "def test_a():\n    assert f()\n\ndef helper():\n    pass\n\ntest_a = helper\n";
        assert_eq!(redefined(src, t.clone()), one("test_a", &[1, 7]));
        let twice = "def test_a():\n    assert f()\ndef test_a():\n    pass\n";
        assert_eq!(redefined(twice, t.clone()), one("test_a", &[1, 3]));
        let imported = "from x import other as test_a\ndef test_a():\n    assert f()\n";
        assert_eq!(redefined(imported, t.clone()), one("test_a", &[1, 2]));
        let tried = "try:\n    from fast import test_a\nexcept ImportError:\n    def test_a():\n        pass\n";
        assert_eq!(redefined(tried, t.clone()), one("test_a", &[2, 4]));
        let unknown = "if FLAG:\n    def test_a(): pass\nelse:\n    def test_a(): pass\n";
        assert_eq!(redefined(unknown, t.clone()), one("test_a", &[2, 4]));
    }

    #[test]
    fn six_version_flags_are_decided_like_version_info() {
        let src =
            "import six\nif six.PY3:\n    def test_b(): pass\nelse:\n    def test_b(): pass\n";
        assert_eq!(redefined(src, Some(target(12, "linux"))), []);
        let both = "import six\nif six.PY3:\n    def test_b(): pass\nif not six.PY2:\n    def test_b(): pass\n";
        assert_eq!(
            redefined(both, Some(target(12, "linux"))),
            one("test_b", &[3, 5])
        );
        // Undecided without a target: both branches count.
        assert_eq!(redefined(src, None), one("test_b", &[3, 5]));
    }

    #[test]
    fn one_binding_per_name_is_fine() {
        let t = Some(target(12, "linux"));
        let src = "import helper\nhelper = 1\nhelper = 2\ndef test_a():\n    assert f()\n\
                   def test_b():\n    assert g()\n";
        assert_eq!(redefined(src, t.clone()), []);
        // A branch that cannot run does not bind.
        let dead = "def test_a(): pass\nif False:\n    test_a = None\nif TYPE_CHECKING:\n    \
                    from x import test_a\n";
        assert_eq!(redefined(dead, None), []);
    }

    #[test]
    fn version_and_platform_branches_are_decided_for_the_target() {
        let src = "import sys\nif sys.version_info >= (3, 11):\n    def test_a(): pass\n\
                   else:\n    def test_a(): pass\n";
        assert_eq!(redefined(src, Some(target(12, "linux"))), []);
        assert_eq!(redefined(src, Some(target(10, "linux"))), []);
        // No target known: the branches cannot be told apart, and that is refused.
        assert_eq!(redefined(src, None), one("test_a", &[3, 5]));
        // The branch that runs rebinding an earlier definition is found.
        let rebinding = "import sys\ndef test_a(): pass\nif sys.version_info[:2] < (3, 11):\n    \
                         test_a = other\n";
        assert_eq!(redefined(rebinding, Some(target(12, "linux"))), []);
        assert_eq!(
            redefined(rebinding, Some(target(10, "linux"))),
            one("test_a", &[2, 4])
        );
        let platform = "import sys\nif sys.platform == 'win32':\n    def test_a(): pass\n\
                        elif sys.platform.startswith(('linux', 'freebsd')):\n    def test_a(): pass\n\
                        else:\n    def test_a(): pass\n";
        assert_eq!(redefined(platform, Some(target(12, "linux"))), []);
        assert_eq!(redefined(platform, Some(target(12, "darwin"))), []);
        let both = "import sys\ndef test_a(): pass\nif not sys.platform == 'win32' and sys.version_info[0] == 3:\n    test_a = x\n";
        assert_eq!(
            redefined(both, Some(target(12, "linux"))),
            one("test_a", &[2, 4])
        );
        assert_eq!(redefined(both, Some(target(12, "win32"))), []);
    }

    #[test]
    fn version_info_compares_as_a_five_item_tuple() {
        let eq =
            "import sys\ndef test_a(): pass\nif sys.version_info == (3, 12):\n    test_a = x\n";
        // (3, 12, 0, 'final', 0) == (3, 12) is False.
        assert_eq!(redefined(eq, Some(target(12, "linux"))), []);
        let sliced =
            "import sys\ndef test_a(): pass\nif sys.version_info[:2] == (3, 12):\n    test_a = x\n";
        assert_eq!(
            redefined(sliced, Some(target(12, "linux"))),
            one("test_a", &[2, 4])
        );
        let flipped =
            "import sys\ndef test_a(): pass\nif (3, 8) <= sys.version_info:\n    test_a = x\n";
        assert_eq!(
            redefined(flipped, Some(target(12, "linux"))),
            one("test_a", &[2, 4])
        );
    }

    #[test]
    fn class_bodies_are_judged_too() {
        let src = "class TestA:\n    def test_x(self): pass\n    test_x = None\n";
        let m = summarize(src).unwrap();
        let mut out = Vec::new();
        judge(
            &m.classes[0].rebound,
            &|| None,
            &|n| n.starts_with("test"),
            |n, l| out.push((n.to_string(), l.to_vec())),
        );
        assert_eq!(out, one("test_x", &[2, 3]));
    }
}
