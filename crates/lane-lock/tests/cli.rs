//! The real `lane-lock` binary on real files in temporary folders.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use schema::{DiffSection, FileStatus, LockSection, UpdateSection};

/// The `lock`, `lock_update` and `lock_diff` sections' schemas, written out here and
/// independent of the crate's types: a field added, renamed or retyped by accident fails these
/// tests.
#[allow(dead_code)] // Fields are read by serde to pin the schema, not all by the tests.
mod schema {
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct LockSection {
        pub tool: String,
        pub lock: Option<String>,
        pub files: Vec<FileCheck>,
        pub problems: Vec<Problem>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct FileCheck {
        pub path: String,
        pub expected: String,
        pub actual: Option<String>,
        pub bytes: Option<u64>,
        pub source: String,
        pub status: FileStatus,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum FileStatus {
        Ok,
        Moved,
        Missing,
        Unsafe,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct UpdateSection {
        pub tool: String,
        pub lock: String,
        pub added: Vec<Entry>,
        pub changed: Vec<Changed>,
        pub unchanged: Vec<Entry>,
        pub sidecars: Vec<String>,
        pub problems: Vec<Problem>,
    }

    #[derive(Debug, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Entry {
        pub path: String,
        pub sha256: String,
        pub bytes: u64,
        pub locked_on: String,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Changed {
        pub path: String,
        pub previous_sha256: String,
        pub previous_bytes: u64,
        pub sha256: String,
        pub bytes: u64,
        pub locked_on: String,
    }

    #[derive(Debug, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct DiffSection {
        pub tool: String,
        pub base: String,
        pub head: String,
        pub added: Vec<Entry>,
        pub removed: Vec<Entry>,
        pub moved: Vec<Moved>,
        pub unchanged: u64,
        #[serde(default)]
        pub sidecars: Vec<SidecarEdit>,
        pub behavior_changes: Option<Vec<String>>,
        pub reason: Option<String>,
        pub problems: Vec<Problem>,
    }

    #[derive(Debug, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SidecarEdit {
        pub path: String,
        pub change: String,
    }

    #[derive(Debug, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Moved {
        pub path: String,
        pub base_sha256: String,
        pub base_bytes: u64,
        pub head_sha256: String,
        pub head_bytes: u64,
    }

    #[derive(Debug, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Problem {
        #[serde(default)]
        pub file: Option<String>,
        #[serde(default)]
        pub line: Option<u64>,
        pub message: String,
        pub rule: String,
        pub severity: Severity,
        #[serde(default)]
        pub test: Option<String>,
    }

    #[derive(Debug, PartialEq, Eq, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Severity {
        Error,
        Warning,
    }
}
use serde_json::{Value, json};

const ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
const EMPTY: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Out {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!("stdout is not JSON ({e}): {}\n{}", self.stdout, self.stderr)
        })
    }
    fn lock(&self) -> LockSection {
        serde_json::from_value(self.json()["lock"].clone()).expect("lock section schema")
    }
    fn update(&self) -> UpdateSection {
        serde_json::from_value(self.json()["lock_update"].clone()).expect("lock_update schema")
    }
    fn diff(&self) -> DiffSection {
        serde_json::from_value(self.json()["lock_diff"].clone()).expect("lock_diff schema")
    }
    /// The section's rule ids, sorted (problems are ordered by place).
    fn sorted_rules(&self, section: &str) -> Vec<String> {
        let mut rules = self.rules(section);
        rules.sort();
        rules
    }

    fn rules(&self, section: &str) -> Vec<String> {
        self.json()[section]["problems"]
            .as_array()
            .expect("problems")
            .iter()
            .map(|p| p["rule"].as_str().unwrap_or_default().to_string())
            .collect()
    }
}

fn run_in(dir: &Path, args: &[&str], stdin: &[u8]) -> Out {
    let out = lane_testkit::Cmd::new(env!("CARGO_BIN_EXE_lane-lock"))
        .args(args)
        .dir(dir)
        .stdin(stdin)
        .output();
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn write(root: &Path, rel: &str, bytes: &[u8]) -> PathBuf {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    fs::write(&p, bytes).expect("write");
    p
}

fn lock_json(entries: &[(&str, &str, u64)]) -> String {
    let files: Vec<Value> = entries
        .iter()
        .map(|(p, s, b)| json!({"path": p, "sha256": s, "bytes": b, "locked_on": "2026-01-01"}))
        .collect();
    serde_json::to_string_pretty(&json!({"version": 1, "files": files})).expect("json")
}

/// A scan section with one witness test per fixture list.
fn scan_doc(tests: &[(&str, &[&str])]) -> String {
    let tests: Vec<Value> = tests
        .iter()
        .map(|(id, fixtures)| {
            json!({"id": id, "file": id.split("::").next().unwrap_or(""), "line": 3,
                   "lane": "witness", "lanes": ["witness"], "marks": ["witness"],
                   "parametrized": false, "attachments": {"fixtures": fixtures}})
        })
        .collect();
    let n = tests.len();
    json!({"version": 1, "scan": {"tool": "lane-scan", "tests": tests,
        "counts": {"merge": 0, "witness": n, "freeze": 0, "unmarked": 0}, "files": [],
        "problems": []}})
    .to_string()
}

#[test]
fn lock_then_verify_is_clean() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    write(root, "tests/fixtures/abc.txt", b"abc");
    write(root, "tests/fixtures/sub/empty.bin", b"");
    write(root, "tests/fixtures/__pycache__/x.pyc", b"skip me");
    let out = run_in(
        root,
        &["lock", "tests/fixtures", "--today", "2026-03-04"],
        b"",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = out.update();
    let added: Vec<(&str, &str, u64)> = report
        .added
        .iter()
        .map(|e| (e.path.as_str(), e.sha256.as_str(), e.bytes))
        .collect();
    assert_eq!(
        added,
        [
            ("tests/fixtures/abc.txt", ABC, 3),
            ("tests/fixtures/sub/empty.bin", EMPTY, 0)
        ]
    );
    assert!(report.changed.is_empty() && report.unchanged.is_empty());
    let lock: Value =
        serde_json::from_slice(&fs::read(root.join("lanes.lock")).expect("lock")).expect("json");
    assert_eq!(lock["version"], 1);
    assert_eq!(lock["files"][0]["path"], "tests/fixtures/abc.txt");
    assert_eq!(lock["files"][0]["sha256"], ABC);
    assert_eq!(lock["files"][0]["locked_on"], "2026-03-04");
    // The atomic write left no temporary file behind.
    let names = names(root);
    assert_eq!(names.len(), 2, "{names:?}");

    let out = run_in(root, &["verify"], b"");
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let section = out.lock();
    assert_eq!(section.lock.as_deref(), Some("lanes.lock"));
    assert_eq!(section.files.len(), 2);
    assert!(
        section
            .files
            .iter()
            .all(|f| f.status == FileStatus::Ok && f.source == "lock")
    );
    assert_eq!(section.files[0].actual.as_deref(), Some(ABC));
    assert!(section.problems.is_empty());

    // LANES_TODAY works as the clock too, and the root can be given.
    let out = Command::new(env!("CARGO_BIN_EXE_lane-lock"))
        .args(["--rootdir", ".", "lock", "tests/fixtures/abc.txt"])
        .current_dir(root)
        .env("LANES_TODAY", "2026-05-06")
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn without_a_date_ci_refuses_and_a_local_run_locks_on_the_local_date() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    write(root, "fx/a.txt", b"abc");
    let lock = |env: &[(&str, &str)]| {
        let mut cmd = lane_testkit::Cmd::new(env!("CARGO_BIN_EXE_lane-lock"))
            .args(["lock", "fx"])
            .dir(root)
            .env_remove_all(lane_core::clock::CI_VARIABLES);
        for (k, v) in env {
            cmd = cmd.env(*k, *v);
        }
        cmd.run()
    };
    let out = lock(&[("CI", "true")]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("clock must be pinned"),
        "{}",
        out.stderr
    );
    assert!(!root.join("lanes.lock").exists());
    let before = lane_core::clock::local_date().to_string();
    let out = lock(&[]);
    let dates = [before, lane_core::clock::local_date().to_string()];
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("local clock: not a CI verdict"),
        "{}",
        out.stderr
    );
    let lock: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("lanes.lock")).expect("read the lock"))
            .expect("the lock is JSON");
    let on = lock["files"][0]["locked_on"]
        .as_str()
        .expect("locked_on")
        .to_string();
    assert!(dates.contains(&on), "{on} not in {dates:?}");
}

