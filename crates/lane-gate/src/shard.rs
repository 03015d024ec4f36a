//! The vote across CI shards (docs/ci.md).
//!
//! - **The run manifest.** Before the runs the gate writes the `run` section (what the runs
//!   answer besides the scan: the checkout's tracked files as a git tree id, the base, the date, the
//!   seed and the pytest arguments) and takes [`lane_core::manifest::evidence_digest`] of the
//!   document. Every pytest run gets `-o junit_suite_name=lanes-run v1 lane=L shard=K/N
//!   evidence=DIGEST` (pytest writes the suite name in every junit_family; `-o` wins over the
//!   project's ini and user arguments may not give `-o`). The out folder gets `manifest.json`:
//!   the digest, the shard, and each report's SHA-256 as the gate copied it, written by the gate
//!   outside pytest.
//! - **`--shard K/N`.** Each lane's scanned tests are split by [`split`]: deterministic, from
//!   the scan's test ids (and the durations of a timings file from outside the checkout, when
//!   given), never from anything that differs between machines. A plugin module the gate
//!   writes outside the tree (`-p _lanes_gate_shard`, first on `sys.path`) deselects the items
//!   whose test id belongs to another shard; items the scan does not know run in every shard,
//!   so they are reported (unknown-test, lane-drift) whichever shards ran.
//! - **`--collect DIR...`.** Reads each shard's out folder, checks its `manifest.json` against
//!   its evidence and reports, and votes over all the reports with lane-tally, which checks
//!   every manifest (`stale-report`, `missing-shard`, `conflicting-shard`).
//!
//! How far the manifest is trusted: it binds a report to one evidence document and one shard,
//! so artifacts of another run, another scan, a missing or a doubled shard are caught. It is
//! written inside the pytest process, so code running there (product code, or the patch's own
//! conftest when acknowledged) could write any suite name into its own report, as it could
//! write any outcome; `manifest.json` (written by the gate after pytest exited) catches a
//! report replaced after the gate copied it, and report-contradicts-exit a report rewritten
//! during the run. Untracked files are not part of the tree id (out folders live there).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use jiff::civil::Date;
use lane_core::manifest::{self, Manifest};
use lane_core::scan::{Lane, ScanSection, ScanTest};
use lane_core::{Document, Problem, Status};
use serde::{Deserialize, Serialize};

use crate::gate::Places;
use crate::pytest::Setup;
use crate::section::GateSection;
use crate::{Args, GateError, TOOL};

/// The plugin module's name (a name no project uses: it is first on `sys.path`).
pub(crate) const PLUGIN_MODULE: &str = "_lanes_gate_shard";
/// The file in each out folder that records the shard and its reports.
pub(crate) const MANIFEST_FILE: &str = "manifest.json";
/// The largest timings file read.
const TIMINGS_MAX_BYTES: u64 = 64 << 20;

/// The plugin: keeps an item unless its test id (without parameters) is assigned to another
/// shard; items the scan never saw stay in every shard.
const PLUGIN: &str = r#""""lane-gate --shard: deselects the items of other shards (written by lane-gate)."""
import os

import pytest

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "others.txt"), encoding="utf-8") as _f:
    _OTHERS = frozenset(line[:-1] if line.endswith("\n") else line for line in _f)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    kept, dropped = [], []
    for item in items:
        (dropped if item.nodeid.split("[", 1)[0] in _OTHERS else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
"#;

/// The `run` section: what the runs answer besides the scan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunSection {
    /// The base commit (`--base`).
    pub(crate) base: Option<String>,
    pub(crate) problems: Vec<Problem>,
    /// The user's pytest arguments (after `--`).
    pub(crate) pytest_args: Vec<String>,
    /// The hypothesis seed of every run.
    pub(crate) seed: Option<u64>,
    /// The pinned date.
    pub(crate) today: String,
    pub(crate) tool: String,
    /// git's tree id of the checkout's tracked files as they are on disk (committed or
    /// modified; untracked files, such as out folders, are not part of it), or null outside a
    /// git work tree.
    pub(crate) tree: Option<String>,
}

/// One lane in `manifest.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ManifestLane {
    pub(crate) exit: Option<i32>,
    /// The report's file name in the out folder, when pytest wrote one.
    pub(crate) report: Option<String>,
    pub(crate) sha256: Option<String>,
}

/// `manifest.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ManifestFile {
    pub(crate) evidence: String,
    pub(crate) lanes: BTreeMap<String, ManifestLane>,
    pub(crate) of: u32,
    pub(crate) shard: u32,
    pub(crate) tool: String,
    pub(crate) version: u32,
}

