//! The trial room: where a `--base` vote runs (DESIGN §9.6). Its path looks like a checkout
//! (it ends with the project's own folder name, beside a `tmp` folder the tests get as
//! `TMPDIR`) and is one per commit: a folder of the system's temporary folder named from the
//! head's tree id (keyed with `LANES_SEED_KEY` when CI gives one, so no patch can know it), so
//! every run of one commit sees the same paths, and nothing in them says "lanes".

use std::path::{Path, PathBuf};

use crate::GateError;

/// A room taken for this run; removed when dropped.
#[derive(Debug)]
pub(crate) struct Room {
    /// The room's own folder (`<temp>/<id>`).
    dir: PathBuf,
    /// Where the vote tree goes (`<temp>/<id>/<project>`), not made yet.
    pub(crate) tree: PathBuf,
    /// The tests' temporary folder (`<temp>/<id>/tmp`), made empty.
    pub(crate) tmp: PathBuf,
    /// The file beside the room naming the process that holds it.
    owner: PathBuf,
}

/// The room's name: 16 hex digits of the head's tree id, keyed when a key is given.
pub(crate) fn name(head_tree: &str, key: Option<&str>) -> String {
    let digest = match key {
        Some(key) => {
            lane_core::io::hmac_sha256(key.as_bytes(), format!("room {head_tree}").as_bytes())
        }
        None => lane_core::io::sha256_bytes(format!("room {head_tree}").as_bytes()),
    };
    digest[..16].to_string()
}

impl Room {
    /// Takes the room `name` under `temp` for the project folder `project`. A room left by a
    /// run that no longer exists is cleared first; one held by a running process (another run
    /// of the same commit) is waited for, up to `wait`.
    pub(crate) fn take(
        temp: &Path,
        name: &str,
        project: &str,
        wait: std::time::Duration,
    ) -> Result<Room, GateError> {
        let dir = temp.join(name);
        let owner = temp.join(format!("{name}.owner"));
        let start = std::time::Instant::now();
        let mut said = false;
        loop {
            match std::fs::create_dir(&dir) {
                Ok(()) => return Room::made(dir, owner, project),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => {
                    return Err(GateError::io(format!("cannot create {}", dir.display()), e));
                }
            }
            match holder(&owner) {
                // just made by a run that has not written its owner yet
                None if !owner.exists() && fresh(&dir) => {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                None => crate::tree::remove_forced(&dir)?,
                Some(pid) if start.elapsed() < wait => {
                    if !std::mem::replace(&mut said, true) {
                        eprintln!(
                            "{}: waiting for process {pid}, which votes on this commit in {}",
                            crate::TOOL,
                            dir.display()
                        );
                    }
                    std::thread::sleep(std::time::Duration::from_millis(200));
                }
                Some(pid) => {
                    return Err(GateError::Checkout(format!(
                        "another lane-gate run of this commit (process {pid}) is voting in {}: \
                         waited {} s for it to end",
                        dir.display(),
                        wait.as_secs()
                    )));
                }
            }
        }
    }

    /// The room in `dir`, just made: its owner written, the tests' `tmp` made.
    fn made(dir: PathBuf, owner: PathBuf, project: &str) -> Result<Room, GateError> {
        let room = Room {
            tree: dir.join(project),
            tmp: dir.join("tmp"),
            dir,
            owner,
        };
        // A run killed between the folder and its owner file leaves a folder without an
        // owner: the next run clears it.
        lane_core::io::atomic_write(&room.owner, std::process::id().to_string().as_bytes())
            .map_err(GateError::from)?;
        std::fs::create_dir(&room.tmp)
            .map_err(|e| GateError::io(format!("cannot create {}", room.tmp.display()), e))?;
        Ok(room)
    }
}

/// Whether `dir` was made in the last seconds (its owner file may be on its way).
fn fresh(dir: &Path) -> bool {
    std::fs::metadata(dir)
        .and_then(|m| m.modified())
        .is_ok_and(|t| {
            t.elapsed()
                .is_ok_and(|e| e < std::time::Duration::from_secs(5))
        })
}

/// The process that holds a room, when it still runs.
fn holder(owner: &Path) -> Option<i32> {
    let text = std::fs::read_to_string(owner).ok()?;
    let pid: i32 = text.trim().parse().ok()?;
    let alive = rustix::process::Pid::from_raw(pid)
        .is_some_and(|p| rustix::process::test_kill_process(p).is_ok());
    alive.then_some(pid)
}

impl Drop for Room {
    fn drop(&mut self) {
        // Best effort: a room left behind is cleared by the next run of the commit.
        let _ = crate::tree::remove_forced(&self.dir);
        let _ = std::fs::remove_file(&self.owner);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn one_room_per_commit_named_without_lanes_and_keyed_when_a_key_is_given() {
        let tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
        assert_eq!(name(tree, None), name(tree, None));
        assert_ne!(name(tree, Some("k1")), name(tree, None));
        assert_ne!(name(tree, Some("k1")), name(tree, Some("k2")));
        assert_eq!(name(tree, None).len(), 16);
        let temp = tempfile::tempdir().unwrap();
        let none = std::time::Duration::ZERO;
        let room = Room::take(temp.path(), &name(tree, None), "calc-project", none).unwrap();
        assert_eq!(room.tree.file_name().unwrap(), "calc-project");
        assert!(room.tmp.is_dir() && !room.tree.exists());
        assert!(!room.tree.to_string_lossy().contains("lane"));
        // held by this (running) process: a second take waits, then is refused
        let err = Room::take(temp.path(), &name(tree, None), "calc-project", none).unwrap_err();
        assert!(err.to_string().contains("another lane-gate run"), "{err}");
        let dir = room.dir.clone();
        drop(room);
        assert!(!dir.exists());
        // a room left by a process that is gone is cleared and taken
        std::fs::create_dir_all(dir.join("calc-project")).unwrap();
        std::fs::write(
            temp.path().join(format!("{}.owner", name(tree, None))),
            "999999999",
        )
        .unwrap();
        let again = Room::take(temp.path(), &name(tree, None), "calc-project", none).unwrap();
        assert!(!again.tree.exists());
    }
}
