//! The three lanes in one pytest process: one interpreter start, one plugin load,
//! one collection, instead of one of each per lane.
//!
//! - **What runs.** The selection is `-m "merge or witness or freeze"`; a plugin module the gate
//!   writes outside the tree (`-p _lanes_gate_lanes`, first on `sys.path`) runs every merge
//!   item first, then every witness item, then every freeze item, and tears every fixture down
//!   (session-scoped ones included) at each lane's end, as the end of a process would. No test of
//!   a lane that cannot approve runs before a merge test has finished; no fixture outlives its
//!   lane. Each item's lanes are its marks at run time, read as `-m` reads them.
//! - **The reports.** pytest writes one report (`--junitxml`, the gate's path); the plugin writes
//!   which lanes each item belongs to (the case identity pytest's report gives it: classname,
//!   name, file). After pytest exits, the gate checks that report against the process's exit
//!   status, as it checks each lane's today, and splits it into one report per lane, each with
//!   its lane's run manifest as the suite name (written here, outside pytest). A case the plugin
//!   did not list (a collection error) goes into every lane, as it would appear in every lane's
//!   own run.
//! - **When it does not.** Anything out of the ordinary sends the gate back to one process per
//!   lane, whose verdict is then the only one: an exit status other than 0, 1 or 5 (an
//!   interrupted or refused run: collection errors, `pytest.exit`, an internal error), a lane
//!   running past `--lane-timeout` (the first lane's clock starts with the process, each later
//!   lane's when the plugin announces it, as the gate sees it), no report, a report this module cannot read as pytest writes it, a
//!   report that contradicts the exit status, or a run the plugin refuses: pytest-xdist
//!   distributing tests (lanes side by side), `--maxfail`/`-x` or `--stepwise` (one lane's
//!   failures would stop the others). `LANES_GATE_SEPARATE=1` asks for one process per lane.
//!
//! What one process does not change: the patch's code runs in the process that judges it in
//! both designs, so nothing the process writes (the report, the lane list) is trusted beyond
//! what the exit status corroborates; a forged lane list can only move a case into a lane the
//! scan does not give it (`lane-mismatch`) or out of all of them (`missing-vote`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use lane_core::manifest::Manifest;
use lane_core::scan::Lane;
use serde::Deserialize;

use crate::GateError;
use crate::pytest::{Ended, Finished, Setup};

/// The plugin module's name (first on `sys.path`, a name no project uses).
pub(crate) const PLUGIN_MODULE: &str = "_lanes_gate_lanes";
/// The selection of the one run: every lane.
pub(crate) const SELECT_ALL: &str = "merge or witness or freeze";
/// Set to `1`, the gate runs one pytest process per lane.
pub(crate) const SEPARATE_ENV: &str = "LANES_GATE_SEPARATE";
/// The largest combined report split here (a larger one runs one process per lane).
const REPORT_MAX_BYTES: u64 = 4 << 30;
/// The largest item list read.
const MAP_MAX_BYTES: u64 = 4 << 30;

/// The plugin: the lanes in order, every fixture torn down between them, the item list and the
/// progress file. It defers to pytest's own loop when pytest's loop would not run the items
/// (collection errors, `--collect-only`): the run then ends with 2 or without cases, and the
/// gate runs one process per lane.
const PLUGIN: &str = r#""""lane-gate: the three lanes in one pytest process (written by lane-gate)."""
import json
import os

import pytest
from _pytest.junitxml import bin_xml_escape, mangle_test_address

LANES = ("merge", "witness", "freeze")

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "run.json"), encoding="utf-8") as _f:
    _RUN = json.load(_f)