#[test]
fn unchanged_entries_keep_locked_on() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    write(root, "fx/a.txt", b"abc");
    write(root, "fx/b.txt", b"one");
    assert_eq!(
        run_in(root, &["lock", "fx", "--today", "2026-01-01"], b"").code,
        0
    );
    write(root, "fx/b.txt", b"two");
    write(root, "fx/c.txt", b"");
    let out = run_in(root, &["lock", "fx", "--today", "2026-02-02"], b"");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let r = out.update();
    assert_eq!(r.unchanged.len(), 1);
    assert_eq!(r.unchanged[0].path, "fx/a.txt");
    assert_eq!(r.unchanged[0].locked_on, "2026-01-01");
    assert_eq!(r.changed.len(), 1);
    assert_eq!(r.changed[0].path, "fx/b.txt");
    assert_eq!(r.changed[0].locked_on, "2026-02-02");
    assert_ne!(r.changed[0].previous_sha256, r.changed[0].sha256);
    assert_eq!(r.added.len(), 1);
    assert_eq!(r.added[0].sha256, EMPTY);
    let lock: Value =
        serde_json::from_slice(&fs::read(root.join("lanes.lock")).expect("lock")).expect("json");
    let dates: Vec<&str> = lock["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["locked_on"].as_str().expect("date"))
        .collect();
    assert_eq!(dates, ["2026-01-01", "2026-02-02", "2026-02-02"]);
    // Locking again without changes rewrites nothing.
    let before = fs::read(root.join("lanes.lock")).expect("lock");
    let out = run_in(root, &["lock", "fx", "--today", "2026-03-03"], b"");
    assert_eq!(out.update().unchanged.len(), 3);
    assert_eq!(fs::read(root.join("lanes.lock")).expect("lock"), before);
}

#[test]
fn digest_moved_and_missing_file() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    write(root, "fx/golden.txt", b"abc");
    write(root, "fx/gone.txt", b"x");
    assert_eq!(
        run_in(root, &["lock", "fx", "--today", "2026-01-01"], b"").code,
        0
    );
    write(root, "fx/golden.txt", b"abd");
    fs::remove_file(root.join("fx/gone.txt")).expect("rm");
    let out = run_in(root, &["verify"], b"");
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.rules("lock"), ["digest-moved", "missing-file"]);
    let section = out.lock();
    let moved = &section.problems[0];
    assert_eq!(moved.file.as_deref(), Some("fx/golden.txt"));
    let actual = lane_lock::hash::sha256_bytes(b"abd");
    assert!(
        moved.message.contains(ABC) && moved.message.contains(&actual),
        "{}",
        moved.message
    );
    assert_eq!(section.files[0].status, FileStatus::Moved);
    assert_eq!(section.files[1].status, FileStatus::Missing);
    assert_eq!(section.files[1].actual, None);
}

#[cfg(unix)]
#[test]
fn fifos_are_never_read() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    let ok = Command::new("mkfifo")
        .arg(root.join("pipe"))
        .status()
        .expect("mkfifo");
    assert!(ok.success());
    write(
        root,
        "lanes.lock",
        lock_json(&[("pipe", ABC, 3)]).as_bytes(),
    );
    let out = run_in(root, &["verify"], b"");
    assert_eq!(out.code, 1);
    assert_eq!(out.rules("lock"), ["missing-file"]);
    assert!(out.stdout.contains("not a regular file"));
    let before = fs::read(root.join("lanes.lock")).expect("lock");
    let out = run_in(root, &["lock", "pipe", "--today", "2026-01-01"], b"");
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("never read"), "{}", out.stderr);
    assert_eq!(fs::read(root.join("lanes.lock")).expect("lock"), before);
}

#[test]
fn witness_fixtures_must_be_locked() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    write(root, "tests/fixtures/a.txt", b"abc");
    write(root, "tests/fixtures/b.txt", b"");
    write(root, "tests/fixtures/old.txt", b"");
    let doc = scan_doc(&[
        ("tests/test_a.py::test_a", &["tests/fixtures/a.txt"]),
        ("tests/test_b.py::test_b", &["tests/fixtures/b.txt"]),
    ]);
    // No lock and no sidecars: every fixture is unlocked.
    let out = run_in(root, &["verify"], doc.as_bytes());
    assert_eq!(out.code, 1);
    assert_eq!(out.rules("lock"), ["unlocked-fixture", "unlocked-fixture"]);
    let section = out.lock();
    assert_eq!(section.lock, None);
    assert_eq!(
        section.problems[0].test.as_deref(),
        Some("tests/test_a.py::test_a")
    );
    assert_eq!(
        section.problems[1].file.as_deref(),
        Some("tests/fixtures/b.txt")
    );

    // a.txt in the lock, b.txt by a sidecar, old.txt locked but named by no test.
    write(
        root,
        "lanes.lock",
        lock_json(&[
            ("tests/fixtures/a.txt", ABC, 3),
            ("tests/fixtures/old.txt", EMPTY, 0),
        ])
        .as_bytes(),
    );
    write(
        root,
        "tests/fixtures/b.txt.sha256",
        format!("{EMPTY}\n").as_bytes(),
    );
    let out = run_in(root, &["verify"], doc.as_bytes());
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(out.rules("lock"), ["orphan-lock"]);
    assert_eq!(out.json()["lock"]["problems"][0]["severity"], "warning");

    // Without a scan section there is no orphan check; no lock and no fixtures is fine.
    assert!(run_in(root, &["verify"], b"").rules("lock").is_empty());
    let empty = tempfile::tempdir().expect("tmp");
    let out = run_in(empty.path(), &["verify"], b"");
    assert_eq!(out.code, 0);
    assert_eq!(out.json()["lock"]["lock"], Value::Null);
}

