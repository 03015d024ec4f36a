//! The fourth step: the three lanes, each status recorded and never OR-ed (the tally reads
//! reports). One pytest process runs every lane and its report is split into one per lane
//! ([`crate::together`]); anything out of the ordinary runs one process per lane instead.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lane_core::Problem;
use lane_core::scan::Lane;
use lane_tally::Report;

use super::prepare::Places;
use crate::capture::{self, CapturedCase};
use crate::pytest::{Ended, Finished, Setup};
use crate::rules::{self, GateFacts, LaneRunFacts, ReportCounts};
use crate::section::LaneRun;
use crate::together::{Split, Together};
use crate::{GateError, TOOL, shard, tree, trial};

pub(crate) const LANES: [Lane; 3] = [Lane::Merge, Lane::Witness, Lane::Freeze];

/// What the lanes run with.
pub(crate) struct LaneSetup<'a> {
    /// The run manifest and the split.
    pub(crate) shard: &'a shard::Plan,
    pub(crate) setup: &'a Setup,
    /// Where pytest runs.
    pub(crate) vote_root: &'a Path,
    pub(crate) places: &'a Places,
    /// Try one pytest process for every lane first.
    pub(crate) together: bool,
    /// `--lane-timeout`, as the messages say it.
    pub(crate) timeout_secs: u64,
    /// The folders of the vote tree product modules import from (tree-relative).
    pub(crate) product_dirs: &'a [String],
}

/// How the lanes went: each lane's run, the reports copied into the out folder, the problems
/// the runs show (lane-timeout, report-contradicts-exit). `pytest-status` and each lane's log
/// and report are in the out folder.
#[derive(Debug)]
pub(crate) struct LaneRuns {
    pub(crate) runs: BTreeMap<String, LaneRun>,
    pub(crate) reports: Vec<Report>,
    pub(crate) problems: Vec<Problem>,
    /// Where pytest wrote the reports (outside the out folder).
    pub(crate) reports_dir: PathBuf,
    /// The cases that saw a failure, for `freeze-ledger add --from`.
    pub(crate) captured: Vec<CapturedCase>,
}

/// What one lane's run is recorded as in `pytest-status`, and what the gate says of it.
fn note(ended: Ended, timeout_secs: u64) -> (String, String) {
    let note = match (ended.timed_out, ended.code) {
        (true, _) => format!("ran past --lane-timeout {timeout_secs} s and was killed"),
        (false, Some(0)) => "exit 0, passed".into(),
        (false, Some(1)) => "exit 1, tests failed".into(),
        (false, Some(5)) => "exit 5, no tests in this lane".into(),
        (false, Some(n)) => format!("exit {n}, pytest could not run this lane"),
        (false, None) => "killed by a signal".into(),
    };
    let status = match ended.code {
        Some(n) if !ended.timed_out => n.to_string(),
        _ => "killed".into(),
    };
    (status, note)
}

/// A report's cases and failures; None when it does not read (the tally refuses it then, with
/// its line and column).
fn counts(lane: Lane, report: &Path) -> Option<ReportCounts> {
    use lane_tally::junit::Outcome;
    let mut counts = ReportCounts {
        cases: 0,
        failed: 0,
    };
    lane_tally::junit::read_path(report, &format!("{lane}.xml"), |case| {
        counts.cases += 1;
        if matches!(case.outcome, Outcome::Failed | Outcome::Error) {
            counts.failed += 1;
        }
    })
    .ok()?;
    Some(counts)
}

/// Whether pytest left a report at `path`.
pub(crate) fn has_report(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() > 0)
}

/// How many of a log's last lines say why pytest could not run.
const CAUSE_LINES: usize = 6;