def _lanes(item):
    names = {mark.name for mark in item.iter_markers()}
    return [lane for lane in LANES if lane in names]


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    option = session.config.option
    why = None
    if getattr(option, "dist", "no") != "no" or getattr(option, "numprocesses", None):
        why = "pytest-xdist would run tests of different lanes side by side"
    elif getattr(option, "maxfail", 0):
        why = "--maxfail (-x) would let one lane's failures stop the others"
    elif getattr(option, "stepwise", False) or getattr(option, "stepwise_skip", False):
        why = "--stepwise would let one lane's failure stop the others"
    if why is not None:
        pytest.exit(f"lane-gate: {why}: the lanes run one pytest process each", returncode=4)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    config = session.config
    if session.testsfailed and not config.option.continue_on_collection_errors:
        return None
    if config.option.collectonly:
        return None
    prefix = getattr(config.option, "junitprefix", None)
    items = list(session.items)
    lanes = [_lanes(item) for item in items]
    with open(_RUN["items"], "w", encoding="utf-8") as out:
        for item, its in zip(items, lanes):
            names = mangle_test_address(item.nodeid)
            classnames = names[:-1]
            if prefix:
                classnames.insert(0, prefix)
            out.write(json.dumps({
                "classname": ".".join(classnames),
                "name": bin_xml_escape(names[-1]),
                "file": item.location[0],
                "lanes": its,
            }) + "\n")
    group = [its[0] if its else "" for its in lanes]
    rank = {lane: i for i, lane in enumerate(LANES)}
    order = sorted(range(len(items)), key=lambda i: rank.get(group[i], len(LANES)))
    with open(_RUN["progress"], "a", encoding="utf-8") as progress:
        for n, i in enumerate(order):
            if n == 0 or group[i] != group[order[n - 1]]:
                progress.write((group[i] or "none") + "\n")
                progress.flush()
            nextitem = None
            if n + 1 < len(order) and group[order[n + 1]] == group[i]:
                nextitem = items[order[n + 1]]
            items[i].config.hook.pytest_runtest_protocol(item=items[i], nextitem=nextitem)
            if session.shouldfail:
                raise session.Failed(session.shouldfail)
            if session.shouldstop:
                raise session.Interrupted(session.shouldstop)
    return True
"#;

/// Whether the caller asked for one process per lane.
pub(crate) fn separate_requested() -> bool {
    std::env::var(SEPARATE_ENV).is_ok_and(|v| v == "1")
}

/// The plugin's folder and the files it writes.
pub(crate) struct Together {
    dir: PathBuf,
    items: PathBuf,
    progress: PathBuf,
}

/// One item as the plugin listed it.
#[derive(Debug, Deserialize)]
struct Item {
    classname: String,
    name: String,
    file: String,
    lanes: Vec<String>,
}

/// What the one run gave: each lane's report (in `reports`) and the exit status it stands for.
#[derive(Debug)]
pub(crate) struct Split {
    pub(crate) lanes: BTreeMap<Lane, SplitLane>,
}

#[derive(Debug, Clone)]
pub(crate) struct SplitLane {
    pub(crate) report: PathBuf,
    pub(crate) code: i32,
}

impl Together {
    /// Writes the plugin and its settings under `tmp`.
    pub(crate) fn prepare(tmp: &Path) -> Result<Together, GateError> {
        let dir = tmp.join("lanes-plugin");
        std::fs::create_dir_all(&dir)
            .map_err(|e| GateError::io("cannot create a temporary folder", e))?;
        let items = tmp.join("lanes-items.jsonl");
        let progress = tmp.join("lanes-progress.txt");
        let run = serde_json::json!({
            "items": items.to_string_lossy(),
            "progress": progress.to_string_lossy(),
        });
        write(&dir.join("run.json"), run.to_string().as_bytes())?;
        write(&dir.join(format!("{PLUGIN_MODULE}.py")), PLUGIN.as_bytes())?;
        Ok(Together {
            dir,
            items,
            progress,
        })
    }