#[cfg(unix)]
#[test]
fn unsafe_paths_are_never_read() {
    let base = tempfile::tempdir().expect("tmp");
    let root = base.path().join("root");
    write(&base.path().join("outside"), "secret.txt", b"abc");
    write(&root, "fx/ok.txt", b"abc");
    std::os::unix::fs::symlink(base.path().join("outside"), root.join("escape")).expect("symlink");
    std::os::unix::fs::symlink("fx/ok.txt", root.join("inner")).expect("symlink");
    write(
        &root,
        "lanes.lock",
        lock_json(&[
            ("../outside/secret.txt", ABC, 3),
            ("/etc/hostname", ABC, 3),
            ("escape/secret.txt", ABC, 3),
            ("inner", ABC, 3),
        ])
        .as_bytes(),
    );
    write(
        &root,
        "fx/sums.sha256",
        format!("{ABC}  ../../outside/secret.txt\n").as_bytes(),
    );
    let out = run_in(&root, &["verify"], b"");
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.rules("lock"), ["unsafe-path"; 4]);
    let section = out.lock();
    let statuses: Vec<(&str, FileStatus)> = section
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.status))
        .collect();
    assert!(
        statuses.contains(&("inner", FileStatus::Ok)),
        "{statuses:?}"
    );
    assert_eq!(
        statuses
            .iter()
            .filter(|s| s.1 == FileStatus::Unsafe)
            .count(),
        4
    );
    assert!(
        section
            .files
            .iter()
            .all(|f| f.status != FileStatus::Unsafe || f.actual.is_none())
    );
    assert!(
        section
            .problems
            .iter()
            .all(|p| p.file.as_deref() != Some("/etc/hostname"))
    );

    // lock refuses the same paths and writes nothing.
    let before = fs::read(root.join("lanes.lock")).expect("lock");
    for bad in ["escape/secret.txt", "../outside/secret.txt", "escape"] {
        let out = run_in(&root, &["lock", bad, "--today", "2026-01-01"], b"");
        assert_eq!(out.code, 2, "{bad}: {}", out.stdout);
        assert!(out.stdout.is_empty());
        assert!(
            out.stderr.starts_with("lane-lock: error: "),
            "{}",
            out.stderr
        );
    }
    let outside = base.path().join("outside/secret.txt");
    let out = run_in(
        &root,
        &[
            "lock",
            outside.to_str().expect("utf8"),
            "--today",
            "2026-01-01",
        ],
        b"",
    );
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("outside the root"), "{}", out.stderr);
    assert_eq!(fs::read(root.join("lanes.lock")).expect("lock"), before);
}

#[test]
fn sidecars_in_every_format() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    write(root, "fx/bare.txt", b"abc");
    write(root, "fx/bare.txt.sha256", format!("{ABC}\n").as_bytes());
    write(root, "fx/statement_v3.txt", b"abc");
    write(root, "fx/statement_v3.sha256", ABC.as_bytes());
    write(root, "fx/text.txt", b"abc");
    write(root, "fx/bin.dat", b"");
    write(
        root,
        "fx/SHA256SUMS.sha256",
        format!("{ABC}  text.txt\n{EMPTY} *bin.dat\n{ABC}  sub/deep.txt\n").as_bytes(),
    );
    write(root, "fx/sub/deep.txt", b"abd");
    // Sidecars inside pruned folders are not read.
    write(root, ".venv/junk.sha256", b"not a digest");
    write(root, "node_modules/junk.sha256", b"not a digest");
    let out = run_in(root, &["verify"], b"");
    assert_eq!(out.code, 1, "{}", out.stderr);
    let section = out.lock();
    let got: Vec<(&str, &str, FileStatus)> = section
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.source.as_str(), f.status))
        .collect();
    assert_eq!(
        got,
        [
            ("fx/bare.txt", "sidecar:fx/bare.txt.sha256", FileStatus::Ok),
            ("fx/bin.dat", "sidecar:fx/SHA256SUMS.sha256", FileStatus::Ok),
            (
                "fx/statement_v3.txt",
                "sidecar:fx/statement_v3.sha256",
                FileStatus::Ok
            ),
            (
                "fx/sub/deep.txt",
                "sidecar:fx/SHA256SUMS.sha256",
                FileStatus::Moved
            ),
            (
                "fx/text.txt",
                "sidecar:fx/SHA256SUMS.sha256",
                FileStatus::Ok
            ),
        ]
    );
    assert_eq!(out.rules("lock"), ["digest-moved"]);

    // A bare digest that could lock two files fails closed.
    write(root, "fx/statement_v3.csv", b"abc");
    let out = run_in(root, &["verify"], b"");
    assert_eq!(out.code, 2);
    assert!(out.stdout.is_empty());
    assert!(
        out.stderr.contains("fx/statement_v3.sha256:1:1:")
            && out
                .stderr
                .contains("fx/statement_v3.csv, fx/statement_v3.txt"),
        "{}",
        out.stderr
    );
    fs::remove_file(root.join("fx/statement_v3.csv")).expect("rm");

    // A malformed sidecar is a located error.
    write(
        root,
        "fx/bad.sha256",
        format!("{ABC} one-space\n").as_bytes(),
    );
    let out = run_in(root, &["verify"], b"");
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("fx/bad.sha256:1:65: expected two spaces"),
        "{}",
        out.stderr
    );
}

#[test]
fn lock_writes_sidecars_that_verify_reads() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    write(root, "fx/a.txt", b"abc");
    let out = run_in(
        root,
        &["lock", "fx/a.txt", "--sidecar", "--today", "2026-01-01"],
        b"",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.update().sidecars, ["fx/a.txt.sha256"]);
    assert_eq!(
        fs::read_to_string(root.join("fx/a.txt.sha256")).expect("sidecar"),
        format!("{ABC}\n")
    );
    // Locking the folder again does not lock the sidecar itself.
    let out = run_in(root, &["lock", "fx", "--today", "2026-01-01"], b"");
    assert_eq!(out.update().unchanged.len(), 1);
    let out = run_in(root, &["verify"], b"");
    assert_eq!(out.code, 0);
    let sources: Vec<String> = out.lock().files.into_iter().map(|f| f.source).collect();
    assert_eq!(sources, ["lock", "sidecar:fx/a.txt.sha256"]);
}

