//! `test-surface-changed`: the patch changed a path the tests read (a test module, a
//! conftest.py, the pytest configuration, a locked file ...); its change is shown for review
//! and, unacknowledged, the base's version votes instead.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Gate, GateFacts};
use crate::surface::Class;

pub(crate) const DETECTOR: Detector<Gate> = Detector {
    rules: &[Rule::TestSurfaceChanged],
    check,
};

fn check(facts: &GateFacts<'_>, problems: &mut Vec<Problem>) {
    let GateFacts::Surface(entries) = facts else {
        return;
    };
    for e in entries.iter().filter(|e| e.class == Class::TestSurface) {
        problems.push(
            Problem::new(
                Rule::TestSurfaceChanged,
                format!("{} test surface: {}", e.change.as_str(), e.reason),
            )
            .file(e.path.clone()),
        );
    }
}
