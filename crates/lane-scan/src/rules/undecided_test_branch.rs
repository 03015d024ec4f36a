//! undecided-test-branch: a test function, class or method defined under an `if` the scan
//! cannot decide for the target interpreter: whether pytest collects it is unknown (the scan
//! keeps it, an extra id rather than a missed one).

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Scan, ScanFacts};
use crate::pytest::collect::Unsure;

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::UndecidedTestBranch],
    check,
};

/// `lane-scan --fix` cannot mend this rule's problems by inserting a line: it lists them as
/// left for a human.
pub(crate) const LEFT_FOR_HUMAN: Rule = Rule::UndecidedTestBranch;

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Module(m) = facts else { return };
    for unsure in m.unsure {
        let Unsure::UndecidedBranch {
            file,
            line,
            what,
            no_target,
        } = unsure
        else {
            continue;
        };
        let message = format!(
            "{file}:{line}: {what} is defined under an `if` lane-scan cannot decide for the \
             target interpreter{}: whether pytest collects it is unknown",
            if *no_target {
                " (no interpreter answered: give --python)"
            } else {
                ""
            },
        );
        problems.push(Problem::new(Rule::UndecidedTestBranch, message).at(*file, *line));
    }
}