/// `--shard K/N` as clap reads it.
pub(crate) fn parse_shard_arg(text: &str) -> Result<(u32, u32), String> {
    manifest::parse_shard(text).ok_or_else(|| {
        format!(
            "expected K/N with 1 <= K <= N <= {} (e.g. 2/7), found '{text}'",
            manifest::MAX_SHARDS
        )
    })
}

/// Per test id, its weight (microseconds).
pub(crate) type Timings = BTreeMap<String, u64>;

/// Reads a timings file: a JSON object of test ids (pytest node ids; parametrized ids are
/// summed into their test) to seconds, as pytest-split's `.test_durations` holds them.
pub(crate) fn read_timings(path: &Path) -> Result<Timings, GateError> {
    let name = path.display().to_string();
    let bytes = lane_core::io::read_file_capped(path, TIMINGS_MAX_BYTES, "a timings file")?;
    let map: BTreeMap<String, serde_json::Value> = serde_json::from_slice(&bytes)
        .map_err(|e| GateError::from(lane_core::Error::json(&name, &e)))?;
    let mut out = Timings::new();
    for (id, value) in map {
        let secs = value
            .as_f64()
            .filter(|s| s.is_finite() && *s >= 0.0 && *s < 1e9)
            .ok_or_else(|| {
                GateError::Usage(format!(
                    "{name}: {id}: expected a duration in seconds (a number >= 0), found {value}"
                ))
            })?;
        let base = id.split('[').next().unwrap_or(&id).to_string();
        *out.entry(base).or_default() += (secs * 1e6).round() as u64;
    }
    Ok(out)
}

/// The shard (1-based) of each test of `lane` among `tests` (0 for tests of other lanes):
/// heaviest first (ties by id), each to the least loaded shard (ties to the lowest index).
/// A test the timings do not know weighs the mean of those they know in the lane (1 without
/// timings). Only ids and the timings decide: the same on every machine.
pub(crate) fn split(tests: &[ScanTest], lane: Lane, n: u32, timings: Option<&Timings>) -> Vec<u32> {
    let mut shard_of = vec![0u32; tests.len()];
    let members: Vec<usize> = (0..tests.len())
        .filter(|&i| tests[i].lane == Some(lane))
        .collect();
    let known: Vec<u64> = match timings {
        Some(t) => members
            .iter()
            .filter_map(|&i| t.get(&tests[i].id).copied())
            .collect(),
        None => Vec::new(),
    };
    let default = if known.is_empty() {
        1
    } else {
        (known.iter().sum::<u64>() / known.len() as u64).max(1)
    };
    let weight = |i: usize| -> u64 {
        timings
            .and_then(|t| t.get(&tests[i].id).copied())
            .unwrap_or(default)
            .max(1)
    };
    let mut order: Vec<(u64, usize)> = members.iter().map(|&i| (weight(i), i)).collect();
    order.sort_unstable_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| tests[a.1].id.cmp(&tests[b.1].id))
    });
    let mut heap: BinaryHeap<Reverse<(u64, u32)>> = (1..=n).map(|k| Reverse((0, k))).collect();
    for (w, i) in order {
        if let Some(Reverse((load, k))) = heap.pop() {
            shard_of[i] = k;
            heap.push(Reverse((load + w, k)));
        }
    }
    shard_of
}

/// Where `path` lies inside the checkout the patch controls (its git work tree, or `cwd`).
fn inside_checkout(path: &Path, cwd: &Path) -> bool {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let top = Command::new("git")
        .current_dir(cwd)
        .args(["rev-parse", "--show-toplevel"])
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim_end()))
        .unwrap_or_else(|| cwd.to_path_buf());
    canon(&cwd.join(path)).starts_with(canon(&top))
}

/// git's tree id of the tracked files of the checkout in `cwd` as they are on disk, from a copy
/// of its index (so unchanged files are not hashed again); `None` outside a git work tree.
fn tree_id(cwd: &Path, tmp: &Path) -> Result<Option<String>, GateError> {
    let git = |args: &[&str], index: Option<&Path>| -> Result<Option<String>, GateError> {
        let mut cmd = Command::new("git");
        cmd.current_dir(cwd)
            .args(args)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .env("GIT_OPTIONAL_LOCKS", "0");
        if let Some(index) = index {
            cmd.env("GIT_INDEX_FILE", index);
        }
        let out = cmd.output().map_err(GateError::GitStart)?;
        Ok(out
            .status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim_end().to_string()))
    };
    let Some(top) = git(&["rev-parse", "--show-toplevel"], None)? else {
        return Ok(None);
    };
    let index = tmp.join("run-index");
    if let Some(own) = git(
        &["rev-parse", "--path-format=absolute", "--git-path", "index"],
        None,
    )? && Path::new(&own).is_file()
    {
        std::fs::copy(&own, &index).map_err(|e| GateError::io("cannot copy git's index", e))?;
    }
    let top = PathBuf::from(top);
    let add = Command::new("git")
        .current_dir(&top)
        .args(["add", "-u", "--", "."])
        .env("GIT_INDEX_FILE", &index)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(GateError::GitStart)?;
    if !add.status.success() {
        return Err(GateError::Git(format!(
            "git add -u (into a temporary index, for the run manifest) failed: {}",
            String::from_utf8_lossy(&add.stderr).trim()
        )));
    }
    match git(&["write-tree"], Some(&index))? {
        Some(tree) => Ok(Some(tree)),
        None => Err(GateError::Git(
            "git write-tree (for the run manifest) failed".into(),
        )),
    }
}

