//! `lane-drift`: what pytest-lanes-gate recorded inside the run disagrees with the static scan
//! (a lane mark added or removed at run time, or an item the scan never saw). The plugin's
//! evidence corroborates the scan; where they differ, the run counted something nobody can
//! review in the source.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Tally, TallyFacts, at};
use crate::reports::Drift;

pub(crate) const DETECTOR: Detector<Tally> = Detector {
    rules: &[Rule::LaneDrift],
    check,
};

fn check(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
    for (report, drift) in &facts.drift {
        for d in drift.iter() {
            match d {
                Drift::Marks {
                    test,
                    added,
                    removed,
                } => {
                    let test = &facts.tests[*test as usize];
                    let mut what = Vec::new();
                    if !added.is_empty() {
                        what.push(format!("added {}", added.join(", ")));
                    }
                    if !removed.is_empty() {
                        what.push(format!("removed {}", removed.join(", ")));
                    }
                    problems.push(at(
                        test,
                        Problem::new(
                            Rule::LaneDrift,
                            format!(
                                "{} ran with other lane marks than its source gives it: {} at \
                                 run time (a hook, plugin or fixture changed them)",
                                test.id,
                                what.join("; ")
                            ),
                        ),
                    ));
                }
                Drift::Unseen { id, file, line } => {
                    let mut problem = Problem::new(
                        Rule::LaneDrift,
                        format!(
                            "the {} report {} has an item {id} that the scan never saw (created \
                             or renamed at run time)",
                            report.lane, report.path
                        ),
                    )
                    .test(id.clone());
                    if !file.is_empty() {
                        problem = match line {
                            Some(line) => problem.at(file.clone(), *line),
                            None => problem.file(file.clone()),
                        };
                    }
                    problems.push(problem);
                }
            }
        }
    }
}
