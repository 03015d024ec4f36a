//! The vote: every case of every lane report, matched to the scan, folded per case (the worst
//! outcome counts) and per test, then judged by the lane's rules.
//!
//! Cases are kept as 16-byte occurrences `(test, hash of the parameters, outcome, retry)`:
//! sorting them puts every report of the same case side by side, whichever shard or rerun it
//! came from, without holding any case name. Names are kept only for cases that did not pass.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use lane_core::paths::resolve_inside;
use lane_core::scan::{Lane, ScanSection, ScanTest};
use lane_core::{Document, Error, Problem, Rule, Severity};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::junit::{self, Outcome};
use crate::resolve::{Resolved, Resolver};

pub const SECTION: &str = "tally";
pub const TOOL: &str = "lane-tally";

/// One `--junit LANE=PATH`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Report {
    pub lane: Lane,
    /// As given on the command line; in the section, relative to the rootdir when the report
    /// lies inside it.
    pub path: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Approve,
    Reject,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Approve => "approve",
            Decision::Reject => "reject",
        }
    }
}

/// Per-lane counts. `tests` are the scanned tests of the lane, `cases` the distinct cases in
/// the lane's reports (each counted once by its worst outcome), `missing` the lane's tests
/// with no case.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaneCounts {
    pub tests: u64,
    pub cases: u64,
    pub passed: u64,
    pub failed: u64,
    pub errors: u64,
    pub skipped: u64,
    pub missing: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lanes {
    pub merge: LaneCounts,
    pub witness: LaneCounts,
    pub freeze: LaneCounts,
}

impl Lanes {
    pub fn get(&self, lane: Lane) -> &LaneCounts {
        match lane {
            Lane::Merge => &self.merge,
            Lane::Witness => &self.witness,
            Lane::Freeze => &self.freeze,
        }
    }

    fn get_mut(&mut self, lane: Lane) -> &mut LaneCounts {
        match lane {
            Lane::Merge => &mut self.merge,
            Lane::Witness => &mut self.witness,
            Lane::Freeze => &mut self.freeze,
        }
    }
}

/// Scanned tests per lane in the base and the head (`--base`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaneDelta {
    pub base: u64,
    pub head: u64,
    pub change: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Delta {
    pub merge: LaneDelta,
    pub witness: LaneDelta,
    pub freeze: LaneDelta,
}

/// The `tally` section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TallySection {
    pub tool: String,
    pub decision: Decision,
    pub lanes: Lanes,
    pub reports: Vec<Report>,
    /// Per-lane test count change against `--base`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<Delta>,
    /// `--reason`: why merge tests were removed or moved, acknowledged by a human.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Every error of every section that decided a rejection (lane-tally's own and upstream),
    /// each with its rule.
    pub reasons: Vec<Problem>,
    pub problems: Vec<Problem>,
}

/// What the vote needs besides the document.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub reports: Vec<Report>,
    /// Where `replay` properties are resolved (and must stay inside).
    pub rootdir: PathBuf,
    /// The base branch's evidence document (`--base`), already read.
    pub base: Option<Document>,
    pub reason: Option<String>,
}

const NO_TEST: u32 = u32::MAX;

/// One report of one case; 16 bytes.
#[derive(Debug, Clone, Copy)]
struct Occurrence {
    hash: u64,
    test: u32,
    outcome: Outcome,
    retry: bool,
    xpass: bool,
}

/// What reading one report file produced.
#[derive(Debug, Default)]
struct FileTally {
    occurrences: Vec<Occurrence>,
    /// Names of cases that did not plainly pass, by (test, hash).
    labels: Vec<(u32, u64, String)>,
    /// `replay` properties of freeze cases.
    replays: Vec<(u32, u64, String)>,
    problems: Vec<Problem>,
}

fn hash_of(parts: &[&str]) -> u64 {
    let mut h = DefaultHasher::new();
    for p in parts {
        p.hash(&mut h);
    }
    h.finish()
}

const MODULE_SKIP: &str = "(module skipped)";