#[test]
fn malformed_locks_stop_with_a_position() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    write(root, "a.txt", b"abc");
    let good = lock_json(&[("a.txt", ABC, 3)]);
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "short digest",
            good.replace(ABC, "abc123"),
            "lanes.lock:7:17: expected a 64-digit lowercase hex digest",
        ),
        (
            "uppercase digest",
            good.replace(ABC, &ABC.to_uppercase()),
            "lanes.lock:7:17: expected a 64-digit",
        ),
        (
            "bad json",
            good.replacen('{', "", 1),
            "lanes.lock:2:9: invalid type: string \"files\", expected a lock",
        ),
        (
            "wrong type",
            good.replace("\"bytes\": 3", "\"bytes\": \"3\""),
            "lanes.lock:4:",
        ),
        (
            "version 2",
            good.replace("\"version\": 1", "\"version\": 2"),
            "lanes.lock:10:14: unsupported lock version 2",
        ),
        (
            "duplicate path",
            lock_json(&[("a.txt", ABC, 3), ("a.txt", EMPTY, 0)]),
            "lanes.lock:12:15: duplicate path 'a.txt'",
        ),
        (
            "empty file",
            String::new(),
            "lanes.lock:1:1: expected a lock",
        ),
    ];
    for (name, text, expected) in cases {
        write(root, "lanes.lock", text.as_bytes());
        for args in [
            &["verify"][..],
            &["lock", "a.txt", "--today", "2026-01-01"][..],
        ] {
            let out = run_in(root, args, b"");
            assert_eq!(out.code, 2, "{name} {args:?}");
            assert!(out.stdout.is_empty(), "{name}");
            assert!(
                out.stderr
                    .starts_with(&format!("lane-lock: error: {expected}")),
                "{name} {args:?}: {}",
                out.stderr
            );
            assert_eq!(out.stderr.lines().count(), 1, "{name}");
            assert_eq!(
                fs::read(root.join("lanes.lock")).expect("lock"),
                text.as_bytes(),
                "{name}: the lock must stay byte-identical"
            );
        }
    }
}

#[test]
fn failed_write_leaves_the_old_lock() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    write(root, "a.txt", b"abc");
    write(root, "blocker", b"a regular file, not a folder");
    let out = run_in(
        root,
        &[
            "--lock",
            "blocker/lanes.lock",
            "lock",
            "a.txt",
            "--today",
            "2026-01-01",
        ],
        b"",
    );
    assert_eq!(out.code, 2);
    assert!(out.stdout.is_empty());
    assert!(out.stderr.contains("blocker/lanes.lock"), "{}", out.stderr);
    assert_eq!(
        fs::read(root.join("blocker")).expect("blocker"),
        b"a regular file, not a folder"
    );

    // A lock that exists stays byte-identical when a later path is refused.
    assert_eq!(
        run_in(root, &["lock", "a.txt", "--today", "2026-01-01"], b"").code,
        0
    );
    let before = fs::read(root.join("lanes.lock")).expect("lock");
    write(root, "a.txt", b"changed");
    let out = run_in(
        root,
        &["lock", "a.txt", "no-such-file", "--today", "2026-02-02"],
        b"",
    );
    assert_eq!(out.code, 2);
    assert_eq!(fs::read(root.join("lanes.lock")).expect("lock"), before);
    let names: Vec<String> = fs::read_dir(root)
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("tmp"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

#[test]
fn other_sections_pass_through() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    write(root, "fx/a.txt", b"abc");
    write(
        root,
        "lanes.lock",
        lock_json(&[("fx/a.txt", ABC, 3)]).as_bytes(),
    );
    let mut doc: Value =
        serde_json::from_str(&scan_doc(&[("tests/test_a.py::test_a", &["fx/a.txt"])]))
            .expect("json");
    doc["ledger"] = json!({"tool": "freeze-ledger", "tickets": [{"x": [1, 2.5, null]}],
        "problems": [{"rule": "expired-ticket", "severity": "error", "message": "m"}]});
    doc["x-future"] = json!({"anything": ["goes", {"nested": true}]});
    doc["lock"] = json!({"tool": "lane-lock", "stale": true, "problems": []});
    let input = serde_json::to_vec(&doc).expect("json");
    let out = run_in(root, &["verify"], &input);
    assert_eq!(
        out.code, 0,
        "upstream errors do not fail lane-lock: {}",
        out.stderr
    );
    let got = out.json();
    for key in ["scan", "ledger", "x-future", "version"] {
        assert_eq!(got[key], doc[key], "{key}");
    }
    assert_eq!(
        got["lock"]["stale"],
        Value::Null,
        "the lock section is replaced"
    );
    // --output writes the same document.
    let out2 = run_in(root, &["verify", "--output", "evidence.json"], &input);
    assert_eq!(
        fs::read_to_string(root.join("evidence.json")).expect("out"),
        out2.stdout
    );
    assert_eq!(out2.stdout, out.stdout, "deterministic");

    // diff passes sections through as well.
    let out = run_in(root, &["diff", "lanes.lock", "lanes.lock"], &input);
    assert_eq!(out.code, 0);
    let got = out.json();
    for key in ["scan", "ledger", "x-future"] {
        assert_eq!(got[key], doc[key], "{key}");
    }
}