impl LaneRuns {
    /// Why pytest could not run any lane, when it could not: every lane's run ended with
    /// exit 2 (interrupted), 3 (internal error) or 4 (usage error) and none left a report. The
    /// message names the exit, the last lines of the first lane's log (where pytest says what
    /// stopped it: a conftest that does not import, an option it does not know), the log and
    /// the interpreter that ran it.
    pub(crate) fn could_not_run(&self, places: &Places, python: &Path) -> Option<String> {
        if !self.reports.is_empty() || self.runs.is_empty() {
            return None;
        }
        let codes: Vec<i32> = self
            .runs
            .values()
            .map(|r| match (r.timed_out, r.exit) {
                (false, Some(code @ 2..=4)) => Some(code),
                _ => None,
            })
            .collect::<Option<_>>()?;
        let lane = LANES.iter().find(|l| self.runs.contains_key(l.as_str()))?;
        let log = format!("{lane}.log");
        let text = std::fs::read(places.out.join(&log)).unwrap_or_default();
        let text = String::from_utf8_lossy(&text);
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let cause = lines[lines.len().saturating_sub(CAUSE_LINES)..].join("\n    ");
        let what = match codes[0] {
            2 => "interrupted",
            3 => "an internal error",
            _ => "a usage error",
        };
        Some(format!(
            "pytest could not run the lanes (exit {}, {what}), so nothing voted; it said:\n    \
             {cause}\n(the whole log: {}; the interpreter: {}, chosen with --python)",
            codes[0],
            places.out_name(&log),
            python.display()
        ))
    }

    /// Whether the voting lanes (merge, witness) each ended passed or with nothing to run.
    pub(crate) fn voters_passed(&self) -> bool {
        [Lane::Merge, Lane::Witness].iter().all(|lane| {
            self.runs
                .get(lane.as_str())
                .is_none_or(|r| !r.timed_out && matches!(r.exit, Some(0 | 5)))
        })
    }

    /// Records one lane's run: the problems, the report copied; returns what the gate says of
    /// it on stderr.
    fn record(
        &mut self,
        input: &LaneSetup<'_>,
        lane: Lane,
        (ended, report): (Ended, PathBuf),
        status: &mut String,
    ) -> Result<String, GateError> {
        let places = input.places;
        let (code, said) = note(ended, input.timeout_secs);
        status.push_str(&format!("{lane} {code}\n"));
        let has_report = has_report(&report);
        let facts = LaneRunFacts {
            lane,
            ended,
            timeout_secs: input.timeout_secs,
            report: (has_report && !ended.timed_out)
                .then(|| counts(lane, &report))
                .flatten(),
        };
        self.problems.extend(rules::check(&GateFacts::Lane(&facts)));
        let name = places.out_name(&format!("{lane}.xml"));
        if has_report {
            std::fs::copy(&report, places.out.join(format!("{lane}.xml"))).map_err(|e| {
                GateError::io(
                    format!("cannot copy the {lane} report to the out folder"),
                    e,
                )
            })?;
            self.reports.push(Report {
                lane,
                path: name.clone(),
            });
            if !ended.timed_out {
                capture::collect(
                    lane,
                    &report,
                    input.vote_root,
                    &places.out,
                    &mut self.captured,
                )?;
            }
        }
        self.runs.insert(
            lane.to_string(),
            LaneRun {
                exit: if ended.timed_out { None } else { ended.code },
                report: has_report.then_some(name),
                timed_out: ended.timed_out,
            },
        );
        Ok(said)
    }
}

/// What a voting run's channel shows of the code on trial, judged against its report and exit
/// status (a run killed for the timeout does not vote: nothing to judge).
fn judge(
    input: &LaneSetup<'_>,
    run: String,
    ran: &Finished,
    report: &Path,
) -> Result<Vec<Problem>, GateError> {
    if ran.ended.timed_out {
        return Ok(Vec::new());
    }
    let report = has_report(report).then_some(report);
    let facts = trial::facts(
        run,
        ran.ended,
        &ran.stream,
        report,
        input.vote_root,
        input.product_dirs,
    )?;
    Ok(rules::check(&GateFacts::Trial(&facts)))
}