/// What the run manifest records besides the scan and the checkout.
#[derive(Debug, Clone)]
pub(crate) struct RunKey {
    /// The base commit (`--base`).
    pub(crate) base: Option<String>,
    /// The hypothesis seed of every run.
    pub(crate) seed: Option<u64>,
    /// The pinned date.
    pub(crate) today: Date,
}

/// What every lane run of one gate shares for the manifest and the split.
#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) digest: String,
    pub(crate) shard: u32,
    pub(crate) of: u32,
    /// Per lane, the ids of the scanned tests assigned to other shards (with `--shard`).
    others: Option<Vec<String>>,
    dir: PathBuf,
}

/// The durations of `--timings`, refused when the file lies inside the checkout.
fn timings(args: &Args, cwd: &Path) -> Result<Option<Timings>, GateError> {
    let Some(path) = &args.timings else {
        return Ok(None);
    };
    if inside_checkout(path, cwd) {
        return Err(GateError::Usage(format!(
            "--timings {}: the file lies inside the checkout, which the patch controls; give \
             durations from outside it (a previous run's artifact or cache)",
            path.display()
        )));
    }
    read_timings(path).map(Some)
}

/// The ids of the scanned tests of every lane that shard `shard` of `of` does not run, sorted.
fn others(
    doc: &Document,
    shard: u32,
    of: u32,
    timings: Option<&Timings>,
) -> Result<Vec<String>, GateError> {
    let scan: ScanSection = doc
        .section_as(ScanSection::NAME, "<evidence>")?
        .ok_or_else(|| GateError::Shard("the evidence has no scan section".into()))?;
    let mut others = Vec::new();
    for lane in Lane::ALL {
        for (t, k) in scan.tests.iter().zip(split(&scan.tests, lane, of, timings)) {
            if k != 0 && k != shard {
                others.push(t.id.clone());
            }
        }
    }
    others.sort();
    others.dedup();
    Ok(others)
}

impl Plan {
    /// Writes the `run` section into `doc`, takes its digest and, with `--shard`, splits every
    /// lane and writes the plugin that deselects the other shards' tests.
    pub(crate) fn prepare(
        args: &Args,
        doc: &mut Document,
        key: RunKey,
        places: &Places,
    ) -> Result<Plan, GateError> {
        crate::tree::remove(&places.out.join(MANIFEST_FILE))?;
        let run = RunSection {
            base: key.base,
            problems: Vec::new(),
            pytest_args: args.pytest_args.clone(),
            seed: key.seed,
            today: key.today.to_string(),
            tool: TOOL.into(),
            tree: tree_id(&places.cwd, &places.tmp)?,
        };
        doc.set_section(manifest::RUN_SECTION, &run);
        let digest = manifest::evidence_digest(doc)?;
        let (shard, of) = args.shard.unwrap_or((1, 1));
        let dir = places.tmp.join("shard-plugin");
        let others = match args.shard {
            None => None,
            Some(_) => {
                let timings = timings(args, &places.cwd)?;
                let others = others(doc, shard, of, timings.as_ref())?;
                let mut text = others.join("\n");
                text.push('\n');
                std::fs::create_dir_all(&dir)
                    .map_err(|e| GateError::io("cannot create a temporary folder", e))?;
                write(&dir.join("others.txt"), text.as_bytes())?;
                write(&dir.join(format!("{PLUGIN_MODULE}.py")), PLUGIN.as_bytes())?;
                Some(others)
            }
        };
        Ok(Plan {
            digest,
            shard,
            of,
            others,
            dir,
        })
    }

    /// The run manifest of `lane`'s report.
    pub(crate) fn manifest(&self, lane: Lane) -> Manifest {
        Manifest {
            lane,
            shard: self.shard,
            of: self.of,
            evidence: self.digest.clone(),
        }
    }

