//! Reading one lane report: every case becomes a 16-byte occurrence `(test, hash of the
//! parameters, outcome, retry)`; names are kept only for cases that did not plainly pass, and
//! cases that match no test of the lane are kept as facts for the detectors.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

use lane_core::Error;
use lane_core::scan::{Lane, ScanTest};

use crate::junit::{Case, Detail, Outcome, Runtime};
use crate::resolve::{Resolved, Resolver};
use crate::vote::Report;

/// The test of an occurrence that matches no scanned test of its lane.
pub(crate) const NO_TEST: u32 = u32::MAX;

/// The parameters a module-level skip stands for.
const MODULE_SKIP: &str = "(module skipped)";

/// One report of one case; 16 bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Occurrence {
    pub hash: u64,
    pub test: u32,
    pub outcome: Outcome,
    pub retry: bool,
    pub xpass: bool,
}

/// A case (or the first of its kind in one report) that matches no scanned test of the
/// report's lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unmatched {
    /// A case of scanned test `test`, which is not a test of this lane.
    OtherLane { test: u32, case: String },
    /// A module-level error: pytest could not collect `file` (module `module`).
    CollectionError { file: String, module: String },
    /// A module-level case that is neither a collection error nor a skip.
    ModuleCase { name: String },
    /// `key` (`classname::name`) matches no scanned test, for the reason `why`; `file` is the
    /// scanned file its classname names, when one does.
    Unknown {
        key: String,
        why: String,
        file: Option<String>,
    },
}

/// What pytest-lanes-gate saw at run time and the scan did not (`lane-drift`), once per test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Drift {
    /// Scanned test `test` ran with other lane marks than the source gives it.
    Marks {
        test: u32,
        added: Vec<String>,
        removed: Vec<String>,
    },
    /// An item whose test id the scan does not have, at the file and line the plugin recorded.
    Unseen {
        id: String,
        file: String,
        line: Option<u64>,
    },
}

/// What reading one report file produced.
#[derive(Debug, Default)]
pub(crate) struct ReportTally {
    pub occurrences: Vec<Occurrence>,
    /// Names of cases that did not plainly pass, by (test, hash).
    pub labels: Vec<(u32, u64, String)>,
    /// What failed or errored cases said ([`crate::detail::suffix`]), by (test, hash).
    pub details: Vec<(u32, u64, String)>,
    /// `replay` properties of freeze cases.
    pub replays: Vec<(u32, u64, String)>,
    /// Cases that match no test of the lane, each kind once per report.
    pub unmatched: Vec<Unmatched>,
    /// Per scanned test, every xunit1 `file` its cases ran from: the defining file of the
    /// cases bound to it, and the other files of cases that carry its classname and name
    /// (impostors). More than one is an identity collision.
    pub case_files: BTreeMap<u32, BTreeSet<String>>,
    /// Runtime evidence that disagrees with the scan, once per test per report.
    pub drift: Vec<Drift>,
    /// The distinct `<testsuite>` names, in order of first appearance (the run manifest).
    pub suites: Vec<String>,
}

fn hash_of(parts: &[&str]) -> u64 {
    let mut h = DefaultHasher::new();
    for p in parts {
        p.hash(&mut h);
    }
    h.finish()
}

/// Reads `report`; with no resolver (no scan), every case stays unmatched and uncounted
/// against tests.
pub(crate) fn read_report(
    report: &Report,
    resolver: Option<&Resolver<'_>>,
    tests: &[ScanTest],
) -> Result<ReportTally, Error> {
    let mut reader = Reader {
        lane: report.lane,
        tests,
        out: ReportTally::default(),
        collected_modules: BTreeSet::new(),
        unknown_seen: BTreeSet::new(),
        mismatch_seen: BTreeSet::new(),
        drift_seen: BTreeSet::new(),
    };
    let mut suites: Vec<String> = Vec::new();
    let on_suite = |name: &str| {
        if !suites.iter().any(|s| s == name) {
            suites.push(name.to_string());
        }
    };
    // Resolving runs on whichever thread read the case; what depends on the cases
    // before it runs in report order, in `sink`.
    let lane = report.lane;
    let map = |case: &Case<'_>| -> Step {
        let found = resolver.map(|r| r.resolve(case.classname, case.name, case.file));
        if let Some(Resolved::Test { index, params }) = &found
            && case.file.is_none()
            && case.runtime.is_none()
            && case.outcome == Outcome::Passed
            && !case.retry
            && (lane != Lane::Freeze || case.replay.is_none())
            && tests[*index as usize].lane == Some(lane)
        {
            // All `Reader::on_test` would do with it.
            return Step::Plain(Occurrence {
                hash: hash_of(&[params]),
                test: *index,
                outcome: case.outcome,
                retry: case.retry,
                xpass: case.xpass,
            });
        }
        Step::Kept(Box::new(Kept::of(case, found)))
    };
    let sink = |step: Step| match step {
        Step::Plain(occurrence) => reader.out.occurrences.push(occurrence),
        Step::Kept(mut kept) => {
            let found = kept.found.take();
            let case = kept.as_case();
            let resolved = found.map(|f| f.into_resolved(case.name));
            reader.on_case(&case, resolved, resolver);
        }
    };
    crate::parallel::read_path(Path::new(&report.path), &report.path, on_suite, map, sink)?;
    reader.out.suites = suites;
    Ok(reader.out)
}