fn read_report(
    report: &Report,
    resolver: Option<&Resolver<'_>>,
    tests: &[ScanTest],
) -> Result<FileTally, Error> {
    let lane = report.lane;
    let mut out = FileTally::default();
    let mut reported_modules: BTreeSet<String> = BTreeSet::new();
    let mut unknown_seen: BTreeSet<String> = BTreeSet::new();
    let mut mismatch_seen: BTreeSet<u32> = BTreeSet::new();
    let path = Path::new(&report.path);
    junit::read_path(path, &report.path, |case| {
        let unresolved = |out: &mut FileTally| {
            out.occurrences.push(Occurrence {
                hash: hash_of(&[case.classname, case.name]),
                test: NO_TEST,
                outcome: case.outcome,
                retry: case.retry,
                xpass: case.xpass,
            });
        };
        let Some(resolver) = resolver else {
            unresolved(&mut out);
            return;
        };
        match resolver.resolve(case.classname, case.name, case.file) {
            Resolved::Test { index, params } => {
                let test = &tests[index as usize];
                if test.lane != Some(lane) {
                    unresolved(&mut out);
                    if mismatch_seen.insert(index) {
                        let theirs = match test.lane {
                            Some(l) => format!("a {l} test"),
                            None => "a test with no single lane in the scan".to_string(),
                        };
                        out.problems.push(
                            Problem::new(
                                Rule::LaneMismatch,
                                format!(
                                    "the {lane} report {} has a case of {theirs} ({}); run each \
                                     lane as its own pytest invocation (-m {lane})",
                                    report.path, case.name
                                ),
                            )
                            .at(test.file.clone(), test.line)
                            .test(test.id.clone()),
                        );
                    }
                    return;
                }
                let hash = hash_of(&[params]);
                out.occurrences.push(Occurrence {
                    hash,
                    test: index,
                    outcome: case.outcome,
                    retry: case.retry,
                    xpass: case.xpass,
                });
                if case.outcome != Outcome::Passed || case.retry {
                    out.labels.push((index, hash, case.name.to_string()));
                }
                if let (Lane::Freeze, Some(replay)) = (lane, case.replay) {
                    out.replays.push((index, hash, replay.to_string()));
                }
            }
            Resolved::Module { file } => {
                unresolved(&mut out);
                if case.outcome.is_failure() {
                    if reported_modules.insert(file.clone()) {
                        out.problems.push(
                            Problem::new(
                                Rule::CollectionError,
                                // The same words in every lane's report, so the problem
                                // shows once however many runs hit it.
                                format!(
                                    "pytest could not collect {file} (module {}): none of its \
                                     tests ran",
                                    case.name
                                ),
                            )
                            .file(file),
                        );
                    }
                } else if case.outcome.is_skip() {
                    // A module-level skip: every test of the module in this lane was skipped.
                    for (i, t) in tests.iter().enumerate() {
                        if t.file == file && t.lane == Some(lane) {
                            let index = i as u32;
                            let hash = hash_of(&[MODULE_SKIP]);
                            out.occurrences.push(Occurrence {
                                hash,
                                test: index,
                                outcome: Outcome::Skipped,
                                retry: false,
                                xpass: false,
                            });
                            out.labels.push((index, hash, MODULE_SKIP.to_string()));
                        }
                    }
                } else if unknown_seen.insert(format!("::{}", case.name)) {
                    out.problems.push(Problem::new(
                        Rule::UnknownTest,
                        format!(
                            "the {lane} report {} has a module-level case {} that is neither a \
                             collection error nor a skip",
                            report.path, case.name
                        ),
                    ));
                }
            }
            Resolved::Unknown { why } => {
                unresolved(&mut out);
                let base = crate::resolve::split_params(case.name).0;
                let key = format!("{}::{base}", case.classname);
                if unknown_seen.insert(key.clone()) {
                    let mut problem = Problem::new(
                        Rule::UnknownTest,
                        format!(
                            "the {lane} report {} has a case {key} that matches no scanned \
                             test ({why})",
                            report.path
                        ),
                    );
                    if let Some(file) = resolver.file_of_classname(case.classname) {
                        problem = problem.file(file);
                    }
                    out.problems.push(problem);
                }
            }
        }
    })?;
    Ok(out)
}

/// One distinct case after folding its reports.
#[derive(Debug, Clone, Copy)]
struct Folded {
    test: u32,
    hash: u64,
    worst: Outcome,
    count: u32,
    passes: u32,
    retry: bool,
    xpass: bool,
}

impl Folded {
    /// How the case shows a retry, when it does: retry elements, or more than one report of
    /// it with a pass among them (pytest-rerunfailures writes each failed try as a
    /// passing-looking case next to the final one).
    fn retried(&self) -> Option<String> {
        if self.retry {
            Some("carries rerun evidence".to_string())
        } else if self.count > 1 && self.passes > 0 {
            Some(if self.worst == Outcome::Passed {
                format!("was reported {} times (a rerun)", self.count)
            } else {
                format!(
                    "was reported {} times, {} and passed (a rerun)",
                    self.count,
                    self.outcome_name()
                )
            })
        } else {
            None
        }
    }

    /// The worst outcome's name; a strict xpass (written by pytest as a failure) says so.
    fn outcome_name(&self) -> &'static str {
        if self.worst == Outcome::Failed && self.xpass {
            "xpass strict"
        } else {
            self.worst.as_str()
        }
    }
}

/// The distinct cases of a lane, folded from its occurrences in (test, hash) order; an
/// iterator, so no second list of a million cases is built.
struct Folds {
    occurrences: Vec<Occurrence>,
    pos: usize,
}

fn fold(mut occurrences: Vec<Occurrence>) -> Folds {
    occurrences.sort_unstable_by_key(|o| (o.test, o.hash));
    Folds {
        occurrences,
        pos: 0,
    }
}

impl Iterator for Folds {
    type Item = Folded;

    fn next(&mut self) -> Option<Folded> {
        let first = *self.occurrences.get(self.pos)?;
        let mut f = Folded {
            test: first.test,
            hash: first.hash,
            worst: first.outcome,
            count: 1,
            passes: u32::from(first.outcome == Outcome::Passed),
            retry: first.retry,
            xpass: first.xpass,
        };
        self.pos += 1;
        while let Some(o) = self.occurrences.get(self.pos) {
            if o.test != f.test || o.hash != f.hash {
                break;
            }
            f.worst = f.worst.max(o.outcome);
            f.count += 1;
            f.passes += u32::from(o.outcome == Outcome::Passed);
            f.retry |= o.retry;
            f.xpass |= o.xpass;
            self.pos += 1;
        }
        Some(f)
    }
}

/// Per test: the cases that decided something, by name.
#[derive(Debug, Default)]
struct TestVerdict {
    cases: u64,
    failed: Vec<String>,
    skipped: Vec<String>,
    flaky: Vec<String>,
    no_replay: Vec<String>,
}

