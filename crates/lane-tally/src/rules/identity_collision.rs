//! `identity-collision`: cases that carry one scanned test's classname and name but ran from
//! different files (xunit1 `file`): whichever of them is the real one, the name no longer
//! identifies a test.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Tally, TallyFacts, at};

pub(crate) const DETECTOR: Detector<Tally> = Detector {
    rules: &[Rule::IdentityCollision],
    check,
};

fn check(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
    for (&index, files) in facts.case_files.iter().filter(|(_, f)| f.len() > 1) {
        let test = &facts.tests[index as usize];
        let files: Vec<&str> = files.iter().map(String::as_str).collect();
        problems.push(at(
            test,
            Problem::new(
                Rule::IdentityCollision,
                format!(
                    "cases named like {} ran from {} files ({}); only {} defines it",
                    test.id,
                    files.len(),
                    files.join(", "),
                    test.defining_file()
                ),
            ),
        ));
    }
}