/// A case as the parallel part of the reading left it.
enum Step {
    /// A plain pass of a test of the lane: only its occurrence.
    Plain(Occurrence),
    /// Anything else: the case and what it resolved to, for [`Reader::on_case`].
    Kept(Box<Kept>),
}

/// A [`Case`] owned, with what the resolver said (`None` without a scan).
struct Kept {
    classname: String,
    name: String,
    file: Option<String>,
    outcome: Outcome,
    xpass: bool,
    retry: bool,
    replay: Option<String>,
    runtime: Option<[String; 4]>,
    detail: Option<(String, Option<String>)>,
    found: Option<Found>,
}

/// [`Resolved`] owned; a test's parameters are the end of the case name from `params_at`.
enum Found {
    Test { index: u32, params_at: usize },
    Module { file: String },
    Unknown { why: String, claimed: Vec<u32> },
}

impl Found {
    fn into_resolved(self, name: &str) -> Resolved<'_> {
        match self {
            Found::Test { index, params_at } => Resolved::Test {
                index,
                params: &name[params_at..],
            },
            Found::Module { file } => Resolved::Module { file },
            Found::Unknown { why, claimed } => Resolved::Unknown { why, claimed },
        }
    }
}

impl Kept {
    fn of(case: &Case<'_>, found: Option<Resolved<'_>>) -> Kept {
        Kept {
            classname: case.classname.to_string(),
            name: case.name.to_string(),
            file: case.file.map(str::to_string),
            outcome: case.outcome,
            xpass: case.xpass,
            retry: case.retry,
            replay: case.replay.map(str::to_string),
            runtime: case
                .runtime
                .map(|r| [r.marks, r.test, r.file, r.line].map(str::to_string)),
            detail: case
                .detail
                .map(|d| (d.message.to_string(), d.at.map(str::to_string))),
            found: found.map(|r| match r {
                Resolved::Test { index, params } => Found::Test {
                    index,
                    params_at: case.name.len() - params.len(),
                },
                Resolved::Module { file } => Found::Module { file },
                Resolved::Unknown { why, claimed } => Found::Unknown { why, claimed },
            }),
        }
    }

    fn as_case(&self) -> Case<'_> {
        Case {
            classname: &self.classname,
            name: &self.name,
            file: self.file.as_deref(),
            outcome: self.outcome,
            xpass: self.xpass,
            retry: self.retry,
            replay: self.replay.as_deref(),
            runtime: self.runtime.as_ref().map(|r| Runtime {
                marks: &r[0],
                test: &r[1],
                file: &r[2],
                line: &r[3],
            }),
            detail: self.detail.as_ref().map(|(message, at)| Detail {
                message,
                at: at.as_deref(),
            }),
        }
    }
}

/// One report being read.
struct Reader<'t> {
    lane: Lane,
    tests: &'t [ScanTest],
    out: ReportTally,
    collected_modules: BTreeSet<String>,
    /// Unknown case keys and module-level case names (`::name`) already recorded.
    unknown_seen: BTreeSet<String>,
    mismatch_seen: BTreeSet<u32>,
    /// Test ids already reported as drifting.
    drift_seen: BTreeSet<String>,
}