fn list(names: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut sorted: Vec<&str> = names.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    sorted.dedup();
    let mut out = sorted
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if sorted.len() > SHOWN {
        out.push_str(&format!(" and {} more", sorted.len() - SHOWN));
    }
    out
}

/// Why a replay property does not point at a usable file, or None when it does.
fn replay_problem(rootdir: &Path, replay: Option<&String>) -> Option<String> {
    let Some(replay) = replay else {
        return Some("recorded no replay property".to_string());
    };
    match resolve_inside(rootdir, replay) {
        Err(why) => Some(format!("its replay property '{replay}' {why}")),
        Ok(path) if path.is_file() => None,
        Ok(_) => Some(format!(
            "its replay property names '{replay}', which is not a file under the rootdir"
        )),
    }
}

/// Runs the vote over `doc` and the reports; returns the section (the caller stores it).
pub fn tally(doc: &Document, options: &Options) -> Result<TallySection, Error> {
    let source = "<evidence document>";
    let scan: Option<ScanSection> = doc.section_as(ScanSection::NAME, source)?;
    let mut problems: Vec<Problem> = Vec::new();
    let empty: Vec<ScanTest> = Vec::new();
    let tests: &[ScanTest] = scan.as_ref().map_or(&empty, |s| &s.tests);
    let resolver = scan.as_ref().map(|s| Resolver::new(&s.tests, &s.files));

    // Upstream problems are read first: an unreadable section is an error before any work.
    let upstream: Vec<Problem> = doc
        .all_problems(source)?
        .into_iter()
        .filter(|(name, _)| name != SECTION)
        .flat_map(|(_, p)| p)
        .filter(Problem::is_error)
        .collect();

    let mut lanes = Lanes::default();
    for t in tests {
        if let Some(lane) = t.lane {
            lanes.get_mut(lane).tests += 1;
        }
    }

    if scan.is_none() {
        problems.push(Problem::new(
            Rule::NoScanEvidence,
            "the evidence document has no scan section: nothing can be matched or counted \
             (run lane-scan first)",
        ));
    } else {
        // The scan reports these two itself; the tally adds them only when it did not (an
        // older or hand-made scan section), so each shows once.
        let scan_says = |rule: Rule| {
            scan.as_ref().is_some_and(|s| {
                s.problems
                    .iter()
                    .any(|p| p.rule == rule.id() && p.is_error())
            })
        };
        if lanes.merge.tests == 0 && !scan_says(Rule::EmptyMergeLane) {
            problems.push(Problem::new(
                Rule::EmptyMergeLane,
                "the scan has no merge test: nothing can vote for the patch",
            ));
        }
        if lanes.freeze.tests > lanes.merge.tests && !scan_says(Rule::FreezeOverBudget) {
            problems.push(Problem::new(
                Rule::FreezeOverBudget,
                format!(
                    "{} freeze tests exceed {} merge tests",
                    lanes.freeze.tests, lanes.merge.tests
                ),
            ));
        }
        if lanes.witness.tests > 0 && !doc.has_section("lock") {
            problems.push(Problem::new(
                Rule::NoLockEvidence,
                format!(
                    "{} witness tests but no lock section: run lane-lock verify in the pipeline",
                    lanes.witness.tests
                ),
            ));
        }
        if lanes.freeze.tests > 0 && !doc.has_section("ledger") {
            problems.push(Problem::new(
                Rule::NoLedgerEvidence,
                format!(
                    "{} freeze tests but no ledger section: run freeze-ledger check in the \
                     pipeline",
                    lanes.freeze.tests
                ),
            ));
        }
    }

    // Read every report on every core; results come back in argument order.
    let files: Vec<Result<FileTally, Error>> = options
        .reports
        .par_iter()
        .map(|r| read_report(r, resolver.as_ref(), tests))
        .collect();
    let mut per_lane: BTreeMap<Lane, Vec<FileTally>> = BTreeMap::new();
    for (report, file) in options.reports.iter().zip(files) {
        per_lane.entry(report.lane).or_default().push(file?);
    }

    for lane in Lane::ALL {
        let files = per_lane.remove(&lane).unwrap_or_default();
        let reports: Vec<String> = options
            .reports
            .iter()
            .filter(|r| r.lane == lane)
            .map(|r| lane_core::paths::display_name(&options.rootdir, Path::new(&r.path)))
            .collect();
        let mut occurrences = Vec::new();
        let mut labels: HashMap<(u32, u64), String> = HashMap::new();
        let mut replays: HashMap<(u32, u64), String> = HashMap::new();
        for mut f in files {
            if occurrences.is_empty() {
                occurrences = std::mem::take(&mut f.occurrences);
            } else {
                occurrences.append(&mut f.occurrences);
            }
            for (t, h, name) in f.labels {
                labels.entry((t, h)).or_insert(name);
            }
            for (t, h, replay) in f.replays {
                // Several reports of one case: prefer a replay that names a usable file.
                let slot = replays.entry((t, h)).or_insert_with(|| replay.clone());
                if replay_problem(&options.rootdir, Some(slot)).is_some() {
                    *slot = replay;
                }
            }
            problems.append(&mut f.problems);
        }
        let counts = lanes.get_mut(lane);
        let mut verdicts: BTreeMap<u32, TestVerdict> = BTreeMap::new();
        for case in fold(occurrences) {
            counts.cases += 1;
            match case.worst {
                Outcome::Passed => counts.passed += 1,
                Outcome::Failed => counts.failed += 1,
                Outcome::Error => counts.errors += 1,
                Outcome::Skipped | Outcome::XFail => counts.skipped += 1,
            }
            if case.test == NO_TEST {
                continue;
            }
            let label = || {
                labels
                    .get(&(case.test, case.hash))
                    .cloned()
                    .unwrap_or_else(|| {
                        let id = &tests[case.test as usize].id;
                        id.rsplit("::").next().unwrap_or(id).to_string()
                    })
            };
            let v = verdicts.entry(case.test).or_default();
            v.cases += 1;
            match lane {
                Lane::Merge => {
                    // Retry evidence and a failure are both reported: a rerun plugin writes a
                    // passing-looking case for every failed try, so a test that failed on
                    // every try looks "failed and passed" and must still say merge-failed.
                    if let Some(how) = case.retried() {
                        v.flaky.push(format!("{} {how}", label()));
                    }
                    if case.worst.is_failure() {
                        v.failed
                            .push(format!("{} ({})", label(), case.outcome_name()));
                    } else if case.worst.is_skip() {
                        v.skipped
                            .push(format!("{} ({})", label(), case.outcome_name()));
                    }
                }
                Lane::Witness => {
                    // A witness rescued by a rerun failed once: it did not pass.
                    if case.worst.is_failure() {
                        v.failed
                            .push(format!("{} ({})", label(), case.outcome_name()));
                    } else if let Some(how) = case.retried() {
                        v.failed.push(format!("{} {how}", label()));
                    } else if case.worst.is_skip() {
                        v.skipped
                            .push(format!("{} ({})", label(), case.outcome_name()));
                    }
                }
                Lane::Freeze => {
                    if case.worst.is_failure() {
                        let name = label();
                        if let Some(why) =
                            replay_problem(&options.rootdir, replays.get(&(case.test, case.hash)))
                        {
                            v.no_replay.push(format!("{name} {why}"));
                        }
                        v.failed.push(format!("{name} ({})", case.outcome_name()));
                    } else if case.worst.is_skip() {
                        v.skipped
                            .push(format!("{} ({})", label(), case.outcome_name()));
                    }
                }
            }
        }
        let where_ = if reports.is_empty() {
            format!("no {lane} report was given (--junit {lane}=PATH)")
        } else {
            format!("not in {}", reports.join(", "))
        };
        for (i, test) in tests.iter().enumerate() {
            if test.lane != Some(lane) {
                continue;
            }
            let at = |p: Problem| p.at(test.file.clone(), test.line).test(test.id.clone());
            let Some(v) = verdicts.get(&(i as u32)) else {
                counts.missing += 1;
                let (rule, what) = match lane {
                    Lane::Merge => (Rule::MissingVote, "merge test did not vote"),
                    Lane::Witness => (Rule::MissingWitness, "witness test did not run"),
                    Lane::Freeze => (Rule::MissingFreezeRun, "freeze test did not run"),
                };
                problems.push(at(Problem::new(rule, format!("{what}: {where_}"))));
                continue;
            };
            match lane {
                Lane::Merge => {
                    if !v.flaky.is_empty() {
                        problems.push(at(Problem::new(
                            Rule::FlakyVoter,
                            format!("merge test is flaky and cannot vote: {}", list(&v.flaky)),
                        )));
                    }
                    if !v.failed.is_empty() {
                        problems.push(at(Problem::new(
                            Rule::MergeFailed,
                            format!("merge test failed: {}", list(&v.failed)),
                        )));
                    }
                    if !v.skipped.is_empty() {
                        problems.push(at(Problem::new(
                            Rule::MergeSkipped,
                            format!("merge test was skipped at run time: {}", list(&v.skipped)),
                        )));
                    }
                }
                Lane::Witness => {
                    if !v.failed.is_empty() {
                        problems.push(at(Problem::new(
                            Rule::WitnessFailed,
                            format!("witness test failed: {}", list(&v.failed)),
                        )));
                    }
                    if !v.skipped.is_empty() {
                        problems.push(at(Problem::new(
                            Rule::WitnessSkipped,
                            format!("witness test was skipped: {}", list(&v.skipped)),
                        )));
                    }
                }
                Lane::Freeze => {
                    if !v.failed.is_empty() {
                        problems.push(at(Problem::new(
                            Rule::FreezeFailed,
                            format!(
                                "freeze test failed (recorded, not a vote): {}",
                                list(&v.failed)
                            ),
                        )));
                    }
                    if !v.no_replay.is_empty() {
                        problems.push(at(Problem::new(
                            Rule::MissingReplayArtifact,
                            format!(
                                "failed freeze case without a replay artifact: {}",
                                list(&v.no_replay)
                            ),
                        )));
                    }
                    if !v.skipped.is_empty() {
                        problems.push(at(Problem::new(
                            Rule::MissingFreezeRun,
                            format!("freeze test was skipped: {}", list(&v.skipped)),
                        )));
                    }
                }
            }
        }
    }

    let delta = match &options.base {
        Some(base) => Some(compare_base(
            base,
            scan.as_ref(),
            options.reason.as_deref(),
            &mut problems,
        )?),
        None => None,
    };

    lane_core::problem::normalize(&mut problems);
    let mut reasons: Vec<Problem> = problems
        .iter()
        .filter(|p| p.is_error())
        .cloned()
        .chain(upstream)
        .collect();
    lane_core::problem::normalize(&mut reasons);
    let decision = if reasons.is_empty() {
        Decision::Approve
    } else {
        Decision::Reject
    };
    let mut reports: Vec<Report> = options
        .reports
        .iter()
        .map(|r| Report {
            lane: r.lane,
            path: lane_core::paths::display_name(&options.rootdir, Path::new(&r.path)),
        })
        .collect();
    reports.sort();
    Ok(TallySection {
        tool: TOOL.to_string(),
        decision,
        lanes,
        reports,
        delta,
        reason: options.reason.clone(),
        reasons,
        problems,
    })
}

