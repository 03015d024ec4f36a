//! The checks after the lanes ran: the lock verified again in the vote tree (bytes that moved
//! while pytest ran), every watched file's stamp compared with the one taken before the runs
//! (a file written and put back), and the changed product lines the voting runs traced.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use lane_core::scan::ScanSection;
use lane_core::{Document, Problem};

use super::classify::locked_paths;
use super::evidence::verify_lock;
use crate::GateError;
use crate::exercised::ExercisedFacts;
use crate::mutants::MutantFacts;
use crate::rules::{self, GateFacts};

/// What identifies one state of a file: size, inode, and change time (which no process can set
/// back).
type Stamp = (u64, u64, i64, i64);

fn stamp(path: &Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(path).ok()?;
    Some((m.size(), m.ino(), m.ctime(), m.ctime_nsec()))
}

/// The lock, the ledger and every file they name, and the test surface the vote runs on (the
/// test modules, the `conftest.py` files pytest loads for them, the configuration files, the
/// folders holding test modules), with their stamps before the runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Watched {
    root: PathBuf,
    stamps: BTreeMap<String, Stamp>,
    /// The test surface's files and folders (root-relative).
    surface: BTreeMap<String, Option<Stamp>>,
}

/// The configuration files pytest and the gate read at the rootdir.
const CONFIG_FILES: &[&str] = &[
    "pytest.ini",
    ".pytest.ini",
    "pyproject.toml",
    "tox.ini",
    "setup.cfg",
    "conftest.py",
];

/// The test surface of the tree at `root` its scan's `tests` show: every test module, each folder
/// holding one (below the rootdir), the `conftest.py` of those folders and the configuration
/// files of the rootdir.
pub(crate) fn test_surface(root: &Path, tests: &[lane_core::scan::ScanTest]) -> Vec<String> {
    let mut paths: BTreeSet<String> = CONFIG_FILES.iter().map(|s| s.to_string()).collect();
    for t in tests {
        for file in std::iter::once(&t.file).chain(t.defined_in.as_ref()) {
            if !paths.insert(file.clone()) {
                continue; // its folders are in already
            }
            let mut dir = Path::new(file).parent();
            while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
                let d_text = d.to_string_lossy().into_owned();
                paths.insert(format!("{d_text}/conftest.py"));
                paths.insert(d_text);
                dir = d.parent();
            }
        }
    }
    paths
        .into_iter()
        .filter(|p| !p.starts_with("..") && !Path::new(p).is_absolute())
        .filter(|p| std::fs::symlink_metadata(root.join(p)).is_ok() || p.ends_with("conftest.py"))
        .collect()
}

