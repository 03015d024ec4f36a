//! `lane-gate --collect DIR...`: checks every shard's out folder (its `manifest.json` against
//! its evidence and reports) and votes over all their reports with lane-tally, which checks
//! every report's run manifest (`stale-report`, `missing-shard`, `conflicting-shard`). The
//! verdict is published as a single run's is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lane_core::manifest;
use lane_core::scan::Lane;
use lane_core::{Document, Problem, Status};
use lane_tally::{Report, TallySection};

use crate::publish::{self, Verdict};
use crate::rules::{self, GateFacts, ShardFolderFacts};
use crate::shard::{MANIFEST_FILE, ManifestFile, sha256_file};
use crate::{Args, GateError, section, tally};

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
        return Err(GateError::Shard(format!(
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
        return Err(GateError::Shard(format!(
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
        return Err(GateError::Shard(format!(
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

/// The folder whose document most folders answer (ties: the first given): the one the vote
/// reads.
fn reference(folders: &[Folder]) -> Result<usize, GateError> {
    let mut votes: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (i, f) in folders.iter().enumerate() {
        let e = votes.entry(f.digest.as_str()).or_insert((0, i));
        e.0 += 1;
    }
    votes
        .values()
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
        .map(|&(_, i)| i)
        .ok_or_else(|| GateError::Usage("--collect needs at least one folder".into()))
}

/// What the folders give the vote: their reports, the gate's own problems of the shards of
/// the reference document, and the reasons to reject the gate finds itself (a folder that
/// mixes two runs, a report its shard's gate did not write).
#[derive(Default)]
struct Gathered {
    reports: Vec<Report>,
    gate_problems: Vec<Problem>,
    stale: Vec<Problem>,
}

/// The digest a folder's manifest records for a lane report, and the report's own.
fn report_digests(
    f: &Folder,
    lane: Lane,
    path: &Path,
    cwd: &Path,
) -> Result<(Option<String>, String), GateError> {
    let recorded = f
        .manifest
        .lanes
        .get(lane.as_str())
        .and_then(|l| l.sha256.clone());
    Ok((recorded, sha256_file(&cwd.join(path))?))
}

/// Every folder's reports and checks.
fn gather(folders: &[Folder], reference: &Folder, cwd: &Path) -> Result<Gathered, GateError> {
    let mut g = Gathered::default();
    let mut shard_problems: Vec<Vec<Problem>> = Vec::new();
    for f in folders {
        let mut facts = ShardFolderFacts {
            name: f.name.clone(),
            named_evidence: f.manifest.evidence.clone(),
            evidence: f.digest.clone(),
            reports: Vec::new(),
        };
        if f.digest == reference.digest {
            shard_problems.push(f.doc.problems_of(section::SECTION, &f.name)?);
        }
        for lane in Lane::ALL {
            let path = Path::new(&f.name).join(format!("{lane}.xml"));
            if !cwd.join(&path).is_file() {
                continue;
            }
            let (recorded, actual) = report_digests(f, lane, &path, cwd)?;
            let shown = path.to_string_lossy().into_owned();
            facts.reports.push((shown, recorded, actual));
            g.reports.push(Report {
                lane,
                path: path.to_string_lossy().into_owned(),
            });
        }
        g.stale
            .extend(rules::check(&GateFacts::ShardFolder(&facts)));
    }
    g.gate_problems = rules::unexercised_change::across_shards(shard_problems);
    Ok(g)
}

/// The reference document with every shard's own gate problems (timeouts, contradicted exits,
/// bytes that moved) in its `gate` section.
fn with_gate_problems(
    mut doc: Document,
    mut problems: Vec<Problem>,
) -> Result<Document, GateError> {
    lane_core::problem::normalize(&mut problems);
    section::set_problems(&mut doc, section::SECTION, &problems)?;
    Ok(doc)
}

/// `lane-gate --collect DIR...`: checks every shard's out folder and votes over their reports.
pub(crate) fn collect(args: &Args) -> Result<Status, GateError> {
    let cwd =
        std::env::current_dir().map_err(|e| GateError::io("cannot read the current folder", e))?;
    let out = lane_scan::config::normalize(&cwd.join(&args.out));
    let folders = read_folders(&args.collect)?;
    for d in &args.collect {
        if lane_scan::config::normalize(&cwd.join(d)) == out {
            return Err(GateError::Usage(format!(
                "--out {} is one of the collected folders: give the vote its own out folder",
                args.out.display()
            )));
        }
    }
    let reference = &folders[reference(&folders)?];
    let mut gathered = gather(&folders, reference, &cwd)?;
    let ack = args.ack.clone().or_else(|| {
        std::env::var("LANES_ACK")
            .ok()
            .filter(|v| !v.trim().is_empty())
    });
    // The vote job checks out the commit the shards judged: an acknowledgment of another is
    // ignored here as in each shard.
    let (ack, ignored) = crate::ack::for_head(ack, &cwd);
    gathered.gate_problems.extend(ignored);
    let mut doc = with_gate_problems(reference.doc.clone(), gathered.gate_problems)?;
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
        reports: gathered.reports,
        rootdir: cwd.clone(),
        base,
        reason: ack.clone(),
    };
    let tally = tally::vote(&doc, &options, gathered.stale, ack.as_deref())?;
    std::fs::create_dir_all(&out)
        .map_err(|e| GateError::io(format!("cannot create {}", args.out.display()), e))?;
    let appendix = shards_markdown(&tally);
    let full = format!(
        "{}/verdict.md",
        args.out.to_string_lossy().trim_end_matches('/')
    );
    let format = lane_core::cli::format_for_stdout(args.format, lane_core::cli::Format::Markdown);
    publish::publish(&out, &full, format, Verdict::new(doc, tally, &appendix)?)?.print()
}

/// The shards table of the collected verdict.
fn shards_markdown(tally: &TallySection) -> String {
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
