//! The workflow: evidence, the vote tree, the three lane runs, candidates, the tally.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use jiff::civil::Date;
use lane_core::cli::Format;
use lane_core::scan::{Lane, ScanSection};
use lane_core::{Document, Problem, Rule, Status};
use lane_tally::{Decision, Report};

use crate::git::{Delta, Repo, TreeFile};
use crate::pytest::{Ended, Setup};
use crate::python::{Interpreter, Plugin};
use crate::section::{self, GateSection};
use crate::surface::{self, Change, Class, Entry, Facts};
use crate::{Args, GateError, TOOL, ack, changed, from_tool, tree};

/// Files a run leaves in the out folder; an earlier run's are removed first, so a gate that
/// stops never leaves a verdict behind.
const OUT_FILES: &[&str] = &[
    "evidence.json",
    "base-evidence.json",
    "verdict.json",
    "verdict.md",
    "pytest-status",
    "merge.xml",
    "witness.xml",
    "freeze.xml",
    "merge.log",
    "witness.log",
    "freeze.log",
    "candidates.xml",
    "candidates.log",
];

const LANES: [Lane; 3] = [Lane::Merge, Lane::Witness, Lane::Freeze];

/// lanes' own pytest plugin (a distribution name, normalized).
const LANES_PLUGIN: &str = "pytest-lanes-gate";

/// The tally's rules that compare a scan with the base's.
const BASE_RULES: &[&str] = &["merge-test-removed", "lane-changed", "domain-changed"];

/// Runs `f` with `dir` as the current folder (the libraries resolve the rootdir from it).
fn in_dir<T>(dir: &Path, f: impl FnOnce() -> Result<T, GateError>) -> Result<T, GateError> {
    let back = std::env::current_dir()
        .map_err(|e| GateError::new(format!("cannot read the current folder: {e}")))?;
    std::env::set_current_dir(dir)
        .map_err(|e| GateError::new(format!("cannot enter {}: {e}", dir.display())))?;
    let result = f();
    std::env::set_current_dir(&back)
        .map_err(|e| GateError::new(format!("cannot return to {}: {e}", back.display())))?;
    result
}

/// lane-scan, lane-lock verify and freeze-ledger check of the tree in the current folder.
fn evidence(today: Date, scan_options: &lane_scan::Options) -> Result<Document, GateError> {
    let scan = lane_scan::scan(scan_options).map_err(from_tool("lane-scan"))?;
    let mut section = scan.section;
    section.tests = scan.runs.into_iter().flatten().collect();
    let mut doc = Document::empty();
    doc.set_section(ScanSection::NAME, &section);
    let place = lane_lock::LockPaths::new(PathBuf::from("."), None);
    let (mut doc, _) = lane_lock::verify::verify(&place, doc).map_err(from_tool("lane-lock"))?;
    let root = Path::new(".");
    let path = root.join("freeze_ledger.json");
    let name = lane_core::paths::display_name(root, &path);
    let ledger =
        freeze_ledger::ledger::Ledger::read(&path, &name).map_err(from_tool("freeze-ledger"))?;
    let opts = freeze_ledger::check::CheckOptions {
        root,
        ledger_name: &name,
        today,
        max_days: freeze_ledger::check::DEFAULT_MAX_DAYS,
    };
    let ledger_section = freeze_ledger::check::check(&ledger, Some(&section), &opts);
    doc.set_section(freeze_ledger::check::SECTION, &ledger_section);
    Ok(doc)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), GateError> {
    lane_core::io::atomic_write(path, bytes).map_err(GateError::from)
}

fn non_empty_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// What the CI gave: the acknowledgment, from `--ack` / `--reason` or `LANES_ACK`.
fn acknowledgment(args: &Args) -> Result<Option<String>, GateError> {
    let ack = args.ack.clone().or_else(|| non_empty_env("LANES_ACK"));
    if ack.as_deref().is_some_and(|t| t.trim().is_empty()) {
        return Err(GateError::new(
            "--ack needs a text saying who acknowledged what (e.g. the PR label and its author)",
        ));
    }
    Ok(ack)
}

fn seed(args: &Args, merge_base: Option<&str>) -> Result<section::Seed, GateError> {
    if let Some(n) = args.seed {
        return Ok(section::Seed {
            from: "--seed".into(),
            value: Some(n),
        });
    }
    if let Some(text) = non_empty_env("LANES_SEED") {
        let n = text.trim().parse::<u64>().map_err(|_| {
            GateError::new(format!(
                "LANES_SEED: expected a whole number, found '{text}'"
            ))
        })?;
        return Ok(section::Seed {
            from: "LANES_SEED".into(),
            value: Some(n),
        });
    }
    Ok(match merge_base {
        Some(mb) => section::Seed {
            from: "the merge base's commit id".into(),
            value: Some(u64::from_str_radix(&mb[..mb.len().min(8)], 16).unwrap_or(0)),
        },
        None => section::Seed {
            from: "default".into(),
            value: Some(0),
        },
    })
}

/// What the tree pytest runs in needs: PYTHONPATH with the rootdir unless the config puts its
/// own `pythonpath` on sys.path (pytest does that after loading itself and its plugins).
fn run_pythonpath(root: &Path) -> Result<Vec<PathBuf>, GateError> {
    let config = lane_scan::config::load(&[], None, root).map_err(from_tool("lane-scan"))?;
    let set = lane_scan::config::ini_args(&config, "pythonpath").map_err(from_tool("lane-scan"))?;
    Ok(if set.is_empty() {
        vec![root.to_path_buf()]
    } else {
        Vec::new()
    })
}

/// Which installed plugins are loaded: those of distributions the voting tree's manifests or
/// `required_plugins` name, and hypothesis's.
fn choose_plugins(
    plugins: &[Plugin],
    manifest_root: &Path,
) -> Result<(Vec<Plugin>, Vec<Plugin>), GateError> {
    let mut named = crate::python::named_distributions(manifest_root);
    let config =
        lane_scan::config::load(&[], None, manifest_root).map_err(from_tool("lane-scan"))?;
    for req in
        lane_scan::config::ini_args(&config, "required_plugins").map_err(from_tool("lane-scan"))?
    {
        named.extend(crate::python::requirement_name(&req));
    }
    named.insert("hypothesis".into());
    // lanes' own plugin: its runtime evidence corroborates the scan (lane-drift).
    named.insert(LANES_PLUGIN.into());
    Ok(plugins
        .iter()
        .cloned()
        .partition(|p| named.contains(&p.distribution)))
}

/// The out folder as the tally names its reports: as given.
fn out_name(args: &Args, file: &str) -> String {
    let base = args.out.to_string_lossy();
    format!("{}/{file}", base.trim_end_matches('/'))
}

