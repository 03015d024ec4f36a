//! `plugin-not-loaded`: an installed distribution declares a pytest plugin, but no dependency
//! manifest of the voting tree names it, so it is not loaded (plugin autoloading is off). One
//! problem per distribution.

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
    for (dist, names) in by_dist {
        problems.push(Problem::new(
            Rule::PluginNotLoaded,
            format!(
                "{dist} is installed and declares the pytest plugin{} {}, but no dependency \
                 manifest of the voting tree names it: not loaded (plugin autoloading is off)",
                lane_core::render::plural(names.len()),
                names.join(", ")
            ),
        ));
    }
}
