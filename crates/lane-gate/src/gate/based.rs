//! Everything `--base` prepares: the commits, the classification of what the patch changed,
//! the base's checkout and the vote tree (the working tree with the base's test surface put
//! back), the candidates and the product modules the import check looks for.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::classify::{self, Classified, Classifier, Trees};
use super::prepare::Places;
use crate::git::{Repo, TreeFile};
use crate::surface::{self, Change, Class, Entry};
use crate::{GateError, from_tool, tree};

/// The commits the patch is judged between.
#[derive(Debug, Clone)]
pub(crate) struct Commits {
    /// `--base`, resolved.
    pub(crate) base: String,
    pub(crate) head: String,
    /// What the patch started from.
    pub(crate) merge_base: String,
    /// The head's tree id: what the seed and the vote folder derive from (one per commit's
    /// content).
    pub(crate) head_tree: String,
}

/// What `--base` prepared.
#[derive(Debug)]
pub(crate) struct Based {
    pub(crate) commits: Commits,
    pub(crate) entries: Vec<Entry>,
    /// Rootdir-relative paths the patch changed (both names of a rename), for lane-lock diff.
    pub(crate) changed: Vec<String>,
    pub(crate) base_files: BTreeMap<String, TreeFile>,
    /// The base's checkout (its configuration, manifests and scan).
    pub(crate) base_dir: PathBuf,
    /// The working tree, copied (untracked build outputs included), with the base's test
    /// surface put back unless acknowledged: the room's tree.
    pub(crate) vote_dir: PathBuf,
    /// Where the vote runs: one folder per commit (held until the run ends).
    pub(crate) room: crate::room::Room,
    /// The patch's new or changed test modules, run as non-voting candidates.
    pub(crate) candidates: Vec<String>,
}

impl Commits {
    /// The base, HEAD and their merge base; a checkout with uncommitted changes to tracked
    /// files is refused (the gate judges commits).
    fn read(repo: &Repo, base_ref: &str) -> Result<Commits, GateError> {
        let base = repo.commit(base_ref, "--base")?;
        let head = repo.commit("HEAD", "HEAD")?;
        let merge_base = repo.merge_base(&base, &head)?;
        let dirty = repo.dirty_tracked()?;
        if let Some(first) = dirty.first() {
            return Err(GateError::Checkout(format!(
                "uncommitted changes to tracked files ({first}{}): lane-gate judges commits; \
                 commit or stash them first",
                if dirty.len() > 1 {
                    format!(" and {} more", dirty.len() - 1)
                } else {
                    String::new()
                }
            )));
        }
        let tree = repo.git(&["rev-parse", "--verify", &format!("{head}^{{tree}}")])?;
        let head_tree = String::from_utf8_lossy(&tree).trim().to_string();
        Ok(Commits {
            base,
            head,
            merge_base,
            head_tree,
        })
    }
}

/// How long a run waits for another run of the same commit to leave the vote folder.
const ROOM_WAIT: std::time::Duration = std::time::Duration::from_secs(3600);

/// A new folder under the temporary folder.
fn temporary(tmp: &Path, name: &str) -> Result<PathBuf, GateError> {
    let dir = tmp.join(name);
    std::fs::create_dir(&dir).map_err(|e| GateError::io("cannot create a temporary folder", e))?;
    Ok(dir)
}

impl Based {
    pub(crate) fn prepare(
        base_ref: &str,
        places: &Places,
        acknowledged: bool,
    ) -> Result<Based, GateError> {
        let (cwd, tmp) = (places.cwd.as_path(), places.tmp.as_path());
        let repo = Repo::open(cwd)?;
        let commits = Commits::read(&repo, base_ref)?;
        let deltas = repo.diff(&commits.merge_base, &commits.head)?;
        let base_tree = repo.tree(&commits.merge_base)?;
        let head_tree = repo.tree(&commits.head)?;
        let base_dir = temporary(tmp, "base")?;
        repo.checkout(&commits.merge_base, &base_dir, &tmp.join("base.index"))?;
        let key = std::env::var(super::prepare::SEED_KEY)
            .ok()
            .filter(|k| !k.is_empty());
        let project = cwd
            .file_name()
            .map_or_else(|| "project".into(), |n| n.to_string_lossy().into_owned());
        let room = crate::room::Room::take(
            &std::env::temp_dir(),
            &crate::room::name(&commits.head_tree, key.as_deref()),
            &project,
            ROOM_WAIT,
        )?;
        let vote_dir = room.tree.clone();
        std::fs::create_dir(&vote_dir)
            .map_err(|e| GateError::io("cannot create the vote folder", e))?;
        let copied = tree::copy_tree(cwd, &vote_dir, Some(&places.out))?;
        let tracked: BTreeSet<String> = repo.tracked()?.into_iter().collect();
        let base_files: BTreeSet<String> = base_tree.keys().cloned().collect();
        let mut head_files: BTreeSet<String> = head_tree.keys().cloned().collect();
        head_files.extend(copied.iter().cloned());
        // The project's own modules beside its tests: the base's to say, read once.
        let mut base_facts = classify::facts(&[&base_dir], &base_files, &base_files)?;
        base_facts.package_modules = classify::package_modules(&base_dir, &base_facts);
        let mut facts = classify::facts(&[&base_dir, cwd], &base_files, &head_files)?;
        facts.package_modules = base_facts.package_modules.clone();
        let classifier = Classifier {
            trees: Trees {
                repo: &repo,
                base: &base_tree,
                head: &head_tree,
            },
            cwd,
            facts,
            base_facts,
        };
        let Classified { entries, changed } =
            classifier.classify_all(&deltas, &copied, &tracked)?;
        if !acknowledged {
            restore_base_surface(&vote_dir, &entries, &classifier)?;
        }
        let candidates = candidates(cwd, &entries)?;
        Ok(Based {
            commits,
            entries,
            changed,
            base_files: base_tree,
            base_dir,
            vote_dir,
            room,
            candidates,
        })
    }
}

/// The vote tree: the base's test surface over the patch's product code.
fn restore_base_surface(
    vote_dir: &Path,
    entries: &[Entry],
    classifier: &Classifier<'_>,
) -> Result<(), GateError> {
    let (repo, base) = (classifier.trees.repo, classifier.trees.base);
    for e in entries.iter().filter(|e| e.class == Class::TestSurface) {
        if e.reason.starts_with("outside the rootdir") || classifier.base_says_product(&e.path) {
            continue;
        }
        match e.change {
            Change::Added | Change::Untracked | Change::Renamed => {
                tree::restore(vote_dir, &e.path, None, repo)?
            }
            Change::Changed | Change::Removed => {
                tree::restore(vote_dir, &e.path, base.get(&e.path), repo)?
            }
        }
    }
    // A renamed path whose new name is product but old name test surface: the old name
    // comes back too.
    for e in entries.iter().filter(|e| e.change == Change::Renamed) {
        if let Some(from) = &e.from
            && e.class == Class::TestSurface
        {
            tree::restore(vote_dir, from, base.get(from), repo)?;
        }
    }
    Ok(())
}

/// The patch's new or changed test modules that are in its tree.
fn candidates(cwd: &Path, entries: &[Entry]) -> Result<Vec<String>, GateError> {
    let head_config = lane_scan::config::load(&[], None, cwd).map_err(from_tool("lane-scan"))?;
    Ok(entries
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
        .collect())
}
