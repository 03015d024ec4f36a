//! `plugin-not-loaded`: an installed distribution declares a pytest plugin, but no dependency
//! manifest of the voting tree names it, so it is not loaded (plugin autoloading is off). One
//! problem names them all, each distribution once with its plugins.

use std::collections::BTreeMap;

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Gate, GateFacts};

pub(crate) const DETECTOR: Detector<Gate> = Detector {
    rules: &[Rule::PluginNotLoaded],
    check,
};

fn check(facts: &GateFacts<'_>, problems: &mut Vec<Problem>) {
    let GateFacts::NotLoaded(plugins) = facts else {
        return;
    };
    let mut by_dist: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for p in plugins.iter() {
        by_dist.entry(&p.distribution).or_default().push(&p.name);
    }
    if by_dist.is_empty() {
        return;
    }
    let listed: Vec<String> = by_dist
        .iter()
        .map(|(dist, names)| match names.as_slice() {
            [one] if one == dist => (*dist).to_string(),
            _ => format!("{dist} ({})", names.join(", ")),
        })
        .collect();
    problems.push(Problem::new(
        Rule::PluginNotLoaded,
        format!(
            "installed but not loaded, as no dependency manifest of the voting tree names them \
             (plugin autoloading is off): {}",
            listed.join(", ")
        ),
    ));
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::python::Plugin;

    fn plugin(dist: &str, name: &str) -> Plugin {
        Plugin {
            distribution: dist.into(),
            name: name.into(),
            module: name.into(),
        }
    }

    #[test]
    fn every_plugin_not_loaded_is_named_once_in_one_problem() {
        let plugins = vec![
            plugin("syrupy", "syrupy"),
            plugin("pytest-xdist", "xdist"),
            plugin("pytest-xdist", "xdist.looponfail"),
        ];
        let mut problems = Vec::new();
        check(&GateFacts::NotLoaded(&plugins), &mut problems);
        assert_eq!(problems.len(), 1, "{problems:?}");
        let m = &problems[0].message;
        assert!(m.starts_with("installed but not loaded"), "{m}");
        assert!(
            m.ends_with("pytest-xdist (xdist, xdist.looponfail), syrupy"),
            "{m}"
        );
        let mut none = Vec::new();
        check(&GateFacts::NotLoaded(&[]), &mut none);
        assert!(none.is_empty());
    }
}
