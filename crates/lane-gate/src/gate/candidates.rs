//! After the vote: the patch's new or changed tests, run in its own tree. Shown, never counted.

use std::collections::BTreeMap;
use std::path::Path;

use lane_core::Problem;

use super::lanes::has_report;
use crate::pytest::Setup;
use crate::rules::{self, CandidateFacts, GateFacts};
use crate::section::{CandidateFile, Candidates};
use crate::{GateError, from_tool};

/// How the candidates went, and what the gate shows of it (candidate-failed).
pub(crate) struct CandidateRun {
    pub(crate) candidates: Candidates,
    pub(crate) problems: Vec<Problem>,
}

/// Counts each file's outcomes in the candidates' report (every file run is listed).
fn per_file(files: &[String], report: &Path) -> Result<BTreeMap<String, CandidateFile>, GateError> {
    let mut per_file: BTreeMap<String, CandidateFile> = files
        .iter()
        .map(|f| {
            (
                f.clone(),
                CandidateFile {
                    file: f.clone(),
                    ..Default::default()
                },
            )
        })
        .collect();
    if !has_report(report) {
        return Ok(per_file);
    }
    lane_tally::junit::read_path(report, "candidates.xml", |case| {
        let file = case
            .file
            .map(str::to_string)
            .unwrap_or_else(|| format!("{}.py", case.classname.replace('.', "/")));
        let entry = per_file
            .entry(file.clone())
            .or_insert_with(|| CandidateFile {
                file,
                ..Default::default()
            });
        use lane_tally::junit::Outcome;
        match case.outcome {
            Outcome::Passed => entry.passed += 1,
            Outcome::Failed => entry.failed += 1,
            Outcome::Error => entry.errors += 1,
            Outcome::Skipped | Outcome::XFail => entry.skipped += 1,
        }
    })
    .map_err(from_tool("candidates"))?;
    Ok(per_file)
}

/// Runs `files` in `cwd` (the patch's tree) with the report in `reports_dir`, the report and
/// the log copied into `out`.
pub(crate) fn run_candidates(
    setup: &Setup,
    cwd: &Path,
    files: &[String],
    reports_dir: &Path,
    out: &Path,
) -> Result<CandidateRun, GateError> {
    let report = reports_dir.join("candidates.xml");
    let ended = setup
        .run(cwd, files, &report, &out.join("candidates.log"))?
        .ended;
    let has_report = has_report(&report);
    if has_report {
        std::fs::copy(&report, out.join("candidates.xml"))
            .map_err(|e| GateError::io("cannot copy the candidates' report", e))?;
    }
    let files: Vec<CandidateFile> = per_file(files, &report)?.into_values().collect();
    let problems = rules::check(&GateFacts::Candidates(&CandidateFacts {
        ended,
        has_report,
        files: &files,
    }));
    Ok(CandidateRun {
        candidates: Candidates {
            exit: if ended.timed_out { None } else { ended.code },
            files,
            timed_out: ended.timed_out,
        },
        problems,
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::stand_in::{Scratch, StandIn};

    fn run(pytest: &StandIn) -> (Scratch, CandidateRun) {
        let scratch = Scratch::new();
        let reports = scratch.places.tmp.join("reports");
        std::fs::create_dir(&reports).unwrap();
        let setup = Setup {
            python: pytest.python(),
            plugins: Vec::new(),
            seed: None,
            user_args: Vec::new(),
            timeout: Duration::from_secs(60),
            pythonpath: Vec::new(),
            pycache_prefix: None,
            product: Vec::new(),
            trace: None,
            tmpdir: None,
            mutant: None,
        };
        let files = [
            "tests/test_a.py".to_string(),
            "tests/test_new.py".to_string(),
        ];
        let run = run_candidates(
            &setup,
            &scratch.places.cwd,
            &files,
            &reports,
            &scratch.places.out,
        )
        .unwrap();
        (scratch, run)
    }

    #[test]
    fn each_candidate_file_is_counted_and_a_failing_one_is_shown() {
        let pytest = StandIn::new();
        pytest.answer(
            "candidates",
            Some(&crate::stand_in::report(&[("t1", false), ("t2", true)])),
            1,
        );
        let (scratch, run) = run(&pytest);
        assert_eq!(pytest.calls(), ["candidates"]);
        assert_eq!(run.candidates.exit, Some(1));
        let files: Vec<(&str, u64, u64)> = run
            .candidates
            .files
            .iter()
            .map(|f| (f.file.as_str(), f.passed, f.failed))
            .collect();
        assert_eq!(
            files,
            [("tests/test_a.py", 1, 1), ("tests/test_new.py", 0, 0)]
        );
        assert_eq!(run.problems.len(), 1, "{:?}", run.problems);
        let p = &run.problems[0];
        assert_eq!(p.rule, "candidate-failed");
        assert_eq!(p.file.as_deref(), Some("tests/test_a.py"));
        assert_eq!(
            p.message,
            "1 of the patch's own tests here failed in its own tree (1 failed, 0 errors); they \
             do not vote"
        );
        assert!(scratch.places.out.join("candidates.xml").is_file());
        assert!(scratch.places.out.join("candidates.log").is_file());
    }

    #[test]
    fn candidates_that_could_not_run_say_so() {
        let pytest = StandIn::new();
        pytest.answer("candidates", None, 4);
        let (scratch, run) = run(&pytest);
        assert_eq!(run.problems.len(), 1, "{:?}", run.problems);
        assert_eq!(
            run.problems[0].message,
            "the patch's new or changed tests could not run (pytest exit 4): see candidates.log"
        );
        assert!(
            run.candidates
                .files
                .iter()
                .all(|f| f.passed + f.failed == 0)
        );
        assert!(!scratch.places.out.join("candidates.xml").exists());
    }
}