pub fn run(args: &Args) -> Result<Status, GateError> {
    let today = lane_core::clock::today(args.today.as_deref())?;
    let ack = acknowledgment(args)?;
    crate::pytest::check_user_args(&args.pytest_args)?;
    if args.lane_timeout == 0 {
        return Err(GateError::new("--lane-timeout must be at least 1 second"));
    }
    let cwd = std::env::current_dir()
        .map_err(|e| GateError::new(format!("cannot read the current folder: {e}")))?;
    let out = lane_scan::config::normalize(&cwd.join(&args.out));
    std::fs::create_dir_all(&out)
        .map_err(|e| GateError::new(format!("cannot create {}: {e}", args.out.display())))?;
    for f in OUT_FILES {
        tree::remove(&out.join(f))?;
    }
    let tmp = tempfile::Builder::new()
        .prefix("lane-gate.")
        .tempdir()
        .map_err(|e| GateError::new(format!("cannot create a temporary folder: {e}")))?;
    let tmp = tmp.path();
    let python = args
        .python
        .clone()
        .unwrap_or_else(|| PathBuf::from("python"));
    let interp = Interpreter::probe(&python)?;
    let (dists, installed_plugins) = interp.installed()?;
    // Always loaded when installed (choose_plugins), so it registers the lane markers.
    let markers_plugin = installed_plugins
        .iter()
        .any(|p| p.distribution == LANES_PLUGIN);
    // lane-scan decides sys.version_info / sys.platform conditions for the interpreter that runs.
    let scan_options = lane_scan::Options {
        target: lane_scan::probe_target(Some(&interp.command)),
        python: Some(interp.command.clone()),
        markers_plugin,
        ..Default::default()
    };

    let mut gate = GateSection {
        ack: ack.clone(),
        base: None,
        candidates: None,
        interpreter: section::InterpreterInfo {
            hypothesis: dists.get("hypothesis").cloned(),
            implementation: interp.implementation.clone(),
            pytest: dists.get("pytest").cloned(),
            version: format!(
                "{}.{}.{}",
                interp.version.0, interp.version.1, interp.version.2
            ),
        },
        lanes: BTreeMap::new(),
        plugins: section::Plugins::default(),
        problems: Vec::new(),
        seed: seed(args, None)?,
        surface: Vec::new(),
        tool: TOOL.into(),
        voting_tree: "working-tree".into(),
    };

    // The tree that votes, its evidence, the base's scan, and the candidates.
    let mut vote_root = cwd.clone();
    let mut manifest_root = cwd.clone();
    let mut base_doc: Option<Document> = None;
    let mut candidates: Vec<String> = Vec::new();
    let mut doc = match &args.base {
        None => in_dir(&cwd, || {
            evidence(
                today,
                &changed::with(&scan_options, lane_scan::aware::Changed::All),
            )
        })?,
        Some(base_ref) => {
            let based = Based::prepare(base_ref, &cwd, &out, tmp, ack.is_some())?;
            gate.seed = seed(args, Some(&based.merge_base))?;
            gate.base = Some(section::Base {
                commit: based.base_commit.clone(),
                head: based.head.clone(),
                merge_base: based.merge_base.clone(),
                reference: base_ref.clone(),
            });
            gate.surface = based.entries.clone();
            for e in &based.entries {
                if e.class == Class::TestSurface {
                    gate.problems.push(
                        Problem::new(
                            Rule::TestSurfaceChanged,
                            format!("{} test surface: {}", e.change.as_str(), e.reason),
                        )
                        .file(e.path.clone()),
                    );
                }
            }
            // The base's own scan: merge tests the patch removed or moved.
            let base_scan = in_dir(&based.base_dir, || {
                let scan = lane_scan::scan(&scan_options).map_err(|e| {
                    GateError::new(format!("lane-scan of the base {base_ref}: {e}"))
                })?;
                let mut section = scan.section;
                section.tests = scan.runs.into_iter().flatten().collect();
                let mut d = Document::empty();
                d.set_section(ScanSection::NAME, &section);
                Ok(d)
            })?;
            write(&out.join("base-evidence.json"), &base_scan.to_bytes())?;
            let scans = LockScans {
                base: base_scan.section_as(ScanSection::NAME, "<base evidence>")?,
                head: None,
            };
            base_doc = Some(base_scan);
            // The patch's product code is judged (test-aware-code) in its own tree and the vote's.
            let scan_options = changed::with(
                &scan_options,
                changed::of_patch(&cwd, &based.merge_base, &based.head, &based.entries)?,
            );
            let patch_doc = in_dir(&cwd, || evidence(today, &scan_options))?;
            // lane-lock diff compares the patch's own witness lane with the base's.
            let scans = LockScans {
                head: patch_doc.section_as(ScanSection::NAME, "<patch evidence>")?,
                ..scans
            };
            let doc = if ack.is_some() {
                gate.voting_tree = "patch".into();
                // The patch's own tree votes, from the copy: no __pycache__ of the checkout
                // (a committed unchecked-hash .pyc would stand in for the source).
                vote_root = based.vote_dir.clone();
                patch_doc
            } else {
                gate.voting_tree = "base-test-surface".into();
                vote_root = based.vote_dir.clone();
                manifest_root = based.base_dir.clone();
                check_imports(&interp, &vote_root, &based.product_names)?;
                let vote_doc = in_dir(&vote_root, || evidence(today, &scan_options))?;
                // The patch's own tree: its problems are shown (each once).
                for name in [ScanSection::NAME, "lock", "ledger"] {
                    let seen = vote_doc.problems_of(name, "<vote evidence>")?;
                    for p in patch_doc.problems_of(name, "<patch evidence>")? {
                        if !seen.contains(&p) {
                            let mut p = p;
                            p.message = format!("in the patch's own tree: {}", p.message);
                            gate.problems.push(p);
                        }
                    }
                }
                // What the patch did to the base's voters (removed or moved merge tests),
                // from its own scan against the base's.
                let mut own = Document::empty();
                if let Some(scan) = patch_doc.section(ScanSection::NAME) {
                    own.set_section(ScanSection::NAME, &scan);
                }
                let compared = lane_tally::vote::tally(
                    &own,
                    &lane_tally::Options {
                        reports: Vec::new(),
                        rootdir: cwd.clone(),
                        base: base_doc.clone(),
                        reason: None,
                    },
                )
                .map_err(from_tool("lane-tally"))?;
                for p in compared.problems {
                    if BASE_RULES.contains(&p.rule.as_str()) {
                        let mut p = p;
                        p.message = format!("in the patch's own tree: {}", p.message);
                        gate.problems.push(p);
                    }
                }
                candidates = based.candidates.clone();
                vote_doc
            };
            review_edits(doc, &based, &cwd, tmp, ack.as_deref(), scans)?
        }
    };

    // Plugins, seed and the environment of every run.
    let (loaded, not_loaded) = choose_plugins(&installed_plugins, &manifest_root)?;
    let mut by_dist: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for p in &not_loaded {
        by_dist.entry(&p.distribution).or_default().push(&p.name);
    }
    for (dist, names) in by_dist {
        gate.problems.push(Problem::new(
            Rule::PluginNotLoaded,
            format!(
                "{dist} is installed and declares the pytest plugin{} {}, but no dependency \
                 manifest of the voting tree names it: not loaded (plugin autoloading is off)",
                lane_core::render::plural(names.len()),
                names.join(", ")
            ),
        ));
    }
    let hypothesis_loaded = loaded.iter().any(|p| p.distribution == "hypothesis");
    let mut modules: Vec<String> = Vec::new();
    for p in &loaded {
        if !modules.contains(&p.module) {
            modules.push(p.module.clone());
        }
    }
    gate.plugins = section::Plugins { loaded, not_loaded };
    if !hypothesis_loaded {
        gate.seed.value = None;
    }
    let mut setup = Setup {
        python: python.clone(),
        plugins: modules,
        seed: gate.seed.value,
        user_args: args.pytest_args.clone(),
        timeout: Duration::from_secs(args.lane_timeout),
        pythonpath: run_pythonpath(&vote_root)?,
        // A run in the checkout itself reads and writes bytecode only under a fresh folder:
        // a stale or committed __pycache__ there is never imported. (The vote tree is a copy
        // without any __pycache__.)
        pycache_prefix: (vote_root == cwd).then(|| tmp.join("pycache")),
    };
    // Files whose bytes decide the vote: any write to them while pytest runs is seen by their
    // inode change time, even when the bytes are put back before the run ends.
    let watched = watch(&vote_root);

    // issue 21: the run manifest every report carries, and the split with --shard.
    let plan = crate::shard::Plan::prepare(args, &mut doc, &gate, &cwd, &out, tmp)?;

    // Three lanes, three runs: each status recorded, never OR-ed; the tally reads reports.
    let reports_dir = tmp.join("reports");
    std::fs::create_dir(&reports_dir)
        .map_err(|e| GateError::new(format!("cannot create a temporary folder: {e}")))?;
    let mut status_text = String::new();
    let mut reports: Vec<Report> = Vec::new();
    // issue 22: one pytest process for every lane, split into one report per lane afterwards;
    // anything out of the ordinary runs one process per lane instead (together.rs).
    let one_run = if crate::together::separate_requested() {
        None
    } else {
        run_together(&plan, &setup, &vote_root, &out, tmp, &reports_dir)?
    };
    for lane in LANES {
        let report = reports_dir.join(format!("{lane}.xml"));
        let log = out.join(format!("{lane}.log"));
        let ended = match one_run.as_ref().and_then(|split| split.lanes.get(&lane)) {
            Some(split) => Ended {
                code: Some(split.code),
                timed_out: false,
            },
            None => {
                let (select, lane_setup) = plan.select(lane, &setup);
                lane_setup.run(&vote_root, &select, &report, &log)?
            }
        };
        let note = match (ended.timed_out, ended.code) {
            (true, _) => format!(
                "ran past --lane-timeout {} s and was killed",
                args.lane_timeout
            ),
            (false, Some(0)) => "exit 0, passed".into(),
            (false, Some(1)) => "exit 1, tests failed".into(),
            (false, Some(5)) => "exit 5, no tests in this lane".into(),
            (false, Some(n)) => format!("exit {n}, pytest could not run this lane"),
            (false, None) => "killed by a signal".into(),
        };
        status_text.push_str(&match ended.code {
            Some(n) if !ended.timed_out => format!("{lane} {n}\n"),
            _ => format!("{lane} killed\n"),
        });
        eprintln!(
            "{TOOL}: pytest -m {lane}: {note} (log: {})",
            out_name(args, &format!("{lane}.log"))
        );
        if ended.timed_out {
            gate.problems.push(Problem::new(
                Rule::LaneTimeout,
                format!(
                    "the {lane} lane's pytest run ran longer than {} s and was killed: it did not \
                     vote",
                    args.lane_timeout
                ),
            ));
        }
        let has_report = std::fs::metadata(&report).is_ok_and(|m| m.is_file() && m.len() > 0);
        if has_report && !ended.timed_out {
            contradiction(lane, ended.code, &report, &mut gate.problems)?;
        }
        if has_report {
            std::fs::copy(&report, out.join(format!("{lane}.xml"))).map_err(|e| {
                GateError::new(format!(
                    "cannot copy the {lane} report to the out folder: {e}"
                ))
            })?;
            reports.push(Report {
                lane,
                path: out_name(args, &format!("{lane}.xml")),
            });
        }
        gate.lanes.insert(
            lane.to_string(),
            section::LaneRun {
                exit: if ended.timed_out { None } else { ended.code },
                report: has_report.then(|| out_name(args, &format!("{lane}.xml"))),
                timed_out: ended.timed_out,
            },
        );
    }
    write(&out.join("pytest-status"), status_text.as_bytes())?;

    // Bytes that moved while pytest ran are digest-moved too.
    let lock_before = doc.problems_of("lock", "<evidence>")?;
    let mut scan_only = Document::empty();
    if let Some(scan) = doc.section(ScanSection::NAME) {
        scan_only.set_section(ScanSection::NAME, &scan);
    }
    let (_, after) = in_dir(&vote_root, || {
        lane_lock::verify::verify(
            &lane_lock::LockPaths::new(PathBuf::from("."), None),
            scan_only,
        )
        .map_err(from_tool("lane-lock (after the runs)"))
    })?;
    for p in after.problems {
        if p.is_error() && !lock_before.contains(&p) {
            let mut p = p;
            p.message = format!("after the pytest runs: {}", p.message);
            gate.problems.push(p);
        }
    }
    for (path, before) in &watched {
        if stamp(&vote_root.join(path)).as_ref() != Some(before) {
            gate.problems.push(
                Problem::new(
                    Rule::DigestMoved,
                    "written while pytest ran (its inode change time moved): the bytes the \
                     tests read need not be the locked ones, even if they match the lock again \
                     now"
                    .to_string(),
                )
                .file(path.clone()),
            );
        }
    }

    // The patch's new or changed tests, in its own tree: shown, never counted.
    if !candidates.is_empty() && plan.shard == 1 {
        setup.pythonpath = run_pythonpath(&cwd)?;
        setup.pycache_prefix = Some(tmp.join("pycache"));
        gate.candidates = Some(run_candidates(
            &setup,
            &cwd,
            &candidates,
            &reports_dir,
            &out,
            &mut gate.problems,
        )?);
    }

    lane_core::problem::normalize(&mut gate.problems);
    doc.set_section(section::SECTION, &gate);
    if let Some(text) = &ack {
        ack::acknowledge_document(&mut doc, text)?;
    }
    write(&out.join("evidence.json"), &doc.to_bytes())?;
    plan.write_manifest(&out, &gate)?;
    if plan.is_shard() {
        eprint!("{}", plan.shard_summary(&gate, plan.others_count()));
        return Ok(Status::Clean);
    }

    let options = lane_tally::Options {
        reports,
        rootdir: vote_root.clone(),
        base: base_doc,
        reason: ack.clone(),
    };
    let mut tally = lane_tally::vote::tally(&doc, &options).map_err(from_tool("lane-tally"))?;
    if let Some(text) = &ack {
        ack::acknowledge_tally(&mut tally, text);
    }
    let mut markdown =
        lane_tally::markdown_verdict(&doc, &tally).map_err(from_tool("lane-tally"))?;
    markdown.push_str(&gate_markdown(&gate));
    doc.set_section(lane_tally::vote::SECTION, &tally);
    let verdict = doc.to_bytes();
    write(&out.join("verdict.json"), &verdict)?;
    // The step summary and the PR comment, each within GitHub's size limit (issue 19).
    let markdown = lane_core::render::markdown::fit(
        &markdown,
        lane_core::render::markdown::SUMMARY_MAX_BYTES,
        "verdict.json (the lanes artifact)",
    );
    write(&out.join("verdict.md"), markdown.as_bytes())?;
    let comment = lane_core::render::markdown::fit(
        &markdown,
        lane_core::render::markdown::COMMENT_MAX_BYTES,
        "verdict.json and verdict.md (the lanes artifact)",
    );
    write(&out.join("comment.md"), comment.as_bytes())?;
    let shown = shown_problems(&doc, &tally)?;
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

/// The lanes in one pytest process (together.rs): each lane's report written into
/// `reports_dir`, the one log copied to each lane's; None (after saying why on stderr) when the
/// lanes must run one process each.
fn run_together(
    plan: &crate::shard::Plan,
    setup: &Setup,
    vote_root: &Path,
    out: &Path,
    tmp: &Path,
    reports_dir: &Path,
) -> Result<Option<crate::together::Split>, GateError> {
    let together = crate::together::Together::prepare(tmp)?;
    let (merge_select, merge_setup) = plan.select(Lane::Merge, setup);
    let (select, one_setup) = together.select(&merge_select, &merge_setup);
    let combined = reports_dir.join("lanes.xml");
    let log = out.join("merge.log");
    let ended = together.run(&one_setup, vote_root, &select, &combined, &log)?;
    let manifests = LANES
        .iter()
        .map(|&lane| {
            (
                lane,
                lane_core::manifest::Manifest {
                    lane,
                    shard: plan.shard,
                    of: plan.of,
                    evidence: plan.digest.clone(),
                },
            )
        })
        .collect();
    match together.split(&combined, ended, &manifests, reports_dir) {
        Ok(split) => {
            for lane in [Lane::Witness, Lane::Freeze] {
                std::fs::copy(&log, out.join(format!("{lane}.log"))).map_err(|e| {
                    GateError::new(format!("cannot copy the pytest log to the {lane} log: {e}"))
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

/// What the annotations and the SARIF log show: the reasons of the decision, then every
/// section's warnings (as the markdown verdict does), sorted and without duplicates.
pub(crate) fn shown_problems(
    doc: &Document,
    tally: &lane_tally::vote::TallySection,
) -> Result<Vec<Problem>, GateError> {
    let mut shown = tally.reasons.clone();
    let mut warnings: Vec<Problem> = doc
        .all_problems("<evidence document>")?
        .into_iter()
        .flat_map(|(_, problems)| problems)
        .filter(|p| !p.is_error())
        .collect();
    lane_core::problem::normalize(&mut warnings);
    shown.extend(warnings);
    Ok(shown)
}

/// The gate's part of the printed verdict: whose tests voted, the acknowledgment, the seed and
/// the test surface the patch changed.
fn gate_markdown(gate: &GateSection) -> String {
    use lane_core::render::markdown::cell;
    let mut out = String::new();
    let voting = match gate.voting_tree.as_str() {
        "base-test-surface" => "the base's test surface voted on the patch's code",
        "patch" => "the patch's own test surface voted (acknowledged)",
        _ => "the working tree's tests voted (no --base)",
    };
    out.push_str(&format!("\n### lane-gate: {voting}\n\n"));
    if let Some(base) = &gate.base {
        out.push_str(&format!(
            "Base: `{}` (merge base `{}`).\n",
            cell(&base.reference),
            &base.merge_base[..base.merge_base.len().min(12)]
        ));
    }
    if let Some(text) = &gate.ack {
        out.push_str(&format!("Acknowledged: {}\n", cell(text)));
    }
    match gate.seed.value {
        Some(n) => out.push_str(&format!("Hypothesis seed: {n} ({}).\n", gate.seed.from)),
        None => out.push_str("Hypothesis seed: none (hypothesis is not loaded).\n"),
    }
    let surface: Vec<&Entry> = gate
        .surface
        .iter()
        .filter(|e| e.class == Class::TestSurface)
        .collect();
    if !surface.is_empty() {
        const SHOWN: usize = 50;
        out.push_str(&format!(
            "\nTest surface the patch changed ({}):\n\n| path | change | why |\n|---|---|---|\n",
            surface.len()
        ));
        for e in surface.iter().take(SHOWN) {
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                cell(&e.path),
                e.change.as_str(),
                cell(&e.reason)
            ));
        }
        if surface.len() > SHOWN {
            out.push_str(&format!(
                "\n… and {} more (evidence.json)\n",
                surface.len() - SHOWN
            ));
        }
    }
    if let Some(c) = &gate.candidates {
        out.push_str("\nCandidates (the patch's new or changed tests, not counted):\n\n");
        out.push_str("| file | passed | failed | errors | skipped |\n|---|---:|---:|---:|---:|\n");
        for f in &c.files {
            out.push_str(&format!(
                "| `{}` | {} | {} | {} | {} |\n",
                cell(&f.file),
                f.passed,
                f.failed,
                f.errors,
                f.skipped
            ));
        }
    }
    out
}

fn run_candidates(
    setup: &Setup,
    cwd: &Path,
    files: &[String],
    reports_dir: &Path,
    out: &Path,
    problems: &mut Vec<Problem>,
) -> Result<section::Candidates, GateError> {
    let report = reports_dir.join("candidates.xml");
    let ended = setup.run(cwd, files, &report, &out.join("candidates.log"))?;
    let mut per_file: BTreeMap<String, section::CandidateFile> = files
        .iter()
        .map(|f| {
            (
                f.clone(),
                section::CandidateFile {
                    file: f.clone(),
                    ..Default::default()
                },
            )
        })
        .collect();
    if std::fs::metadata(&report).is_ok_and(|m| m.is_file() && m.len() > 0) {
        std::fs::copy(&report, out.join("candidates.xml"))
            .map_err(|e| GateError::new(format!("cannot copy the candidates' report: {e}")))?;
        lane_tally::junit::read_path(&report, "candidates.xml", |case| {
            let file = case
                .file
                .map(str::to_string)
                .unwrap_or_else(|| format!("{}.py", case.classname.replace('.', "/")));
            let entry = per_file
                .entry(file.clone())
                .or_insert_with(|| section::CandidateFile {
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
    } else {
        problems.push(Problem::new(
            Rule::CandidateFailed,
            format!(
                "the patch's new or changed tests could not run ({}): see candidates.log",
                match (ended.timed_out, ended.code) {
                    (true, _) => "timed out".to_string(),
                    (false, Some(n)) => format!("pytest exit {n}"),
                    (false, None) => "killed".to_string(),
                }
            ),
        ));
    }
    for f in per_file.values() {
        if f.failed + f.errors > 0 {
            problems.push(
                Problem::new(
                    Rule::CandidateFailed,
                    format!(
                        "{} of the patch's own tests here failed in its own tree ({} failed, {} \
                         errors); they do not vote",
                        f.failed + f.errors,
                        f.failed,
                        f.errors
                    ),
                )
                .file(f.file.clone()),
            );
        }
    }
    Ok(section::Candidates {
        exit: if ended.timed_out { None } else { ended.code },
        files: per_file.into_values().collect(),
        timed_out: ended.timed_out,
    })
}

/// What identifies one state of a file: size, inode, and change time (which no process can set
/// back).
type Stamp = (u64, u64, i64, i64);

fn stamp(path: &Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(path).ok()?;
    Some((m.size(), m.ino(), m.ctime(), m.ctime_nsec()))
}

/// The lock, the ledger and every file they name, with their stamps before the runs.
fn watch(root: &Path) -> BTreeMap<String, Stamp> {
    let mut paths: BTreeSet<String> = ["lanes.lock", "freeze_ledger.json"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    locked_paths(root, &mut paths);
    paths
        .into_iter()
        .filter_map(|p| stamp(&root.join(&p)).map(|s| (p, s)))
        .collect()
}

/// A report that says something other than pytest's exit status: written over after pytest
/// wrote it (`report-contradicts-exit`).
fn contradiction(
    lane: Lane,
    code: Option<i32>,
    report: &Path,
    problems: &mut Vec<Problem>,
) -> Result<(), GateError> {
    use lane_tally::junit::Outcome;
    let (mut cases, mut failed) = (0u64, 0u64);
    let read = lane_tally::junit::read_path(report, &format!("{lane}.xml"), |case| {
        cases += 1;
        if matches!(case.outcome, Outcome::Failed | Outcome::Error) {
            failed += 1;
        }
    });
    if read.is_err() {
        // An unreadable report is the tally's to refuse, with its line and column.
        return Ok(());
    }
    let says = match code {
        Some(1) if failed == 0 => Some("exited 1 (tests failed), but its report has no failure"),
        Some(0) if failed > 0 => Some("exited 0 (all passed), but its report has a failure"),
        Some(5) if cases > 0 => Some("exited 5 (no tests collected), but its report has cases"),
        _ => None,
    };
    if let Some(says) = says {
        problems.push(Problem::new(
            Rule::ReportContradictsExit,
            format!(
                "the {lane} lane's pytest run {says}: the report was written over after pytest \
                 wrote it, and does not vote"
            ),
        ));
    }
    Ok(())
}

/// Refuses a vote tree whose product modules import from elsewhere (an editable install of the
/// original checkout): the base's tests would not test the patch's code.
fn check_imports(interp: &Interpreter, root: &Path, names: &[String]) -> Result<(), GateError> {
    let config = lane_scan::config::load(&[], None, root).map_err(from_tool("lane-scan"))?;
    let mut path = vec![root.to_path_buf()];
    for p in lane_scan::config::ini_args(&config, "pythonpath").map_err(from_tool("lane-scan"))? {
        path.push(lane_scan::config::normalize(&root.join(p)));
    }
    let found = crate::python::resolve_modules(interp, root, &path, names)?;
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let root_c = canon(root);
    for (name, places) in found {
        if places.is_empty() || places.iter().any(|p| canon(p).starts_with(&root_c)) {
            continue;
        }
        let place = places
            .first()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        return Err(GateError::new(format!(
            "the product module '{name}' resolves outside the vote tree ({place}; an editable \
             install of the checkout?): the base's tests would not test the patch's code. \
             Install the project without -e, or not at all, and run the gate again"
        )));
    }
    Ok(())
}

/// Everything `--base` prepares: the commits, the classification, the base's checkout and the
/// vote tree.
struct Based {
    base_commit: String,
    head: String,
    merge_base: String,
    entries: Vec<Entry>,
    /// Rootdir-relative paths the patch changed (both names of a rename), for lane-lock diff.
    changed: Vec<String>,
    base_files: BTreeMap<String, TreeFile>,
    base_dir: PathBuf,
    vote_dir: PathBuf,
    candidates: Vec<String>,
    product_names: Vec<String>,
}

/// The most bytes of a patch's pyproject.toml read to classify it (a larger one is unreadable
/// here, so the whole file is test surface).
const PYPROJECT_MAX_BYTES: u64 = 16 << 20;

fn read_text(path: &Path) -> Option<String> {
    let bytes =
        lane_core::io::read_file_capped(path, PYPROJECT_MAX_BYTES, "pyproject.toml").ok()?;
    String::from_utf8(bytes).ok()
}

/// Lock entries and capsules named by the lock and ledger in `root` (unreadable ones, and ones
/// over the tools' size caps, are the tools' to report: they are never read whole here).
fn locked_paths(root: &Path, into: &mut BTreeSet<String>) {
    let lock = root.join("lanes.lock");
    if let Ok(bytes) =
        lane_core::io::read_file_capped(&lock, lane_lock::lock::LOCK_MAX_BYTES, "the lock")
        && let Ok(lock) = lane_lock::lock::LockFile::parse(&bytes, "lanes.lock")
    {
        into.extend(lock.files.into_iter().map(|e| e.path));
    }
    let ledger = root.join("freeze_ledger.json");
    if let Ok(bytes) = lane_core::io::read_file_capped(
        &ledger,
        freeze_ledger::ledger::LEDGER_MAX_BYTES,
        "the ledger",
    ) && let Ok(serde_json::Value::Array(rows)) = serde_json::from_slice(&bytes)
    {
        for row in rows {
            if let Some(p) = row.get("input_path").and_then(|v| v.as_str()) {
                into.insert(p.to_string());
            }
        }
    }
}

fn rel_dir(root: &Path, dir: &str) -> String {
    let joined = lane_scan::config::normalize(&root.join(dir));
    lane_core::paths::relative_to(&joined, &lane_scan::config::normalize(root))
        .unwrap_or_default()
        .trim_end_matches('/')
        .to_string()
}

/// The facts the classification needs, from the base's checkout and the patch's tree.
/// `roots`: the base's checkout, and the patch's tree unless only the base's facts are wanted.
fn facts(
    roots: &[&Path],
    base_files: &BTreeSet<String>,
    head_files: &BTreeSet<String>,
) -> Result<Facts, GateError> {
    let mut f = Facts {
        base_files: base_files.clone(),
        head_files: head_files.clone(),
        ..Facts::default()
    };
    f.import_dirs.insert(String::new());
    for &root in roots {
        let config = lane_scan::config::load(&[], None, root).map_err(from_tool("lane-scan"))?;
        if config.python_files != surface::DEFAULT_PYTHON_FILES {
            f.python_files.extend(config.python_files.iter().cloned());
        }
        for tp in &config.testpaths {
            let d = rel_dir(root, tp);
            if !d.is_empty() {
                f.testpaths.push(d);
            }
        }
        for p in
            lane_scan::config::ini_args(&config, "pythonpath").map_err(from_tool("lane-scan"))?
        {
            f.import_dirs.insert(rel_dir(root, &p));
        }
        let mut addopts = config.addopts.iter();
        while let Some(a) = addopts.next() {
            let name = if a == "-p" {
                addopts.next().cloned()
            } else {
                a.strip_prefix("-p").map(str::to_string)
            };
            if let Some(name) = name.filter(|n| !n.starts_with("no:")) {
                let stem = name.replace('.', "/");
                f.plugin_modules.insert(format!("{stem}.py"));
                f.plugin_modules.insert(format!("{stem}/__init__.py"));
            }
        }
        locked_paths(root, &mut f.locked);
    }
    if !f.python_files.is_empty() {
        f.python_files
            .extend(surface::DEFAULT_PYTHON_FILES.iter().map(|s| s.to_string()));
        f.python_files.sort();
        f.python_files.dedup();
    }
    // Each test module's first folder above its packages is on sys.path (rootdir-based
    // "prepend" import mode).
    let all: BTreeSet<&String> = base_files.iter().chain(head_files.iter()).collect();
    for file in &all {
        let name = file.rsplit('/').next().unwrap_or(file);
        if !surface::is_test_module_name(name, &f.python_files) {
            continue;
        }
        let mut dir = file.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        while !dir.is_empty() && all.contains(&format!("{dir}/__init__.py")) {
            dir = dir.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        }
        f.import_dirs.insert(dir);
    }
    Ok(f)
}

impl Based {
    fn prepare(
        base_ref: &str,
        cwd: &Path,
        out: &Path,
        tmp: &Path,
        acknowledged: bool,
    ) -> Result<Based, GateError> {
        let repo = Repo::open(cwd)?;
        let base_commit = repo.commit(base_ref, "--base")?;
        let head = repo.commit("HEAD", "HEAD")?;
        let merge_base = repo.merge_base(&base_commit, &head)?;
        let dirty = repo.dirty_tracked()?;
        if let Some(first) = dirty.first() {
            return Err(GateError::new(format!(
                "uncommitted changes to tracked files ({first}{}): lane-gate judges commits; \
                 commit or stash them first",
                if dirty.len() > 1 {
                    format!(" and {} more", dirty.len() - 1)
                } else {
                    String::new()
                }
            )));
        }
        let deltas = repo.diff(&merge_base, &head)?;
        let base_tree = repo.tree(&merge_base)?;
        let head_tree = repo.tree(&head)?;
        let is_link = |p: &str, mode: &str| {
            base_tree.get(p).is_some_and(|f| f.mode == mode)
                || head_tree.get(p).is_some_and(|f| f.mode == mode)
        };

        // The base's checkout: its config, manifests and scan.
        let base_dir = tmp.join("base");
        std::fs::create_dir(&base_dir)
            .map_err(|e| GateError::new(format!("cannot create a temporary folder: {e}")))?;
        repo.checkout(&merge_base, &base_dir, &tmp.join("base.index"))?;

        // The working tree, copied (untracked build outputs included).
        let vote_dir = tmp.join("vote");
        std::fs::create_dir(&vote_dir)
            .map_err(|e| GateError::new(format!("cannot create a temporary folder: {e}")))?;
        let copied = tree::copy_tree(cwd, &vote_dir, Some(out))?;
        let tracked: BTreeSet<String> = repo.tracked()?.into_iter().collect();
        let base_files: BTreeSet<String> = base_tree.keys().cloned().collect();
        let mut head_files: BTreeSet<String> = head_tree.keys().cloned().collect();
        head_files.extend(copied.iter().cloned());
        let facts = facts(&[&base_dir, cwd], &base_files, &head_files)?;
        // What the base alone says. Only a path the base's own facts make test surface is put
        // back as the base had it: a patch that makes a product file look like test surface
        // (a test module or `python_files` pattern beside it, a `testpaths` over it) must not
        // get the base's product code voted on in place of its own.
        let base_facts = facts_of_base(&base_dir, &base_files)?;

        let classify = |path: &str| -> (Class, String) {
            if path.rsplit('/').next() == Some("pyproject.toml") {
                let base = base_tree
                    .get(path)
                    .and_then(|f| repo.blob(&f.oid).ok())
                    .and_then(|b| String::from_utf8(b).ok());
                let head_path = cwd.join(path);
                let head = read_text(&head_path);
                if head.is_none() && head_path.symlink_metadata().is_ok() {
                    return (
                        Class::TestSurface,
                        "pyproject.toml that cannot be read (or is over 16 MiB): cannot be classified"
                            .into(),
                    );
                }
                return surface::classify_pyproject(base.as_deref(), head.as_deref());
            }
            surface::classify(path, is_link(path, "120000"), &facts)
        };
        let base_says_product = |path: &str| -> bool {
            path.rsplit('/').next() != Some("pyproject.toml")
                && base_files.contains(path)
                && surface::classify(path, is_link(path, "120000"), &base_facts).0 == Class::Product
        };
        let mut entries: Vec<Entry> = Vec::new();
        let mut changed: Vec<String> = Vec::new();
        let push = |path: &str, change: Change, from: Option<String>, entries: &mut Vec<Entry>| {
            let (mut class, mut reason) = classify(path);
            if let Some(old) = &from {
                let (c2, r2) = classify(old);
                if c2 > class {
                    class = c2;
                    reason = format!("renamed from {old}: {r2}");
                }
            }
            entries.push(Entry {
                class,
                change,
                from,
                path: path.to_string(),
                reason,
            });
        };
        for delta in &deltas {
            let paths: Vec<&String> = match delta {
                Delta::Added(p) | Delta::Modified(p) | Delta::Deleted(p) => vec![p],
                Delta::Renamed { from, to } => vec![from, to],
            };
            for p in &paths {
                let rel = repo.under_root(p);
                let check = rel.as_deref().unwrap_or(p);
                if is_link(check, "160000") {
                    return Err(GateError::new(format!(
                        "the submodule {p} changed: the gate cannot read inside a submodule to \
                         classify its change"
                    )));
                }
            }
            let rel = |p: &String| repo.under_root(p);
            match delta {
                Delta::Added(p) | Delta::Modified(p) | Delta::Deleted(p) => {
                    let change = match delta {
                        Delta::Added(_) => Change::Added,
                        Delta::Modified(_) => Change::Changed,
                        _ => Change::Removed,
                    };
                    match rel(p) {
                        Some(r) => {
                            changed.push(r.clone());
                            push(&r, change, None, &mut entries);
                        }
                        None => outside(p, change, &facts, &mut entries),
                    }
                }
                Delta::Renamed { from, to } => match (rel(from), rel(to)) {
                    (Some(f), Some(t)) => {
                        changed.push(f.clone());
                        changed.push(t.clone());
                        push(&f, Change::Removed, None, &mut entries);
                        push(&t, Change::Renamed, Some(f), &mut entries);
                    }
                    (f, t) => {
                        match f {
                            Some(f) => {
                                changed.push(f.clone());
                                push(&f, Change::Removed, None, &mut entries);
                            }
                            None => outside(from, Change::Removed, &facts, &mut entries),
                        }
                        match t {
                            Some(t) => {
                                changed.push(t.clone());
                                push(&t, Change::Added, None, &mut entries);
                            }
                            None => outside(to, Change::Added, &facts, &mut entries),
                        }
                    }
                },
            }
        }
        // Untracked files that are test surface (a conftest.py or .pth a build step left) do
        // not vote either.
        for path in copied.difference(&tracked) {
            let (class, reason) = surface::classify(path, false, &facts);
            if class == Class::TestSurface {
                entries.push(Entry {
                    class,
                    change: Change::Untracked,
                    from: None,
                    path: path.clone(),
                    reason,
                });
            }
        }
        entries.sort();
        entries.dedup();
        changed.sort();
        changed.dedup();

        // The vote tree: the base's test surface over the patch's product code.
        if !acknowledged {
            for e in entries.iter().filter(|e| e.class == Class::TestSurface) {
                if e.reason.starts_with("outside the rootdir") || base_says_product(&e.path) {
                    continue;
                }
                match e.change {
                    Change::Added | Change::Untracked | Change::Renamed => {
                        tree::restore(&vote_dir, &e.path, None, &repo)?
                    }
                    Change::Changed | Change::Removed => {
                        tree::restore(&vote_dir, &e.path, base_tree.get(&e.path), &repo)?
                    }
                }
            }
            // A renamed path whose new name is product but old name test surface: the old name
            // comes back too.
            for e in entries.iter().filter(|e| e.change == Change::Renamed) {
                if let Some(from) = &e.from
                    && e.class == Class::TestSurface
                {
                    tree::restore(&vote_dir, from, base_tree.get(from), &repo)?;
                }
            }
        }

        let head_config =
            lane_scan::config::load(&[], None, cwd).map_err(from_tool("lane-scan"))?;
        let candidates: Vec<String> = entries
            .iter()
            .filter(|e| {
                e.class == Class::TestSurface
                    && matches!(e.change, Change::Added | Change::Changed | Change::Renamed)
                    && surface::is_test_module_name(
                        e.path.rsplit('/').next().unwrap_or(&e.path),
                        &head_config.python_files,
                    )
                    && cwd.join(&e.path).is_file()
            })
            .map(|e| e.path.clone())
            .collect();

        // Top-level product modules the tests may import, for the import check.
        let mut product_names: BTreeSet<String> = BTreeSet::new();
        for dir in &facts.import_dirs {
            let d = vote_dir.join(dir);
            let Ok(read) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in read.filter_map(Result::ok) {
                let name = e.file_name().to_string_lossy().into_owned();
                let path = e.path();
                let module = if let Some(stem) = name.strip_suffix(".py") {
                    (path.is_file()
                        && !matches!(stem, "conftest" | "setup" | "noxfile")
                        && !surface::is_test_module_name(&name, &facts.python_files))
                    .then(|| stem.to_string())
                } else {
                    (path.join("__init__.py").is_file()).then_some(name.clone())
                };
                if let Some(m) = module.filter(|m| {
                    !m.is_empty() && m.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                }) {
                    product_names.insert(m);
                }
            }
        }
        Ok(Based {
            base_commit,
            head,
            merge_base,
            entries,
            changed,
            base_files: base_tree,
            base_dir,
            vote_dir,
            candidates,
            product_names: product_names.into_iter().collect(),
        })
    }
}

/// The facts of the base alone (its configuration, its files, its test modules).
fn facts_of_base(base_dir: &Path, base_files: &BTreeSet<String>) -> Result<Facts, GateError> {
    facts(&[base_dir], base_files, base_files)
}

/// A changed path outside the rootdir: classified by its name only, never restored.
fn outside(path: &str, change: Change, facts: &Facts, entries: &mut Vec<Entry>) {
    let empty = Facts {
        import_dirs: BTreeSet::new(),
        base_files: facts.base_files.clone(),
        ..Facts::default()
    };
    let (class, reason) = surface::classify(path, false, &empty);
    entries.push(Entry {
        class,
        change,
        from: None,
        path: format!("/{path}"),
        reason: format!("outside the rootdir: {reason}"),
    });
}

/// The scans lane-lock diff compares the witness lane of: the base's and the patch's own.
struct LockScans {
    base: Option<ScanSection>,
    head: Option<ScanSection>,
}

/// lane-lock diff and freeze-ledger diff of the base's lock and ledger against the patch's.
fn review_edits(
    mut doc: Document,
    based: &Based,
    cwd: &Path,
    tmp: &Path,
    ack: Option<&str>,
    scans: LockScans,
) -> Result<Document, GateError> {
    let repo = Repo::open(cwd)?;
    let base_bytes = |name: &str| -> Result<Vec<u8>, GateError> {
        match based.base_files.get(name) {
            Some(f) => repo.blob(&f.oid),
            None => Ok(Vec::new()),
        }
    };
    let head_dir = tmp.join("head");
    std::fs::create_dir_all(&head_dir)
        .map_err(|e| GateError::new(format!("cannot create a temporary folder: {e}")))?;
    let local = |name: &str| -> Result<(PathBuf, bool), GateError> {
        if cwd.join(name).symlink_metadata().is_ok() {
            Ok((PathBuf::from(name), true))
        } else {
            let p = head_dir.join(name);
            write(&p, b"")?;
            Ok((p, false))
        }
    };

    let base_lock = base_bytes("lanes.lock")?;
    let (head_lock, head_has) = local("lanes.lock")?;
    // Sidecars and the base's witness tests are lock material even where no lanes.lock is.
    let sidecar_edited = based
        .changed
        .iter()
        .any(|p| p.ends_with(lane_lock::lock::SIDECAR_SUFFIX));
    let base_witnessed = scans
        .base
        .as_ref()
        .is_some_and(|b| b.tests_in(Lane::Witness).next().is_some());
    if head_has
        || !base_lock.iter().all(u8::is_ascii_whitespace)
        || sidecar_edited
        || base_witnessed
    {
        let base_path = tmp.join("base.lock");
        write(&base_path, &base_lock)?;
        let changed = tmp.join("changed");
        // `git diff --name-status` lines, so added, changed and removed sidecars tell apart.
        let mut list = String::new();
        for path in &based.changed {
            let status = match based.entries.iter().find(|e| &e.path == path) {
                Some(e) => match e.change {
                    Change::Added | Change::Untracked | Change::Renamed => "A",
                    Change::Removed => "D",
                    Change::Changed => "M",
                },
                None => "M",
            };
            list.push_str(&format!("{status}\t{path}\n"));
        }
        write(&changed, list.as_bytes())?;
        let (base_scan, head_scan) = match (scans.base, scans.head) {
            (Some(b), Some(h)) => (Some(b), Some(h)),
            _ => (None, None),
        };
        let opts = lane_lock::diff::DiffOptions {
            base: base_path.to_string_lossy().into_owned(),
            head: head_lock.to_string_lossy().into_owned(),
            changed: Some(changed),
            reason: ack.map(str::to_string),
            base_scan,
            head_scan,
        };
        doc = in_dir(cwd, || {
            lane_lock::diff::diff(
                &lane_lock::LockPaths::new(PathBuf::from("."), None),
                &opts,
                doc,
            )
            .map(|(d, _)| d)
            .map_err(from_tool("lane-lock diff"))
        })?;
    }

    let base_ledger = base_bytes("freeze_ledger.json")?;
    let (head_ledger, head_has) = local("freeze_ledger.json")?;
    if head_has || !base_ledger.iter().all(u8::is_ascii_whitespace) {
        let base_path = tmp.join("base.ledger");
        write(&base_path, &base_ledger)?;
        let root = Path::new(".");
        let section = in_dir(cwd, || {
            let base_name = lane_core::paths::display_name(root, &base_path);
            let head_name = lane_core::paths::display_name(root, &head_ledger);
            let base = freeze_ledger::ledger::Ledger::read(&base_path, &base_name)
                .map_err(from_tool("freeze-ledger diff"))?;
            let head = freeze_ledger::ledger::Ledger::read(&head_ledger, &head_name)
                .map_err(from_tool("freeze-ledger diff"))?;
            freeze_ledger::diff::diff(&base, &base_name, &head, &head_name)
                .map_err(from_tool("freeze-ledger diff"))
        })?;
        doc.set_section(freeze_ledger::diff::SECTION, &section);
    }
    Ok(doc)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const PASSED: &str = "<testsuites><testsuite name=\"pytest\" errors=\"0\" failures=\"0\">\
        <testcase classname=\"tests.test_a\" name=\"test_x\" file=\"tests/test_a.py\"/>\
        </testsuite></testsuites>";
    const FAILED: &str = "<testsuites><testsuite name=\"pytest\" errors=\"0\" failures=\"1\">\
        <testcase classname=\"tests.test_a\" name=\"test_x\" file=\"tests/test_a.py\">\
        <failure message=\"boom\">boom</failure></testcase></testsuite></testsuites>";
    const EMPTY: &str = "<testsuites><testsuite name=\"pytest\" tests=\"0\"/></testsuites>";

    fn judged(report: &str, code: Option<i32>) -> Vec<Problem> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("merge.xml");
        std::fs::write(&path, report).unwrap();
        let mut problems = Vec::new();
        contradiction(Lane::Merge, code, &path, &mut problems).unwrap();
        problems
    }

    #[test]
    fn a_report_must_agree_with_its_exit_status() {
        for (report, code) in [(PASSED, Some(1)), (FAILED, Some(0)), (PASSED, Some(5))] {
            let p = judged(report, code);
            assert_eq!(p.len(), 1, "{code:?}");
            assert_eq!(p[0].rule, Rule::ReportContradictsExit.id());
            assert!(p[0].message.contains("merge lane"), "{}", p[0].message);
        }
        for (report, code) in [
            (PASSED, Some(0)),
            (FAILED, Some(1)),
            (EMPTY, Some(5)),
            (FAILED, Some(2)),
            (PASSED, None),
        ] {
            assert!(judged(report, code).is_empty(), "{code:?}");
        }
        // an unreadable report is the tally's to refuse
        assert!(judged("<testsuites><testcase", Some(1)).is_empty());
    }

    #[test]
    fn a_watched_file_written_and_restored_changes_its_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("lanes.lock"),
            "{\"version\":1,\"files\":[{\"path\":\"g.txt\",\"sha256\":\"ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb\",\
             \"bytes\":1,\"locked_on\":\"2026-01-01\"}]}",
        )
        .unwrap();
        std::fs::write(root.join("g.txt"), "a").unwrap();
        let before = watch(root);
        assert_eq!(
            before.keys().cloned().collect::<Vec<_>>(),
            ["g.txt", "lanes.lock"]
        );
        assert_eq!(watch(root), before);
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(root.join("g.txt"), "b").unwrap();
        std::fs::write(root.join("g.txt"), "a").unwrap();
        let after = watch(root);
        assert_ne!(after.get("g.txt"), before.get("g.txt"));
        assert_eq!(after.get("lanes.lock"), before.get("lanes.lock"));
    }
}