    /// The one run's selection and setup, from the merge lane's (`-m merge` becomes every
    /// lane; the plugin is loaded first on `sys.path`).
    pub(crate) fn select(&self, merge_select: &[String], setup: &Setup) -> (Vec<String>, Setup) {
        let mut select: Vec<String> = merge_select.to_vec();
        if let Some(i) = select.iter().position(|a| a == "-m")
            && i + 1 < select.len()
        {
            select[i + 1] = SELECT_ALL.into();
        }
        select.push("-p".into());
        select.push(PLUGIN_MODULE.into());
        let mut setup = setup.clone();
        setup.pythonpath.insert(0, self.dir.clone());
        (select, setup)
    }

    /// Runs the one process; a lane whose clock (the first lane's from the start, each later
    /// one's from when the plugin announced it, as the gate saw it) passes `timeout` ends the
    /// run (`timed_out`).
    pub(crate) fn run(
        &self,
        setup: &Setup,
        tree: &Path,
        select: &[String],
        report: &Path,
        log: &Path,
    ) -> Result<Finished, GateError> {
        for f in [&self.items, &self.progress] {
            crate::tree::remove(f)?;
        }
        let timeout = setup.timeout;
        let mut seen = 0usize;
        let mut lane_start = Instant::now();
        let progress = self.progress.clone();
        setup.run_until(tree, select, report, log, move || {
            let lines = std::fs::read(&progress)
                .map(|b| b.iter().filter(|&&c| c == b'\n').count())
                .unwrap_or(0);
            // The first lane's clock runs from the start (its collection included, as in a
            // process of its own); each later lane's from when the plugin announced it.
            if lines > seen {
                if seen > 0 {
                    lane_start = Instant::now();
                }
                seen = lines;
            }
            lane_start.elapsed() >= timeout
        })
    }

