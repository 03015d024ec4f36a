//! With `--base`: the patch's edits to the lock and the ledger, reviewed against the base's
//! (lane-lock diff, freeze-ledger diff), each run with the checkout as its root.

use std::path::{Path, PathBuf};

use lane_core::Document;
use lane_core::scan::{Lane, ScanSection};

use super::based::Based;
use crate::git::Repo;
use crate::surface::Change;
use crate::{GateError, from_tool};

/// The scans lane-lock diff compares the witness lane of: the base's and the patch's own.
pub(crate) struct LockScans {
    pub(crate) base: Option<ScanSection>,
    pub(crate) head: Option<ScanSection>,
}

/// What the reviews read: the base's files, the checkout and where to put the base's copies.
struct Review<'a> {
    based: &'a Based,
    repo: Repo,
    /// The checkout: the root of both reviews.
    cwd: &'a Path,
    tmp: &'a Path,
    /// Where an empty stand-in goes for a file the patch's tree does not have.
    head_dir: PathBuf,
}

impl Review<'_> {
    /// The base's bytes of a root file (none: empty).
    fn base_bytes(&self, name: &str) -> Result<Vec<u8>, GateError> {
        match self.based.base_files.get(name) {
            Some(f) => self.repo.blob(&f.oid),
            None => Ok(Vec::new()),
        }
    }

    /// The patch's root file, or an empty stand-in, and whether the patch has it.
    fn head_file(&self, name: &str) -> Result<(PathBuf, bool), GateError> {
        let own = self.cwd.join(name);
        if own.symlink_metadata().is_ok() {
            Ok((own, true))
        } else {
            let p = self.head_dir.join(name);
            super::write(&p, b"")?;
            Ok((p, false))
        }
    }

    /// The changed paths as `git diff --name-status` lines, so added, changed and removed
    /// sidecars tell apart.
    fn name_status(&self) -> String {
        let mut list = String::new();
        for path in &self.based.changed {
            let status = match self.based.entries.iter().find(|e| &e.path == path) {
                Some(e) => match e.change {
                    Change::Added | Change::Untracked | Change::Renamed => "A",
                    Change::Removed => "D",
                    Change::Changed => "M",
                },
                None => "M",
            };
            list.push_str(&format!("{status}\t{path}\n"));
        }
        list
    }

    /// lane-lock diff of the base's lock against the patch's, when there is lock material.
    fn lock(
        &self,
        doc: Document,
        ack: Option<&str>,
        scans: LockScans,
    ) -> Result<Document, GateError> {
        let base_lock = self.base_bytes("lanes.lock")?;
        let (head_lock, head_has) = self.head_file("lanes.lock")?;
        // Sidecars and the base's witness tests are lock material even where no lanes.lock is.
        let sidecar_edited = self
            .based
            .changed
            .iter()
            .any(|p| p.ends_with(lane_lock::lock::SIDECAR_SUFFIX));
        let base_witnessed = scans
            .base
            .as_ref()
            .is_some_and(|b| b.tests_in(Lane::Witness).next().is_some());
        if !(head_has
            || !base_lock.iter().all(u8::is_ascii_whitespace)
            || sidecar_edited
            || base_witnessed)
        {
            return Ok(doc);
        }
        let base_path = self.tmp.join("base.lock");
        super::write(&base_path, &base_lock)?;
        let changed = self.tmp.join("changed");
        super::write(&changed, self.name_status().as_bytes())?;
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
        let place = lane_lock::LockPaths::new(self.cwd.to_path_buf(), None);
        lane_lock::diff::diff(&place, &opts, doc)
            .map(|(d, _)| d)
            .map_err(from_tool("lane-lock diff"))
    }

    /// freeze-ledger diff of the base's ledger against the patch's, when either has one.
    fn ledger(&self, mut doc: Document) -> Result<Document, GateError> {
        let base_ledger = self.base_bytes("freeze_ledger.json")?;
        let (head_ledger, head_has) = self.head_file("freeze_ledger.json")?;
        if !head_has && base_ledger.iter().all(u8::is_ascii_whitespace) {
            return Ok(doc);
        }
        let base_path = self.tmp.join("base.ledger");
        super::write(&base_path, &base_ledger)?;
        let root = self.cwd;
        let base_name = lane_core::paths::display_name(root, &base_path);
        let head_name = lane_core::paths::display_name(root, &head_ledger);
        let tool = from_tool("freeze-ledger diff");
        let base = freeze_ledger::ledger::Ledger::read(&base_path, &base_name).map_err(&tool)?;
        let head = freeze_ledger::ledger::Ledger::read(&head_ledger, &head_name).map_err(&tool)?;
        let section =
            freeze_ledger::diff::diff(&base, &base_name, &head, &head_name).map_err(&tool)?;
        doc.set_section(freeze_ledger::diff::SECTION, &section);
        Ok(doc)
    }
}

/// lane-lock diff and freeze-ledger diff of the base's lock and ledger against the patch's.
pub(crate) fn review_edits(
    doc: Document,
    based: &Based,
    cwd: &Path,
    tmp: &Path,
    ack: Option<&str>,
    scans: LockScans,
) -> Result<Document, GateError> {
    let review = Review {
        based,
        repo: Repo::open(cwd)?,
        cwd,
        tmp,
        head_dir: tmp.join("head"),
    };
    std::fs::create_dir_all(&review.head_dir)
        .map_err(|e| GateError::io("cannot create a temporary folder", e))?;
    let doc = review.lock(doc, ack, scans)?;
    review.ledger(doc)
}