/// `--base`: merge tests of the base that are gone or moved, and the per-lane count change.
fn compare_base(
    base: &Document,
    head: Option<&ScanSection>,
    reason: Option<&str>,
    problems: &mut Vec<Problem>,
) -> Result<Delta, Error> {
    let base_scan: ScanSection = base
        .section_as(ScanSection::NAME, "--base")?
        .ok_or_else(|| Error::usage("--base: the base evidence document has no scan section"))?;
    let acknowledge = |p: Problem| match reason {
        Some(r) => {
            let message = format!("{} (acknowledged: {r})", p.message);
            Problem {
                message,
                ..p.severity(Severity::Warning)
            }
        }
        None => p,
    };
    let empty = Vec::new();
    let head_tests = head.map_or(&empty, |s| &s.tests);
    let head_by_id: HashMap<&str, &ScanTest> =
        head_tests.iter().map(|t| (t.id.as_str(), t)).collect();
    for old in base_scan.tests_in(Lane::Merge) {
        match head_by_id.get(old.id.as_str()) {
            None => problems.push(acknowledge(
                Problem::new(
                    Rule::MergeTestRemoved,
                    "merge test of the base is gone from the patch".to_string(),
                )
                .at(old.file.clone(), old.line)
                .test(old.id.clone()),
            )),
            Some(new) => match new.lane {
                Some(Lane::Merge) => {}
                Some(other) => problems.push(acknowledge(
                    Problem::new(
                        Rule::LaneChanged,
                        format!("test moved from merge to {other}: it no longer votes"),
                    )
                    .at(new.file.clone(), new.line)
                    .test(new.id.clone()),
                )),
                None => problems.push(acknowledge(
                    Problem::new(
                        Rule::MergeTestRemoved,
                        "merge test of the base left the merge lane (no single lane now)"
                            .to_string(),
                    )
                    .at(new.file.clone(), new.line)
                    .test(new.id.clone()),
                )),
            },
        }
    }
    let count = |tests: &[ScanTest], lane: Lane| -> u64 {
        tests.iter().filter(|t| t.lane == Some(lane)).count() as u64
    };
    let d = |lane: Lane| {
        let b = count(&base_scan.tests, lane);
        let h = count(head_tests, lane);
        LaneDelta {
            base: b,
            head: h,
            change: h as i64 - b as i64,
        }
    };
    Ok(Delta {
        merge: d(Lane::Merge),
        witness: d(Lane::Witness),
        freeze: d(Lane::Freeze),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn scan_doc(tests: &[(&str, Option<&str>)], extra: &str) -> Document {
        let tests: Vec<String> = tests
            .iter()
            .map(|(id, lane)| {
                let file = id.split("::").next().unwrap_or("");
                let lane_json = lane.map_or("null".to_string(), |l| format!("\"{l}\""));
                let lanes = lane.map_or("[]".to_string(), |l| format!("[\"{l}\"]"));
                format!(
                    r#"{{"id":"{id}","file":"{file}","line":3,"lane":{lane_json},"lanes":{lanes},"marks":[],"parametrized":false,"attachments":{{}}}}"#
                )
            })
            .collect();
        let json = format!(
            r#"{{"version":1,"scan":{{"tool":"lane-scan","tests":[{}],"counts":{{"merge":0,"witness":0,"freeze":0,"unmarked":0}},"files":[],"problems":[]}},"lock":{{"problems":[]}},"ledger":{{"problems":[]}}{extra}}}"#,
            tests.join(",")
        );
        Document::parse(json.as_bytes(), "doc").expect("test document")
    }

    struct Dir(PathBuf);
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn scratch(name: &str) -> Dir {
        let dir =
            std::env::temp_dir().join(format!("lane-tally-vote-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        Dir(dir)
    }

    fn suite(cases: &str) -> String {
        format!("<testsuites><testsuite>{cases}</testsuite></testsuites>")
    }

    fn run(dir: &Path, doc: &Document, reports: &[(Lane, &str)]) -> TallySection {
        let mut list = Vec::new();
        for (i, (lane, xml)) in reports.iter().enumerate() {
            let path = dir.join(format!("r{i}.xml"));
            std::fs::write(&path, xml).expect("write report");
            list.push(Report {
                lane: *lane,
                path: path.display().to_string(),
            });
        }
        let options = Options {
            reports: list,
            rootdir: dir.to_path_buf(),
            base: None,
            reason: None,
        };
        tally(doc, &options).expect("tally")
    }

    fn rules(section: &TallySection) -> Vec<String> {
        section
            .problems
            .iter()
            .map(|p| {
                format!(
                    "{}{}@{}",
                    if p.is_error() { "" } else { "~" },
                    p.rule,
                    p.test.as_deref().unwrap_or("-")
                )
            })
            .collect()
    }

    const M: &str = "t/test_m.py::test_a";
    const W: &str = "t/test_w.py::test_w";
    const F: &str = "t/test_f.py::test_f";

    #[test]
    fn vote_table() {
        let dir = scratch("table");
        std::fs::write(dir.0.join("cap.bin"), b"x").expect("capsule");
        let doc = scan_doc(
            &[
                (M, Some("merge")),
                (W, Some("witness")),
                (F, Some("freeze")),
            ],
            "",
        );
        let ok_w = suite(r#"<testcase classname="t.test_w" name="test_w"/>"#);
        let ok_f = suite(r#"<testcase classname="t.test_f" name="test_f"/>"#);
        let table: Vec<(&str, String, String, String, Vec<&str>)> = vec![
            (
                "all good, parametrized cases fold",
                suite(
                    r#"<testcase classname="t.test_m" name="test_a[1]"/><testcase classname="t.test_m" name="test_a[2]"/>"#,
                ),
                ok_w.clone(),
                ok_f.clone(),
                vec![],
            ),
            (
                "merge failure",
                suite(
                    r#"<testcase classname="t.test_m" name="test_a"><failure message="x"/></testcase>"#,
                ),
                ok_w.clone(),
                ok_f.clone(),
                vec!["merge-failed@t/test_m.py::test_a"],
            ),
            (
                "failure plus teardown error is a failure, not a flake",
                suite(
                    r#"<testcase classname="t.test_m" name="test_a"><failure/></testcase><testcase classname="t.test_m" name="test_a"><error/></testcase>"#,
                ),
                ok_w.clone(),
                ok_f.clone(),
                vec!["merge-failed@t/test_m.py::test_a"],
            ),
            (
                "failed then passed is flaky, and the failure still counts",
                suite(
                    r#"<testcase classname="t.test_m" name="test_a"><failure/></testcase><testcase classname="t.test_m" name="test_a"/>"#,
                ),
                ok_w.clone(),
                ok_f.clone(),
                vec![
                    "flaky-voter@t/test_m.py::test_a",
                    "merge-failed@t/test_m.py::test_a",
                ],
            ),
            (
                "a rerun plugin's passing-looking try does not rescue the final failure",
                suite(
                    r#"<testcase classname="t.test_m" name="test_a"/><testcase classname="t.test_m" name="test_a"/><testcase classname="t.test_m" name="test_a"><failure message="x"/></testcase>"#,
                ),
                ok_w.clone(),
                ok_f.clone(),
                vec![
                    "flaky-voter@t/test_m.py::test_a",
                    "merge-failed@t/test_m.py::test_a",
                ],
            ),
            (
                "skipped and passed: the skip counts",
                suite(
                    r#"<testcase classname="t.test_m" name="test_a"/><testcase classname="t.test_m" name="test_a"><skipped/></testcase>"#,
                ),
                ok_w.clone(),
                ok_f.clone(),
                vec![
                    "flaky-voter@t/test_m.py::test_a",
                    "merge-skipped@t/test_m.py::test_a",
                ],
            ),
            (
                "a witness rescued by a rerun did not pass",
                suite(r#"<testcase classname="t.test_m" name="test_a"/>"#),
                suite(
                    r#"<testcase classname="t.test_w" name="test_w"/><testcase classname="t.test_w" name="test_w"/>"#,
                ),
                ok_f.clone(),
                vec!["witness-failed@t/test_w.py::test_w"],
            ),
            (
                "a witness with retry evidence did not pass",
                suite(r#"<testcase classname="t.test_m" name="test_a"/>"#),
                suite(
                    r#"<testcase classname="t.test_w" name="test_w"><flakyFailure message="m"/></testcase>"#,
                ),
                ok_f.clone(),
                vec!["witness-failed@t/test_w.py::test_w"],
            ),
            (
                "a freeze rerun is fine",
                suite(r#"<testcase classname="t.test_m" name="test_a"/>"#),
                ok_w.clone(),
                suite(
                    r#"<testcase classname="t.test_f" name="test_f"/><testcase classname="t.test_f" name="test_f"/>"#,
                ),
                vec![],
            ),
            (
                "passed twice (a rerun plugin) is flaky",
                suite(
                    r#"<testcase classname="t.test_m" name="test_a"/><testcase classname="t.test_m" name="test_a"/>"#,
                ),
                ok_w.clone(),
                ok_f.clone(),
                vec!["flaky-voter@t/test_m.py::test_a"],
            ),
            (
                "retry evidence is flaky",
                suite(r#"<testcase classname="t.test_m" name="test_a"><rerunFailure/></testcase>"#),
                ok_w.clone(),
                ok_f.clone(),
                vec!["flaky-voter@t/test_m.py::test_a"],
            ),
            (
                "runtime skip and xfail",
                suite(
                    r#"<testcase classname="t.test_m" name="test_a[1]"><skipped/></testcase><testcase classname="t.test_m" name="test_a[2]"><skipped type="pytest.xfail"/></testcase>"#,
                ),
                ok_w.clone(),
                ok_f.clone(),
                vec!["merge-skipped@t/test_m.py::test_a"],
            ),
            (
                "missing vote, unknown case, lane mismatch",
                suite(
                    r#"<testcase classname="t.test_x" name="test_new"/><testcase classname="t.test_w" name="test_w"/>"#,
                ),
                ok_w.clone(),
                ok_f.clone(),
                vec![
                    "unknown-test@-",
                    "missing-vote@t/test_m.py::test_a",
                    "lane-mismatch@t/test_w.py::test_w",
                ],
            ),
            (
                "witness failure and skip",
                suite(r#"<testcase classname="t.test_m" name="test_a"/>"#),
                suite(
                    r#"<testcase classname="t.test_w" name="test_w[1]"><error/></testcase><testcase classname="t.test_w" name="test_w[2]"><skipped/></testcase>"#,
                ),
                ok_f.clone(),
                vec![
                    "witness-failed@t/test_w.py::test_w",
                    "witness-skipped@t/test_w.py::test_w",
                ],
            ),
            (
                "freeze failure with a replay artifact is a warning",
                suite(r#"<testcase classname="t.test_m" name="test_a"/>"#),
                ok_w.clone(),
                suite(
                    r#"<testcase classname="t.test_f" name="test_f"><properties><property name="replay" value="cap.bin"/></properties><failure/></testcase>"#,
                ),
                vec!["~freeze-failed@t/test_f.py::test_f"],
            ),
            (
                "freeze failure without a usable replay artifact",
                suite(r#"<testcase classname="t.test_m" name="test_a"/>"#),
                ok_w.clone(),
                suite(
                    r#"<testcase classname="t.test_f" name="test_f[1]"><properties><property name="replay" value="../cap.bin"/></properties><failure/></testcase><testcase classname="t.test_f" name="test_f[2]"><failure/></testcase>"#,
                ),
                vec![
                    "~freeze-failed@t/test_f.py::test_f",
                    "missing-replay-artifact@t/test_f.py::test_f",
                ],
            ),
            (
                "freeze skipped did not run",
                suite(r#"<testcase classname="t.test_m" name="test_a"/>"#),
                ok_w.clone(),
                suite(r#"<testcase classname="t.test_f" name="test_f"><skipped/></testcase>"#),
                vec!["missing-freeze-run@t/test_f.py::test_f"],
            ),
            (
                "collection error and a module-level skip",
                suite(
                    r#"<testcase classname="" name="t.test_m"><skipped/></testcase><testcase classname="" name="t.test_gone"><error message="collection failure"/></testcase>"#,
                ),
                ok_w.clone(),
                ok_f.clone(),
                vec!["collection-error@-", "merge-skipped@t/test_m.py::test_a"],
            ),
        ];
        for (name, merge, witness, freeze, expected) in table {
            let section = run(
                &dir.0,
                &doc,
                &[
                    (Lane::Merge, &merge),
                    (Lane::Witness, &witness),
                    (Lane::Freeze, &freeze),
                ],
            );
            let mut got = rules(&section);
            got.sort();
            let mut want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
            want.sort();
            assert_eq!(got, want, "{name}");
            let errors = section.problems.iter().any(Problem::is_error);
            assert_eq!(section.decision == Decision::Reject, errors, "{name}");
            assert_eq!(
                section.reasons.len(),
                section.problems.iter().filter(|p| p.is_error()).count(),
                "{name}"
            );
        }
    }

    #[test]
    fn occurrences_stay_small_and_xpass_is_named() {
        assert_eq!(std::mem::size_of::<Occurrence>(), 16);
        let dir = scratch("xpass");
        let doc = scan_doc(&[(M, Some("merge"))], "");
        let s = run(
            &dir.0,
            &doc,
            &[(
                Lane::Merge,
                &suite(
                    r#"<testcase classname="t.test_m" name="test_a"><failure message="[XPASS(strict)] known"/></testcase>"#,
                ),
            )],
        );
        assert_eq!(rules(&s), ["merge-failed@t/test_m.py::test_a"]);
        assert!(
            s.problems[0].message.contains("test_a (xpass strict)"),
            "{}",
            s.problems[0].message
        );
    }

    #[test]
    fn counts_shards_and_missing_reports() {
        let dir = scratch("counts");
        let doc = scan_doc(
            &[
                (M, Some("merge")),
                ("t/test_m.py::test_b", Some("merge")),
                (W, Some("witness")),
            ],
            "",
        );
        let shard1 = suite(
            r#"<testcase classname="t.test_m" name="test_a[1]"/><testcase classname="t.test_m" name="test_a[2]"><failure/></testcase>"#,
        );
        let shard2 = suite(
            r#"<testcase classname="t.test_m" name="test_b"><skipped/></testcase><testcase classname="t.test_m" name="test_a[2]"><error/></testcase>"#,
        );
        let s = run(
            &dir.0,
            &doc,
            &[(Lane::Merge, &shard1), (Lane::Merge, &shard2)],
        );
        assert_eq!(
            s.lanes.merge,
            LaneCounts {
                tests: 2,
                cases: 3,
                passed: 1,
                failed: 0,
                errors: 1,
                skipped: 1,
                missing: 0
            }
        );
        assert_eq!(
            s.lanes.witness,
            LaneCounts {
                tests: 1,
                missing: 1,
                ..Default::default()
            }
        );
        let mut got = rules(&s);
        got.sort();
        assert_eq!(
            got,
            [
                "merge-failed@t/test_m.py::test_a",
                "merge-skipped@t/test_m.py::test_b",
                "missing-witness@t/test_w.py::test_w"
            ]
        );
        assert!(
            s.problems
                .iter()
                .any(|p| p.message.contains("no witness report was given"))
        );
    }

    #[test]
    fn evidence_sections_and_upstream_errors() {
        let dir = scratch("evidence");
        let no_scan = Document::parse(br#"{"version":1}"#, "doc").expect("doc");
        let s = run(
            &dir.0,
            &no_scan,
            &[(Lane::Merge, &suite(r#"<testcase classname="a" name="t"/>"#))],
        );
        assert_eq!(rules(&s), ["no-scan-evidence@-"]);
        assert_eq!(s.lanes.merge.cases, 1);

        // Witness and freeze tests without lock / ledger sections; an upstream error travels.
        let json = r#"{"version":1,"scan":{"tool":"lane-scan","tests":[
            {"id":"t/test_w.py::test_w","file":"t/test_w.py","line":1,"lane":"witness","lanes":["witness"],"marks":[],"parametrized":false,"attachments":{}},
            {"id":"t/test_f.py::test_f","file":"t/test_f.py","line":1,"lane":"freeze","lanes":["freeze"],"marks":[],"parametrized":false,"attachments":{}}],
            "counts":{"merge":0,"witness":1,"freeze":1,"unmarked":0},"files":[],
            "problems":[{"rule":"unmarked","severity":"error","message":"m","test":"t/x.py::t"}]}}"#;
        let doc = Document::parse(json.as_bytes(), "doc").expect("doc");
        let s = run(
            &dir.0,
            &doc,
            &[
                (
                    Lane::Witness,
                    &suite(r#"<testcase classname="t.test_w" name="test_w"/>"#),
                ),
                (
                    Lane::Freeze,
                    &suite(r#"<testcase classname="t.test_f" name="test_f"/>"#),
                ),
            ],
        );
        let mut got = rules(&s);
        got.sort();
        assert_eq!(
            got,
            [
                "empty-merge-lane@-",
                "freeze-over-budget@-",
                "no-ledger-evidence@-",
                "no-lock-evidence@-"
            ]
        );
        assert!(
            s.reasons.iter().any(|p| p.rule == "unmarked"),
            "upstream error copied"
        );
        assert_eq!(s.reasons.len(), 5);

        // When the scan already reports an empty merge lane, the tally does not repeat it.
        let json = json.replace(
            r#""problems":[{"rule":"unmarked""#,
            r#""problems":[{"rule":"empty-merge-lane","severity":"error","message":"none"},{"rule":"unmarked""#,
        );
        let doc = Document::parse(json.as_bytes(), "doc").expect("doc");
        let s = run(
            &dir.0,
            &doc,
            &[
                (
                    Lane::Witness,
                    &suite(r#"<testcase classname="t.test_w" name="test_w"/>"#),
                ),
                (
                    Lane::Freeze,
                    &suite(r#"<testcase classname="t.test_f" name="test_f"/>"#),
                ),
            ],
        );
        let mut got = rules(&s);
        got.sort();
        assert_eq!(
            got,
            [
                "freeze-over-budget@-",
                "no-ledger-evidence@-",
                "no-lock-evidence@-"
            ]
        );
        assert_eq!(
            s.reasons
                .iter()
                .filter(|p| p.rule == "empty-merge-lane")
                .count(),
            1
        );
        assert_eq!(s.decision, Decision::Reject);
    }

    #[test]
    fn base_comparison_and_reason() {
        let dir = scratch("base");
        let base = scan_doc(
            &[
                (M, Some("merge")),
                ("t/test_m.py::test_gone", Some("merge")),
                ("t/test_m.py::test_moved", Some("merge")),
            ],
            "",
        );
        let head = scan_doc(
            &[
                (M, Some("merge")),
                ("t/test_m.py::test_moved", Some("witness")),
            ],
            "",
        );
        let merge = suite(r#"<testcase classname="t.test_m" name="test_a"/>"#);
        let witness = suite(r#"<testcase classname="t.test_m" name="test_moved"/>"#);
        for reason in [None, Some("split the module")] {
            let mut list = Vec::new();
            for (i, (lane, xml)) in [(Lane::Merge, &merge), (Lane::Witness, &witness)]
                .iter()
                .enumerate()
            {
                let path = dir.0.join(format!("b{i}.xml"));
                std::fs::write(&path, xml).expect("write");
                list.push(Report {
                    lane: *lane,
                    path: path.display().to_string(),
                });
            }
            let options = Options {
                reports: list,
                rootdir: dir.0.clone(),
                base: Some(base.clone()),
                reason: reason.map(str::to_string),
            };
            let s = tally(&head, &options).expect("tally");
            let mut got = rules(&s);
            got.sort();
            let delta = s.delta.expect("delta");
            assert_eq!(
                delta.merge,
                LaneDelta {
                    base: 3,
                    head: 1,
                    change: -2
                }
            );
            assert_eq!(
                delta.witness,
                LaneDelta {
                    base: 0,
                    head: 1,
                    change: 1
                }
            );
            match reason {
                None => {
                    assert_eq!(
                        got,
                        [
                            "lane-changed@t/test_m.py::test_moved",
                            "merge-test-removed@t/test_m.py::test_gone"
                        ]
                    );
                    assert_eq!(s.decision, Decision::Reject);
                }
                Some(r) => {
                    assert_eq!(
                        got,
                        [
                            "~lane-changed@t/test_m.py::test_moved",
                            "~merge-test-removed@t/test_m.py::test_gone"
                        ]
                    );
                    assert!(s.problems.iter().all(|p| p.message.contains(r)));
                    assert_eq!(s.decision, Decision::Approve);
                    assert_eq!(s.reason.as_deref(), Some(r));
                }
            }
        }
    }
}
