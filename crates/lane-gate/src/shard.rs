//! The vote across CI shards (issue 21).
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

use lane_core::cli::Format;
use lane_core::manifest::{self, Manifest};
use lane_core::scan::{Lane, ScanSection, ScanTest};
use lane_core::{Document, Problem, Rule, Status};
use lane_tally::{Decision, Report};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::pytest::Setup;
use crate::section::{self, GateSection};
use crate::{Args, GateError, TOOL, from_tool};

/// The plugin module's name (a name no project uses: it is first on `sys.path`).
pub const PLUGIN_MODULE: &str = "_lanes_gate_shard";
/// The file in each out folder that records the shard and its reports.
pub const MANIFEST_FILE: &str = "manifest.json";
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
pub struct RunSection {
    /// The base commit (`--base`).
    pub base: Option<String>,
    pub problems: Vec<Problem>,
    /// The user's pytest arguments (after `--`).
    pub pytest_args: Vec<String>,
    /// The hypothesis seed of every run.
    pub seed: Option<u64>,
    /// The pinned date.
    pub today: String,
    pub tool: String,
    /// git's tree id of the checkout's tracked files as they are on disk (committed or
    /// modified; untracked files, such as out folders, are not part of it), or null outside a
    /// git work tree.
    pub tree: Option<String>,
}

/// One lane in `manifest.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestLane {
    pub exit: Option<i32>,
    /// The report's file name in the out folder, when pytest wrote one.
    pub report: Option<String>,
    pub sha256: Option<String>,
}

/// `manifest.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestFile {
    pub evidence: String,
    pub lanes: BTreeMap<String, ManifestLane>,
    pub of: u32,
    pub shard: u32,
    pub tool: String,
    pub version: u32,
}

/// `--shard K/N` as clap reads it.
pub fn parse_shard_arg(text: &str) -> Result<(u32, u32), String> {
    manifest::parse_shard(text).ok_or_else(|| {
        format!(
            "expected K/N with 1 <= K <= N <= {} (e.g. 2/7), found '{text}'",
            manifest::MAX_SHARDS
        )
    })
}

/// Per test id, its weight (microseconds).
pub type Timings = BTreeMap<String, u64>;

