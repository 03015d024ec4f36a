//! The second step: the evidence the vote reads. Without `--base`, the working tree's scan,
//! lock verification and ledger check. With it, the base's scan too, the patch's own tree's,
//! the vote tree's (the base's test surface over the patch's code) unless acknowledged, and
//! the reviews of the patch's lock and ledger edits. Each tree is read from its own folder:
//! the process's working directory never changes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lane_core::scan::ScanSection;
use lane_core::{Document, Problem};

use super::based::Based;
use super::prepare::Prepared;
use super::review::{self, LockScans};
use crate::rules::{self, GateFacts};
use crate::section::{self, Seed};
use crate::surface::Entry;
use crate::{Args, GateError, changed, from_tool};

/// The tally's rules that compare a scan with the base's.
const BASE_RULES: &[&str] = &["merge-test-removed", "lane-changed", "domain-changed"];

/// Whose tests vote, and on what.
#[derive(Debug, Clone)]
pub(crate) struct Vote {
    /// `working-tree` (no --base), `base-test-surface`, or `patch` (acknowledged).
    pub(crate) voting_tree: &'static str,
    pub(crate) base: Option<section::Base>,
    /// Every path the patch changed, classified (`--base`).
    pub(crate) surface: Vec<Entry>,
    pub(crate) seed: Seed,
}

/// What the evidence step gives the rest of the run.
#[derive(Debug)]
pub(crate) struct Evidence {
    /// The evidence the vote reads.
    pub(crate) doc: Document,
    /// The base's own scan (`--base`), for the tally's comparisons.
    pub(crate) base_doc: Option<Document>,
    /// Where the lanes run.
    pub(crate) vote_root: PathBuf,
    /// Whose dependency manifests decide which plugins load.
    pub(crate) manifest_root: PathBuf,
    /// The warnings the base's `[tool.lanes.accept-warnings]` accepts (the working tree's
    /// without `--base`).
    pub(crate) accept: crate::accept::Accept,
    /// The patch's new or changed test modules (run after the vote, never counted).
    pub(crate) candidates: Vec<String>,
    pub(crate) vote: Vote,
    /// The gate's problems so far (the test surface changed, the patch's own tree's).
    pub(crate) problems: Vec<Problem>,
    /// The lines the patch changed in its product files, tree-relative (`--base`; empty
    /// without it: there is no change to trace).
    pub(crate) changed: BTreeMap<String, Vec<(u64, u64)>>,
    /// Where a `--base` vote runs, held until the run ends (the tests' TMPDIR is its `tmp`).
    pub(crate) room: Option<crate::room::Room>,
}

/// `dir` as the scan and the tools take it: the folder a process started there would call its
/// current one (symlinks resolved).
fn folder(dir: &Path) -> Result<PathBuf, GateError> {
    std::fs::canonicalize(dir)
        .map_err(|e| GateError::io(format!("cannot enter {}", dir.display()), e))
}

/// A library error naming a file under `root` as it did when it ran with `root` as the current
/// folder: `./` and the path below it.
fn named_from_root(root: &Path) -> impl Fn(lane_core::Error) -> lane_core::Error + '_ {
    move |e| match e {
        lane_core::Error::Io { path, source } => match path.strip_prefix(root) {
            Ok(rel) if rel.as_os_str().is_empty() => lane_core::Error::io(".", source),
            Ok(rel) => lane_core::Error::io(Path::new(".").join(rel), source),
            Err(_) => lane_core::Error::Io { path, source },
        },
        other => other,
    }
}

/// lane-scan of the tree in `dir`, its tests in the section.
fn scan_section(dir: &Path, options: &lane_scan::Options) -> Result<ScanSection, lane_core::Error> {
    let scan = lane_scan::scan(&lane_scan::Options {
        dir: Some(dir.to_path_buf()),
        ..options.clone()
    })?;
    let mut section = scan.section;
    section.tests = scan.runs.into_iter().flatten().collect();
    Ok(section)
}

/// A document of one `scan` section.
fn scan_document(section: &ScanSection) -> Document {
    let mut doc = Document::empty();
    doc.set_section(ScanSection::NAME, section);
    doc
}

