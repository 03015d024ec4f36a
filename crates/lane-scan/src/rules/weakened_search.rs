//! weakened-search: a merge property that filters its domain with `assume()` or searches less
//! of it (`max_examples` below the minimum, `phases` without `generate`, `derandomize=True`),
//! by its own `@settings` or a hypothesis profile loaded in a conftest.py (issue 16). A warning:
//! real suites do these on purpose; lane-tally `--base` reports a change as domain-changed.

use std::collections::BTreeMap;

use lane_core::rule::MIN_MAX_EXAMPLES;
use lane_core::scan::Lane;
use lane_core::{Problem, Rule};

use super::facts::TestFacts;
use crate::marks::{ModuleId, SourceTree, Val};
use crate::python::Ex;

/// The hypothesis profile a conftest.py loads, with the settings it was registered with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// The profile's name (or the source text of a `load_profile` argument that is not a
    /// literal).
    pub name: String,
    /// The registered settings: key to source text.
    pub settings: BTreeMap<String, String>,
}

/// The profile loaded by `settings.load_profile(...)` at the top level of the conftest.py
/// files in `conftests`, with what `settings.register_profile(...)` there gave it.
pub fn loaded_profile(tree: &SourceTree<'_>, conftests: &[ModuleId]) -> Option<Profile> {
    let mut registered: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut loaded = None;
    for &m in conftests {
        for call in &tree.modules[m].module.calls {
            let Val::CallOf(path, c) = tree.eval(&call.value, m) else {
                continue;
            };
            if !path.starts_with("hypothesis.") {
                continue;
            }
            let name = match c.args.first() {
                Some(Ex::Str(s)) => s.to_string(),
                // Not a literal (`os.environ.get(...)`): its source text.
                Some(_) => c
                    .args_src
                    .split(',')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_string(),
                None => continue,
            };
            if path.ends_with("settings.register_profile") {
                let settings = c
                    .kwargs
                    .iter()
                    .zip(&c.kwargs_src)
                    .map(|((k, _), src)| (k.to_string(), src.to_string()))
                    .collect();
                registered.insert(name, settings);
            } else if path.ends_with("settings.load_profile") {
                loaded = Some(name);
            }
        }
    }
    let name = loaded?;
    let settings = registered.remove(&name).unwrap_or_default();
    Some(Profile { name, settings })
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

pub fn check(t: &TestFacts, problems: &mut Vec<Problem>) {
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
