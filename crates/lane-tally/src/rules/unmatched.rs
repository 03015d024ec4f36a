//! `lane-mismatch`, `collection-error`, `unknown-test`: report cases that match no scanned
//! test of their lane. Unknown evidence is a rejection, never ignored. `identity-collision`:
//! cases from different files that name one test.

use lane_core::{Problem, Rule};

use super::Facts;
use crate::reports::Unmatched;

/// A case of another lane's test: the report was produced with a wider selection.
pub fn lane_mismatch(facts: &Facts<'_>) -> Vec<Problem> {
    let mut out = Vec::new();
    for (report, unmatched) in &facts.unmatched {
        let lane = report.lane;
        for u in unmatched.iter() {
            let Unmatched::OtherLane { test, case } = u else {
                continue;
            };
            let test = &facts.tests[*test as usize];
            let theirs = match test.lane {
                Some(l) => format!("a {l} test"),
                None => "a test with no single lane in the scan".to_string(),
            };
            out.push(super::at(
                test,
                Problem::new(
                    Rule::LaneMismatch,
                    format!(
                        "the {lane} report {} has a case of {theirs} ({case}); run each lane as \
                         its own pytest invocation (-m {lane})",
                        report.path
                    ),
                ),
            ));
        }
    }
    out
}

pub fn collection_error(facts: &Facts<'_>) -> Vec<Problem> {
    let mut out = Vec::new();
    for (_, unmatched) in &facts.unmatched {
        for u in unmatched.iter() {
            if let Unmatched::CollectionError { file, module } = u {
                // The same words in every lane's report, so the problem shows once however
                // many runs hit it.
                out.push(
                    Problem::new(
                        Rule::CollectionError,
                        format!(
                            "pytest could not collect {file} (module {module}): none of its \
                             tests ran"
                        ),
                    )
                    .file(file.clone()),
                );
            }
        }
    }
    out
}

/// A case no scanned test has, and a module-level case that is neither a collection error
/// nor a skip.
pub fn unknown_test(facts: &Facts<'_>) -> Vec<Problem> {
    let mut out = Vec::new();
    for (report, unmatched) in &facts.unmatched {
        let lane = report.lane;
        for u in unmatched.iter() {
            match u {
                Unmatched::ModuleCase { name } => out.push(Problem::new(
                    Rule::UnknownTest,
                    format!(
                        "the {lane} report {} has a module-level case {name} that is neither a \
                         collection error nor a skip",
                        report.path
                    ),
                )),
                Unmatched::Unknown { key, why, file } => {
                    let mut problem = Problem::new(
                        Rule::UnknownTest,
                        format!(
                            "the {lane} report {} has a case {key} that matches no scanned \
                             test ({why})",
                            report.path
                        ),
                    );
                    if let Some(file) = file {
                        problem = problem.file(file.clone());
                    }
                    out.push(problem);
                }
                Unmatched::OtherLane { .. } | Unmatched::CollectionError { .. } => {}
            }
        }
    }
    out
}

/// Cases that carry one scanned test's classname and name but ran from different files
/// (xunit1 `file`): whichever of them is the real one, the name no longer identifies a test.
pub fn identity_collision(facts: &Facts<'_>) -> Vec<Problem> {
    facts
        .case_files
        .iter()
        .filter(|(_, files)| files.len() > 1)
        .map(|(&index, files)| {
            let test = &facts.tests[index as usize];
            let files: Vec<&str> = files.iter().map(String::as_str).collect();
            super::at(
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
            )
        })
        .collect()
}