/// Runs the lanes and writes `pytest-status`.
pub(crate) fn run_lanes(input: &LaneSetup<'_>) -> Result<LaneRuns, GateError> {
    let places = input.places;
    let reports_dir = places.tmp.join("reports");
    std::fs::create_dir(&reports_dir)
        .map_err(|e| GateError::io("cannot create a temporary folder", e))?;
    let mut runs = LaneRuns {
        runs: BTreeMap::new(),
        reports: Vec::new(),
        problems: Vec::new(),
        reports_dir,
        captured: Vec::new(),
    };
    let one_run = if input.together {
        run_together(input, &runs.reports_dir, &mut runs.problems)?
    } else {
        None
    };
    let mut status = String::new();
    // One stderr line per pytest process: the lanes that ran together share one.
    let mut together: Vec<String> = Vec::new();
    for lane in LANES {
        let in_one_run = one_run.as_ref().and_then(|split| split.lanes.get(&lane));
        let ran = match in_one_run {
            Some(split) => (
                Ended {
                    code: Some(split.code),
                    timed_out: false,
                },
                split.report.clone(),
            ),
            None => {
                let report = runs.reports_dir.join(format!("{lane}.xml"));
                let log = places.out.join(format!("{lane}.log"));
                let (select, mut lane_setup) = input.shard.select(lane, input.setup);
                if lane == Lane::Freeze {
                    // freeze tests never vote: their run's imports count for no voter
                    lane_setup.trace = None;
                }
                let ran = lane_setup.run(input.vote_root, &select, &report, &log)?;
                let run = format!("the {lane} lane's pytest run");
                runs.problems.extend(judge(input, run, &ran, &report)?);
                (ran.ended, report)
            }
        };
        let said = runs.record(input, lane, ran, &mut status)?;
        if in_one_run.is_some() {
            together.push(format!("{lane} {said}"));
        } else {
            eprintln!(
                "{TOOL}: pytest -m {lane}: {said} (log: {})",
                places.out_name(&format!("{lane}.log"))
            );
        }
    }
    if !together.is_empty() {
        eprintln!(
            "{TOOL}: pytest, the lanes in one process: {} (log: {})",
            together.join("; "),
            places.out_name("merge.log")
        );
    }
    super::write(&places.out.join("pytest-status"), status.as_bytes())?;
    Ok(runs)
}

