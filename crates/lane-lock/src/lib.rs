//! lane-lock: the lock file is the oracle.
//!
//! - [`update`] — `lane-lock lock PATH...`: hash files or folders and add or update their
//!   entries in `lanes.lock` (and, with `--sidecar`, `FILE.sha256` sidecars).
//! - [`verify`] — `lane-lock verify`: rehash every lock entry and sidecar, check every
//!   witness fixture of the scan is locked, and write the `lock` section.
//! - [`diff`] — `lane-lock diff BASE HEAD`: compare two locks and write the `lock_diff`
//!   section.
//!
//! [`lock`] holds the manifest and sidecar formats, [`hash`] the hashing, `render` the
//! bytes `lock` writes.

#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod diff;
pub mod hash;
pub mod lock;
mod render;
mod rules;
pub mod update;
pub mod verify;

use std::path::{Path, PathBuf};

use lane_core::Error;

/// The tool name used in sections and messages.
pub const TOOL: &str = "lane-lock";

/// Where a lane-lock run looks: the root every locked path is relative to, and the lock file.
#[derive(Debug, Clone)]
pub struct LockPaths {
    pub root: PathBuf,
    /// The lock file as given (`--lock`) or `<root>/lanes.lock`.
    pub lock: PathBuf,
}

impl LockPaths {
    pub fn new(root: PathBuf, lock: Option<PathBuf>) -> LockPaths {
        let lock = lock.unwrap_or_else(|| root.join(lock::LOCK_FILE_NAME));
        LockPaths { root, lock }
    }

    /// The lock file's name for output and messages: root-relative when it lies inside the
    /// root, otherwise as given when relative, otherwise just its file name (output never
    /// holds an absolute path).
    pub(crate) fn lock_name(&self) -> String {
        lane_core::paths::display_name(&self.root, &self.lock)
    }
}

/// Reads a lock, sidecar or `--changed` list: a regular file of at most
/// [`lock::LOCK_MAX_BYTES`].
pub(crate) fn read_small(path: &Path, name: &str) -> Result<Vec<u8>, Error> {
    lane_core::io::read_file_capped(path, lock::LOCK_MAX_BYTES, "a lock file")
        .map_err(|e| e.renamed(name))
}

impl LockPaths {
    /// Refuses a lock that is a symlink leading out of the root (exit 2): it is never read
    /// or written.
    pub(crate) fn check_link(&self) -> Result<(), Error> {
        lane_core::io::refuse_link_out_of_root(&self.lock, &self.root, &self.lock_name())
    }
}

/// This tool's detectors, as the rule registry lists them (lane-gate's `rule_registry` test).
pub fn registry() -> Vec<lane_core::detector::Registered> {
    lane_core::detector::registry(rules::DETECTORS, rules::RULE_FILES)
}