#[test]
fn diff_reports_moves_removals_and_batching() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    write(
        root,
        "base.lock",
        lock_json(&[
            ("fx/a.txt", ABC, 3),
            ("fx/b.txt", EMPTY, 0),
            ("fx/c.txt", ABC, 3),
        ])
        .as_bytes(),
    );
    write(
        root,
        "lanes.lock",
        lock_json(&[
            ("fx/a.txt", ABC, 3),
            ("fx/b.txt", ABC, 3),
            ("fx/d.txt", EMPTY, 0),
        ])
        .as_bytes(),
    );
    let out = run_in(root, &["diff", "base.lock", "lanes.lock"], b"");
    assert_eq!(out.code, 1, "{}", out.stderr);
    let d = out.diff();
    assert_eq!(d.added.len(), 1);
    assert_eq!(d.added[0].path, "fx/d.txt");
    assert_eq!(d.removed[0].path, "fx/c.txt");
    assert_eq!(d.moved[0].path, "fx/b.txt");
    assert_eq!(
        (
            d.moved[0].base_sha256.as_str(),
            d.moved[0].head_sha256.as_str()
        ),
        (EMPTY, ABC)
    );
    assert_eq!(d.unchanged, 1);
    assert_eq!(d.behavior_changes, None);
    assert_eq!(
        out.sorted_rules("lock_diff"),
        ["lock-entry-added", "lock-entry-moved", "lock-entry-removed"]
    );

    // --changed with only fixtures, sidecars and the lock: not batched, but the sidecar
    // (gone from the tree) is a lock edit.
    write(
        root,
        "changed.txt",
        b"fx/b.txt\nfx/b.txt.sha256\nlanes.lock\n",
    );
    let out = run_in(
        root,
        &[
            "diff",
            "base.lock",
            "lanes.lock",
            "--changed",
            "changed.txt",
        ],
        b"",
    );
    assert_eq!(out.diff().behavior_changes, Some(vec![]));
    assert_eq!(
        out.sorted_rules("lock_diff"),
        [
            "lock-entry-added",
            "lock-entry-moved",
            "lock-entry-removed",
            "lock-entry-removed"
        ]
    );
    assert_eq!(out.diff().sidecars.len(), 1);
    assert_eq!(out.diff().sidecars[0].change, "removed");

    // Code changed in the same patch: batched.
    write(
        root,
        "changed.txt",
        b"fx/b.txt\nsrc/render.py\nlanes.lock\n",
    );
    let out = run_in(
        root,
        &[
            "diff",
            "base.lock",
            "lanes.lock",
            "--changed",
            "changed.txt",
        ],
        b"",
    );
    assert_eq!(out.code, 1);
    assert_eq!(
        out.diff().behavior_changes,
        Some(vec!["src/render.py".to_string()])
    );
    let rules = out.rules("lock_diff");
    assert!(
        rules.contains(&"lock-batched-with-behavior".to_string()),
        "{rules:?}"
    );
    assert!(out.stdout.contains("src/render.py"));

    // --reason lifts the batching problem only, and is recorded.
    let out = run_in(
        root,
        &[
            "diff",
            "base.lock",
            "lanes.lock",
            "--changed",
            "changed.txt",
            "--reason",
            "new rounding rule",
        ],
        b"",
    );
    assert_eq!(out.code, 1);
    assert_eq!(
        out.sorted_rules("lock_diff"),
        ["lock-entry-added", "lock-entry-moved", "lock-entry-removed"]
    );
    assert_eq!(out.diff().reason.as_deref(), Some("new rounding rule"));

    // Only additions are lock edits too. An empty base (no lock yet) from stdin.
    let out = run_in(root, &["diff", "-", "lanes.lock"], b"");
    assert_eq!(out.code, 1, "{}", out.stderr);
    let d = out.diff();
    assert_eq!((d.base.as_str(), d.added.len()), ("-", 3));
    assert_eq!(out.rules("lock_diff"), ["lock-entry-added"; 3]);
    let out = run_in(root, &["diff", "/dev/null", "lanes.lock"], b"");
    assert_eq!(out.code, 1, "{}", out.stderr);

    // A base that does not exist, or a malformed one, stops with exit 2.
    let out = run_in(root, &["diff", "nope.lock", "lanes.lock"], b"");
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("nope.lock"), "{}", out.stderr);
    write(root, "bad.lock", b"{\"version\": 1, \"files\": [1]}");
    let out = run_in(root, &["diff", "bad.lock", "lanes.lock"], b"");
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("bad.lock:1:"), "{}", out.stderr);
    assert!(out.stdout.is_empty());
}

#[test]
fn help_version_explain_generate() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = run_in(dir.path(), &["--help"], b"");
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("Example pipeline") && out.stdout.contains("lane-lock verify"));
    assert!(out.stdout.contains("lock_update"));
    let out = run_in(dir.path(), &["--version"], b"");
    assert!(out.stdout.starts_with("lane-lock "));
    let out = run_in(dir.path(), &["--explain", "digest-moved"], b"");
    assert_eq!(out.code, 0);
    assert!(
        out.stdout
            .starts_with("digest-moved (error, reported by lane-lock)")
    );
    assert_eq!(run_in(dir.path(), &["--explain", "nope"], b"").code, 2);
    let out = run_in(dir.path(), &["--generate", "bash"], b"");
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("lane-lock"));
    assert_eq!(run_in(dir.path(), &[], b"").code, 2);
    assert_eq!(run_in(dir.path(), &["lock", "x"], b"").code, 2, "no date");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
    #[test]
    fn arbitrary_lock_bytes_never_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)) {
        let dir = tempfile::tempdir().expect("tmp");
        write(dir.path(), "lanes.lock", &bytes);
        let out = run_in(dir.path(), &["verify"], b"");
        proptest::prop_assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
        if lane_lock::lock::LockFile::parse(&bytes, "x").is_err() {
            proptest::prop_assert_eq!(out.code, 2);
            proptest::prop_assert!(out.stdout.is_empty());
            proptest::prop_assert!(out.stderr.starts_with("lane-lock: error: lanes.lock:"), "{}", out.stderr);
        }
    }
}

/// Runs `lane-lock` behind a command prefix (`timeout`, `setpriv`, a shell with `ulimit`).
fn run_wrapped(dir: &Path, prefix: &[&str], args: &[&str]) -> Out {
    let (program, rest) = prefix.split_first().expect("a prefix");
    let out = Command::new(program)
        .args(rest)
        .arg(env!("CARGO_BIN_EXE_lane-lock"))
        .args(args)
        .current_dir(dir)
        .env_remove("LANES_TODAY")
        .stdin(Stdio::null())
        .output()
        .expect("spawn");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Every name in `dir`, sorted (an edit locks the folder: it leaves no lock file behind).
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn report_formats_and_another_lock_file() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    write(root, "fx/a.txt", b"abd");
    write(
        root,
        "locks/other.lock",
        lock_json(&[("fx/a.txt", ABC, 3)]).as_bytes(),
    );
    // --lock names another lock file; the default lanes.lock does not exist.
    let out = run_in(root, &["--lock", "locks/other.lock", "verify"], b"");
    assert_eq!(out.code, 1, "{}", out.stderr);
    let section = out.lock();
    assert_eq!(section.lock.as_deref(), Some("locks/other.lock"));
    assert_eq!(out.rules("lock"), ["digest-moved"]);
    let actual = lane_lock::hash::sha256_bytes(b"abd");

    // github: one annotation per problem, with the file; markdown: a table. Same exit status,
    // and --output still writes the JSON document.
    let gh = run_in(
        root,
        &["--lock", "locks/other.lock", "verify", "--format", "github"],
        b"",
    );
    assert_eq!(gh.code, 1);
    assert!(
        gh.stdout
            .starts_with("::error file=fx/a.txt,title=digest-moved::"),
        "{}",
        gh.stdout
    );
    assert!(gh.stdout.contains(ABC) && gh.stdout.contains(&actual));
    let md = run_in(
        root,
        &[
            "--lock",
            "locks/other.lock",
            "verify",
            "--format",
            "markdown",
            "--output",
            "evidence.json",
        ],
        b"",
    );
    assert_eq!(md.code, 1);
    // One problem: a flat row (severity, rule, where, message).
    assert!(
        md.stdout
            .contains("| severity | rule | where | message |\n|---|---|---|---|\n")
            && md.stdout.contains("| error | `digest-moved` | fx/a.txt | "),
        "{}",
        md.stdout
    );
    let written: Value =
        serde_json::from_slice(&fs::read(root.join("evidence.json")).expect("out")).expect("json");
    assert_eq!(written["lock"]["files"][0]["actual"], actual.as_str());

    // lock --lock writes that file, not lanes.lock.
    let out = run_in(
        root,
        &[
            "--lock",
            "locks/other.lock",
            "lock",
            "fx/a.txt",
            "--today",
            "2026-02-02",
        ],
        b"",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.update().lock, "locks/other.lock");
    assert!(!root.join("lanes.lock").exists());
    let out = run_in(root, &["--lock", "locks/other.lock", "verify"], b"");
    assert_eq!(out.code, 0, "{}", out.stdout);
}

