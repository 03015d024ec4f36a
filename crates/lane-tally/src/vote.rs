//! The vote: the `tally` section's types, and [`tally`], which reads every lane report
//! (`crate::reports`), folds each lane's cases per case (the worst outcome counts) and per
//! test (`crate::runs`), and hands the facts to the detectors (`crate::rules`), which judge
//! them by the lanes' rights ([`lane_core::rights`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use lane_core::paths::display_name;
use lane_core::scan::{Lane, ScanSection, ScanTest};
use lane_core::{Document, Error, Problem};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::reports::{self, ReportTally};
use crate::resolve::Resolver;
use crate::rules::{self, TallyFacts};
use crate::runs::{self, LaneRuns};

pub const SECTION: &str = "tally";
pub(crate) const TOOL: &str = "lane-tally";

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
    pub(crate) fn get(&self, lane: Lane) -> &LaneCounts {
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
    /// Per shard report: its lane, shard K of N and its own cases; only reports
    /// that carry a run manifest answering this document.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shards: Vec<crate::shards::ShardCounts>,
    /// `local` when an upstream section's date came from the machine's clock outside CI
    /// (`freeze-ledger check` without `--today` or `LANES_TODAY`): not a CI verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
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

/// Runs the vote over `doc` and the reports; returns the section (the caller stores it).
///
/// junit -> resolve -> vote: every report is read on every core into occurrences
/// (`reports`), each lane's are folded per case and test (`runs`), and the detectors
/// (`rules`) judge the facts.
pub fn tally(doc: &Document, options: &Options) -> Result<TallySection, Error> {
    let source = "<evidence document>";
    let scan: Option<ScanSection> = doc.section_as(ScanSection::NAME, source)?;
    let tests: &[ScanTest] = scan.as_ref().map_or(&[], |s| &s.tests);
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

    // Read every report on every core; results come back in argument order, and the first
    // report that cannot be read is the error.
    let read: Vec<Result<ReportTally, Error>> = options
        .reports
        .par_iter()
        .map(|r| reports::read_report(r, resolver.as_ref(), tests))
        .collect();
    let mut tallies = read.into_iter().collect::<Result<Vec<_>, _>>()?;
    // The run manifests and the shards, before the lanes fold the occurrences.
    let shards = crate::shards::check(doc, &options.reports, &options.rootdir, &tallies, tests)?;
    for &i in &shards.ignored {
        tallies[i] = ReportTally::default();
    }
    let runs = lane_runs(options, &mut tallies, tests, &mut lanes);

    let base = base_scan(options)?;
    let mut case_files: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
    for t in &mut tallies {
        for (test, files) in std::mem::take(&mut t.case_files) {
            case_files.entry(test).or_default().extend(files);
        }
    }

    let facts = TallyFacts {
        doc,
        scan: scan.as_ref(),
        tests,
        lanes: &lanes,
        runs: &runs,
        unmatched: options
            .reports
            .iter()
            .zip(&tallies)
            .map(|(r, t)| (r, t.unmatched.as_slice()))
            .collect(),
        case_files,
        drift: options
            .reports
            .iter()
            .zip(&tallies)
            .map(|(r, t)| (r, t.drift.as_slice()))
            .collect(),
        rootdir: &options.rootdir,
        base: base.as_ref(),
        reason: options.reason.as_deref(),
        shards: &shards,
    };
    let problems = rules::detect(&facts);
    let delta = base.as_ref().map(|b| delta(b, tests));
    let mut section = decide(options, lanes, delta, problems, upstream);
    section.shards = shards.counts;
    section.clock = local_clock(doc);
    Ok(section)
}

/// `local` when a section of the document says its date came from the machine's clock.
fn local_clock(doc: &Document) -> Option<String> {
    doc.section("ledger")
        .and_then(|s| s.get("clock").and_then(|c| c.as_str()).map(str::to_string))
        .filter(|c| c == "local")
}

/// Each lane's reports folded, in `Lane::ALL` order; their cases counted into `lanes`.
fn lane_runs(
    options: &Options,
    tallies: &mut [ReportTally],
    tests: &[ScanTest],
    lanes: &mut Lanes,
) -> [LaneRuns; 3] {
    Lane::ALL.map(|lane| {
        let names: Vec<String> = options
            .reports
            .iter()
            .filter(|r| r.lane == lane)
            .map(|r| display_name(&options.rootdir, Path::new(&r.path)))
            .collect();
        let files = options
            .reports
            .iter()
            .zip(tallies.iter_mut())
            .filter(|(r, _)| r.lane == lane)
            .map(|(_, t)| t);
        runs::gather(
            lane,
            files,
            names,
            tests,
            &options.rootdir,
            lanes.get_mut(lane),
        )
    })
}

/// The base's scan section (`--base`); a base without one is a usage error.
fn base_scan(options: &Options) -> Result<Option<ScanSection>, Error> {
    let Some(base) = &options.base else {
        return Ok(None);
    };
    let scan: Option<ScanSection> = base.section_as(ScanSection::NAME, "--base")?;
    scan.map(Some)
        .ok_or_else(|| Error::usage("--base: the base evidence document has no scan section"))
}

/// The section: the problems sorted, every error (the tally's and upstream) a reason, and
/// the decision.
fn decide(
    options: &Options,
    lanes: Lanes,
    delta: Option<Delta>,
    mut problems: Vec<Problem>,
    upstream: Vec<Problem>,
) -> TallySection {
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
            path: display_name(&options.rootdir, Path::new(&r.path)),
        })
        .collect();
    reports.sort();
    TallySection {
        tool: TOOL.to_string(),
        decision,
        lanes,
        reports,
        delta,
        reason: options.reason.clone(),
        reasons,
        problems,
        shards: Vec::new(),
        clock: None,
    }
}

