//! The real `freeze-ledger` binary on real ledger files and scan sections in temp folders.
#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use schema::{LedgerDiffSection, LedgerSection};

/// The `ledger` and `ledger_diff` sections' schemas, written out here and independent of the
/// crate's types: a field added, renamed or retyped by accident fails these tests.
#[allow(dead_code)] // Fields are read by serde to pin the schema, not all by the tests.
mod schema {
    use serde::{Deserialize, Serialize};

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct LedgerSection {
        pub tool: String,
        pub ledger: String,
        pub exists: bool,
        pub today: String,
        /// Only when the date came from the machine's clock: `local`.
        #[serde(default)]
        pub clock: Option<String>,
        pub max_days: u32,
        pub matched_scan: bool,
        pub tickets: Vec<TicketStatus>,
        pub problems: Vec<Problem>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct TicketStatus {
        pub test_id: Option<String>,
        pub status: Status,
        pub line: Option<u64>,
        pub expires_on: Option<String>,
        pub days_left: Option<i64>,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum Status {
        Invalid,
        Duplicate,
        Missing,
        Orphan,
        CapsuleMismatch,
        Expired,
        ExpiryTooFar,
        ExpiringSoon,
        Ok,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct LedgerDiffSection {
        pub tool: String,
        pub base: String,
        pub head: String,
        pub added: Vec<String>,
        pub removed: Vec<String>,
        pub renewed: Vec<TicketChange>,
        pub changed: Vec<TicketChange>,
        pub edited: Vec<TicketChange>,
        pub unchanged: u64,
        pub problems: Vec<Problem>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct TicketChange {
        pub test_id: String,
        pub fields: Vec<String>,
    }

    #[derive(Debug, Deserialize)]
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

const BIN: &str = env!("CARGO_BIN_EXE_freeze-ledger");
const FLAKY: &str = "tests/test_invoice.py::test_flaky_rounding";
const ABC_SHA: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Out {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", self.stdout))
    }

    fn ledger(&self) -> LedgerSection {
        serde_json::from_value(self.json()["ledger"].clone()).expect("ledger section schema")
    }

    fn rules(&self) -> Vec<String> {
        self.ledger()
            .problems
            .iter()
            .map(|p| p.rule.clone())
            .collect()
    }
}

/// A fresh folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("freeze-ledger-cli-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn run_env(dir: &Path, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Out {
    // Outside CI unless a test says otherwise: a missing date is then the local one.
    let mut cmd = lane_testkit::Cmd::new(BIN)
        .args(args)
        .dir(dir)
        .stdin(stdin)
        .env_remove_all(lane_core::clock::CI_VARIABLES);
    for (k, v) in env {
        cmd = cmd.env(*k, *v);
    }
    let out = cmd.output();
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn run(dir: &Path, args: &[&str], stdin: &str) -> Out {
    run_env(dir, args, stdin, &[])
}

/// An evidence document with a scan section: (id, lane) pairs.
fn scan_doc(tests: &[(&str, Option<&str>)]) -> String {
    let marked: Vec<(&str, Option<&str>, &[&str])> = tests
        .iter()
        .map(|(id, lane)| (*id, *lane, &[][..]))
        .collect();
    scan_doc_marked(&marked)
}

/// An evidence document with a scan section: (id, lane, other marks).
fn scan_doc_marked(tests: &[(&str, Option<&str>, &[&str])]) -> String {
    let tests: Vec<Value> = tests
        .iter()
        .enumerate()
        .map(|(i, (id, lane, marks))| {
            let file = id.split("::").next().unwrap();
            let mut marks: Vec<&str> = marks.iter().copied().chain(*lane).collect();
            marks.sort_unstable();
            json!({"id": id, "file": file, "line": 10 + i, "lane": lane,
                   "lanes": lane.map(|l| vec![l]).unwrap_or_default(), "marks": marks,
                   "parametrized": false, "attachments": {}})
        })
        .collect();
    let freeze = tests.iter().filter(|t| t["lane"] == "freeze").count();
    json!({"version": 1, "scan": {"tool": "lane-scan", "tests": tests,
        "counts": {"merge": 1, "witness": 0, "freeze": freeze, "unmarked": 0},
        "problems": [{"rule": "runtime-hook", "severity": "warning", "message": "upstream"}]}})
    .to_string()
}

fn row(id: &str, expires: &str) -> Value {
    json!({"test_id": id, "seed": 1234, "input_sha256": ABC_SHA, "expires_on": expires,
           "last_replay_job": "https://ci.example.org/jobs/1"})
}

fn write_ledger(dir: &Path, rows: &[Value]) -> Vec<u8> {
    let mut text = serde_json::to_string_pretty(rows).unwrap();
    text.push('\n');
    fs::write(dir.join("freeze_ledger.json"), &text).unwrap();
    text.into_bytes()
}

/// One row per line, so row N starts on line N + 1.
fn write_ledger_lines(dir: &Path, rows: &[Value]) {
    let lines: Vec<String> = rows.iter().map(Value::to_string).collect();
    fs::write(
        dir.join("freeze_ledger.json"),
        format!("[\n{}\n]\n", lines.join(",\n")),
    )
    .unwrap();
}

fn ledger_bytes(dir: &Path) -> Vec<u8> {
    fs::read(dir.join("freeze_ledger.json")).unwrap()
}

/// Every name in `dir`, sorted (an edit locks the folder: it leaves no lock file behind).
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn add_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "add",
        FLAKY,
        "--seed",
        "1234",
        "--replay-job",
        "https://ci.example.org/jobs/9",
        "--today",
        "2026-02-01",
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn add_then_check_is_clean() {
    let dir = scratch("add-check");
    fs::create_dir_all(dir.join("tests/capsules")).unwrap();
    fs::write(dir.join("tests/capsules/rounding.bin"), b"abc").unwrap();
    let scan = scan_doc(&[
        (FLAKY, Some("freeze")),
        ("tests/test_invoice.py::test_total", Some("merge")),
    ]);
    let out = run(
        &dir,
        &add_args(&[
            "--input",
            "tests/capsules/rounding.bin",
            "--expires",
            "2026-04-01",
            "--owner",
            "ana",
        ]),
        &scan,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("added a flake ticket for")
            && out
                .stderr
                .contains("typed: input_sha256, last_replay_job, seed"),
        "{}",
        out.stderr
    );
    let ticket = out.json();
    assert_eq!(
        ticket["typed"],
        json!(["input_sha256", "last_replay_job", "seed"])
    );
    assert_eq!(ticket["input_sha256"], ABC_SHA);
    assert_eq!(ticket["input_path"], "tests/capsules/rounding.bin");
    assert_eq!(ticket["created_on"], "2026-02-01");
    assert_eq!(ticket["seed"], 1234);
    // The file is canonical: fields in order, 2-space indent, trailing newline.
    let text = String::from_utf8(ledger_bytes(&dir)).unwrap();
    assert!(text.starts_with("[\n  {\n    \"test_id\": \""), "{text}");
    assert!(text.ends_with("}\n]\n"), "{text}");
    assert_eq!(entries(&dir), ["freeze_ledger.json", "tests"]);

    let out = run(&dir, &["check", "--today", "2026-02-01"], &scan);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let section = out.ledger();
    assert!(section.problems.is_empty(), "{:?}", section.problems);
    assert!(section.matched_scan);
    assert_eq!(section.tickets.len(), 1);
    assert_eq!(section.tickets[0].days_left, Some(59));
    // Upstream sections travel untouched.
    assert_eq!(out.json()["scan"]["problems"][0]["message"], "upstream");
    // Same input, same bytes.
    let again = run(&dir, &["check", "--today", "2026-02-01"], &scan);
    assert_eq!(again.stdout, out.stdout);
}

#[test]
fn each_check_rule() {
    let dir = scratch("rules");
    fs::create_dir_all(dir.join("caps")).unwrap();
    fs::write(dir.join("caps/good.bin"), b"abc").unwrap();
    fs::write(dir.join("caps/moved.bin"), b"abd").unwrap();
    let mut good = row("t.py::test_good", "2026-04-01");
    good["input_path"] = json!("caps/good.bin");
    let mut moved = row("t.py::test_moved", "2026-04-01");
    moved["input_path"] = json!("caps/moved.bin");
    let mut gone = row("t.py::test_gone", "2026-04-01");
    gone["input_path"] = json!("caps/gone.bin");
    let mut bad = row("t.py::test_bad", "2026-02-30");
    bad["seed"] = json!("1234");
    bad["input_sha256"] = json!(ABC_SHA.to_uppercase());
    bad["ownr"] = json!("ana");
    let rows = vec![
        good,                                    // line 2
        moved,                                   // 3
        gone,                                    // 4
        bad,                                     // 5
        row("t.py::test_expired", "2026-02-28"), // 6
        row("t.py::test_far", "2026-06-30"),
        row("t.py::test_soon", "2026-03-08"),
        row("t.py::test_orphan", "2026-04-01"),
        row("t.py::test_merge", "2026-04-01"),
        row("t.py::test_good", "2026-04-01"),
        json!(17),
    ];
    write_ledger_lines(&dir, &rows);
    let scan = scan_doc(&[
        ("t.py::test_good", Some("freeze")),
        ("t.py::test_moved", Some("freeze")),
        ("t.py::test_gone", Some("freeze")),
        ("t.py::test_bad", Some("freeze")),
        ("t.py::test_expired", Some("freeze")),
        ("t.py::test_far", Some("freeze")),
        ("t.py::test_soon", Some("freeze")),
        ("t.py::test_merge", Some("merge")),
        ("t.py::test_unticketed", Some("freeze")),
    ]);
    let out = run(&dir, &["check", "--today", "2026-03-01"], &scan);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let section = out.ledger();
    let found = |rule: &str, test: &str| {
        section
            .problems
            .iter()
            .find(|p| p.rule == rule && p.test.as_deref() == Some(test))
            .unwrap_or_else(|| panic!("no {rule} for {test}: {:#?}", section.problems))
    };
    let moved = found("capsule-mismatch", "t.py::test_moved");
    assert!(moved.message.contains(ABC_SHA), "{}", moved.message);
    assert_eq!(moved.line, Some(3));
    assert!(
        found("capsule-mismatch", "t.py::test_gone")
            .message
            .contains("missing")
    );
    for field in ["seed", "input_sha256", "expires_on", "ownr"] {
        assert!(
            section.problems.iter().any(|p| p.rule == "invalid-ticket"
                && p.line == Some(5)
                && p.file.as_deref() == Some("freeze_ledger.json")
                && p.message.contains(field)),
            "{field}: {:#?}",
            section.problems
        );
    }
    assert!(
        found("expired-ticket", "t.py::test_expired")
            .message
            .contains("1 day ago")
    );
    assert_eq!(found("expired-ticket", "t.py::test_expired").line, Some(6));
    found("expiry-too-far", "t.py::test_far");
    let soon = found("expiring-soon", "t.py::test_soon");
    assert_eq!(soon.severity, schema::Severity::Warning);
    assert!(
        found("orphan-ticket", "t.py::test_orphan")
            .message
            .contains("no such test")
    );
    assert!(
        found("orphan-ticket", "t.py::test_merge")
            .message
            .contains("merge lane")
    );
    let dup = found("duplicate-ticket", "t.py::test_good");
    assert!(dup.message.contains("line 2"), "{}", dup.message);
    let missing = found("missing-ticket", "t.py::test_unticketed");
    assert_eq!(missing.file.as_deref(), Some("t.py"));
    assert!(section.problems.iter().any(|p| p.rule == "invalid-ticket"
        && p.message.contains("must be a JSON object")
        && p.test.is_none()));
    // Statuses: one entry per row plus the missing test.
    let status = |id: &str| {
        section
            .tickets
            .iter()
            .filter(|t| t.test_id.as_deref() == Some(id))
            .map(|t| {
                serde_json::to_value(t.status)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(status("t.py::test_good"), ["ok", "duplicate"]);
    assert_eq!(status("t.py::test_bad"), ["invalid"]);
    assert_eq!(status("t.py::test_expired"), ["expired"]);
    assert_eq!(status("t.py::test_far"), ["expiry-too-far"]);
    assert_eq!(status("t.py::test_soon"), ["expiring-soon"]);
    assert_eq!(status("t.py::test_orphan"), ["orphan"]);
    assert_eq!(status("t.py::test_moved"), ["capsule-mismatch"]);
    assert_eq!(status("t.py::test_unticketed"), ["missing"]);
    assert_eq!(section.tickets.len(), rows.len() + 1);

    // Without a scan there is no 1:1 match: no orphan or missing tickets.
    let out = run(&dir, &["check", "--today", "2026-03-01"], "");
    let rules = out.rules();
    assert!(
        !rules
            .iter()
            .any(|r| r == "orphan-ticket" || r == "missing-ticket"),
        "{rules:?}"
    );
    assert!(!out.ledger().matched_scan);
}

#[test]
fn expiry_boundaries_through_the_binary() {
    let dir = scratch("boundaries");
    write_ledger(&dir, &[row(FLAKY, "2026-03-10")]);
    let cases: &[(&str, i32, &[&str])] = &[
        ("2026-03-10", 0, &["expiring-soon"]), // expires today: still valid
        ("2026-03-11", 1, &["expired-ticket"]), // expired yesterday
        ("2026-03-03", 0, &["expiring-soon"]), // exactly 7 days left
        ("2026-03-02", 0, &[]),                // 8 days left
        ("2025-12-10", 0, &[]),                // exactly 90 days ahead
        ("2025-12-09", 1, &["expiry-too-far"]), // 91 days ahead
    ];
    for (today, code, rules) in cases {
        let out = run(&dir, &["check", "--today", today], "");
        assert_eq!(out.code, *code, "{today}: {}", out.stdout);
        assert_eq!(out.rules(), *rules, "{today}");
    }
    let out = run(
        &dir,
        &["check", "--today", "2025-12-09", "--max-days", "91"],
        "",
    );
    assert_eq!(out.code, 0);
    // Leap day: a ticket expiring 2028-02-29 is one day past 2028-02-28.
    write_ledger(&dir, &[row(FLAKY, "2028-02-29")]);
    let out = run(&dir, &["check", "--today", "2028-02-28"], "");
    assert_eq!(out.ledger().tickets[0].days_left, Some(1));
    let out = run(&dir, &["check", "--today", "2028-03-01"], "");
    assert_eq!(out.rules(), ["expired-ticket"]);
}

#[test]
fn capsule_outside_the_root_is_never_read() {
    let dir = scratch("unsafe");
    let root = dir.join("root");
    fs::create_dir_all(&root).unwrap();
    fs::write(dir.join("secret"), b"abc").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.join("secret"), root.join("link.bin")).unwrap();
    let mut up = row("t.py::test_up", "2026-04-01");
    up["input_path"] = json!("link.bin");
    write_ledger(&root, &[up]);
    let out = run(&root, &["check", "--today", "2026-03-01"], "");
    assert_eq!(out.code, 1);
    let p = &out.ledger().problems[0];
    assert_eq!(p.rule, "capsule-mismatch");
    assert!(p.message.contains("outside the root"), "{}", p.message);
}

#[test]
fn missing_ledger_has_no_tickets() {
    let dir = scratch("missing");
    let scan = scan_doc(&[(FLAKY, Some("freeze"))]);
    let out = run(&dir, &["check", "--today", "2026-03-01"], &scan);
    assert_eq!(out.code, 1);
    assert_eq!(out.rules(), ["missing-ticket"]);
    assert!(!out.ledger().exists);
    let out = run(&dir, &["check", "--today", "2026-03-01"], "");
    assert_eq!(out.code, 0);
    assert!(out.ledger().tickets.is_empty());
    // An empty array is a valid, empty ledger.
    fs::write(dir.join("freeze_ledger.json"), "[]\n").unwrap();
    let out = run(&dir, &["check", "--today", "2026-03-01"], "");
    assert_eq!(out.code, 0);
    assert!(out.ledger().exists);
}

#[test]
fn unreadable_inputs_exit_2_with_a_location() {
    let dir = scratch("malformed");
    fs::write(dir.join("freeze_ledger.json"), "[\n  {\"test_id\" 1}\n]\n").unwrap();
    let out = run(&dir, &["check", "--today", "2026-03-01"], "");
    assert_eq!(out.code, 2);
    assert!(out.stdout.is_empty());
    assert!(
        out.stderr
            .starts_with("freeze-ledger: error: freeze_ledger.json:2:14: expected `:`"),
        "{}",
        out.stderr
    );
    assert_eq!(out.stderr.lines().count(), 1);
    fs::write(dir.join("freeze_ledger.json"), "\n{\"test_id\": 1}").unwrap();
    let out = run(&dir, &["check", "--today", "2026-03-01"], "");
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("freeze_ledger.json:2:1: expected a JSON array"),
        "{}",
        out.stderr
    );
    // A ledger that is a folder.
    fs::remove_file(dir.join("freeze_ledger.json")).unwrap();
    fs::create_dir(dir.join("freeze_ledger.json")).unwrap();
    let out = run(&dir, &["check", "--today", "2026-03-01"], "");
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("not a regular file"), "{}", out.stderr);
    // A malformed document on stdin.
    let out = run(
        &dir,
        &["check", "--today", "2026-03-01", "--ledger", "none.json"],
        "{\"version\":1,",
    );
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("<stdin>:1:"), "{}", out.stderr);
    // A scan section of the wrong shape.
    let out = run(
        &dir,
        &["check", "--today", "2026-03-01", "--ledger", "none.json"],
        r#"{"version":1,"scan":{"tests":3}}"#,
    );
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("section \"scan\" is malformed"),
        "{}",
        out.stderr
    );
}

#[test]
fn under_ci_the_clock_must_be_pinned() {
    let dir = scratch("clock");
    for args in [
        vec!["check"],
        add_args(&["--input-sha256", ABC_SHA, "--expires", "2026-03-01"])
            .into_iter()
            .filter(|a| *a != "--today" && *a != "2026-02-01")
            .collect(),
    ] {
        let out = run_env(&dir, &args, "", &[("CI", "true")]);
        assert_eq!(out.code, 2, "{args:?}");
        assert!(out.stdout.is_empty());
        assert!(
            out.stderr.contains("clock must be pinned") && out.stderr.contains("CI is set"),
            "{}",
            out.stderr
        );
        assert!(out.stderr.contains("LANES_TODAY"), "{}", out.stderr);
    }
    assert!(!dir.join("freeze_ledger.json").exists());
    let out = run_env(&dir, &["check"], "", &[("LANES_TODAY", "2026-03-01")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.ledger().today, "2026-03-01");
    let out = run(&dir, &["check", "--today", "2026-02-30"], "");
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("not a calendar date"), "{}", out.stderr);
}

#[test]
fn refused_edits_leave_the_file_byte_identical() {
    let dir = scratch("refused");
    // Deliberately not canonical (compact), so any rewrite would show.
    let original = format!(
        "[{{\"test_id\":\"{FLAKY}\",\"seed\":1,\"input_sha256\":\"{ABC_SHA}\",\"expires_on\":\"2026-03-01\",\"last_replay_job\":\"https://ci/1\"}}]"
    );
    fs::write(dir.join("freeze_ledger.json"), &original).unwrap();
    let sha = ["--input-sha256", ABC_SHA];
    let other = "tests/test_invoice.py::test_other";
    let scan = scan_doc(&[(FLAKY, Some("freeze")), (other, Some("merge"))]);
    let cases: Vec<(&str, Vec<&str>, &str, &str)> = vec![
        (
            "duplicate",
            add_args(&[sha[0], sha[1], "--expires", "2026-03-01"]),
            "",
            "already has a ticket",
        ),
        (
            "past",
            vec![
                "add",
                other,
                "--seed",
                "1",
                sha[0],
                sha[1],
                "--expires",
                "2026-01-31",
                "--replay-job",
                "https://ci/2",
                "--today",
                "2026-02-01",
            ],
            "",
            "in the past",
        ),
        (
            "too far",
            vec![
                "add",
                other,
                "--seed",
                "1",
                sha[0],
                sha[1],
                "--expires",
                "2026-05-03",
                "--replay-job",
                "https://ci/2",
                "--today",
                "2026-02-01",
            ],
            "",
            "91 days",
        ),
        (
            "not freeze",
            vec![
                "add",
                other,
                "--seed",
                "1",
                sha[0],
                sha[1],
                "--expires",
                "2026-03-01",
                "--replay-job",
                "https://ci/2",
                "--today",
                "2026-02-01",
            ],
            &scan,
            "merge lane",
        ),
        (
            "unknown to scan",
            vec![
                "add",
                "t.py::nope",
                "--seed",
                "1",
                sha[0],
                sha[1],
                "--expires",
                "2026-03-01",
                "--replay-job",
                "https://ci/2",
                "--today",
                "2026-02-01",
            ],
            &scan,
            "no test t.py::nope",
        ),
        (
            "bad url",
            vec![
                "add",
                other,
                "--seed",
                "1",
                sha[0],
                sha[1],
                "--expires",
                "2026-03-01",
                "--replay-job",
                "ci/2",
                "--today",
                "2026-02-01",
            ],
            "",
            "http(s) URL",
        ),
        (
            "bad digest",
            vec![
                "add",
                other,
                "--seed",
                "1",
                "--input-sha256",
                "abc",
                "--expires",
                "2026-03-01",
                "--replay-job",
                "https://ci/2",
                "--today",
                "2026-02-01",
            ],
            "",
            "64 lowercase hex",
        ),
        (
            "seed too big",
            vec![
                "add",
                other,
                "--seed",
                "18446744073709551616",
                sha[0],
                sha[1],
                "--expires",
                "2026-03-01",
                "--replay-job",
                "https://ci/2",
                "--today",
                "2026-02-01",
            ],
            "",
            "does not fit in 64 bits",
        ),
        (
            "bracketed id",
            vec![
                "add",
                "t.py::test[1]",
                "--seed",
                "1",
                sha[0],
                sha[1],
                "--expires",
                "2026-03-01",
                "--replay-job",
                "https://ci/2",
                "--today",
                "2026-02-01",
            ],
            "",
            "parametrization",
        ),
        (
            "capsule outside",
            vec![
                "add",
                other,
                "--seed",
                "1",
                "--input",
                "/etc/hostname",
                "--expires",
                "2026-03-01",
                "--replay-job",
                "https://ci/2",
                "--today",
                "2026-02-01",
            ],
            "",
            "outside the rootdir",
        ),
        (
            "renew without job",
            vec![
                "renew",
                FLAKY,
                "--expires",
                "2026-03-15",
                "--today",
                "2026-02-01",
            ],
            "",
            "a renewal needs --replay-job",
        ),
        (
            "renew same job",
            vec![
                "renew",
                FLAKY,
                "--expires",
                "2026-03-15",
                "--replay-job",
                "https://ci/1",
                "--today",
                "2026-02-01",
            ],
            "",
            "new replay job",
        ),
        (
            "renew unknown",
            vec![
                "renew",
                other,
                "--expires",
                "2026-03-15",
                "--replay-job",
                "https://ci/2",
                "--today",
                "2026-02-01",
            ],
            "",
            "has no ticket",
        ),
        (
            "renew expired date",
            vec![
                "renew",
                FLAKY,
                "--expires",
                "2026-01-15",
                "--replay-job",
                "https://ci/2",
                "--today",
                "2026-02-01",
            ],
            "",
            "in the past",
        ),
        ("remove unknown", vec!["remove", other], "", "has no ticket"),
    ];
    for (name, args, stdin, message) in cases {
        let out = run(&dir, &args, stdin);
        assert_eq!(out.code, 2, "{name}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{name}");
        assert!(out.stderr.contains(message), "{name}: {}", out.stderr);
        assert_eq!(ledger_bytes(&dir), original.as_bytes(), "{name}");
        assert_eq!(entries(&dir), ["freeze_ledger.json"], "{name}");
    }
}

#[test]
fn edits_on_an_invalid_ledger_are_refused_except_removing_the_bad_row() {
    let dir = scratch("invalid-edit");
    let mut bad = row("t.py::test_bad", "2026-03-01");
    bad["seed"] = json!(1.5);
    let original = write_ledger(&dir, &[row(FLAKY, "2026-03-01"), bad]);
    let out = run(
        &dir,
        &[
            "renew",
            FLAKY,
            "--expires",
            "2026-03-15",
            "--replay-job",
            "https://ci/2",
            "--today",
            "2026-02-01",
        ],
        "",
    );
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("freeze_ledger.json:9: row 2 is not a valid ticket"),
        "{}",
        out.stderr
    );
    assert_eq!(ledger_bytes(&dir), original);
    let out = run(&dir, &["remove", "t.py::test_bad"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json()[0]["seed"], 1.5);
    let out = run(&dir, &["check", "--today", "2026-02-01"], "");
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(out.ledger().tickets.len(), 1);
}

#[test]
fn renew_and_remove() {
    let dir = scratch("renew");
    fs::write(dir.join("new.bin"), b"abc").unwrap();
    let mut first = row(FLAKY, "2026-03-01");
    first["owner"] = json!("ana");
    write_ledger(&dir, &[first, row("a.py::test_b", "2026-03-05")]);
    let out = run(
        &dir,
        &[
            "renew",
            FLAKY,
            "--expires",
            "2026-04-15",
            "--replay-job",
            "https://ci/77",
            "--seed",
            "-3",
            "--input",
            "new.bin",
            "--today",
            "2026-03-01",
        ],
        "",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let t = out.json();
    assert_eq!(t["expires_on"], "2026-04-15");
    assert_eq!(t["last_replay_job"], "https://ci/77");
    assert_eq!(t["seed"], -3);
    assert_eq!(t["input_path"], "new.bin");
    assert_eq!(t["owner"], "ana");
    // list: sorted by expiry.
    let out = run(&dir, &["list"], "");
    let ids: Vec<String> = out
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["test_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["a.py::test_b", FLAKY]);
    let md = run(&dir, &["list", "--format", "markdown"], "");
    assert!(
        md.stdout.contains("| 2026-03-05 | `a.py::test_b` |"),
        "{}",
        md.stdout
    );
    let out = run(&dir, &["remove", "a.py::test_b"], "");
    assert_eq!(out.code, 0);
    let rows: Value = serde_json::from_slice(&ledger_bytes(&dir)).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1);
    assert_eq!(rows[0]["test_id"], FLAKY);
}

#[test]
fn a_failed_write_leaves_no_trace() {
    let dir = scratch("crash");
    // The ledger's folder is a regular file: nothing can be created.
    fs::write(dir.join("blocker"), b"x").unwrap();
    let out = run(
        &dir,
        &add_args(&[
            "--input-sha256",
            ABC_SHA,
            "--expires",
            "2026-03-01",
            "--ledger",
            "blocker/freeze_ledger.json",
        ]),
        "",
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("blocker/freeze_ledger.json"),
        "{}",
        out.stderr
    );
    assert_eq!(fs::read(dir.join("blocker")).unwrap(), b"x");
    assert_eq!(entries(&dir), ["blocker"]);
}

/// A write that fails half-way (the file-size limit is 0, so the temp file cannot be filled):
/// the old ledger stays and the temp file is removed.
#[cfg(unix)]
#[test]
fn a_write_failing_midway_keeps_the_old_ledger() {
    let dir = scratch("fsize");
    let original = write_ledger(&dir, &[row(FLAKY, "2026-03-01")]);
    let script = format!(
        "trap '' XFSZ; ulimit -f 0; exec '{BIN}' renew '{FLAKY}' --expires 2026-03-20 \
         --replay-job https://ci/2 --today 2026-03-01 </dev/null"
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    assert_eq!(ledger_bytes(&dir), original);
    assert_eq!(entries(&dir), ["freeze_ledger.json"]);
}

#[test]
fn diff_reports_added_renewed_changed_and_removed() {
    let dir = scratch("diff");
    let base = vec![
        row("a.py::test_keep", "2026-03-01"),
        row("a.py::test_renew", "2026-03-01"),
        row("a.py::test_reseed", "2026-03-01"),
        row("a.py::test_gone", "2026-03-01"),
    ];
    fs::write(
        dir.join("base.json"),
        serde_json::to_string_pretty(&base).unwrap(),
    )
    .unwrap();
    let mut reseed = row("a.py::test_reseed", "2026-03-01");
    reseed["seed"] = json!(99);
    let mut renew = row("a.py::test_renew", "2026-04-01");
    renew["last_replay_job"] = json!("https://ci/2");
    let head = vec![
        row("a.py::test_keep", "2026-03-01"),
        renew,
        reseed,
        row("a.py::test_new", "2026-03-01"),
    ];
    fs::write(
        dir.join("head.json"),
        serde_json::to_string_pretty(&head).unwrap(),
    )
    .unwrap();
    let out = run(&dir, &["diff", "base.json", "head.json"], &scan_doc(&[]));
    assert_eq!(out.code, 1, "{}", out.stderr);
    let doc = out.json();
    assert!(doc.get("scan").is_some());
    let d: LedgerDiffSection = serde_json::from_value(doc["ledger_diff"].clone()).unwrap();
    assert_eq!(d.added, ["a.py::test_new"]);
    assert_eq!(d.removed, ["a.py::test_gone"]);
    assert_eq!(d.renewed[0].fields, ["expires_on", "last_replay_job"]);
    assert_eq!(d.changed[0].fields, ["seed"]);
    assert_eq!(d.unchanged, 1);
    let rules: Vec<&str> = d.problems.iter().map(|p| p.rule.as_str()).collect();
    assert_eq!(rules, ["ticket-renewed", "ticket-changed", "ticket-added"]);
    assert_eq!(d.problems[2].line, Some(23));
    // Removal only: listed, not an error.
    let out = run(&dir, &["diff", "base.json", "missing.json"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.json()["ledger_diff"]["removed"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    // A missing or empty base has no tickets: everything is added.
    fs::write(dir.join("empty.json"), "").unwrap();
    for base in ["missing.json", "empty.json"] {
        let out = run(&dir, &["diff", base, "head.json"], "");
        assert_eq!(out.code, 1);
        assert_eq!(
            out.json()["ledger_diff"]["added"].as_array().unwrap().len(),
            4
        );
    }
    let out = run(
        &dir,
        &["diff", "head.json", "head.json", "--format", "markdown"],
        "",
    );
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("No problems."), "{}", out.stdout);
}

#[test]
fn help_version_explain_generate() {
    let dir = scratch("help");
    let help = run(&dir, &["--help"], "");
    assert_eq!(help.code, 0);
    assert!(
        help.stdout.contains("freeze-ledger check --today"),
        "{}",
        help.stdout
    );
    assert!(help.stdout.contains("byte-identical"));
    let version = run(&dir, &["--version"], "");
    assert!(version.stdout.starts_with("freeze-ledger "));
    let explain = run(&dir, &["--explain", "expired-ticket"], "");
    assert_eq!(explain.code, 0);
    assert!(
        explain
            .stdout
            .starts_with("expired-ticket (error, reported by freeze-ledger)")
    );
    let unknown = run(&dir, &["--explain", "nope"], "");
    assert_eq!(unknown.code, 2);
    let bash = run(&dir, &["--generate", "bash"], "");
    assert_eq!(bash.code, 0);
    assert!(bash.stdout.contains("freeze-ledger"));
    let none = run(&dir, &[], "");
    assert_eq!(none.code, 2);
    assert!(none.stderr.contains("no command given"), "{}", none.stderr);
}

#[test]
fn output_file_and_report_formats() {
    let dir = scratch("formats");
    write_ledger_lines(&dir, &[row(FLAKY, "2026-02-20")]);
    let out = run(
        &dir,
        &[
            "check",
            "--today",
            "2026-03-01",
            "--output",
            "evidence.json",
        ],
        "",
    );
    assert_eq!(out.code, 1);
    assert_eq!(
        fs::read_to_string(dir.join("evidence.json")).unwrap(),
        out.stdout
    );
    let gh = run(
        &dir,
        &["check", "--today", "2026-03-01", "--format", "github"],
        "",
    );
    assert_eq!(gh.code, 1);
    assert!(
        gh.stdout
            .starts_with("::error file=freeze_ledger.json,line=2,title=expired-ticket::"),
        "{}",
        gh.stdout
    );
    let md = run(
        &dir,
        &["check", "--today", "2026-03-01", "--format", "markdown"],
        "",
    );
    assert!(
        md.stdout.contains(
            "| `tests/test_invoice.py::test_flaky_rounding` | expired | 2026-02-20 | -9 |"
        ),
        "{}",
        md.stdout
    );
    // --ledger and --rootdir: the ledger is named relative to the root.
    let sub = dir.join("project");
    fs::create_dir_all(&sub).unwrap();
    fs::rename(
        dir.join("freeze_ledger.json"),
        sub.join("freeze_ledger.json"),
    )
    .unwrap();
    let out = run(
        &dir,
        &["check", "--today", "2026-02-01", "--rootdir", "project"],
        "",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.ledger().ledger, "freeze_ledger.json");
    let out = run(
        &dir,
        &[
            "check",
            "--today",
            "2026-02-01",
            "--ledger",
            "project/freeze_ledger.json",
        ],
        "",
    );
    assert_eq!(out.ledger().ledger, "project/freeze_ledger.json");
}

#[test]
fn diff_refuses_rows_it_cannot_compare() {
    let dir = scratch("diff-bad");
    fs::write(dir.join("base.json"), "[]").unwrap();
    fs::write(dir.join("head.json"), "[\n{\"seed\": 1}\n]").unwrap();
    let out = run(&dir, &["diff", "base.json", "head.json"], "");
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("head.json:2: row 1 has no test_id"),
        "{}",
        out.stderr
    );
    fs::write(dir.join("head.json"), "{}").unwrap();
    let out = run(&dir, &["diff", "base.json", "head.json"], "");
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("head.json:1:1: expected a JSON array"),
        "{}",
        out.stderr
    );
}

#[test]
fn files_outside_the_root_are_named_without_absolute_paths() {
    let dir = scratch("outside");
    let elsewhere = scratch("outside-base");
    fs::write(elsewhere.join("base.ledger"), "").unwrap();
    write_ledger(&dir, &[row(FLAKY, "2026-03-01")]);
    let base = elsewhere.join("base.ledger");
    let out = run(
        &dir,
        &["diff", base.to_str().unwrap(), "freeze_ledger.json"],
        "",
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let d: LedgerDiffSection = serde_json::from_value(out.json()["ledger_diff"].clone()).unwrap();
    assert_eq!(d.base, "base.ledger");
    assert_eq!(d.head, "freeze_ledger.json");
    assert!(!out.stdout.contains(elsewhere.to_str().unwrap()));
}

/// Runs the binary behind a command prefix (`timeout`, `setpriv`, `env`), stdin closed.
fn run_wrapped(dir: &Path, prefix: &[&str], args: &[&str]) -> Out {
    let out = Command::new(prefix[0])
        .args(&prefix[1..])
        .arg(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("LANES_TODAY")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn renew_needs_the_pinned_clock_too() {
    let dir = scratch("renew-clock");
    let original = write_ledger(&dir, &[row(FLAKY, "2026-03-01")]);
    let out = run_env(
        &dir,
        &[
            "renew",
            FLAKY,
            "--expires",
            "2026-03-20",
            "--replay-job",
            "https://ci/2",
        ],
        "",
        &[("CI", "true")],
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stdout.is_empty());
    assert!(
        out.stderr.contains("clock must be pinned") && out.stderr.contains("LANES_TODAY"),
        "{}",
        out.stderr
    );
    assert_eq!(ledger_bytes(&dir), original);
    // The same renewal with the clock pinned by the environment goes through.
    let out = run_env(
        &dir,
        &[
            "renew",
            FLAKY,
            "--expires",
            "2026-03-20",
            "--replay-job",
            "https://ci/2",
        ],
        "",
        &[("LANES_TODAY", "2026-03-01")],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// The machine's local date, read around `f` (a run that crosses midnight may see either).
fn around_local_date<T>(f: impl FnOnce() -> T) -> (T, [String; 2]) {
    let before = lane_core::clock::local_date().to_string();
    let out = f();
    (out, [before, lane_core::clock::local_date().to_string()])
}

#[test]
fn outside_ci_a_missing_date_is_the_local_one_and_says_so() {
    let dir = scratch("local-clock");
    let (out, dates) = around_local_date(|| run(&dir, &["check"], ""));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let section = out.ledger();
    assert!(
        dates.contains(&section.today),
        "{} not in {dates:?}",
        section.today
    );
    assert_eq!(section.clock.as_deref(), Some("local"));
    let (out, _) = around_local_date(|| run(&dir, &["check", "--format", "markdown"], ""));
    assert!(
        out.stdout.contains("local clock: not a CI verdict"),
        "{}",
        out.stdout
    );
    // A pinned date is never local, in CI or outside it.
    for env in [
        &[("LANES_TODAY", "2026-03-01")][..],
        &[("CI", "true"), ("LANES_TODAY", "2026-03-01")],
    ] {
        let out = run_env(&dir, &["check"], "", env);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(out.ledger().clock, None);
        assert!(!out.stdout.contains("\"clock\""), "{}", out.stdout);
    }
    // An edit takes the local date for the ticket and says so on stderr.
    let expires = (lane_core::clock::local_date() + jiff::Span::new().days(20)).to_string();
    let (out, dates) = around_local_date(|| {
        run(
            &dir,
            &[
                "add",
                FLAKY,
                "--seed",
                "7",
                "--input-sha256",
                ABC_SHA,
                "--replay-job",
                "https://ci.example.org/jobs/9",
                "--expires",
                &expires,
            ],
            "",
        )
    });
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("local clock: not a CI verdict"),
        "{}",
        out.stderr
    );
    let ticket: Value = serde_json::from_str(&out.stdout).unwrap();
    let created = ticket["created_on"].as_str().unwrap().to_string();
    assert!(dates.contains(&created), "{created} not in {dates:?}");
}

/// Every bad row of the list below, one at a time, after a good row: `check` names the field
/// and the row (and its line), the good row is still checked, and every edit is refused with
/// the ledger left byte-identical.
#[test]
fn bad_rows_are_named_and_nothing_is_written() {
    let dir = scratch("bad-rows");
    let good = row(FLAKY, "2026-03-20").to_string();
    let ok_row = |seed: &str, sha: &str, expires: &str, extra: &str| {
        format!(
            r#"{{"test_id": "t.py::test_bad", "seed": {seed}, "input_sha256": "{sha}", "expires_on": "{expires}", "last_replay_job": "https://ci/1"{extra}}}"#
        )
    };
    let upper = ABC_SHA.to_uppercase();
    let short = &ABC_SHA[..63];
    // (name, the second row as written, field named, words the message must hold)
    let cases: Vec<(&str, String, &str, &str)> = vec![
        (
            "seed as a string",
            ok_row("\"1234\"", ABC_SHA, "2026-03-20", ""),
            "seed",
            "found the string \"1234\"",
        ),
        (
            "seed as a float",
            ok_row("4.5", ABC_SHA, "2026-03-20", ""),
            "seed",
            "found 4.5",
        ),
        (
            "seed beyond 64 bits",
            ok_row("18446744073709551616", ABC_SHA, "2026-03-20", ""),
            "seed",
            "fits in 64 bits, found 18446744073709551616",
        ),
        (
            "seed below 64 bits",
            ok_row("-9223372036854775809", ABC_SHA, "2026-03-20", ""),
            "seed",
            "fits in 64 bits, found -9223372036854775809",
        ),
        (
            "no such date",
            ok_row("1", ABC_SHA, "2026-02-30", ""),
            "expires_on",
            "'2026-02-30' is not a calendar date",
        ),
        (
            "digest of 63 characters",
            ok_row("1", short, "2026-03-20", ""),
            "input_sha256",
            "(63 characters)",
        ),
        (
            "upper-case digest",
            ok_row("1", &upper, "2026-03-20", ""),
            "input_sha256",
            "64 lowercase hex digits",
        ),
        (
            "unknown field",
            ok_row("1", ABC_SHA, "2026-03-20", r#", "expires": "2026-03-20""#),
            "expires",
            "unknown field \"expires\"",
        ),
        ("a number", "17".to_string(), "", "must be a JSON object"),
        (
            "a list",
            "[\"t.py::test_bad\"]".to_string(),
            "",
            "must be a JSON object",
        ),
    ];
    for (name, bad, field, words) in cases {
        let text = format!("[\n{good},\n{bad}\n]\n");
        fs::write(dir.join("freeze_ledger.json"), &text).unwrap();
        let out = run(&dir, &["check", "--today", "2026-03-01"], "");
        assert_eq!(out.code, 1, "{name}: {}", out.stderr);
        let section = out.ledger();
        let invalid: Vec<_> = section
            .problems
            .iter()
            .filter(|p| p.rule == "invalid-ticket")
            .collect();
        assert_eq!(invalid.len(), 1, "{name}: {:#?}", section.problems);
        let p = invalid[0];
        assert_eq!(p.line, Some(3), "{name}");
        assert_eq!(p.file.as_deref(), Some("freeze_ledger.json"), "{name}");
        assert!(p.message.starts_with("row 2: "), "{name}: {}", p.message);
        assert!(p.message.contains(field), "{name}: {}", p.message);
        assert!(p.message.contains(words), "{name}: {}", p.message);
        // The good row is still checked on its own.
        let statuses: Vec<(Option<u64>, String)> = section
            .tickets
            .iter()
            .map(|t| {
                let s = serde_json::to_value(t.status).unwrap();
                (t.line, s.as_str().unwrap().to_string())
            })
            .collect();
        assert!(
            statuses.contains(&(Some(2), "ok".into())),
            "{name}: {statuses:?}"
        );
        assert!(
            statuses.contains(&(Some(3), "invalid".into())),
            "{name}: {statuses:?}"
        );

        // Edits refuse to build on a ledger with a bad row; nothing is written.
        let edits: [Vec<&str>; 3] = [
            vec![
                "add",
                "t.py::test_new",
                "--seed",
                "1",
                "--input-sha256",
                ABC_SHA,
                "--expires",
                "2026-03-20",
                "--replay-job",
                "https://ci/2",
                "--today",
                "2026-03-01",
            ],
            vec![
                "renew",
                FLAKY,
                "--expires",
                "2026-03-25",
                "--replay-job",
                "https://ci/2",
                "--today",
                "2026-03-01",
            ],
            vec!["list"],
        ];
        for args in edits {
            let out = run(&dir, &args, "");
            assert_eq!(out.code, 2, "{name} {}: {}", args[0], out.stdout);
            assert!(out.stdout.is_empty(), "{name} {}", args[0]);
            assert!(
                out.stderr
                    .contains("freeze_ledger.json:3: row 2 is not a valid ticket"),
                "{name} {}: {}",
                args[0],
                out.stderr
            );
            assert_eq!(ledger_bytes(&dir), text.as_bytes(), "{name} {}", args[0]);
            assert_eq!(entries(&dir), ["freeze_ledger.json"], "{name}");
        }
    }
}

/// A ledger path that is a folder or a FIFO: every command stops with exit 2 and a clear
/// message, reads nothing (a FIFO would block: `timeout` turns that into exit 124) and
/// writes nothing.
#[cfg(unix)]
#[test]
fn a_ledger_that_is_not_a_file() {
    let dir = scratch("not-a-file");
    let folder = dir.join("folder");
    fs::create_dir_all(folder.join("freeze_ledger.json")).unwrap();
    let fifo = dir.join("fifo");
    fs::create_dir_all(&fifo).unwrap();
    let made = Command::new("mkfifo")
        .arg(fifo.join("freeze_ledger.json"))
        .status()
        .unwrap();
    assert!(made.success());
    let commands: [Vec<&str>; 5] = [
        vec!["check", "--today", "2026-03-01"],
        vec![
            "add",
            FLAKY,
            "--seed",
            "1",
            "--input-sha256",
            ABC_SHA,
            "--expires",
            "2026-03-20",
            "--replay-job",
            "https://ci/2",
            "--today",
            "2026-03-01",
        ],
        vec![
            "renew",
            FLAKY,
            "--expires",
            "2026-03-25",
            "--replay-job",
            "https://ci/2",
            "--today",
            "2026-03-01",
        ],
        vec!["remove", FLAKY],
        vec!["list"],
    ];
    for root in [&folder, &fifo] {
        for args in &commands {
            let out = run_wrapped(root, &["timeout", "20"], args);
            assert_eq!(out.code, 2, "{} {args:?}: {}", root.display(), out.stderr);
            assert!(out.stdout.is_empty());
            assert!(
                out.stderr
                    .starts_with("freeze-ledger: error: freeze_ledger.json")
                    && out.stderr.contains("not a regular file"),
                "{args:?}: {}",
                out.stderr
            );
            assert_eq!(entries(root), ["freeze_ledger.json"], "{args:?}");
        }
    }
    assert!(folder.join("freeze_ledger.json").is_dir());
    assert_eq!(
        fs::read_dir(folder.join("freeze_ledger.json"))
            .unwrap()
            .count(),
        0
    );
    use std::os::unix::fs::FileTypeExt;
    assert!(
        fs::symlink_metadata(fifo.join("freeze_ledger.json"))
            .unwrap()
            .file_type()
            .is_fifo()
    );
}

/// The ledger's folder is read-only for the process (as root, the command runs as
/// `nobody`): add, renew and remove fail, the old ledger stays byte-identical, no temporary
/// file is left, and the message names the ledger root-relatively even with an absolute
/// --rootdir.
#[cfg(unix)]
#[test]
fn a_read_only_folder_keeps_the_old_ledger() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = scratch("read-only");
    let original = write_ledger(&dir, &[row(FLAKY, "2026-03-01")]);
    let as_root = fs::metadata(dir.join("freeze_ledger.json")).unwrap().uid() == 0;
    let prefix: Vec<&str> = if as_root {
        vec![
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ]
    } else {
        vec!["env"]
    };
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o555)).unwrap();
    let probe = Command::new(prefix[0])
        .args(&prefix[1..])
        .args(["sh", "-c", "echo x > probe"])
        .current_dir(&dir)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let root = dir.to_str().unwrap();
    let commands: [Vec<&str>; 3] = [
        vec![
            "--rootdir",
            root,
            "add",
            "t.py::test_new",
            "--seed",
            "1",
            "--input-sha256",
            ABC_SHA,
            "--expires",
            "2026-03-20",
            "--replay-job",
            "https://ci/2",
            "--today",
            "2026-03-01",
        ],
        vec![
            "--rootdir",
            root,
            "renew",
            FLAKY,
            "--expires",
            "2026-03-25",
            "--replay-job",
            "https://ci/2",
            "--today",
            "2026-03-01",
        ],
        vec!["--rootdir", root, "remove", FLAKY],
    ];
    let outs: Vec<Out> = commands
        .iter()
        .map(|args| run_wrapped(Path::new("/"), &prefix, args))
        .collect();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    assert!(!probe.success(), "the folder should be read-only");
    for (args, out) in commands.iter().zip(outs) {
        assert_eq!(out.code, 2, "{args:?}: {}{}", out.stdout, out.stderr);
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            out.stderr
                .starts_with("freeze-ledger: error: freeze_ledger.json")
                && out.stderr.contains("ermission denied"),
            "{args:?}: {}",
            out.stderr
        );
        assert_eq!(ledger_bytes(&dir), original, "{args:?}");
        assert_eq!(entries(&dir), ["freeze_ledger.json"], "{args:?}");
    }
}

/// Sections other than `ledger` leave check and diff byte for byte as they came.
#[test]
fn other_sections_pass_through_byte_for_byte() {
    let dir = scratch("pass-through");
    write_ledger(&dir, &[row(FLAKY, "2026-03-20")]);
    let scan = scan_doc(&[(FLAKY, Some("freeze"))]);
    let scan: Value = serde_json::from_str(&scan).unwrap();
    let scan_raw = scan["scan"].to_string();
    let lock = r#"{ "tool": "lane-lock", "n": [1.0, 1e2, 123456789012345678901234567890, -0.0],
      "s": "caf\u00e9 \/ \ud83d\ude00", "problems": [] }"#;
    let input = format!("{{\"lock\": {lock}, \"version\": 1,\n\"scan\":   {scan_raw}}}");
    for args in [
        &["check", "--today", "2026-03-01"][..],
        &["diff", "freeze_ledger.json", "freeze_ledger.json"][..],
    ] {
        let out = run(&dir, args, &input);
        assert_eq!(out.code, 0, "{args:?}: {}{}", out.stdout, out.stderr);
        for raw in [lock, scan_raw.as_str()] {
            assert!(
                out.stdout.contains(raw),
                "{args:?}: not passed through byte for byte: {raw}\n{}",
                out.stdout
            );
        }
    }
}

const KNOWN: &str = "tests/test_invoice.py::test_euro_rounding";

fn known_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "add",
        KNOWN,
        "--known-failure",
        "--expires",
        "2026-04-01",
        "--today",
        "2026-02-01",
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn a_known_failure_needs_an_issue_an_owner_and_an_xfail_mark_and_no_replay() {
    let dir = scratch("known");
    let xfail = scan_doc_marked(&[(KNOWN, Some("freeze"), &["xfail"])]);
    let plain = scan_doc_marked(&[(KNOWN, Some("freeze"), &[])]);
    let issue = ["--issue", "https://tracker.example.org/issues/88"];
    // No issue, no owner, no xfail mark, or a replay field: refused, nothing written.
    for (args, stdin, says) in [
        (known_args(&["--owner", "ana"]), &xfail, "needs --issue URL"),
        (known_args(&issue), &xfail, "--owner WHO"),
        (
            known_args(&[issue[0], issue[1], "--owner", "ana"]),
            &plain,
            "has no xfail mark",
        ),
    ] {
        let out = run(&dir, &args, stdin);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains(says), "{args:?}: {}", out.stderr);
        assert!(!dir.join("freeze_ledger.json").exists());
    }
    let out = run(
        &dir,
        &known_args(&[issue[0], issue[1], "--owner", "ana", "--seed", "3"]),
        &xfail,
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("cannot be used with"), "{}", out.stderr);

    let out = run(
        &dir,
        &known_args(&[issue[0], issue[1], "--owner", "ana"]),
        &xfail,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("added a known-failure ticket"),
        "{}",
        out.stderr
    );
    assert_eq!(
        out.json(),
        json!({"test_id": KNOWN, "kind": "known-failure", "expires_on": "2026-04-01",
               "issue": "https://tracker.example.org/issues/88", "created_on": "2026-02-01",
               "owner": "ana"})
    );
    // It checks clean against a scan whose test is xfail; without the mark it is invalid.
    let out = run(&dir, &["check", "--today", "2026-02-01"], &xfail);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let out = run(&dir, &["check", "--today", "2026-02-01"], &plain);
    assert_eq!(out.code, 1);
    assert_eq!(out.rules(), ["invalid-ticket"]);
    assert!(
        out.ledger().problems[0]
            .message
            .contains("carries no xfail mark"),
        "{:?}",
        out.ledger().problems
    );
    // Renewing a known failure needs no replay job, and refuses one.
    let renew = [
        "renew",
        KNOWN,
        "--expires",
        "2026-04-20",
        "--today",
        "2026-02-01",
    ];
    let out = run(&dir, &renew, "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json()["expires_on"], "2026-04-20");
    let mut with_job = renew.to_vec();
    with_job.extend(["--replay-job", "https://ci.example.org/jobs/2"]);
    let before = ledger_bytes(&dir);
    let out = run(&dir, &with_job, "");
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("is a known failure"), "{}", out.stderr);
    assert_eq!(ledger_bytes(&dir), before);
}

#[test]
fn known_failure_rows_are_validated_field_by_field() {
    let dir = scratch("known-rows");
    let good = json!({"test_id": KNOWN, "kind": "known-failure", "expires_on": "2026-04-01",
                      "issue": "https://tracker.example.org/issues/88", "owner": "ana"});
    let mut seeded = good.clone();
    seeded["test_id"] = json!("tests/test_invoice.py::test_seeded");
    seeded["seed"] = json!(1);
    let mut ownerless = good.clone();
    ownerless["test_id"] = json!("tests/test_invoice.py::test_ownerless");
    ownerless.as_object_mut().unwrap().remove("owner");
    let mut odd_kind = good.clone();
    odd_kind["test_id"] = json!("tests/test_invoice.py::test_odd");
    odd_kind["kind"] = json!("bug");
    let mut bad_issue = good.clone();
    bad_issue["test_id"] = json!("tests/test_invoice.py::test_issue");
    bad_issue["issue"] = json!("#88");
    write_ledger_lines(&dir, &[good, seeded, ownerless, odd_kind, bad_issue]);
    let out = run(&dir, &["check", "--today", "2026-02-01"], "");
    assert_eq!(out.code, 1);
    let messages: Vec<(Option<u64>, String)> = out
        .ledger()
        .problems
        .iter()
        .map(|p| (p.line, p.message.clone()))
        .collect();
    let says = |line: u64, text: &str| {
        messages
            .iter()
            .any(|(l, m)| *l == Some(line) && m.contains(text))
    };
    assert!(
        says(3, "a known-failure ticket has no \"seed\""),
        "{messages:?}"
    );
    assert!(says(4, "missing required field \"owner\""), "{messages:?}");
    assert!(says(5, "kind must be \"flake\""), "{messages:?}");
    assert!(says(6, "issue must be an http(s) URL"), "{messages:?}");
    assert_eq!(messages.len(), 4, "{messages:?}");
}

/// A gate out folder whose run saw `FLAKY` fail in the freeze lane with capsule `caps`.
fn gate_out(dir: &Path, job: Option<&str>, seed: Option<u64>, capsule: Option<&[u8]>) -> PathBuf {
    let out = dir.join("out/lanes");
    fs::create_dir_all(out.join("capsules/.lanes/replay")).unwrap();
    let (path, sha) = match capsule {
        Some(bytes) => {
            fs::write(out.join("capsules/.lanes/replay/flaky.bin"), bytes).unwrap();
            (json!(".lanes/replay/flaky.bin"), json!(ABC_SHA))
        }
        None => (Value::Null, Value::Null),
    };
    let capture = json!({"job": job, "seed": seed, "cases": [
        {"test": FLAKY, "lane": "freeze", "outcome": "failed", "capsule": path,
         "capsule_sha256": sha}]});
    fs::write(out.join("capture.json"), capture.to_string()).unwrap();
    out
}

#[test]
fn a_flake_ticket_is_captured_from_the_run_that_saw_it_fail() {
    let dir = scratch("from");
    let scan = scan_doc(&[(FLAKY, Some("freeze"))]);
    let from = [
        "add",
        FLAKY,
        "--from",
        "out/lanes",
        "--expires",
        "2026-04-01",
        "--today",
        "2026-02-01",
    ];
    gate_out(
        &dir,
        Some("https://ci.example.org/jobs/77"),
        Some(99),
        Some(b"abc"),
    );
    let out = run(&dir, &from, &scan);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("captured from the run"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("copied the run's capsule to .lanes/capsules/flaky.bin")
    );
    let ticket = out.json();
    assert_eq!(ticket["seed"], 99);
    assert_eq!(ticket["input_sha256"], ABC_SHA);
    // lane_replay's folder is rewritten by every run: the ticket keeps its own copy.
    assert_eq!(ticket["input_path"], ".lanes/capsules/flaky.bin");
    assert_eq!(ticket["last_replay_job"], "https://ci.example.org/jobs/77");
    assert!(ticket.get("typed").is_none(), "{ticket}");
    assert_eq!(
        fs::read(dir.join(".lanes/capsules/flaky.bin")).unwrap(),
        b"abc"
    );
    // The capsule it copied is the one check verifies.
    let out = run(&dir, &["check", "--today", "2026-02-01"], &scan);
    assert_eq!(out.code, 0, "{}", out.stdout);

    // A typed field wins over the captured one and is marked typed.
    let dir = scratch("from-typed");
    gate_out(&dir, None, Some(5), Some(b"abc"));
    let mut typed = from.to_vec();
    typed.extend(["--replay-job", "https://ci.example.org/jobs/8"]);
    let out = run(&dir, &typed, &scan);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json()["typed"], json!(["last_replay_job"]));
    assert_eq!(out.json()["seed"], 5);
}

#[test]
fn a_renewal_is_captured_from_the_run_that_justifies_it() {
    let dir = scratch("renew-from");
    let scan = scan_doc(&[(FLAKY, Some("freeze"))]);
    let typed_add = [
        "add",
        FLAKY,
        "--seed",
        "5",
        "--input-sha256",
        ABC_SHA,
        "--replay-job",
        "https://ci.example.org/jobs/1",
        "--expires",
        "2026-03-01",
        "--today",
        "2026-02-01",
    ];
    let out = run(&dir, &typed_add, &scan);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.json()["typed"],
        json!(["input_sha256", "last_replay_job", "seed"])
    );
    gate_out(
        &dir,
        Some("https://ci.example.org/jobs/2"),
        Some(7),
        Some(b"abc"),
    );
    let renew = [
        "renew",
        FLAKY,
        "--from",
        "out/lanes",
        "--expires",
        "2026-04-01",
        "--today",
        "2026-02-01",
    ];
    // Captured values replace the typed ones, which are no longer marked typed.
    let out = run(&dir, &renew, "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let ticket = out.json();
    assert_eq!(ticket["last_replay_job"], "https://ci.example.org/jobs/2");
    assert_eq!(ticket["seed"], 7);
    assert_eq!(ticket["input_path"], ".lanes/capsules/flaky.bin");
    assert!(ticket.get("typed").is_none(), "{ticket}");
    assert_eq!(
        fs::read(dir.join(".lanes/capsules/flaky.bin")).unwrap(),
        b"abc"
    );
    // The same run again: its job is the one recorded.
    let out = run(&dir, &renew, "");
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("already recorded"), "{}", out.stderr);
    // A typed value beside --from wins and is marked.
    gate_out(&dir, Some("https://ci.example.org/jobs/3"), Some(8), None);
    let mut typed = renew.to_vec();
    typed.extend(["--seed", "3"]);
    let out = run(&dir, &typed, "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.json()["typed"], json!(["seed"]));
    assert_eq!(out.json()["seed"], 3);
    assert_eq!(
        out.json()["last_replay_job"],
        "https://ci.example.org/jobs/3"
    );
    // A run that recorded no job cannot justify a renewal.
    gate_out(&dir, None, Some(9), None);
    let out = run(&dir, &renew, "");
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("recorded no CI job"), "{}", out.stderr);
}

#[test]
fn capture_refuses_what_the_run_did_not_record() {
    let scan = scan_doc(&[(FLAKY, Some("freeze"))]);
    let from = [
        "add",
        FLAKY,
        "--from",
        "out/lanes",
        "--expires",
        "2026-04-01",
        "--today",
        "2026-02-01",
    ];
    // (job, seed, capsule, what the refusal says)
    type Recorded<'a> = (Option<&'a str>, Option<u64>, Option<&'a [u8]>, &'a str);
    let cases: [Recorded<'_>; 4] = [
        (None, Some(1), Some(b"abc"), "recorded no CI job"),
        (
            Some("https://ci.example.org/j/1"),
            None,
            Some(b"abc"),
            "recorded no seed",
        ),
        (
            Some("https://ci.example.org/j/1"),
            Some(1),
            None,
            "recorded no capsule",
        ),
        // The copy no longer has the digest the run recorded.
        (
            Some("https://ci.example.org/j/1"),
            Some(1),
            Some(b"abd"),
            "does not have the digest",
        ),
    ];
    for (i, (job, seed, capsule, says)) in cases.into_iter().enumerate() {
        let dir = scratch(&format!("from-refused-{i}"));
        gate_out(&dir, job, seed, capsule);
        let out = run(&dir, &from, &scan);
        assert_eq!(out.code, 2, "{says}: {}", out.stderr);
        assert!(out.stderr.contains(says), "{says}: {}", out.stderr);
        assert!(!dir.join("freeze_ledger.json").exists(), "{says}");
        assert!(!dir.join(".lanes").exists(), "{says}");
    }
    // A run that saw no failure of the test, and a folder that is no gate out folder.
    let dir = scratch("from-other");
    gate_out(
        &dir,
        Some("https://ci.example.org/j/1"),
        Some(1),
        Some(b"abc"),
    );
    let mut other = from.to_vec();
    other[1] = "tests/test_invoice.py::test_other";
    let scan_other = scan_doc(&[("tests/test_invoice.py::test_other", Some("freeze"))]);
    let out = run(&dir, &other, &scan_other);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("saw no failure of tests/test_invoice.py::test_other"),
        "{}",
        out.stderr
    );
    let mut nowhere = from.to_vec();
    nowhere[3] = "elsewhere";
    let out = run(&dir, &nowhere, &scan);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("no capture.json there"),
        "{}",
        out.stderr
    );
    // Neither --from nor every field typed.
    let out = run(
        &dir,
        &[
            "add",
            FLAKY,
            "--seed",
            "1",
            "--expires",
            "2026-04-01",
            "--today",
            "2026-02-01",
        ],
        &scan,
    );
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("add needs --from OUT_DIR"),
        "{}",
        out.stderr
    );
    assert!(!dir.join("freeze_ledger.json").exists());
}