#[test]
fn diff_exit_status_follows_each_kind_of_edit() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    let base = lock_json(&[("fx/a.txt", ABC, 3), ("fx/b.txt", EMPTY, 0)]);
    write(root, "base.lock", base.as_bytes());
    let cases: &[(&str, String, i32, &[&str])] = &[
        ("same", base.clone(), 0, &[]),
        (
            "added only",
            lock_json(&[
                ("fx/a.txt", ABC, 3),
                ("fx/b.txt", EMPTY, 0),
                ("fx/c.txt", ABC, 3),
            ]),
            1,
            &["lock-entry-added"],
        ),
        (
            "removed only",
            lock_json(&[("fx/a.txt", ABC, 3)]),
            1,
            &["lock-entry-removed"],
        ),
        (
            "moved only",
            lock_json(&[("fx/a.txt", EMPTY, 0), ("fx/b.txt", EMPTY, 0)]),
            1,
            &["lock-entry-moved"],
        ),
        // A new locked_on alone is not a move: the bytes are the same.
        (
            "relocked, same bytes",
            base.replace("2026-01-01", "2026-02-02"),
            0,
            &[],
        ),
    ];
    for (name, head, code, rules) in cases {
        write(root, "head.lock", head.as_bytes());
        let out = run_in(root, &["diff", "base.lock", "head.lock"], b"");
        assert_eq!(out.code, *code, "{name}: {}", out.stderr);
        assert_eq!(out.rules("lock_diff"), *rules, "{name}");
        // HEAD from stdin gives the same section (but for its name).
        let piped = run_in(root, &["diff", "base.lock", "-"], head.as_bytes());
        assert_eq!(piped.code, *code, "{name} (stdin): {}", piped.stderr);
        let (mut a, mut b) = (out.diff(), piped.diff());
        assert_eq!(b.head, "-");
        (a.head, b.head) = (String::new(), String::new());
        assert_eq!(a, b, "{name}");
    }
    // Code changed alongside an addition is batched too.
    write(root, "changed.txt", b"src/app.py\n");
    write(
        root,
        "head.lock",
        lock_json(&[
            ("fx/a.txt", ABC, 3),
            ("fx/b.txt", EMPTY, 0),
            ("fx/c.txt", ABC, 3),
        ])
        .as_bytes(),
    );
    let out = run_in(
        root,
        &["diff", "base.lock", "head.lock", "--changed", "changed.txt"],
        b"",
    );
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(
        out.rules("lock_diff"),
        ["lock-batched-with-behavior", "lock-entry-added"]
    );
    assert!(
        out.stdout
            .contains("this change adds 1 lock entry and also changes 1 other file (src/app.py)"),
        "{}",
        out.stdout
    );
    // An empty --reason explains nothing.
    let out = run_in(
        root,
        &["diff", "base.lock", "head.lock", "--reason", " "],
        b"",
    );
    assert_eq!(out.code, 2);
    assert!(out.stdout.is_empty());
}

/// A write that fails half-way (the file-size limit is 0, so the temporary file cannot be
/// filled): the old lock stays byte-identical and no temporary file is left.
#[cfg(unix)]
#[test]
fn a_write_failing_midway_keeps_the_old_lock() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    write(root, "a.txt", b"abc");
    assert_eq!(
        run_in(root, &["lock", "a.txt", "--today", "2026-01-01"], b"").code,
        0
    );
    let before = fs::read(root.join("lanes.lock")).expect("lock");
    write(root, "a.txt", b"changed bytes");
    let out = run_wrapped(
        root,
        &["sh", "-c", "trap '' XFSZ; ulimit -f 0; exec \"$@\"", "sh"],
        &["lock", "a.txt", "--today", "2026-02-02"],
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stdout.is_empty());
    assert!(
        out.stderr.starts_with("lane-lock: error: lanes.lock"),
        "{}",
        out.stderr
    );
    assert_eq!(fs::read(root.join("lanes.lock")).expect("lock"), before);
    assert_eq!(names(root), ["a.txt", "lanes.lock"]);
}

/// The lock's folder is read-only for the process (as root, the command runs as `nobody`):
/// the lock cannot be replaced, the old one stays byte-identical, no temporary file is left.
#[cfg(unix)]
#[test]
fn a_read_only_folder_keeps_the_old_lock() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = tempfile::tempdir().expect("tmp");
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
    let root = dir.path().join("root");
    write(&root, "a.txt", b"abc");
    assert_eq!(
        run_in(&root, &["lock", "a.txt", "--today", "2026-01-01"], b"").code,
        0
    );
    let before = fs::read(root.join("lanes.lock")).expect("lock");
    write(&root, "a.txt", b"changed bytes");
    fs::set_permissions(&root, fs::Permissions::from_mode(0o555)).expect("chmod");
    let as_root = fs::metadata(root.join("a.txt")).expect("meta").uid() == 0;
    let mut prefix = vec!["env"];
    if as_root {
        prefix = vec![
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ];
    }
    // The folder really is read-only for the process that runs the tool.
    let probe = Command::new(prefix[0])
        .args(&prefix[1..])
        .args(["sh", "-c", "echo x > probe"])
        .current_dir(&root)
        .stderr(Stdio::null())
        .status()
        .expect("probe");
    let out = run_wrapped(&root, &prefix, &["lock", "a.txt", "--today", "2026-02-02"]);
    fs::set_permissions(&root, fs::Permissions::from_mode(0o755)).expect("chmod");
    assert!(!probe.success(), "the folder should be read-only");
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.is_empty());
    assert!(
        out.stderr.starts_with("lane-lock: error: lanes.lock") && out.stderr.contains("ermission"),
        "{}",
        out.stderr
    );
    assert_eq!(fs::read(root.join("lanes.lock")).expect("lock"), before);
    assert_eq!(names(&root), ["a.txt", "lanes.lock"]);
}

