//! `collection-error`: a module-level error case: pytest could not collect a module, so none
//! of its tests ran.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Tally, TallyFacts, each_unmatched};
use crate::reports::Unmatched;

pub(crate) const DETECTOR: Detector<Tally> = Detector {
    rules: &[Rule::CollectionError],
    check,
};

fn check(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
    for (_, u) in each_unmatched(facts) {
        if let Unmatched::CollectionError { file, module } = u {
            // The same words in every lane's report, so the problem shows once however many
            // runs hit it.
            problems.push(
                Problem::new(
                    Rule::CollectionError,
                    format!(
                        "pytest could not collect {file} (module {module}): none of its tests ran"
                    ),
                )
                .file(file.clone()),
            );
        }
    }
}