    /// Whether this gate runs one shard of several (it then writes no verdict).
    pub(crate) fn is_shard(&self) -> bool {
        self.others.is_some()
    }

    /// The selection for one lane's run and the setup it runs with.
    pub(crate) fn select(&self, lane: Lane, setup: &Setup) -> (Vec<String>, Setup) {
        let m = self.manifest(lane);
        let mut select = vec![
            "-m".to_string(),
            lane.to_string(),
            "-o".to_string(),
            format!("junit_suite_name={}", m.suite_name()),
        ];
        let mut setup = setup.clone();
        if self.others.is_some() {
            select.push("-p".into());
            select.push(PLUGIN_MODULE.into());
            setup.pythonpath.insert(0, self.dir.clone());
        }
        (select, setup)
    }

    /// Writes `manifest.json` into `out`: the digest, the shard, each lane's report digest.
    pub(crate) fn write_manifest(&self, out: &Path, gate: &GateSection) -> Result<(), GateError> {
        let mut lanes = BTreeMap::new();
        for lane in Lane::ALL {
            let file = format!("{lane}.xml");
            let path = out.join(&file);
            let run = gate.lanes.get(lane.as_str());
            let has = run.is_some_and(|r| r.report.is_some()) && path.is_file();
            lanes.insert(
                lane.to_string(),
                ManifestLane {
                    exit: run.and_then(|r| r.exit),
                    report: has.then(|| file.clone()),
                    sha256: if has { Some(sha256_file(&path)?) } else { None },
                },
            );
        }
        let m = ManifestFile {
            evidence: self.digest.clone(),
            lanes,
            of: self.of,
            shard: self.shard,
            tool: TOOL.into(),
            version: 1,
        };
        let mut bytes = serde_json::to_vec_pretty(&m).map_err(|source| GateError::Encode {
            what: MANIFEST_FILE.into(),
            source,
        })?;
        bytes.push(b'\n');
        write(&out.join(MANIFEST_FILE), &bytes)
    }

    /// What a shard job prints: which shard ran, what each lane's report holds, and that the
    /// verdict comes from `--collect`.
    pub(crate) fn shard_summary(&self, gate: &GateSection, ids: usize) -> String {
        let mut s = format!(
            "{TOOL}: shard {}/{} ran ({} scanned tests belong to other shards); evidence {}\n",
            self.shard,
            self.of,
            ids,
            &self.digest[..12]
        );
        for (lane, run) in &gate.lanes {
            s.push_str(&format!(
                "  {lane}: {}\n",
                match (run.exit, run.timed_out) {
                    (_, true) => "timed out".to_string(),
                    (Some(n), _) => format!("pytest exit {n}"),
                    (None, _) => "killed".to_string(),
                }
            ));
        }
        s.push_str("The verdict comes from lane-gate --collect over every shard's out folder.\n");
        s
    }