/// lane-lock verify of the tree at `root` (absolute) against `doc`: the document with the
/// `lock` section, and that section's problems.
pub(crate) fn verify_lock(
    root: &Path,
    doc: Document,
    tool: &str,
) -> Result<(Document, Vec<Problem>), GateError> {
    let place = lane_lock::LockPaths::new(root.to_path_buf(), None);
    lane_lock::verify::verify(&place, doc)
        .map(|(doc, section)| (doc, section.problems))
        .map_err(named_from_root(root))
        .map_err(from_tool(tool))
}

/// lane-scan, lane-lock verify and freeze-ledger check of the tree in `dir`.
pub(crate) fn of_tree(
    dir: &Path,
    today: lane_core::clock::Today,
    options: &lane_scan::Options,
) -> Result<Document, GateError> {
    let root = folder(dir)?;
    let section = scan_section(&root, options).map_err(from_tool("lane-scan"))?;
    let (mut doc, _) = verify_lock(&root, scan_document(&section), "lane-lock")?;
    let path = root.join("freeze_ledger.json");
    let name = lane_core::paths::display_name(&root, &path);
    let ledger =
        freeze_ledger::ledger::Ledger::read(&path, &name).map_err(from_tool("freeze-ledger"))?;
    let opts = freeze_ledger::check::CheckOptions {
        root: &root,
        ledger_name: &name,
        today,
        max_days: freeze_ledger::check::DEFAULT_MAX_DAYS,
    };
    let ledger_section = freeze_ledger::check::check(&ledger, Some(&section), &opts);
    doc.set_section(freeze_ledger::check::SECTION, &ledger_section);
    Ok(doc)
}

/// The evidence the vote reads, and whose tree votes.
pub(crate) fn gather(args: &Args, p: &Prepared) -> Result<Evidence, GateError> {
    match &args.base {
        None => working_tree(&p.places.cwd, p.today, &p.scan, &p.seed),
        Some(base_ref) => with_base(args, p, base_ref),
    }
}

/// No `--base`: the working tree in `cwd` votes on itself, every product file judged.
pub(crate) fn working_tree(
    cwd: &Path,
    today: lane_core::clock::Today,
    scan: &lane_scan::Options,
    seed: &Seed,
) -> Result<Evidence, GateError> {
    let options = changed::with(scan, lane_scan::aware::Changed::All);
    Ok(Evidence {
        doc: of_tree(cwd, today, &options)?,
        base_doc: None,
        vote_root: cwd.to_path_buf(),
        manifest_root: cwd.to_path_buf(),
        accept: crate::accept::Accept::of(cwd)?,
        candidates: Vec::new(),
        vote: Vote {
            voting_tree: "working-tree",
            base: None,
            surface: Vec::new(),
            seed: seed.clone(),
        },
        problems: Vec::new(),
        changed: BTreeMap::new(),
        room: None,
    })
}

/// The base's own scan (merge tests the patch removed or moved), written to
/// `base-evidence.json`.
fn base_scan(p: &Prepared, based: &Based, base_ref: &str) -> Result<Document, GateError> {
    let root = folder(&based.base_dir)?;
    let section = scan_section(&root, &p.scan).map_err(|source| GateError::Tool {
        tool: format!("lane-scan of the base {base_ref}"),
        source,
    })?;
    let doc = scan_document(&section);
    super::write(&p.places.out.join("base-evidence.json"), &doc.to_bytes())?;
    Ok(doc)
}