/// FIFOs and devices are never opened for reading: not when a folder is locked, not when a
/// sha256sum line or a lock entry names one, not when a sidecar is one. A tool that read a
/// FIFO would block (the `timeout` wrapper turns that into exit 124); one that read
/// `/dev/zero`'s twin would never finish.
#[cfg(unix)]
#[test]
fn fifos_and_devices_are_never_read_anywhere() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    write(root, "fx/a.txt", b"abc");
    let mkfifo = |rel: &str| {
        let ok = Command::new("mkfifo")
            .arg(root.join(rel))
            .status()
            .expect("mkfifo");
        assert!(ok.success());
    };
    mkfifo("fx/pipe");
    // A character device like /dev/zero inside the root (needs root to create).
    let device = Command::new("mknod")
        .arg(root.join("fx/zero"))
        .args(["c", "1", "5"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !device {
        eprintln!("mknod refused (not root): the device part of this test is not run");
    }
    let timeout = ["timeout", "20"];

    // Locking the folder skips them.
    let out = run_wrapped(root, &timeout, &["lock", "fx", "--today", "2026-01-01"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let added: Vec<String> = out.update().added.into_iter().map(|e| e.path).collect();
    assert_eq!(added, ["fx/a.txt"]);
    // Naming one directly is refused.
    let mut special = vec!["fx/pipe"];
    if device {
        special.push("fx/zero");
    }
    let before = fs::read(root.join("lanes.lock")).expect("lock");
    for name in &special {
        let out = run_wrapped(root, &timeout, &["lock", name, "--today", "2026-01-01"]);
        assert_eq!(out.code, 2, "{name}: {}", out.stderr);
        assert!(out.stderr.contains("never read"), "{}", out.stderr);
    }
    assert_eq!(fs::read(root.join("lanes.lock")).expect("lock"), before);

    // Lock entries and sha256sum lines that name them: missing-file, not read.
    let mut entries = vec![("fx/a.txt", ABC, 3)];
    for name in &special {
        entries.push((name, EMPTY, 0));
    }
    write(root, "lanes.lock", lock_json(&entries).as_bytes());
    let sums: String = special
        .iter()
        .map(|n| format!("{EMPTY}  {}\n", n.trim_start_matches("fx/")))
        .collect();
    write(root, "fx/SUMS.sha256", sums.as_bytes());
    let out = run_wrapped(root, &timeout, &["verify"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let section = out.lock();
    let not_read: Vec<&str> = section
        .files
        .iter()
        .filter(|f| f.status == FileStatus::Missing)
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(not_read.len(), 2 * special.len(), "{:?}", section.files);
    assert!(
        section
            .files
            .iter()
            .all(|f| f.path == "fx/a.txt" || f.actual.is_none())
    );
    assert!(
        section
            .problems
            .iter()
            .all(|p| p.rule == "missing-file" && p.message.contains("not a regular file")),
        "{:?}",
        section.problems
    );
    fs::remove_file(root.join("fx/SUMS.sha256")).expect("rm");

    // A sidecar that is a FIFO is not read either: the tool stops (exit 2) instead of blocking.
    mkfifo("fx/a.txt.sha256");
    let out = run_wrapped(root, &timeout, &["verify"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("fx/a.txt.sha256") && out.stderr.contains("not a regular file"),
        "{}",
        out.stderr
    );
}

/// Other sections leave verify and diff byte for byte as they came: key order, spacing,
/// number spelling (`1.0`, `1e2`, integers beyond 64 bits, `-0.0`) and string escapes.
#[test]
fn other_sections_pass_through_byte_for_byte() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    write(root, "fx/a.txt", b"abc");
    write(
        root,
        "lanes.lock",
        lock_json(&[("fx/a.txt", ABC, 3)]).as_bytes(),
    );
    let scan = r#"{"tool":"lane-scan", "tests":[{"id":"t.py::test_w","file":"t.py","line":3,"lane":"witness","lanes":["witness"],"marks":["witness"],"parametrized":false,"attachments":{"fixtures":["fx/a.txt"]}}],"counts":{"merge":0,"witness":1,"freeze":0,"unmarked":0},"problems":[{"severity":"warning","rule":"runtime-hook","message":"caf\u00e9 \/ \"q\""}]}"#;
    let ledger = r#"{ "z": 1.0,   "a": [1e2, 123456789012345678901234567890, -0.0, "\ud83d\ude00"],
    "problems": [] }"#;
    let future = r#"[ "x-future",{"b":null , "a":true} ]"#;
    let input = format!(
        "{{\"x-future\": {future},\n \"version\": 1, \"scan\": {scan}, \"ledger\": {ledger}}}"
    );
    for args in [&["verify"][..], &["diff", "lanes.lock", "lanes.lock"][..]] {
        let out = run_in(root, args, input.as_bytes());
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        for raw in [scan, ledger, future] {
            assert!(
                out.stdout.contains(raw),
                "{args:?}: section not passed through byte for byte: {raw}\n{}",
                out.stdout
            );
        }
    }
}

/// A scan document with witness tests `(id, fixtures)` and one merge test.
fn witness_scan(witnesses: &[(&str, &[&str])], merge: &[&str]) -> String {
    let mut tests: Vec<String> = witnesses
        .iter()
        .map(|(id, fixtures)| {
            let file = id.split("::").next().unwrap_or_default();
            let fx: Vec<String> = fixtures.iter().map(|f| format!("\"{f}\"")).collect();
            format!(
                r#"{{"id":"{id}","file":"{file}","line":4,"lane":"witness","lanes":["witness"],"marks":["witness"],"parametrized":false,"attachments":{{"fixtures":[{}]}}}}"#,
                fx.join(",")
            )
        })
        .collect();
    for id in merge {
        let file = id.split("::").next().unwrap_or_default();
        tests.push(format!(
            r#"{{"id":"{id}","file":"{file}","line":9,"lane":"merge","lanes":["merge"],"marks":["merge"],"parametrized":false,"attachments":{{}}}}"#
        ));
    }
    format!(
        r#"{{"version":1,"scan":{{"tool":"lane-scan","tests":[{}],"counts":{{"merge":0,"witness":0,"freeze":0,"unmarked":0}},"files":[],"problems":[]}}}}"#,
        tests.join(",")
    )
}

/// The witness lane compared with the base's scan, and orphan-lock as an error.
#[test]
fn diff_with_a_base_scan_guards_the_witness_lane() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    let lock = lock_json(&[("fx/a.txt", ABC, 3), ("fx/b.txt", EMPTY, 0)]);
    write(root, "base.lock", lock.as_bytes());
    write(root, "lanes.lock", lock.as_bytes());
    let base = witness_scan(
        &[
            ("t/test_w.py::test_a", &["fx/a.txt"]),
            ("t/test_w.py::test_b", &["fx/b.txt"]),
        ],
        &[],
    );
    write(root, "base.json", base.as_bytes());
    type Case<'a> = (&'a str, String, &'a [&'a str]);
    let cases: Vec<Case<'_>> = vec![
        ("the same witness lane", base.clone(), &[]),
        (
            "a witness test gone, its bytes still locked",
            witness_scan(&[("t/test_w.py::test_a", &["fx/a.txt"])], &[]),
            &["orphan-lock", "witness-test-removed"],
        ),
        (
            "a witness test moved to merge",
            witness_scan(
                &[("t/test_w.py::test_a", &["fx/a.txt"])],
                &["t/test_w.py::test_b"],
            ),
            &["orphan-lock", "witness-test-removed"],
        ),
        (
            "a witness test pointed at other bytes",
            witness_scan(
                &[
                    ("t/test_w.py::test_a", &["fx/b.txt"]),
                    ("t/test_w.py::test_b", &["fx/b.txt"]),
                ],
                &[],
            ),
            &["orphan-lock", "witness-fixture-changed"],
        ),
    ];
    for (name, head, rules) in &cases {
        let out = run_in(
            root,
            &[
                "diff",
                "base.lock",
                "lanes.lock",
                "--base-scan",
                "base.json",
            ],
            head.as_bytes(),
        );
        let code = if rules.is_empty() { 0 } else { 1 };
        assert_eq!(out.code, code, "{name}: {}", out.stderr);
        assert_eq!(out.sorted_rules("lock_diff"), *rules, "{name}");
        let problems = &out.json()["lock_diff"]["problems"];
        for p in problems.as_array().expect("problems") {
            assert_eq!(p["severity"], "error", "{name}: {p}");
        }
        // Without the base's scan none of these is seen.
        let plain = run_in(root, &["diff", "base.lock", "lanes.lock"], head.as_bytes());
        assert_eq!(plain.code, 0, "{name}");
    }
    let out = run_in(
        root,
        &[
            "diff",
            "base.lock",
            "lanes.lock",
            "--base-scan",
            "base.json",
        ],
        cases[1].1.as_bytes(),
    );
    assert!(
        out.stdout.contains(
            "fx/b.txt is still locked but no witness test names it; the base's witness test \
             t/test_w.py::test_b did"
        ),
        "{}",
        out.stdout
    );
    // The base scan needs the head's scan on stdin, and a scan section of its own.
    let out = run_in(
        root,
        &[
            "diff",
            "base.lock",
            "lanes.lock",
            "--base-scan",
            "base.json",
        ],
        b"{\"version\": 1}",
    );
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--base-scan needs"), "{}", out.stderr);
    write(root, "noscan.json", b"{\"version\": 1}");
    let out = run_in(
        root,
        &[
            "diff",
            "base.lock",
            "lanes.lock",
            "--base-scan",
            "noscan.json",
        ],
        base.as_bytes(),
    );
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("no scan section"), "{}", out.stderr);
}