    pub(crate) fn others_count(&self) -> usize {
        self.others.as_ref().map_or(0, Vec::len)
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), GateError> {
    lane_core::io::atomic_write(path, bytes).map_err(GateError::from)
}

/// The SHA-256 of a report as the manifest records it.
pub(crate) fn sha256_file(path: &Path) -> Result<String, GateError> {
    lane_core::io::sha256_file(path)
        .map(|(digest, _)| digest)
        .map_err(|e| GateError::io(format!("cannot read {}", path.display()), e))
}

/// `lane-gate --shard K/N --list`: the test ids of shard K per lane, from `--evidence FILE`
/// (a document with a scan section) or a scan of the current folder.
pub(crate) fn list(args: &Args) -> Result<Status, GateError> {
    let (shard, of) = args.shard.unwrap_or((1, 1));
    let Some(path) = &args.evidence else {
        return Err(GateError::Usage(
            "--list needs --evidence FILE (an evidence document with a scan section, e.g. a \
             previous run's out/lanes/evidence.json)"
                .into(),
        ));
    };
    let doc = Document::parse(
        &lane_core::io::read_file_capped(
            path,
            lane_core::io::DOCUMENT_MAX_BYTES,
            "an evidence document",
        )?,
        &path.display().to_string(),
    )?;
    let scan: ScanSection = doc
        .section_as(ScanSection::NAME, &path.display().to_string())?
        .ok_or_else(|| GateError::Shard(format!("{}: no scan section", path.display())))?;
    let timings = match &args.timings {
        Some(p) => Some(read_timings(p)?),
        None => None,
    };
    let mut text = String::new();
    for lane in Lane::ALL {
        for (t, k) in scan
            .tests
            .iter()
            .zip(split(&scan.tests, lane, of, timings.as_ref()))
        {
            if k == shard {
                text.push_str(&format!("{lane} {}\n", t.id));
            }
        }
    }
    lane_core::io::write_stdout(text.as_bytes())?;
    Ok(Status::Clean)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn tests_of(ids: &[(&str, Lane)]) -> Vec<ScanTest> {
        ids.iter()
            .map(|(id, lane)| {
                serde_json::from_value(serde_json::json!({
                    "id": id, "file": id.split("::").next().unwrap(), "line": 1,
                    "lane": lane.as_str(), "lanes": [lane.as_str()], "marks": [],
                    "parametrized": false, "attachments": {}
                }))
                .unwrap()
            })
            .collect()
    }

    #[test]
    fn the_split_covers_every_test_of_the_lane_once_and_balances() {
        let ids: Vec<String> = (0..100)
            .map(|i| format!("t/test_{i:03}.py::test_x"))
            .collect();
        let mut spec: Vec<(&str, Lane)> = ids.iter().map(|s| (s.as_str(), Lane::Merge)).collect();
        spec.push(("t/test_w.py::test_w", Lane::Witness));
        let tests = tests_of(&spec);
        for n in [1, 3, 7] {
            let got = split(&tests, Lane::Merge, n, None);
            assert_eq!(got[100], 0, "a witness test is not in the merge split");
            let mut sizes = vec![0; n as usize];
            for k in &got[..100] {
                assert!((1..=n).contains(k));
                sizes[(*k - 1) as usize] += 1;
            }
            let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            assert!(hi - lo <= 1, "{n}: {sizes:?}");
        }
    }

    #[test]
    fn the_split_depends_on_ids_only_not_on_scan_order() {
        let a = tests_of(&[
            ("t/a.py::x", Lane::Merge),
            ("t/b.py::y", Lane::Merge),
            ("t/c.py::z", Lane::Merge),
        ]);
        let mut b = a.clone();
        b.reverse();
        let sa = split(&a, Lane::Merge, 2, None);
        let sb = split(&b, Lane::Merge, 2, None);
        for (i, t) in a.iter().enumerate() {
            let j = b.iter().position(|u| u.id == t.id).unwrap();
            assert_eq!(sa[i], sb[j], "{}", t.id);
        }
        // fixed: sorted ids, round robin without timings
        assert_eq!(sa, [1, 2, 1]);
    }

    #[test]
    fn timings_weigh_the_split() {
        let tests = tests_of(&[
            ("t/a.py::slow", Lane::Merge),
            ("t/b.py::x", Lane::Merge),
            ("t/c.py::y", Lane::Merge),
            ("t/d.py::z", Lane::Merge),
        ]);
        let mut t = Timings::new();
        t.insert("t/a.py::slow".into(), 30_000_000);
        t.insert("t/b.py::x".into(), 1_000_000);
        let got = split(&tests, Lane::Merge, 2, Some(&t));
        // unknown tests weigh the mean of the known (15.5 s): slow (30) -> 1, y and z
        // (15.5 each) -> 2, x (1) -> the lighter shard 1 (30 < 31)
        assert_eq!(got, [1, 1, 2, 2]);
        // without timings: round robin over the sorted ids
        assert_eq!(split(&tests, Lane::Merge, 2, None), [1, 2, 1, 2]);
    }

    #[test]
    fn a_timings_file_sums_parameters_and_refuses_bad_values() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("durations.json");
        std::fs::write(
            &p,
            r#"{"t/a.py::x[1]": 0.5, "t/a.py::x[2]": 0.25, "t/b.py::y": 2}"#,
        )
        .unwrap();
        let t = read_timings(&p).unwrap();
        assert_eq!(t.get("t/a.py::x"), Some(&750_000));
        assert_eq!(t.get("t/b.py::y"), Some(&2_000_000));
        std::fs::write(&p, r#"{"t/a.py::x": -1}"#).unwrap();
        let err = read_timings(&p).unwrap_err().to_string();
        assert!(err.contains("t/a.py::x: expected a duration"), "{err}");
        std::fs::write(&p, r#"{"t/a.py::x": 1,"#).unwrap();
        assert!(
            read_timings(&p)
                .unwrap_err()
                .to_string()
                .contains("durations.json")
        );
    }

    #[test]
    fn shard_arguments_are_k_of_n() {
        assert_eq!(parse_shard_arg("2/7"), Ok((2, 7)));
        for bad in ["0/7", "8/7", "7", "a/b"] {
            assert!(
                parse_shard_arg(bad).unwrap_err().contains("expected K/N"),
                "{bad}"
            );
        }
    }
}