/// Reads a timings file: a JSON object of test ids (pytest node ids; parametrized ids are
/// summed into their test) to seconds, as pytest-split's `.test_durations` holds them.
pub fn read_timings(path: &Path) -> Result<Timings, GateError> {
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
                GateError::new(format!(
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
pub fn split(tests: &[ScanTest], lane: Lane, n: u32, timings: Option<&Timings>) -> Vec<u32> {
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
        let out = cmd
            .output()
            .map_err(|e| GateError::new(format!("cannot run git: {e}")))?;
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
        std::fs::copy(&own, &index)
            .map_err(|e| GateError::new(format!("cannot copy git's index: {e}")))?;
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
        .map_err(|e| GateError::new(format!("cannot run git: {e}")))?;
    if !add.status.success() {
        return Err(GateError::new(format!(
            "git add -u (into a temporary index, for the run manifest) failed: {}",
            String::from_utf8_lossy(&add.stderr).trim()
        )));
    }
    match git(&["write-tree"], Some(&index))? {
        Some(tree) => Ok(Some(tree)),
        None => Err(GateError::new(
            "git write-tree (for the run manifest) failed",
        )),
    }
}

/// What every lane run of one gate shares for the manifest and the split.
pub struct Plan {
    pub digest: String,
    pub shard: u32,
    pub of: u32,
    /// Per lane, the ids of the scanned tests assigned to other shards (with `--shard`).
    others: Option<Vec<String>>,
    dir: PathBuf,
}

impl Plan {
    /// Writes the `run` section into `doc`, takes its digest and, with `--shard`, splits every
    /// lane.
    pub fn prepare(
        args: &Args,
        doc: &mut Document,
        gate: &GateSection,
        cwd: &Path,
        out: &Path,
        tmp: &Path,
    ) -> Result<Plan, GateError> {
        crate::tree::remove(&out.join(MANIFEST_FILE))?;
        let today = lane_core::clock::today(args.today.as_deref())?;
        let run = RunSection {
            base: gate.base.as_ref().map(|b| b.commit.clone()),
            problems: Vec::new(),
            pytest_args: args.pytest_args.clone(),
            seed: gate.seed.value,
            today: today.to_string(),
            tool: TOOL.into(),
            tree: tree_id(cwd, tmp)?,
        };
        doc.set_section(manifest::RUN_SECTION, &run);
        let digest = manifest::evidence_digest(doc)?;
        let (shard, of) = args.shard.unwrap_or((1, 1));
        let dir = tmp.join("shard-plugin");
        let others = match args.shard {
            None => None,
            Some(_) => {
                let timings = match &args.timings {
                    Some(path) => {
                        if inside_checkout(path, cwd) {
                            return Err(GateError::new(format!(
                                "--timings {}: the file lies inside the checkout, which the patch \
                                 controls; give durations from outside it (a previous run's \
                                 artifact or cache)",
                                path.display()
                            )));
                        }
                        Some(read_timings(path)?)
                    }
                    None => None,
                };
                let scan: ScanSection = doc
                    .section_as(ScanSection::NAME, "<evidence>")?
                    .ok_or_else(|| GateError::new("the evidence has no scan section"))?;
                let mut others = Vec::new();
                for lane in Lane::ALL {
                    for (t, k) in
                        scan.tests
                            .iter()
                            .zip(split(&scan.tests, lane, of, timings.as_ref()))
                    {
                        if k != 0 && k != shard {
                            others.push(t.id.clone());
                        }
                    }
                }
                others.sort();
                others.dedup();
                let mut text = others.join("\n");
                text.push('\n');
                std::fs::create_dir_all(&dir).map_err(|e| {
                    GateError::new(format!("cannot create a temporary folder: {e}"))
                })?;
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

    /// Whether this gate runs one shard of several (it then writes no verdict).
    pub fn is_shard(&self) -> bool {
        self.others.is_some()
    }

    /// The selection for one lane's run and the setup it runs with.
    pub fn select(&self, lane: Lane, setup: &Setup) -> (Vec<String>, Setup) {
        let m = Manifest {
            lane,
            shard: self.shard,
            of: self.of,
            evidence: self.digest.clone(),
        };
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
    pub fn write_manifest(&self, out: &Path, gate: &GateSection) -> Result<(), GateError> {
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
        let mut bytes = serde_json::to_vec_pretty(&m)
            .map_err(|e| GateError::new(format!("cannot write {MANIFEST_FILE}: {e}")))?;
        bytes.push(b'\n');
        write(&out.join(MANIFEST_FILE), &bytes)
    }

    /// What a shard job prints: which shard ran, what each lane's report holds, and that the
    /// verdict comes from `--collect`.
    pub fn shard_summary(&self, gate: &GateSection, ids: usize) -> String {
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

    pub fn others_count(&self) -> usize {
        self.others.as_ref().map_or(0, Vec::len)
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), GateError> {
    lane_core::io::atomic_write(path, bytes).map_err(GateError::from)
}

fn sha256_file(path: &Path) -> Result<String, GateError> {
    let mut file = lane_core::io::open_regular(path)
        .map_err(|e| GateError::new(format!("cannot read {}: {e}", path.display())))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        use std::io::Read;
        let n = file
            .read(&mut buf)
            .map_err(|e| GateError::new(format!("cannot read {}: {e}", path.display())))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(lane_core::hex::encode(&h.finalize()))
}

/// One shard's out folder as `--collect` reads it.
struct Folder {
    name: String,
    doc: Document,
    digest: String,
    manifest: ManifestFile,
    base: Option<PathBuf>,
}

fn read_folder(dir: &Path) -> Result<Folder, GateError> {
    let name = dir.to_string_lossy().trim_end_matches('/').to_string();
    let evidence = dir.join("evidence.json");
    if !evidence.is_file() {
        return Err(GateError::new(format!(
            "{name}: no evidence.json: not the out folder of a lane-gate --shard run"
        )));
    }
    let doc = Document::parse(
        &lane_core::io::read_file_capped(
            &evidence,
            lane_core::io::DOCUMENT_MAX_BYTES,
            "an evidence document",
        )?,
        &format!("{name}/evidence.json"),
    )?;
    let mpath = dir.join(MANIFEST_FILE);
    if !mpath.is_file() {
        return Err(GateError::new(format!(
            "{name}: no {MANIFEST_FILE}: not the out folder of a lane-gate --shard run"
        )));
    }
    let mname = format!("{name}/{MANIFEST_FILE}");
    let manifest: ManifestFile = serde_json::from_slice(&lane_core::io::read_file_capped(
        &mpath,
        1 << 20,
        "a shard manifest",
    )?)
    .map_err(|e| GateError::from(lane_core::Error::json(&mname, &e)))?;
    if manifest.version != 1
        || manifest::parse_shard(&format!("{}/{}", manifest.shard, manifest.of)).is_none()
    {
        return Err(GateError::new(format!(
            "{mname}: expected version 1 and a shard K of N with 1 <= K <= N"
        )));
    }
    let base = Some(dir.join("base-evidence.json")).filter(|p| p.is_file());
    Ok(Folder {
        name,
        doc,
        digest: String::new(),
        manifest,
        base,
    })
}

/// Reads the shards' out folders on every core (in the order given) and digests their
/// documents. The shards of one run carry the same scan: a document whose digested fields are
/// the text of an earlier folder's takes that digest instead of computing it again.
fn read_folders(dirs: &[PathBuf]) -> Result<Vec<Folder>, GateError> {
    use rayon::prelude::*;
    // Collected whole, then the first failure in the order given: the same error every run.
    let read: Vec<Result<Folder, GateError>> = dirs.par_iter().map(|d| read_folder(d)).collect();
    let mut folders: Vec<Folder> = read.into_iter().collect::<Result<_, _>>()?;
    for i in 0..folders.len() {
        let (done, rest) = folders.split_at_mut(i);
        let f = &mut rest[0];
        f.digest = match done
            .iter()
            .find(|g| manifest::same_digest_input(&g.doc, &f.doc))
        {
            Some(g) => g.digest.clone(),
            None => manifest::evidence_digest(&f.doc)?,
        };
    }
    Ok(folders)
}

/// `lane-gate --collect DIR...`: checks every shard's out folder and votes over their reports.
pub fn collect(args: &Args) -> Result<Status, GateError> {
    let cwd = std::env::current_dir()
        .map_err(|e| GateError::new(format!("cannot read the current folder: {e}")))?;
    let out = lane_scan::config::normalize(&cwd.join(&args.out));
    let folders = read_folders(&args.collect)?;
    for d in &args.collect {
        if lane_scan::config::normalize(&cwd.join(d)) == out {
            return Err(GateError::new(format!(
                "--out {} is one of the collected folders: give the vote its own out folder",
                args.out.display()
            )));
        }
    }
    // The document most folders answer (ties: the first given) is the one the vote reads.
    let mut votes: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (i, f) in folders.iter().enumerate() {
        let e = votes.entry(f.digest.as_str()).or_insert((0, i));
        e.0 += 1;
    }
    let chosen = votes
        .values()
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
        .map(|&(_, i)| i)
        .ok_or_else(|| GateError::new("--collect needs at least one folder"))?;
    let reference = &folders[chosen];
    let mut doc = reference.doc.clone();
    let mut extra: Vec<Problem> = Vec::new();
    let mut gate_problems: Vec<Problem> = Vec::new();
    let mut reports: Vec<Report> = Vec::new();
    for f in &folders {
        if f.manifest.evidence != f.digest {
            extra.push(
                Problem::new(
                    Rule::StaleReport,
                    format!(
                        "{}: {MANIFEST_FILE} names evidence {}, but the folder's evidence.json \
                         is {}: the folder mixes two runs",
                        f.name,
                        &f.manifest.evidence[..f.manifest.evidence.len().min(12)],
                        &f.digest[..12]
                    ),
                )
                .file(format!("{}/{MANIFEST_FILE}", f.name)),
            );
        }
        if f.digest == reference.digest {
            gate_problems.extend(f.doc.problems_of(section::SECTION, &f.name)?);
        }
        for lane in Lane::ALL {
            let file = format!("{lane}.xml");
            let path = Path::new(&f.name).join(&file);
            if !cwd.join(&path).is_file() {
                continue;
            }
            let recorded = f
                .manifest
                .lanes
                .get(lane.as_str())
                .and_then(|l| l.sha256.clone());
            let actual = sha256_file(&cwd.join(&path))?;
            if recorded.as_deref() != Some(actual.as_str()) {
                extra.push(
                    Problem::new(
                        Rule::StaleReport,
                        format!(
                            "{}: the report is not the one its shard's gate wrote ({MANIFEST_FILE} \
                             records {}): replaced or left over from another run",
                            path.display(),
                            recorded.as_deref().map_or("no report", |r| &r[..12])
                        ),
                    )
                    .file(path.to_string_lossy().into_owned()),
                );
            }
            reports.push(Report {
                lane,
                path: path.to_string_lossy().into_owned(),
            });
        }
    }
    // Every shard's own gate problems (timeouts, contradicted exits, bytes that moved).
    if let Some(mut gate) = doc.section(section::SECTION) {
        lane_core::problem::normalize(&mut gate_problems);
        if let Some(obj) = gate.as_object_mut() {
            obj.insert(
                "problems".into(),
                serde_json::to_value(&gate_problems)
                    .map_err(|e| GateError::new(format!("cannot write problems: {e}")))?,
            );
        }
        doc.set_section(section::SECTION, &gate);
    }
    let ack = args.ack.clone().or_else(|| {
        std::env::var("LANES_ACK")
            .ok()
            .filter(|v| !v.trim().is_empty())
    });
    if let Some(text) = &ack {
        crate::ack::acknowledge_document(&mut doc, text)?;
    }
    let base = match &reference.base {
        Some(p) => Some(Document::parse(
            &lane_core::io::read_file(p)?,
            &p.display().to_string(),
        )?),
        None => None,
    };
    let options = lane_tally::Options {
        reports,
        rootdir: cwd.clone(),
        base,
        reason: ack.clone(),
    };
    let mut tally = lane_tally::vote::tally(&doc, &options).map_err(from_tool("lane-tally"))?;
    if !extra.is_empty() {
        tally.problems.extend(extra.iter().cloned());
        lane_core::problem::normalize(&mut tally.problems);
        tally.reasons.extend(extra);
        lane_core::problem::normalize(&mut tally.reasons);
        tally.decision = Decision::Reject;
    }
    if let Some(text) = &ack {
        crate::ack::acknowledge_tally(&mut tally, text);
    }
    std::fs::create_dir_all(&out)
        .map_err(|e| GateError::new(format!("cannot create {}: {e}", args.out.display())))?;
    let mut markdown =
        lane_tally::markdown_verdict(&doc, &tally).map_err(from_tool("lane-tally"))?;
    markdown.push_str(&shards_markdown(&tally));
    doc.set_section(lane_tally::vote::SECTION, &tally);
    let verdict = doc.to_bytes();
    write(&out.join("verdict.json"), &verdict)?;
    write(&out.join("verdict.md"), markdown.as_bytes())?;
    let shown = crate::gate::shown_problems(&doc, &tally)?;
    let sarif = lane_core::render::sarif::log(TOOL, &shown);
    write(&out.join("verdict.sarif"), sarif.as_bytes())?;
    let printed = match args.format {
        Format::Markdown => markdown.into_bytes(),
        Format::Json => verdict,
        Format::Github => lane_core::render::github::annotations(&shown).into_bytes(),
        Format::Sarif => sarif.into_bytes(),
    };
    lane_core::io::write_stdout(&printed)?;
    Ok(match tally.decision {
        Decision::Approve => Status::Clean,
        Decision::Reject => Status::Findings,
    })
}

/// The shards table of the collected verdict.
fn shards_markdown(tally: &lane_tally::TallySection) -> String {
    use lane_core::render::markdown::cell;
    if tally.shards.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "\n### lane-gate: shards\n\n| lane | shard | report | cases | passed | failed | errors | skipped |\n|---|---:|---|---:|---:|---:|---:|---:|\n",
    );
    for c in &tally.shards {
        s.push_str(&format!(
            "| {} | {}/{} | `{}` | {} | {} | {} | {} | {} |\n",
            c.lane,
            c.shard,
            c.of,
            cell(&c.report),
            c.cases,
            c.passed,
            c.failed,
            c.errors,
            c.skipped
        ));
    }
    s
}

/// `lane-gate --shard K/N --list`: the test ids of shard K per lane, from `--evidence FILE`
/// (a document with a scan section) or a scan of the current folder.
pub fn list(args: &Args) -> Result<Status, GateError> {
    let (shard, of) = args.shard.unwrap_or((1, 1));
    let Some(path) = &args.evidence else {
        return Err(GateError::new(
            "--list needs --evidence FILE (an evidence document with a scan section, e.g. a \
             previous run's out/lanes/evidence.json)",
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
        .ok_or_else(|| GateError::new(format!("{}: no scan section", path.display())))?;
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
