//! The real binary: exit codes, stdout/stderr shapes, formats and the pinned JSON schema.

use std::path::{Path, PathBuf};
use std::process::Output;

/// The `tally` section's schema, written out here and independent of the crate's types: a field
/// added, renamed or retyped by accident fails these tests.
#[allow(dead_code)] // Fields are read by serde to pin the schema, not all by the tests.
mod schema {
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct TallySection {
        pub tool: String,
        pub decision: Decision,
        pub lanes: Lanes,
        pub reports: Vec<Report>,
        #[serde(default)]
        pub delta: Option<Delta>,
        #[serde(default)]
        pub reason: Option<String>,
        pub reasons: Vec<Problem>,
        pub problems: Vec<Problem>,
    }

    #[derive(Debug, PartialEq, Eq, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Decision {
        Approve,
        Reject,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Lanes {
        pub merge: LaneCounts,
        pub witness: LaneCounts,
        pub freeze: LaneCounts,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct LaneCounts {
        pub tests: u64,
        pub cases: u64,
        pub passed: u64,
        pub failed: u64,
        pub errors: u64,
        pub skipped: u64,
        pub missing: u64,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Report {
        pub lane: Lane,
        pub path: String,
    }

    #[derive(Debug, PartialEq, Eq, Deserialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Lane {
        Merge,
        Witness,
        Freeze,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Delta {
        pub merge: LaneDelta,
        pub witness: LaneDelta,
        pub freeze: LaneDelta,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct LaneDelta {
        pub base: u64,
        pub head: u64,
        pub change: i64,
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

use schema::TallySection;

const BIN: &str = env!("CARGO_BIN_EXE_lane-tally");

struct Dir(PathBuf);
impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Dir {
    let dir = std::env::temp_dir().join(format!("lane-tally-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch");
    Dir(dir)
}

fn run(dir: &Path, args: &[&str], stdin: &str) -> Output {
    // A run that stops before reading stdin (a usage error) closes the pipe: not a failure.
    lane_testkit::Cmd::new(BIN)
        .args(args)
        .dir(dir)
        .stdin(stdin)
        .output()
}

const DOC: &str = r#"{"version":1,"scan":{"tool":"lane-scan","tests":[
 {"id":"tests/test_m.py::test_a","file":"tests/test_m.py","line":4,"lane":"merge","lanes":["merge"],"marks":["merge"],"parametrized":true,"attachments":{"owner":"qa"}}],
 "counts":{"merge":1,"witness":0,"freeze":0,"unmarked":0},"files":["tests/test_m.py"],"problems":[]}}"#;

const PASS: &str = r#"<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="2"><testcase classname="tests.test_m" name="test_a[1]" time="0.1"/><testcase classname="tests.test_m" name="test_a[2]" time="0.1"/></testsuite></testsuites>"#;
const FAIL: &str = r#"<testsuite tests="1" failures="0"><testcase classname="tests.test_m" name="test_a[1]"><failure message="boom &amp; bust">trace
tests/test_m.py:7: AssertionError</failure></testcase></testsuite>"#;

fn section(out: &Output) -> TallySection {
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json on stdout");
    serde_json::from_value(doc["tally"].clone()).expect("tally section matches the pinned schema")
}

#[test]
fn approve_and_reject() {
    let dir = scratch("vote");
    std::fs::write(dir.0.join("pass.xml"), PASS).expect("write");
    std::fs::write(dir.0.join("fail.xml"), FAIL).expect("write");
    let ok = run(&dir.0, &["--junit", "merge=pass.xml"], DOC);
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let s = section(&ok);
    assert_eq!(s.decision, schema::Decision::Approve);
    assert_eq!(s.lanes.merge.cases, 2);
    assert_eq!(s.reports[0].path, "pass.xml");
    // The rest of the document travels.
    let doc: serde_json::Value = serde_json::from_slice(&ok.stdout).expect("json");
    assert_eq!(doc["scan"]["tests"][0]["id"], "tests/test_m.py::test_a");

    let bad = run(
        &dir.0,
        &["--junit", "merge=pass.xml", "--junit", "merge=fail.xml"],
        DOC,
    );
    assert_eq!(bad.status.code(), Some(1));
    let s = section(&bad);
    assert_eq!(s.decision, schema::Decision::Reject);
    assert_eq!(s.reasons[0].rule, "flaky-voter");
    assert_eq!(s.reasons[0].file.as_deref(), Some("tests/test_m.py"));
    assert_eq!(s.reasons[0].line, Some(4));

    let missing = run(&dir.0, &[], DOC);
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(section(&missing).reasons[0].rule, "missing-vote");
}

#[test]
fn output_is_deterministic_and_written_to_output_file() {
    let dir = scratch("det");
    std::fs::write(dir.0.join("a.xml"), PASS).expect("write");
    std::fs::write(dir.0.join("b.xml"), FAIL).expect("write");
    let one = run(
        &dir.0,
        &[
            "--junit",
            "merge=b.xml",
            "--junit",
            "merge=a.xml",
            "--output",
            "v.json",
        ],
        DOC,
    );
    let two = run(
        &dir.0,
        &["--junit", "merge=a.xml", "--junit", "merge=b.xml"],
        DOC,
    );
    assert_eq!(one.stdout, two.stdout);
    assert_eq!(
        std::fs::read(dir.0.join("v.json")).expect("output file"),
        one.stdout
    );
}

#[test]
fn cannot_read_inputs_exit_2() {
    let dir = scratch("errors");
    std::fs::write(dir.0.join("pass.xml"), PASS).expect("write");
    std::fs::write(dir.0.join("trunc.xml"), &PASS[..PASS.len() - 30]).expect("write");
    std::fs::write(
        dir.0.join("bomb.xml"),
        "<?xml version=\"1.0\"?>\n<!DOCTYPE r [<!ENTITY a \"aaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;\">]>\n<testsuite><testcase classname=\"x\" name=\"&b;\"/></testsuite>\n",
    )
    .expect("write");
    std::fs::write(dir.0.join("html.xml"), "<html><body/></html>").expect("write");
    let table: &[(&str, &[&str], &str, &str)] = &[
        (
            "truncated report",
            &["--junit", "merge=trunc.xml"],
            DOC,
            "lane-tally: error: trunc.xml:1:",
        ),
        (
            "entity bomb",
            &["--junit", "merge=bomb.xml"],
            DOC,
            "lane-tally: error: bomb.xml:2:1: a DOCTYPE",
        ),
        (
            "unknown root",
            &["--junit", "merge=html.xml"],
            DOC,
            "unknown root element <html>",
        ),
        (
            "missing report",
            &["--junit", "merge=nope.xml"],
            DOC,
            "nope.xml",
        ),
        (
            "bad lane",
            &["--junit", "vote=pass.xml"],
            DOC,
            "unknown lane 'vote'",
        ),
        (
            "no equals",
            &["--junit", "pass.xml"],
            DOC,
            "expected LANE=PATH",
        ),
        (
            "bad document",
            &["--junit", "merge=pass.xml"],
            "{\"version\":1,",
            "<stdin>:1:",
        ),
        (
            "other version",
            &["--junit", "merge=pass.xml"],
            "{\"version\":2}",
            "version 2 is not supported",
        ),
        ("missing base", &["--base", "base.json"], DOC, "base.json"),
        (
            "same report twice",
            &["--junit", "merge=pass.xml", "--junit", "merge=pass.xml"],
            DOC,
            "given twice",
        ),
        (
            "unknown rule",
            &["--explain", "nope"],
            "",
            "unknown rule 'nope'",
        ),
    ];
    for (name, args, stdin, expected) in table {
        let out = run(&dir.0, args, stdin);
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(out.stdout.is_empty(), "{name}: nothing on stdout");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expected), "{name}: {err}");
        assert!(
            err.trim_end().lines().count() == 1,
            "{name}: one line: {err}"
        );
    }
}

#[test]
fn markdown_and_github_formats() {
    let dir = scratch("formats");
    std::fs::write(dir.0.join("fail.xml"), FAIL).expect("write");
    let md = run(
        &dir.0,
        &["--junit", "merge=fail.xml", "--format", "markdown"],
        DOC,
    );
    assert_eq!(md.status.code(), Some(1));
    let text = String::from_utf8_lossy(&md.stdout);
    assert!(text.starts_with("### lane-tally: **reject**"), "{text}");
    assert!(
        text.contains("| merge | invariants over a generated domain"),
        "{text}"
    );
    assert!(
        text.contains("| 1 | 1 | 0 | 1 | 0 | 0 | 0 |"),
        "counts row: {text}"
    );
    assert!(text.contains("`merge-failed`"), "{text}");
    let gh = run(
        &dir.0,
        &["--junit", "merge=fail.xml", "--format", "github"],
        DOC,
    );
    assert_eq!(
        String::from_utf8_lossy(&gh.stdout),
        "::error file=tests/test_m.py,line=4,title=merge-failed::merge test failed: test_a[1] (failed) at tests/test_m.py:7: boom & bust (tests/test_m.py::test_a)\n"
    );
}

#[test]
fn help_version_explain_generate() {
    let dir = scratch("help");
    let help = run(&dir.0, &["--help"], "");
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(
        text.contains("lane-tally --junit merge=out/merge.xml"),
        "{text}"
    );
    assert!(text.contains("freeze-ledger check"), "{text}");
    assert_eq!(run(&dir.0, &["--version"], "").status.code(), Some(0));
    let explain = run(&dir.0, &["--explain", "flaky-voter"], "");
    assert!(
        String::from_utf8_lossy(&explain.stdout)
            .starts_with("flaky-voter (error, reported by lane-tally)")
    );
    let man = run(&dir.0, &["--generate", "man"], "");
    assert!(String::from_utf8_lossy(&man.stdout).contains(".TH lane-tally"));
    assert!(!text.contains("--generate"), "hidden");
}