/// New, changed and removed sidecars are lock edits; `--changed` may be `git diff
/// --name-status` output.
#[test]
fn diff_lists_sidecar_edits() {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    let lock = lock_json(&[("fx/a.txt", ABC, 3)]);
    write(root, "lanes.lock", lock.as_bytes());
    write(root, "fx/new.txt.sha256", format!("{ABC}\n").as_bytes());
    write(root, "fx/old.txt.sha256", format!("{ABC}\n").as_bytes());
    type Case<'a> = (&'a str, &'a str, &'a [&'a str], &'a [(&'a str, &'a str)]);
    let cases: &[Case<'_>] = &[
        (
            "name-status: added, modified, deleted",
            "A\tfx/new.txt.sha256\nM\tfx/old.txt.sha256\nD\tfx/gone.txt.sha256\n",
            &["lock-entry-added", "lock-entry-moved", "lock-entry-removed"],
            &[
                ("fx/gone.txt.sha256", "removed"),
                ("fx/new.txt.sha256", "added"),
                ("fx/old.txt.sha256", "changed"),
            ],
        ),
        (
            "name-only: present or gone",
            "fx/new.txt.sha256\nfx/gone.txt.sha256\n",
            &["lock-entry-moved", "lock-entry-removed"],
            &[
                ("fx/gone.txt.sha256", "removed"),
                ("fx/new.txt.sha256", "added-or-changed"),
            ],
        ),
        (
            "a rename removes the old sidecar and adds the new",
            "R100\tfx/gone.txt.sha256\tfx/new.txt.sha256\n",
            &["lock-entry-added", "lock-entry-removed"],
            &[
                ("fx/gone.txt.sha256", "removed"),
                ("fx/new.txt.sha256", "added"),
            ],
        ),
        (
            "no sidecar, nothing locked changed",
            "M\tsrc/app.py\n.sha256\n",
            &[],
            &[],
        ),
    ];
    for (name, changed, rules, sidecars) in cases {
        write(root, "changed.txt", changed.as_bytes());
        let out = run_in(
            root,
            &[
                "diff",
                "lanes.lock",
                "lanes.lock",
                "--changed",
                "changed.txt",
            ],
            b"",
        );
        let code = if rules.is_empty() { 0 } else { 1 };
        assert_eq!(out.code, code, "{name}: {}", out.stderr);
        let mut got = out.sorted_rules("lock_diff");
        got.retain(|r| r != "lock-batched-with-behavior");
        assert_eq!(got, *rules, "{name}");
        let edits: Vec<(String, String)> = out
            .diff()
            .sidecars
            .into_iter()
            .map(|s| (s.path, s.change))
            .collect();
        let want: Vec<(String, String)> = sidecars
            .iter()
            .map(|(p, c)| (p.to_string(), c.to_string()))
            .collect();
        assert_eq!(edits, want, "{name}");
    }
    // A sidecar edit beside code is batched.
    write(
        root,
        "changed.txt",
        b"A\tfx/new.txt.sha256\nM\tsrc/app.py\n",
    );
    let out = run_in(
        root,
        &[
            "diff",
            "lanes.lock",
            "lanes.lock",
            "--changed",
            "changed.txt",
        ],
        b"",
    );
    assert!(
        out.rules("lock_diff")
            .contains(&"lock-batched-with-behavior".to_string()),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("edits 1 sidecar"), "{}", out.stdout);
}