    /// Splits the one report into one per lane under `reports`, or says why it cannot (the
    /// gate then runs one process per lane).
    pub(crate) fn split(
        &self,
        combined: &Path,
        ended: Ended,
        manifests: &BTreeMap<Lane, Manifest>,
        reports: &Path,
    ) -> Result<Split, String> {
        let code = match (ended.timed_out, ended.code) {
            (true, _) => return Err("a lane ran past --lane-timeout".into()),
            (false, Some(c @ (0 | 1 | 5))) => c,
            (false, Some(c)) => return Err(format!("pytest exited {c}")),
            (false, None) => return Err("pytest was killed by a signal".into()),
        };
        let bytes = lane_core::io::read_file_capped(combined, REPORT_MAX_BYTES, "the report")
            .map_err(|e| format!("no report: {e}"))?;
        let doc = lane_tally::junit::layout(&bytes).map_err(|e| e.to_string())?;
        let failed = doc.cases.iter().filter(|c| c.failed).count();
        match code {
            1 if failed == 0 => return Err("exited 1 but the report has no failure".into()),
            0 if failed > 0 => return Err("exited 0 but the report has a failure".into()),
            5 if !doc.cases.is_empty() => return Err("exited 5 but the report has cases".into()),
            _ => {}
        }
        // Which lanes each case identity belongs to (none listed: every lane).
        let mut known: BTreeMap<(String, String, String), Vec<Lane>> = BTreeMap::new();
        let mut has_items: BTreeMap<Lane, bool> = BTreeMap::new();
        if code != 5 {
            let list = lane_core::io::read_file_capped(&self.items, MAP_MAX_BYTES, "item list")
                .map_err(|e| format!("no item list: {e}"))?;
            for line in list.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                let item: Item = serde_json::from_slice(line)
                    .map_err(|e| format!("an unreadable item list: {e}"))?;
                let mut lanes = Vec::new();
                for l in &item.lanes {
                    let lane = Lane::from_name(l)
                        .ok_or_else(|| format!("an item list naming the lane '{l}'"))?;
                    has_items.insert(lane, true);
                    lanes.push(lane);
                }
                let entry = known
                    .entry((item.classname, item.name, item.file))
                    .or_default();
                for lane in lanes {
                    if !entry.contains(&lane) {
                        entry.push(lane);
                    }
                }
            }
        }
        let mut out = BTreeMap::new();
        for (lane, manifest) in manifests {
            let lane = *lane;
            let cases: Vec<&lane_tally::junit::CaseSpan> = doc
                .cases
                .iter()
                .filter(|c| {
                    match known.get(&(c.classname.clone(), c.name.clone(), c.file.clone())) {
                        Some(lanes) if !lanes.is_empty() => lanes.contains(&lane),
                        _ => true,
                    }
                })
                .collect();
            let lane_code = if cases.iter().any(|c| c.failed) {
                1
            } else if cases.is_empty() && !has_items.get(&lane).copied().unwrap_or(false) {
                5
            } else {
                0
            };
            let mut text: Vec<u8> = Vec::with_capacity(bytes.len() / 2);
            text.extend_from_slice(&bytes[..doc.suite_start]);
            text.extend_from_slice(b"<testsuite name=\"");
            text.extend_from_slice(escape_attr(&manifest.suite_name()).as_bytes());
            text.extend_from_slice(b"\"");
            let count =
                |f: fn(&lane_tally::junit::CaseSpan) -> bool| cases.iter().filter(|c| f(c)).count();
            for (name, value) in &doc.suite_attrs {
                let v = match name.as_str() {
                    "name" => continue,
                    "errors" => count(|c| c.error).to_string(),
                    "failures" => count(|c| c.failure).to_string(),
                    "skipped" => count(|c| c.skipped).to_string(),
                    "tests" => cases.len().to_string(),
                    _ => value.clone(),
                };
                text.extend_from_slice(format!(" {name}=\"{}\"", escape_attr(&v)).as_bytes());
            }
            text.push(b'>');
            if let Some((a, b)) = doc.suite_properties {
                text.extend_from_slice(&bytes[a..b]);
            }
            for c in &cases {
                text.extend_from_slice(&bytes[c.start..c.end]);
            }
            text.extend_from_slice(b"</testsuite>");
            text.extend_from_slice(&bytes[doc.tail..]);
            let path = reports.join(format!("{lane}.xml"));
            lane_core::io::atomic_write(&path, &text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            out.insert(
                lane,
                SplitLane {
                    report: path,
                    code: lane_code,
                },
            );
        }
        Ok(Split { lanes: out })
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), GateError> {
    lane_core::io::atomic_write(path, bytes).map_err(GateError::from)
}

fn escape_attr(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#09;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const HEAD: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?><testsuites name=\"pytest tests\">\
        <testsuite name=\"lanes-run v1 lane=merge shard=1/1 evidence=ab\" errors=\"1\" \
        failures=\"1\" skipped=\"0\" tests=\"4\" time=\"0.1\" timestamp=\"t\" hostname=\"h\">\
        <properties><property name=\"s\" value=\"v\" /></properties>";
    const M1: &str = "<testcase classname=\"tests.test_a\" name=\"test_m[a&amp;b]\" \
        file=\"tests/test_a.py\" line=\"3\" time=\"0.0\" />";
    const W1: &str = "<testcase classname=\"tests.test_b\" name=\"test_w\" file=\"tests/test_b.py\" \
        line=\"3\" time=\"0.0\"><failure message=\"x &lt; y\">boom</failure></testcase>";
    const COLLECT: &str = "<testcase classname=\"\" name=\"tests.test_c\" time=\"0.0\">\
        <error message=\"collection failure\">E</error></testcase>";
    const TAIL: &str = "</testsuite></testsuites>";

    fn items(dir: &Path, lines: &[(&str, &str, &str, &[&str])]) -> Together {
        let t = Together::prepare(dir).unwrap();
        let mut text = String::new();
        for (c, n, f, lanes) in lines {
            text.push_str(
                &serde_json::json!({"classname": c, "name": n, "file": f, "lanes": lanes})
                    .to_string(),
            );
            text.push('\n');
        }
        std::fs::write(&t.items, text).unwrap();
        t
    }

    fn manifests() -> BTreeMap<Lane, Manifest> {
        Lane::ALL
            .iter()
            .map(|&lane| {
                (
                    lane,
                    Manifest {
                        lane,
                        shard: 1,
                        of: 1,
                        evidence: "ab".into(),
                    },
                )
            })
            .collect()
    }

    fn ended(code: i32) -> Ended {
        Ended {
            code: Some(code),
            timed_out: false,
        }
    }

    fn cases(path: &Path) -> Vec<(String, String)> {
        let mut got = Vec::new();
        lane_tally::junit::read_path(path, "r.xml", |c| {
            got.push((c.name.to_string(), c.outcome.as_str().to_string()))
        })
        .unwrap();
        got
    }

    #[test]
    fn each_case_goes_to_its_lanes_and_each_report_names_its_own_lane() {
        let dir = tempfile::tempdir().unwrap();
        let t = items(
            dir.path(),
            &[
                ("tests.test_a", "test_m[a&b]", "tests/test_a.py", &["merge"]),
                ("tests.test_b", "test_w", "tests/test_b.py", &["witness"]),
            ],
        );
        let combined = dir.path().join("all.xml");
        std::fs::write(&combined, format!("{HEAD}{M1}{W1}{TAIL}")).unwrap();
        let split = t
            .split(&combined, ended(1), &manifests(), dir.path())
            .unwrap();
        let merge = &split.lanes[&Lane::Merge];
        let witness = &split.lanes[&Lane::Witness];
        let freeze = &split.lanes[&Lane::Freeze];
        assert_eq!((merge.code, witness.code, freeze.code), (0, 1, 5));
        assert_eq!(
            cases(&merge.report),
            [("test_m[a&b]".into(), "passed".into())]
        );
        assert_eq!(cases(&witness.report), [("test_w".into(), "failed".into())]);
        assert!(cases(&freeze.report).is_empty());
        let text = std::fs::read_to_string(&witness.report).unwrap();
        assert!(
            text.contains("<testsuite name=\"lanes-run v1 lane=witness shard=1/1 evidence=ab\""),
            "{text}"
        );
        assert!(
            text.contains("failures=\"1\" skipped=\"0\" tests=\"1\""),
            "{text}"
        );
        let mut suites = Vec::new();
        lane_tally::junit::read_path_with_suites(
            &witness.report,
            "w.xml",
            |s| suites.push(s.to_string()),
            |_| {},
        )
        .unwrap();
        assert_eq!(suites, ["lanes-run v1 lane=witness shard=1/1 evidence=ab"]);
    }

    #[test]
    fn a_case_no_item_names_goes_to_every_lane() {
        let dir = tempfile::tempdir().unwrap();
        let t = items(
            dir.path(),
            &[("tests.test_a", "test_m[a&b]", "tests/test_a.py", &["merge"])],
        );
        let combined = dir.path().join("all.xml");
        std::fs::write(&combined, format!("{HEAD}{M1}{COLLECT}{TAIL}")).unwrap();
        let split = t
            .split(&combined, ended(1), &manifests(), dir.path())
            .unwrap();
        for lane in Lane::ALL {
            let got = cases(&split.lanes[&lane].report);
            assert!(
                got.contains(&("tests.test_c".into(), "error".into())),
                "{lane}"
            );
            assert_eq!(split.lanes[&lane].code, 1);
        }
        assert_eq!(cases(&split.lanes[&Lane::Merge].report).len(), 2);
    }

    #[test]
    fn anything_out_of_the_ordinary_runs_one_process_per_lane() {
        let dir = tempfile::tempdir().unwrap();
        let t = items(
            dir.path(),
            &[("tests.test_a", "test_m[a&b]", "tests/test_a.py", &["merge"])],
        );
        let combined = dir.path().join("all.xml");
        let ok = format!("{HEAD}{M1}{TAIL}");
        std::fs::write(&combined, &ok).unwrap();
        let m = manifests();
        assert!(t.split(&combined, ended(0), &m, dir.path()).is_ok());
        // statuses other than 0, 1 and 5, a timeout, a kill
        for e in [
            ended(2),
            ended(4),
            Ended {
                code: None,
                timed_out: false,
            },
            Ended {
                code: Some(0),
                timed_out: true,
            },
        ] {
            assert!(t.split(&combined, e, &m, dir.path()).is_err(), "{e:?}");
        }
        // a report that contradicts the status
        assert!(t.split(&combined, ended(1), &m, dir.path()).is_err());
        assert!(t.split(&combined, ended(5), &m, dir.path()).is_err());
        std::fs::write(&combined, format!("{HEAD}{W1}{TAIL}")).unwrap();
        assert!(t.split(&combined, ended(0), &m, dir.path()).is_err());
        // a report not shaped as pytest writes it, or none
        for bad in [
            format!("{HEAD}{M1}"),
            format!("{HEAD}<testcase name=\"x\">{TAIL}"),
            format!("{HEAD}<foo/>{M1}{TAIL}"),
            ok.replace("<?xml version=\"1.0\" encoding=\"utf-8\"?>", ""),
            format!("{HEAD}{M1}{TAIL}<testsuites>"),
        ] {
            std::fs::write(&combined, &bad).unwrap();
            assert!(
                t.split(&combined, ended(0), &m, dir.path()).is_err(),
                "{bad}"
            );
        }
        std::fs::remove_file(&combined).unwrap();
        assert!(t.split(&combined, ended(0), &m, dir.path()).is_err());
        // an item list naming no lane of ours
        let t = items(dir.path(), &[("a", "b", "c", &["fast"])]);
        std::fs::write(&combined, &ok).unwrap();
        assert!(t.split(&combined, ended(0), &m, dir.path()).is_err());
    }

    #[test]
    fn an_empty_run_gives_every_lane_exit_5() {
        let dir = tempfile::tempdir().unwrap();
        let t = Together::prepare(dir.path()).unwrap();
        let combined = dir.path().join("all.xml");
        std::fs::write(
            &combined,
            "<?xml version=\"1.0\" encoding=\"utf-8\"?><testsuites name=\"pytest tests\">\
             <testsuite name=\"x\" errors=\"0\" failures=\"0\" skipped=\"0\" tests=\"0\" \
             time=\"0.0\" timestamp=\"t\" hostname=\"h\" /></testsuites>",
        )
        .unwrap();
        let split = t
            .split(&combined, ended(5), &manifests(), dir.path())
            .unwrap();
        for lane in Lane::ALL {
            assert_eq!(split.lanes[&lane].code, 5);
            let text = std::fs::read_to_string(&split.lanes[&lane].report).unwrap();
            assert!(text.ends_with("</testsuite></testsuites>"), "{text}");
            assert!(cases(&split.lanes[&lane].report).is_empty());
        }
    }

    #[test]
    fn the_one_run_selects_every_lane_and_loads_the_plugin_first() {
        let dir = tempfile::tempdir().unwrap();
        let t = Together::prepare(dir.path()).unwrap();
        let setup = Setup {
            python: "python".into(),
            plugins: vec![],
            seed: None,
            user_args: vec![],
            timeout: std::time::Duration::from_secs(1),
            pythonpath: vec![PathBuf::from("/root")],
            pycache_prefix: None,
            product: Vec::new(),
            trace: None,
            tmpdir: None,
            mutant: None,
        };
        let select: Vec<String> = ["-m", "merge", "-o", "junit_suite_name=x"]
            .map(String::from)
            .to_vec();
        let (got, s) = t.select(&select, &setup);
        assert_eq!(
            got,
            [
                "-m",
                SELECT_ALL,
                "-o",
                "junit_suite_name=x",
                "-p",
                PLUGIN_MODULE
            ]
            .map(String::from)
        );
        assert_eq!(
            s.pythonpath,
            [dir.path().join("lanes-plugin"), "/root".into()]
        );
        assert!(
            dir.path()
                .join("lanes-plugin")
                .join(format!("{PLUGIN_MODULE}.py"))
                .is_file()
        );
    }
}
