//! weakened-search: a merge property that filters its domain with `assume()` or searches less
//! of it (`max_examples` below the minimum, `phases` without `generate`, `derandomize=True`),
//! by its own `@settings` or a hypothesis profile loaded in a conftest.py. A warning:
//! real suites do these on purpose; lane-tally `--base` reports a change as domain-changed.

use std::collections::BTreeMap;

use lane_core::rule::MIN_MAX_EXAMPLES;
use lane_core::scan::Lane;
use lane_core::{Problem, Rule};

use lane_core::detector::Detector;

use super::{Scan, ScanFacts};
use crate::pytest::marks::{ModuleId, SourceTree, Val};
use lane_python::Ex;

/// The hypothesis profile a conftest.py loads, with the settings it was registered with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// The profile's name (or the source text of a `load_profile` argument that is not a
    /// literal).
    pub name: String,
    /// The registered settings: key to source text.
    pub settings: BTreeMap<String, String>,
}

/// The hypothesis profile the project's code loads: `settings.load_profile(...)` at the top
/// level (or under a module-level `if` / `try`) of any module of the tree (conftest.py files,
/// plugins, test modules, helpers they import), with what `settings.register_profile(...)`
/// anywhere in the tree gave it (keywords, and those of a `settings(...)` parent passed as its
/// second argument). A profile loaded by a computed name (`os.environ.get(...)`) may be any
/// registered one: the weakest is taken, and the name says so; so is the weakest of several
/// loads, whose order pytest's import order decides.
pub fn loaded_profile(tree: &SourceTree<'_>, modules: &[ModuleId]) -> Option<Profile> {
    let mut registered: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    // Literal names loaded, and the source text of computed ones.
    let mut loaded: Vec<Result<String, String>> = Vec::new();
    for &m in modules {
        for call in &tree.modules[m].module.calls {
            let Val::CallOf(path, c) = tree.eval(&call.value, m) else {
                continue;
            };
            if !path.starts_with("hypothesis.") {
                continue;
            }
            let name = match c.args.first() {
                Some(Ex::Str(s)) => Ok(s.to_string()),
                // Not a literal (`os.environ.get(...)`): its source text.
                Some(_) => Err(c
                    .args_src
                    .split(',')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_string()),
                None => continue,
            };
            if path.ends_with("settings.register_profile") {
                let mut settings: BTreeMap<String, String> = BTreeMap::new();
                if let Some(parent) = c.args.get(1)
                    && let Val::CallOf(p, pc) = tree.eval(parent, m)
                    && p == "hypothesis.settings"
                {
                    for ((k, _), src) in pc.kwargs.iter().zip(pc.kwargs_src()) {
                        settings.insert(k.to_string(), src.to_string());
                    }
                }
                for ((k, _), src) in c.kwargs.iter().zip(c.kwargs_src()) {
                    settings.insert(k.to_string(), src.to_string());
                }
                // A name registered twice: the weaker registration is kept.
                let name = name.unwrap_or_else(|src| src);
                let keep = registered
                    .get(&name)
                    .is_none_or(|old| weakened(&[], &settings).len() >= weakened(&[], old).len());
                if keep {
                    registered.insert(name, settings);
                }
            } else if path.ends_with("settings.load_profile") {
                loaded.push(name);
            }
        }
    }
    loaded.sort();
    loaded.dedup();
    let mut candidates: Vec<Profile> = Vec::new();
    for load in &loaded {
        match load {
            Ok(name) => candidates.push(Profile {
                name: name.clone(),
                settings: registered.get(name).cloned().unwrap_or_default(),
            }),
            Err(src) => {
                let names: Vec<&str> = registered.keys().map(String::as_str).collect();
                for (name, settings) in &registered {
                    candidates.push(Profile {
                        name: format!(
                            "{src} (may load any of: {}; the weakest is {name})",
                            names.join(", ")
                        ),
                        settings: settings.clone(),
                    });
                }
                if registered.is_empty() {
                    candidates.push(Profile {
                        name: src.clone(),
                        settings: BTreeMap::new(),
                    });
                }
            }
        }
    }
    // The weakest; among equals, the first in a fixed order.
    let mut best: Option<Profile> = None;
    for c in candidates {
        let better = best
            .as_ref()
            .is_none_or(|b| weakened(&[], &c.settings).len() > weakened(&[], &b.settings).len());
        if better {
            best = Some(c);
        }
    }
    best
}

/// Why a property's search is weakened: one phrase per reason, empty when it is not.
pub fn weakened(assumes: &[String], settings: &BTreeMap<String, String>) -> Vec<String> {
    let mut why = Vec::new();
    if !assumes.is_empty() {
        why.push(format!(
            "filters its domain with {} assume()",
            assumes.len()
        ));
    }
    if let Some(n) = settings.get("max_examples")
        && let Ok(n) = n.replace('_', "").parse::<u64>()
        && n < MIN_MAX_EXAMPLES
    {
        why.push(format!("sets max_examples={n} (below {MIN_MAX_EXAMPLES})"));
    }
    if let Some(p) = settings.get("phases")
        && !p.contains("generate")
    {
        why.push(format!("sets phases={p} without generate"));
    }
    if settings.get("derandomize").is_some_and(|d| d == "True") {
        why.push("sets derandomize=True".to_string());
    }
    why
}

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::WeakenedSearch],
    check,
};

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Test(t) = facts else { return };
    if !t.given || t.lane != Some(Lane::Merge) {
        return;
    }
    let a = &t.attachments;
    let why = weakened(&a.assumes, &a.settings);
    if why.is_empty() {
        return;
    }
    let under = a
        .settings
        .get("profile")
        .map(|p| format!(" (hypothesis profile {p} loaded)"))
        .unwrap_or_default();
    let msg = format!(
        "merge property {} {}{under}: it searches less of its domain",
        t.id,
        why.join(", ")
    );
    problems.push(t.problem(Rule::WeakenedSearch, msg, t.func_file, t.func.line));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn each_weakening_is_named() {
        assert_eq!(weakened(&[], &settings(&[])), Vec::<String>::new());
        assert_eq!(
            weakened(
                &[],
                &settings(&[("max_examples", "200"), ("deadline", "None")])
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            weakened(&[], &settings(&[("max_examples", "100")])).len(),
            0
        );
        assert_eq!(weakened(&[], &settings(&[("max_examples", "99")])).len(), 1);
        assert_eq!(weakened(&["x > 0".into()], &settings(&[])).len(), 1);
        let phases = settings(&[("phases", "[Phase.explicit, Phase.generate]")]);
        assert_eq!(weakened(&[], &phases).len(), 0);
        let explicit = settings(&[("phases", "[Phase.explicit]")]);
        assert_eq!(weakened(&[], &explicit).len(), 1);
        let all = settings(&[
            ("max_examples", "5"),
            ("phases", "[Phase.explicit]"),
            ("derandomize", "True"),
        ]);
        assert_eq!(weakened(&["x".into()], &all).len(), 4);
        // A value the scan cannot read is not a weakening on its own.
        assert_eq!(weakened(&[], &settings(&[("max_examples", "N")])).len(), 0);
    }
}