impl Reader<'_> {
    /// One case, in report order, with what it resolved to (`None` without a scan).
    fn on_case(
        &mut self,
        case: &Case<'_>,
        resolved: Option<Resolved<'_>>,
        resolver: Option<&Resolver<'_>>,
    ) {
        let (Some(resolver), Some(resolved)) = (resolver, resolved) else {
            self.unresolved(case);
            return;
        };
        if let Some(runtime) = &case.runtime {
            let index = match &resolved {
                Resolved::Test { index, .. } => Some(*index),
                _ => None,
            };
            self.on_runtime(runtime, index);
        }
        match resolved {
            Resolved::Test { index, params } => {
                self.file_of(index, case.file);
                self.on_test(case, index, params)
            }
            Resolved::Module { file } => self.on_module(case, file),
            Resolved::Unknown { why, claimed } => {
                for index in claimed {
                    self.file_of(index, case.file);
                }
                self.unresolved(case);
                let base = crate::resolve::split_params(case.name).0;
                let key = format!("{}::{base}", case.classname);
                if self.unknown_seen.insert(key.clone()) {
                    let file = resolver
                        .file_of_classname(case.classname)
                        .map(str::to_string);
                    self.out
                        .unmatched
                        .push(Unmatched::Unknown { key, why, file });
                }
            }
        }
    }

    /// Records that a case of (or claiming to be) test `index` ran from `file`.
    fn file_of(&mut self, index: u32, file: Option<&str>) {
        let Some(file) = file else { return };
        let files = self.out.case_files.entry(index).or_default();
        if !files.contains(file) {
            files.insert(file.to_string());
        }
    }

    /// Counts a case that is no test of the lane.
    fn unresolved(&mut self, case: &Case<'_>) {
        self.out.occurrences.push(Occurrence {
            hash: hash_of(&[case.classname, case.name]),
            test: NO_TEST,
            outcome: case.outcome,
            retry: case.retry,
            xpass: case.xpass,
        });
    }

    fn on_test(&mut self, case: &Case<'_>, index: u32, params: &str) {
        let test = &self.tests[index as usize];
        if test.lane != Some(self.lane) {
            self.unresolved(case);
            if self.mismatch_seen.insert(index) {
                self.out.unmatched.push(Unmatched::OtherLane {
                    test: index,
                    case: case.name.to_string(),
                });
            }
            return;
        }
        let hash = hash_of(&[params]);
        self.out.occurrences.push(Occurrence {
            hash,
            test: index,
            outcome: case.outcome,
            retry: case.retry,
            xpass: case.xpass,
        });
        if case.outcome != Outcome::Passed || case.retry {
            self.out.labels.push((index, hash, case.name.to_string()));
        }
        if case.outcome.is_failure()
            && let Some(suffix) = case.detail.as_ref().and_then(crate::detail::suffix)
        {
            self.out.details.push((index, hash, suffix));
        }
        if let (Lane::Freeze, Some(replay)) = (self.lane, case.replay) {
            self.out.replays.push((index, hash, replay.to_string()));
        }
    }

    /// Compares what pytest-lanes-gate recorded for a case with the scan: the lane marks of
    /// the test it resolved to, or, for a test id the scan does not have, the item itself.
    fn on_runtime(&mut self, runtime: &Runtime<'_>, index: Option<u32>) {
        let found = index
            .filter(|&i| self.tests[i as usize].id == runtime.test)
            .or_else(|| {
                self.tests
                    .iter()
                    .position(|t| t.id == runtime.test)
                    .map(|i| i as u32)
            });
        let Some(position) = found else {
            if self.drift_seen.insert(runtime.test.to_string()) {
                self.out.drift.push(Drift::Unseen {
                    id: runtime.test.to_string(),
                    file: runtime.file.to_string(),
                    line: runtime.line.parse().ok().filter(|&l| l > 0),
                });
            }
            return;
        };
        let test = &self.tests[position as usize];
        let at_run: BTreeSet<&str> = runtime
            .marks
            .split(',')
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .collect();
        let in_source: BTreeSet<&str> = test.lanes.iter().map(|l| l.as_str()).collect();
        if at_run == in_source || !self.drift_seen.insert(test.id.clone()) {
            return;
        }
        self.out.drift.push(Drift::Marks {
            test: position,
            added: at_run
                .difference(&in_source)
                .map(|s| s.to_string())
                .collect(),
            removed: in_source
                .difference(&at_run)
                .map(|s| s.to_string())
                .collect(),
        });
    }

    fn on_module(&mut self, case: &Case<'_>, file: String) {
        self.unresolved(case);
        if case.outcome.is_failure() {
            if self.collected_modules.insert(file.clone()) {
                self.out.unmatched.push(Unmatched::CollectionError {
                    file,
                    module: case.name.to_string(),
                });
            }
        } else if case.outcome.is_skip() {
            // A module-level skip: every test of the module in this lane was skipped.
            for (i, t) in self.tests.iter().enumerate() {
                if t.file == file && t.lane == Some(self.lane) {
                    let index = i as u32;
                    let hash = hash_of(&[MODULE_SKIP]);
                    self.out.occurrences.push(Occurrence {
                        hash,
                        test: index,
                        outcome: Outcome::Skipped,
                        retry: false,
                        xpass: false,
                    });
                    self.out.labels.push((index, hash, MODULE_SKIP.to_string()));
                }
            }
        } else if self.unknown_seen.insert(format!("::{}", case.name)) {
            self.out.unmatched.push(Unmatched::ModuleCase {
                name: case.name.to_string(),
            });
        }
    }
}