/// The lanes in one pytest process: each lane's report written into `reports_dir`, the one
/// log copied to each lane's; None (after saying why on stderr) when the lanes must run one
/// process each. What the run's channel shows goes into `problems` when the split succeeds.
fn run_together(
    input: &LaneSetup<'_>,
    reports_dir: &Path,
    problems: &mut Vec<Problem>,
) -> Result<Option<Split>, GateError> {
    let (places, plan) = (input.places, input.shard);
    let together = Together::prepare(&places.tmp)?;
    let (merge_select, merge_setup) = plan.select(Lane::Merge, input.setup);
    let (select, one_setup) = together.select(&merge_select, &merge_setup);
    let combined = reports_dir.join("lanes.xml");
    let log = places.out.join("merge.log");
    let ran = together.run(&one_setup, input.vote_root, &select, &combined, &log)?;
    let ended = ran.ended;
    let manifests = LANES
        .iter()
        .map(|&lane| (lane, plan.manifest(lane)))
        .collect();
    match together.split(&combined, ended, &manifests, reports_dir) {
        Ok(split) => {
            let run = "the lanes' pytest run".to_string();
            problems.extend(judge(input, run, &ran, &combined)?);
            for lane in [Lane::Witness, Lane::Freeze] {
                std::fs::copy(&log, places.out.join(format!("{lane}.log"))).map_err(|e| {
                    GateError::io(format!("cannot copy the pytest log to the {lane} log"), e)
                })?;
            }
            Ok(Some(split))
        }
        Err(why) => {
            eprintln!(
                "{TOOL}: the lanes' one pytest run: {why}; running one pytest process per lane"
            );
            for lane in LANES {
                tree::remove(&reports_dir.join(format!("{lane}.xml")))?;
            }
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use clap::Parser;

    use super::*;
    use crate::Args;
    use crate::stand_in::{Scratch, StandIn, report};

    /// A stand-in pytest, a scratch run and the plan of one unsharded run.
    struct Fixture {
        pytest: StandIn,
        scratch: Scratch,
        plan: shard::Plan,
        setup: Setup,
    }

    fn fixture(timeout: Duration) -> Fixture {
        let pytest = StandIn::new();
        let scratch = Scratch::new();
        let args = Args::try_parse_from(["lane-gate"]).unwrap();
        let plan = shard::Plan::prepare(
            &args,
            &mut lane_core::Document::empty(),
            shard::RunKey {
                base: None,
                seed: None,
                today: jiff::civil::date(2026, 12, 1),
            },
            &scratch.places,
        )
        .unwrap();
        let setup = Setup {
            python: pytest.python(),
            plugins: Vec::new(),
            seed: None,
            user_args: Vec::new(),
            timeout,
            pythonpath: Vec::new(),
            pycache_prefix: None,
            product: Vec::new(),
            trace: None,
            tmpdir: None,
            mutant: None,
        };
        Fixture {
            pytest,
            scratch,
            plan,
            setup,
        }
    }

    impl Fixture {
        fn run(&self, together: bool) -> LaneRuns {
            run_lanes(&LaneSetup {
                shard: &self.plan,
                setup: &self.setup,
                vote_root: &self.scratch.places.cwd,
                places: &self.scratch.places,
                together,
                timeout_secs: self.setup.timeout.as_secs(),
                product_dirs: &[],
            })
            .unwrap()
        }
    }

    fn rules_of(runs: &LaneRuns) -> Vec<&str> {
        runs.problems.iter().map(|p| p.rule.as_str()).collect()
    }

    #[test]
    fn each_lane_s_status_and_report_are_kept_apart() {
        let f = fixture(Duration::from_secs(60));
        f.pytest
            .answer("merge", Some(&report(&[("test_m", false)])), 0)
            .answer("witness", Some(&report(&[("test_w", true)])), 1)
            .answer("freeze", None, 5);
        let runs = f.run(false);
        assert_eq!(f.pytest.calls(), ["merge", "witness", "freeze"]);
        assert_eq!(
            f.scratch.out("pytest-status"),
            "merge 0\nwitness 1\nfreeze 5\n"
        );
        assert!(runs.problems.is_empty(), "{:?}", runs.problems);
        let run = |lane: &str| runs.runs[lane].clone();
        assert_eq!(
            (run("merge").exit, run("merge").timed_out),
            (Some(0), false)
        );
        assert_eq!(run("witness").exit, Some(1));
        assert_eq!((run("freeze").exit, run("freeze").report), (Some(5), None));
        let merge = f.scratch.places.out_name("merge.xml");
        assert_eq!(run("merge").report.as_deref(), Some(merge.as_str()));
        let lanes: Vec<Lane> = runs.reports.iter().map(|r| r.lane).collect();
        assert_eq!(lanes, [Lane::Merge, Lane::Witness]);
        // each report is in the out folder, carrying its lane's run manifest
        let text = f.scratch.out("merge.xml");
        let suite = format!(
            "lanes-run v1 lane=merge shard=1/1 evidence={}",
            f.plan.digest
        );
        assert!(text.contains(&suite), "{text}");
        assert!(!f.scratch.places.out.join("freeze.xml").exists());
    }

    #[test]
    fn a_lane_past_its_timeout_is_killed_and_does_not_vote() {
        let f = fixture(Duration::from_secs(1));
        f.pytest
            .answer("merge", Some(&report(&[("test_m", false)])), 0)
            .slow("merge", 60)
            .answer("witness", Some(&report(&[("test_w", false)])), 0)
            .answer("freeze", None, 5);
        let start = Instant::now();
        let runs = f.run(false);
        assert!(start.elapsed() < Duration::from_secs(30));
        let merge = &runs.runs["merge"];
        assert_eq!(
            (merge.exit, merge.timed_out, &merge.report),
            (None, true, &None)
        );
        assert_eq!(
            f.scratch.out("pytest-status"),
            "merge killed\nwitness 0\nfreeze 5\n"
        );
        assert_eq!(rules_of(&runs), ["lane-timeout"]);
        assert_eq!(
            runs.problems[0].message,
            "the merge lane's pytest run ran longer than 1 s and was killed: it did not vote"
        );
    }

    #[test]
    fn a_report_that_contradicts_its_exit_status_does_not_vote() {
        let passed = report(&[("test_m", false)]);
        let failed = report(&[("test_m", true)]);
        let empty = report(&[]);
        // the merge lane answering `text` with `code`, the others without tests
        let merge = |text: &str, code: i32| {
            let f = fixture(Duration::from_secs(60));
            f.pytest
                .answer("merge", Some(text), code)
                .answer("witness", None, 5)
                .answer("freeze", None, 5);
            f.run(false)
        };
        for (text, code) in [(&passed, 1), (&failed, 0), (&passed, 5)] {
            let runs = merge(text, code);
            assert_eq!(rules_of(&runs), ["report-contradicts-exit"], "{code}");
            assert!(
                runs.problems[0]
                    .message
                    .starts_with("the merge lane's pytest run exited "),
                "{}",
                runs.problems[0].message
            );
        }
        let unreadable = "<testsuites><testcase".to_string();
        for (text, code) in [
            (&passed, 0),
            (&failed, 1),
            (&empty, 5),
            (&failed, 2),
            (&unreadable, 1),
        ] {
            let runs = merge(text, code);
            assert!(runs.problems.is_empty(), "{code}: {:?}", runs.problems);
            // the report votes (an unreadable one is the tally's to refuse)
            assert_eq!(runs.reports.len(), 1, "{code}");
        }
    }

    #[test]
    fn a_lane_without_a_report_has_no_vote() {
        let f = fixture(Duration::from_secs(60));
        f.pytest
            .answer("merge", None, 2)
            .answer("witness", None, 5)
            .answer("freeze", None, 5);
        let runs = f.run(false);
        assert!(runs.reports.is_empty());
        assert!(runs.problems.is_empty());
        assert_eq!(runs.runs["merge"].exit, Some(2));
        assert_eq!(runs.runs["merge"].report, None);
        assert!(!f.scratch.places.out.join("merge.xml").exists());
        assert_eq!(
            f.scratch.out("pytest-status"),
            "merge 2\nwitness 5\nfreeze 5\n"
        );
    }

    #[test]
    fn the_one_run_falls_back_to_one_process_per_lane() {
        let f = fixture(Duration::from_secs(60));
        // the one run exits 0 with a report but lists no items: it cannot be split
        f.pytest
            .answer(
                "merge or witness or freeze",
                Some(&report(&[("test_m", false)])),
                0,
            )
            .answer("merge", Some(&report(&[("test_m", false)])), 0)
            .answer("witness", None, 5)
            .answer("freeze", None, 5);
        let runs = f.run(true);
        assert_eq!(
            f.pytest.calls(),
            ["merge_or_witness_or_freeze", "merge", "witness", "freeze"]
        );
        assert_eq!(
            f.scratch.out("pytest-status"),
            "merge 0\nwitness 5\nfreeze 5\n"
        );
        assert_eq!(runs.reports.len(), 1);
        // nothing of the one run is left among the reports
        assert!(!runs.reports_dir.join("witness.xml").exists());
    }
}