impl Watched {
    /// The stamps of the watched files of `root` now; `surface`: the test surface's paths
    /// ([`test_surface`]), watched for any change (a `conftest.py` that does not exist yet
    /// must not appear).
    pub(crate) fn before(root: &Path, surface: &[String]) -> Watched {
        let mut paths: BTreeSet<String> = ["lanes.lock", "freeze_ledger.json"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        locked_paths(root, &mut paths);
        Watched {
            root: root.to_path_buf(),
            stamps: paths
                .into_iter()
                .filter_map(|p| stamp(&root.join(&p)).map(|s| (p, s)))
                .collect(),
            surface: surface
                .iter()
                .map(|p| (p.clone(), stamp(&root.join(p))))
                .collect(),
        }
    }

    /// The watched files whose stamp is not the one taken before (written, replaced or
    /// removed since), in order.
    pub(crate) fn written(&self) -> Vec<String> {
        self.stamps
            .iter()
            .filter(|(path, before)| stamp(&self.root.join(path)).as_ref() != Some(before))
            .map(|(path, _)| path.clone())
            .collect()
    }

    /// The test surface's files and folders that changed since (written, made, removed, or a
    /// folder whose entries changed), in order.
    pub(crate) fn surface_changed(&self) -> Vec<String> {
        self.surface
            .iter()
            .filter(|(path, before)| stamp(&self.root.join(path)) != **before)
            .filter(|(path, _)| !self.stamps.contains_key(*path))
            .map(|(path, _)| path.clone())
            .collect()
    }

    /// Makes the test surface read-only (the vote copy only: the checkout is never changed):
    /// its files and folders lose their write permission; the stamps are taken again after.
    pub(crate) fn make_read_only(&mut self) -> Result<(), GateError> {
        use std::os::unix::fs::PermissionsExt;
        for path in self.surface.keys() {
            let full = self.root.join(path);
            let Ok(meta) = std::fs::symlink_metadata(&full) else {
                continue;
            };
            if meta.file_type().is_symlink() {
                continue;
            }
            let mode = meta.permissions().mode() & !0o222;
            std::fs::set_permissions(&full, std::fs::Permissions::from_mode(mode))
                .map_err(|e| GateError::io(format!("cannot make {path} read-only"), e))?;
        }
        for (path, stamp_now) in &mut self.surface {
            *stamp_now = stamp(&self.root.join(path));
        }
        Ok(())
    }

    /// Gives the read-only folders their write permission back (so the copy can be removed).
    pub(crate) fn writable_again(&self) {
        use std::os::unix::fs::PermissionsExt;
        for path in self.surface.keys() {
            let full = self.root.join(path);
            if let Ok(meta) = std::fs::symlink_metadata(&full)
                && meta.is_dir()
            {
                let mode = meta.permissions().mode() | 0o700;
                let _ = std::fs::set_permissions(&full, std::fs::Permissions::from_mode(mode));
            }
        }
    }
}

/// The problems the runs left behind: the lock's errors that were not there before the runs
/// (lane-lock verify again, each message saying so), and every watched file written meanwhile.
pub(crate) fn check(
    doc: &Document,
    vote_root: &Path,
    watched: &Watched,
) -> Result<Vec<Problem>, GateError> {
    let lock_before = doc.problems_of("lock", "<evidence>")?;
    let mut scan_only = Document::empty();
    if let Some(scan) = doc.section(ScanSection::NAME) {
        scan_only.set_section(ScanSection::NAME, &scan);
    }
    let root = std::fs::canonicalize(vote_root)
        .map_err(|e| GateError::io(format!("cannot enter {}", vote_root.display()), e))?;
    let (_, after) = verify_lock(&root, scan_only, "lane-lock (after the runs)")?;
    let mut problems: Vec<Problem> = after
        .into_iter()
        .filter(|p| p.is_error() && !lock_before.contains(p))
        .map(|mut p| {
            p.message = format!("after the pytest runs: {}", p.message);
            p
        })
        .collect();
    problems.extend(rules::check(&GateFacts::Written(&watched.written())));
    problems.extend(rules::check(&GateFacts::SurfaceChanged(
        &watched.surface_changed(),
    )));
    Ok(problems)
}

/// The changed product statements and branches no voting run executed (unexercised-change):
/// the trace data the runs left in `reports_dir`, analysed with `python`; and the facts, for
/// the mutants. Nothing when the runs traced nothing.
pub(crate) fn exercised(
    python: &Path,
    vote_root: &Path,
    setup: &crate::pytest::Setup,
    reports_dir: &Path,
) -> Result<(Vec<Problem>, Option<ExercisedFacts>), GateError> {
    let Some(plan) = &setup.trace else {
        return Ok((Vec::new(), None));
    };
    let data = crate::exercised::data_files(reports_dir)?;
    let facts = crate::exercised::analyse(python, vote_root, plan, &data)?;
    Ok((rules::check(&GateFacts::Exercised(&facts)), Some(facts)))
}

/// The mutants of the changed statements the voters ran (unpinned-change), or, with
/// `--mutants off`, the warning that they did not run; none when a voting lane did not pass
/// (`voters_passed` false).
pub(crate) fn mutants(
    args: &crate::Args,
    vote_root: &Path,
    setup: &crate::pytest::Setup,
    exercised: Option<&ExercisedFacts>,
    scratch: &Path,
    lanes_took: std::time::Duration,
    voters_passed: bool,
) -> Result<Vec<Problem>, GateError> {
    let Some(exercised) = exercised else {
        return Ok(Vec::new());
    };
    if !voters_passed {
        // The voters already fail the patch: every mutant would be "killed" by the failure the
        // vote has, and the one that undoes the bug would survive. The vote rejects as it is.
        return Ok(Vec::new());
    }
    if args.mutants == crate::Mutants::Off {
        let facts = MutantFacts {
            off: true,
            ..MutantFacts::default()
        };
        return Ok(rules::check(&GateFacts::Mutants(&facts)));
    }
    let budget = crate::mutants::Budget::of(vote_root)?;
    let jobs = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let runs = crate::mutants::Runs {
        setup,
        tree: vote_root,
        scratch: scratch.to_path_buf(),
        budget,
        // A mutant that runs much longer than the whole vote did is caught in a loop.
        timeout: (std::time::Duration::from_secs(10) + lanes_took * 2).min(setup.timeout),
        jobs,
    };
    let facts = crate::mutants::run(&runs, &exercised.ran)?;
    Ok(rules::check(&GateFacts::Mutants(&facts)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: &str = "{\"version\":1,\"files\":[{\"path\":\"g.txt\",\"sha256\":\
        \"ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb\",\
        \"bytes\":1,\"locked_on\":\"2026-01-01\"}]}";

    /// A tree whose lock locks `g.txt` (holding "a").
    fn locked_tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("lanes.lock"), LOCK).unwrap();
        std::fs::write(dir.path().join("g.txt"), "a").unwrap();
        dir
    }

    /// What a test might do while pytest runs: write `g.txt` (later than the stamps taken),
    /// then put `back` in it.
    fn write_g(root: &Path, back: &str) {
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(root.join("g.txt"), "b").unwrap();
        std::fs::write(root.join("g.txt"), back).unwrap();
    }

    /// The evidence of `root` before the runs: its lock verified.
    fn evidence_of(root: &Path) -> Document {
        let (doc, _) = verify_lock(root, Document::empty(), "lane-lock").unwrap();
        doc
    }

    #[test]
    fn a_watched_file_written_and_restored_changes_its_stamp() {
        let dir = locked_tree();
        let root = dir.path();
        let before = Watched::before(root, &[]);
        assert_eq!(
            before.stamps.keys().cloned().collect::<Vec<_>>(),
            ["g.txt", "lanes.lock"]
        );
        assert_eq!(Watched::before(root, &[]), before);
        assert!(before.written().is_empty());
        write_g(root, "a");
        assert_eq!(before.written(), ["g.txt"]);
    }

    #[test]
    fn a_file_written_during_the_run_is_digest_moved_even_when_put_back() {
        let dir = locked_tree();
        let root = dir.path();
        let doc = evidence_of(root);
        let watched = Watched::before(root, &[]);
        assert!(check(&doc, root, &watched).unwrap().is_empty());
        write_g(root, "a");
        let problems = check(&doc, root, &watched).unwrap();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].rule, "digest-moved");
        assert_eq!(problems[0].file.as_deref(), Some("g.txt"));
        assert!(
            problems[0].message.starts_with("written while pytest ran"),
            "{}",
            problems[0].message
        );
    }

    #[test]
    fn bytes_left_changed_are_digest_moved_after_the_runs() {
        let dir = locked_tree();
        let root = dir.path();
        let doc = evidence_of(root);
        let watched = Watched::before(root, &[]);
        write_g(root, "z");
        let problems = check(&doc, root, &watched).unwrap();
        let messages: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(problems.len(), 2, "{messages:?}");
        assert!(
            problems.iter().all(|p| p.rule == "digest-moved"),
            "{messages:?}"
        );
        assert!(
            messages
                .iter()
                .any(|m| m.starts_with("after the pytest runs: g.txt: digest moved")),
            "{messages:?}"
        );
        // an error already in the evidence is not reported again
        let problems = check(&evidence_of(root), root, &Watched::before(root, &[])).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
    }
}
