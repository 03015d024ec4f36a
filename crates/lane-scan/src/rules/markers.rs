//! unregistered-marker: the pytest configuration registers every lane's marker.

use lane_core::scan::Lane;
use lane_core::{Problem, Rule};

use super::SuiteFacts;

pub fn check(s: &SuiteFacts, problems: &mut Vec<Problem>) {
    let config = s.config;
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