/// `--base REF`: the base's scan, the patch's own tree, and the tree that votes.
fn with_base(args: &Args, p: &Prepared, base_ref: &str) -> Result<Evidence, GateError> {
    let cwd = &p.places.cwd;
    let based = Based::prepare(base_ref, &p.places, p.ack.is_some())?;
    let c = &based.commits;
    let vote = Vote {
        voting_tree: if p.ack.is_some() {
            "patch"
        } else {
            "base-test-surface"
        },
        base: Some(section::Base {
            commit: c.base.clone(),
            head: c.head.clone(),
            merge_base: c.merge_base.clone(),
            reference: base_ref.to_string(),
        }),
        surface: based.entries.clone(),
        seed: super::prepare::seed(args, Some((&c.merge_base, &c.head_tree)))?,
    };
    let mut problems = rules::check(&GateFacts::Surface(&based.entries));
    let base_doc = base_scan(p, &based, base_ref)?;
    let base_section = base_doc.section_as(ScanSection::NAME, "<base evidence>")?;
    // The patch's product code is judged (test-aware-code) in its own tree and the vote's.
    let lines = changed::of_patch(cwd, &c.merge_base, &c.head, &based.entries)?;
    let mut options = changed::with(&p.scan, lines.clone());
    // Whether the project is a pytest plugin is the base's to say, never the patch's.
    options.plugin_root = Some(based.base_dir.clone());
    let patch_doc = of_tree(cwd, p.today, &options)?;
    // lane-lock diff compares the patch's own witness lane with the base's.
    let scans = LockScans {
        base: base_section,
        head: patch_doc.section_as(ScanSection::NAME, "<patch evidence>")?,
    };
    let (doc, candidates, manifest_root) = if p.ack.is_some() {
        // The patch's own tree votes, from the copy: no __pycache__ of the checkout (a
        // committed unchecked-hash .pyc would stand in for the source).
        (patch_doc, Vec::new(), cwd.clone())
    } else {
        let vote_doc = of_tree(&based.vote_dir, p.today, &options)?;
        problems.extend(own_tree_problems(&vote_doc, &patch_doc, &base_doc, cwd)?);
        (vote_doc, based.candidates.clone(), based.base_dir.clone())
    };
    let doc = review::review_edits(doc, &based, cwd, &p.places.tmp, p.ack.as_deref(), scans)?;
    let changed = changed::product_lines(lines, &based.entries);
    Ok(Evidence {
        doc,
        base_doc: Some(base_doc),
        vote_root: based.vote_dir.clone(),
        manifest_root,
        accept: crate::accept::Accept::of(&based.base_dir)?,
        candidates,
        vote,
        problems,
        changed,
        room: Some(based.room),
    })
}

/// The patch's own tree's problems the vote tree does not have (each once), and what the
/// patch did to the base's voters (removed or moved merge tests), from its own scan against
/// the base's; each says it is the patch's own tree's.
fn own_tree_problems(
    vote_doc: &Document,
    patch_doc: &Document,
    base_doc: &Document,
    cwd: &Path,
) -> Result<Vec<Problem>, GateError> {
    let own_tree = |mut p: Problem| {
        p.message = format!("in the patch's own tree: {}", p.message);
        p
    };
    let mut problems = Vec::new();
    for name in [ScanSection::NAME, "lock", "ledger"] {
        let seen = vote_doc.problems_of(name, "<vote evidence>")?;
        for p in patch_doc.problems_of(name, "<patch evidence>")? {
            if !seen.contains(&p) {
                problems.push(own_tree(p));
            }
        }
    }
    let mut own = Document::empty();
    if let Some(scan) = patch_doc.section(ScanSection::NAME) {
        own.set_section(ScanSection::NAME, &scan);
    }
    let compared = lane_tally::vote::tally(
        &own,
        &lane_tally::Options {
            reports: Vec::new(),
            rootdir: cwd.to_path_buf(),
            base: Some(base_doc.clone()),
            reason: None,
        },
    )
    .map_err(from_tool("lane-tally"))?;
    problems.extend(
        compared
            .problems
            .into_iter()
            .filter(|p| BASE_RULES.contains(&p.rule.as_str()))
            .map(own_tree),
    );
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_s_error_names_a_file_of_the_tree_as_from_inside_it() {
        let root = Path::new("/checkout");
        let rename = named_from_root(root);
        let io = || std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let named = |path: &str| rename(lane_core::Error::io(path, io())).to_string();
        assert_eq!(
            named("/checkout/data/x.sha256"),
            "./data/x.sha256: permission denied"
        );
        assert_eq!(named("/checkout"), ".: permission denied");
        assert_eq!(named("/elsewhere/x"), "/elsewhere/x: permission denied");
        let usage = rename(lane_core::Error::usage("/checkout/x: bad"));
        assert_eq!(usage.to_string(), "/checkout/x: bad");
    }
}
