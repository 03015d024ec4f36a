//! unresolved-test-base: a test class derives from a base the scan cannot read: the tests and
//! marks it inherits, and whether it is a `unittest.TestCase`, are unknown.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};
use lane_python::dotted;

use super::{Scan, ScanFacts};
use super::{class_place, located};
use crate::pytest::collect::Unsure;

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::UnresolvedTestBase],
    check,
};

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Module(m) = facts else { return };
    let home: &str = &m.module.rel;
    for unsure in m.unsure {
        let Unsure::UnresolvedBase {
            class,
            written_in,
            base,
        } = unsure
        else {
            continue;
        };
        let (at, line) = class_place(home, written_in, class.line);
        let message = format!(
            "{at}: test class {} derives from {}, which lane-scan cannot read: the tests and \
             marks it inherits, and whether it is a unittest.TestCase, are unknown",
            class.name,
            dotted(base),
        );
        problems.push(located(
            Problem::new(Rule::UnresolvedTestBase, message),
            home,
            line,
        ));
    }
}
