//! unregistered-marker: the pytest configuration registers every lane's marker, or
//! pytest-lanes-gate does (the config's `required_plugins` names it, or lane-gate loads it).

use lane_core::detector::Detector;
use lane_core::scan::Lane;
use lane_core::{Problem, Rule};

use super::{Scan, ScanFacts};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::UnregisteredMarker],
    check,
};

/// The distribution whose pytest plugin registers the three lane markers.
pub(crate) const MARKERS_PLUGIN: &str = "pytest-lanes-gate";

/// Whether a `required_plugins` entry (`pytest-lanes-gate>=0.1`) names the markers plugin.
pub(crate) fn names_markers_plugin(requirement: &str) -> bool {
    let name: String = requirement
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .map(|c| match c {
            '_' | '.' => '-',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    name == MARKERS_PLUGIN
}

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Suite(s) = facts else { return };
    let config = s.config;
    // An unreadable config keeps the rule (fail closed); its own error is reported elsewhere.
    let required = crate::pytest::config::ini_args(config, "required_plugins").unwrap_or_default();
    if s.markers_plugin || required.iter().any(|r| names_markers_plugin(r)) {
        return;
    }
    let missing: Vec<&str> = Lane::ALL
        .iter()
        .map(|l| l.as_str())
        .filter(|l| !config.markers.iter().any(|m| m == l))
        .collect();
    if missing.is_empty() {
        return;
    }
    let msg = match s.config_rel.as_deref() {
        Some(f) => format!(
            "{f} does not register the marker{} {} (--strict-markers would fail)",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", ")
        ),
        None => format!(
            "no pytest configuration file registers the markers {} (--strict-markers would fail)",
            missing.join(", ")
        ),
    };
    problems.push(s.locate(
        Problem::new(Rule::UnregisteredMarker, msg),
        config.markers_line,
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_plugins_entries_that_name_the_markers_plugin() {
        for yes in [
            "pytest-lanes-gate",
            "pytest-lanes-gate>=0.1",
            "pytest_lanes_gate==0.1.0",
            "Pytest.Lanes-Gate",
        ] {
            assert!(names_markers_plugin(yes), "{yes}");
        }
        for no in [
            "pytest-lanes",
            "lanes",
            "pytest-lanes-gatex",
            "pytest-xdist",
        ] {
            assert!(!names_markers_plugin(no), "{no}");
        }
    }
}