/// `--base`: scanned tests per lane in the base and the head.
fn delta(base: &ScanSection, head: &[ScanTest]) -> Delta {
    let count = |tests: &[ScanTest], lane: Lane| -> u64 {
        tests.iter().filter(|t| t.lane == Some(lane)).count() as u64
    };
    let d = |lane: Lane| {
        let b = count(&base.tests, lane);
        let h = count(head, lane);
        LaneDelta {
            base: b,
            head: h,
            change: h as i64 - b as i64,
        }
    };
    Delta {
        merge: d(Lane::Merge),
        witness: d(Lane::Witness),
        freeze: d(Lane::Freeze),
    }
}
#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::reports::Occurrence;

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
                "a freeze test's xfail is a recorded known failure, not a skip",
                suite(r#"<testcase classname="t.test_m" name="test_a"/>"#),
                ok_w.clone(),
                suite(
                    r#"<testcase classname="t.test_f" name="test_f"><skipped type="pytest.xfail" message="bug 12"/></testcase>"#,
                ),
                vec![],
            ),
            (
                "a strict xpass of a known failure says promote me, needs no capsule",
                suite(r#"<testcase classname="t.test_m" name="test_a"/>"#),
                ok_w.clone(),
                suite(
                    r#"<testcase classname="t.test_f" name="test_f"><failure message="[XPASS(strict)] bug 12"/></testcase>"#,
                ),
                vec!["~known-failure-passed@t/test_f.py::test_f"],
            ),
            (
                "a merge test's strict xpass is still a failure",
                suite(
                    r#"<testcase classname="t.test_m" name="test_a"><failure message="[XPASS(strict)] x"/></testcase>"#,
                ),
                ok_w.clone(),
                ok_f.clone(),
                vec!["merge-failed@t/test_m.py::test_a"],
            ),
            (
                "runtime lane marks that agree with the scan",
                suite(
                    r#"<testcase classname="t.test_m" name="test_a[1]"><properties><property name="lanes_marks" value="merge"/><property name="lanes_test" value="t/test_m.py::test_a"/><property name="lanes_file" value="t/test_m.py"/><property name="lanes_line" value="3"/></properties></testcase>"#,
                ),
                ok_w.clone(),
                ok_f.clone(),
                vec![],
            ),
            (
                "a lane mark added at run time drifts, once per test",
                suite(
                    r#"<testcase classname="t.test_m" name="test_a[1]"><properties><property name="lanes_marks" value="merge,freeze"/><property name="lanes_test" value="t/test_m.py::test_a"/></properties></testcase><testcase classname="t.test_m" name="test_a[2]"><properties><property name="lanes_marks" value="merge,freeze"/><property name="lanes_test" value="t/test_m.py::test_a"/></properties></testcase>"#,
                ),
                ok_w.clone(),
                suite(
                    r#"<testcase classname="t.test_f" name="test_f"><properties><property name="lanes_marks" value=""/><property name="lanes_test" value="t/test_f.py::test_f"/></properties></testcase>"#,
                ),
                vec![
                    "lane-drift@t/test_m.py::test_a",
                    "lane-drift@t/test_f.py::test_f",
                ],
            ),
            (
                "an item the scan never saw drifts (and is unknown)",
                suite(
                    r#"<testcase classname="t.test_m" name="test_a"/><testcase classname="t.test_m" name="test_made"><properties><property name="lanes_marks" value="merge"/><property name="lanes_test" value="t/test_m.py::test_made"/><property name="lanes_file" value="t/conftest.py"/><property name="lanes_line" value="9"/></properties></testcase>"#,
                ),
                ok_w.clone(),
                ok_f.clone(),
                vec!["lane-drift@t/test_m.py::test_made", "unknown-test@-"],
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

    /// A case carrying `file` (xunit1) is bound to the file that defines its test.
    #[test]
    fn cases_are_bound_to_the_file_they_ran_from() {
        let dir = scratch("bound");
        let json = r#"{"version":1,"scan":{"tool":"lane-scan","tests":[
            {"id":"tests/test_invoice_merge.py::test_total","file":"tests/test_invoice_merge.py","line":3,"lane":"merge","lanes":["merge"],"marks":["merge"],"parametrized":false,"attachments":{}},
            {"id":"tests/test_child.py::TestChild::test_inh","file":"tests/test_child.py","defined_in":"tests/base_mod.py","line":2,"lane":"merge","lanes":["merge"],"marks":["merge"],"parametrized":false,"attachments":{}}],
            "counts":{"merge":2,"witness":0,"freeze":0,"unmarked":0},"files":[],"problems":[]},
            "lock":{"problems":[]},"ledger":{"problems":[]}}"#;
        let doc = Document::parse(json.as_bytes(), "doc").expect("doc");
        let real = r#"<testcase classname="tests.test_invoice_merge" name="test_total" file="tests/test_invoice_merge.py"/>"#;
        let impostor =
            r#"<testcase classname="tests.test_invoice_merge" name="test_total" file="tests.py"/>"#;
        let inherited = r#"<testcase classname="tests.test_child.TestChild" name="test_inh" file="tests/base_mod.py"/>"#;
        let inherited_xunit2 =
            r#"<testcase classname="tests.test_child.TestChild" name="test_inh"/>"#;
        let inherited_wrong = r#"<testcase classname="tests.test_child.TestChild" name="test_inh" file="tests/test_child.py"/>"#;
        let table: Vec<(&str, String, Vec<&str>)> = vec![
            ("the real files", format!("{real}{inherited}"), vec![]),
            (
                "xunit2 cases keep classname matching",
                format!(
                    r#"<testcase classname="tests.test_invoice_merge" name="test_total"/>{inherited_xunit2}"#
                ),
                vec![],
            ),
            (
                "an impostor alone is unknown and the real test did not vote",
                format!("{impostor}{inherited}"),
                vec![
                    "unknown-test@-",
                    "missing-vote@tests/test_invoice_merge.py::test_total",
                ],
            ),
            (
                "an impostor beside the real case collides",
                format!("{real}{impostor}{inherited}"),
                vec![
                    "unknown-test@-",
                    "identity-collision@tests/test_invoice_merge.py::test_total",
                ],
            ),
            (
                "an inherited method runs from its base class's module",
                format!("{real}{inherited_wrong}"),
                vec![
                    "unknown-test@-",
                    "missing-vote@tests/test_child.py::TestChild::test_inh",
                ],
            ),
        ];
        for (name, merge, expected) in table {
            let section = run(&dir.0, &doc, &[(Lane::Merge, &suite(&merge))]);
            let mut got = rules(&section);
            got.sort();
            let mut want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
            want.sort();
            assert_eq!(got, want, "{name}");
            assert_eq!(
                section.decision == Decision::Reject,
                !want.is_empty(),
                "{name}"
            );
        }
        // The messages name both files.
        let section = run(
            &dir.0,
            &doc,
            &[(Lane::Merge, &suite(&format!("{real}{impostor}{inherited}")))],
        );
        let text: Vec<&str> = section
            .problems
            .iter()
            .map(|p| p.message.as_str())
            .collect();
        assert!(
            text.iter().any(|m| m.contains(
                "it ran from tests.py, but \
                 tests/test_invoice_merge.py::test_total is defined in tests/test_invoice_merge.py"
            )),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|m| m.contains("ran from 2 files (tests.py, tests/test_invoice_merge.py)")),
            "{text:?}"
        );
    }

    /// A freeze test's xfail ran and recorded; an absolute replay path inside the
    /// rootdir is made root-relative, one outside is refused.
    #[test]
    fn freeze_xfail_records_and_absolute_replays_inside_the_root() {
        let dir = scratch("freeze16");
        std::fs::write(dir.0.join("cap.bin"), b"x").expect("capsule");
        let outside = scratch("freeze16-outside");
        std::fs::write(outside.0.join("cap.bin"), b"x").expect("capsule");
        let doc = scan_doc(&[(M, Some("merge")), (F, Some("freeze"))], "");
        let merge = suite(r#"<testcase classname="t.test_m" name="test_a"/>"#);
        let failed_with = |replay: &str| {
            suite(&format!(
                r#"<testcase classname="t.test_f" name="test_f"><properties><property name="replay" value="{replay}"/></properties><failure/></testcase>"#
            ))
        };
        let inside = dir.0.join("cap.bin").display().to_string();
        let outside_path = outside.0.join("cap.bin").display().to_string();
        let table: Vec<(&str, String, Vec<&str>)> = vec![
            (
                "xfail of a freeze test",
                suite(
                    r#"<testcase classname="t.test_f" name="test_f"><skipped type="pytest.xfail" message="known"/></testcase>"#,
                ),
                vec![],
            ),
            (
                "a plain skip of a freeze test still did not run",
                suite(r#"<testcase classname="t.test_f" name="test_f"><skipped/></testcase>"#),
                vec!["missing-freeze-run@t/test_f.py::test_f"],
            ),
            (
                "absolute replay inside the rootdir",
                failed_with(&inside),
                vec!["~freeze-failed@t/test_f.py::test_f"],
            ),
            (
                "absolute replay outside the rootdir",
                failed_with(&outside_path),
                vec![
                    "~freeze-failed@t/test_f.py::test_f",
                    "missing-replay-artifact@t/test_f.py::test_f",
                ],
            ),
            (
                "absolute replay climbing out of the rootdir",
                failed_with(&format!("{}/../x/cap.bin", dir.0.display())),
                vec![
                    "~freeze-failed@t/test_f.py::test_f",
                    "missing-replay-artifact@t/test_f.py::test_f",
                ],
            ),
        ];
        for (name, freeze, expected) in table {
            let section = run(
                &dir.0,
                &doc,
                &[(Lane::Merge, &merge), (Lane::Freeze, &freeze)],
            );
            let mut got = rules(&section);
            got.sort();
            let mut want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
            want.sort();
            assert_eq!(got, want, "{name}");
        }
        assert_eq!(
            runs::root_relative_replay(&dir.0, inside.clone()),
            "cap.bin".to_string()
        );
        assert_eq!(
            runs::root_relative_replay(&dir.0, outside_path.clone()),
            outside_path
        );
        assert_eq!(
            runs::root_relative_replay(&dir.0, "rel/cap.bin".into()),
            "rel/cap.bin"
        );
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

    /// The `[NOTSET]` item pytest makes for a computed parameter set that came
    /// out empty is explained by the scan's `empty_params`, only for that item of such a test; a
    /// freeze test's empty-set xfail never ran; under fail_at_collect the module's collection
    /// error still rejects.
    #[test]
    fn empty_computed_parameter_sets() {
        let dir = scratch("empty-params");
        let test = |id: &str, lane: &str, empty: &str| {
            let file = id.split("::").next().unwrap_or("");
            format!(
                r#"{{"id":"{id}","file":"{file}","line":3,"lane":"{lane}","lanes":["{lane}"],"marks":[],"parametrized":true,{empty}"attachments":{{}}}}"#
            )
        };
        let computed = |mark: &str| {
            format!(
                r#""empty_params":{{"computed":["t/test_m.py:2","t/conftest.py:7"],"mark":"{mark}"}},"#
            )
        };
        let tests = [
            test("t/test_m.py::test_a", "merge", &computed("skip")),
            test("t/test_m.py::test_b", "merge", &computed("skip")),
            test("t/test_m.py::test_c", "merge", ""),
            test("t/test_f.py::test_f", "freeze", &computed("xfail")),
            test("t/test_f.py::test_g", "freeze", &computed("xfail")),
        ];
        let json = format!(
            r#"{{"version":1,"scan":{{"tool":"lane-scan","tests":[{}],"counts":{{"merge":3,"witness":0,"freeze":2,"unmarked":0}},"files":[],"problems":[]}},"lock":{{"problems":[]}},"ledger":{{"problems":[]}}}}"#,
            tests.join(",")
        );
        let doc = Document::parse(json.as_bytes(), "doc").expect("doc");
        let merge = suite(
            r#"<testcase classname="t.test_m" name="test_a[NOTSET-1]"><skipped message="got empty parameter set for (x)"/></testcase><testcase classname="t.test_m" name="test_b[1]"><skipped/></testcase><testcase classname="t.test_m" name="test_c[NOTSET]"><skipped/></testcase>"#,
        );
        let freeze = suite(
            r#"<testcase classname="t.test_f" name="test_f[NOTSET]"><skipped type="pytest.xfail"/></testcase><testcase classname="t.test_f" name="test_g[2]"><skipped type="pytest.xfail"/></testcase>"#,
        );
        let s = run(
            &dir.0,
            &doc,
            &[(Lane::Merge, &merge), (Lane::Freeze, &freeze)],
        );
        let mut got = rules(&s);
        got.sort();
        assert_eq!(
            got,
            [
                "merge-skipped@t/test_m.py::test_a",
                "merge-skipped@t/test_m.py::test_b",
                "merge-skipped@t/test_m.py::test_c",
                "missing-freeze-run@t/test_f.py::test_f",
            ]
        );
        let message = |id: &str| {
            s.problems
                .iter()
                .find(|p| p.test.as_deref() == Some(id))
                .map(|p| p.message.clone())
                .unwrap_or_default()
        };
        let a = message("t/test_m.py::test_a");
        assert!(
            a.contains("test_a[NOTSET-1] (skipped) [its parameter sets, computed at run time (t/test_m.py:2, t/conftest.py:7), came out empty")
                && a.contains("empty_parameter_set_mark's skip"),
            "{a}"
        );
        // Another item of such a test, and a NOTSET item of a test the scan knows no computed
        // set of, are plain skips.
        for id in ["t/test_m.py::test_b", "t/test_m.py::test_c"] {
            assert!(!message(id).contains("came out empty"), "{}", message(id));
        }
        assert!(message("t/test_f.py::test_f").contains("empty_parameter_set_mark's xfail"));

        // fail_at_collect: pytest fails the module's collection; the tally still rejects.
        let failing = json.replace(r#""mark":"skip""#, r#""mark":"fail_at_collect""#);
        let doc = Document::parse(failing.as_bytes(), "doc").expect("doc");
        let merge = suite(
            r#"<testcase classname="" name="t.test_m"><error message="collection failure">Empty parameter set in 'test_a' at line 3</error></testcase>"#,
        );
        let s = run(&dir.0, &doc, &[(Lane::Merge, &merge)]);
        assert_eq!(s.decision, Decision::Reject);
        assert!(
            rules(&s).contains(&"collection-error@-".to_string()),
            "{:?}",
            rules(&s)
        );
    }
}
