//! lane-tally: reads the evidence document and each lane's JUnit reports, matches every case
//! to a scanned test and decides. See DESIGN.md §7.

mod detail;
pub mod junit;
pub mod parallel;
mod render;
mod reports;
mod resolve;
mod rules;
mod runs;
pub mod shards;
pub mod vote;

use std::path::PathBuf;

use clap::{CommandFactory, Parser};
use lane_core::cli::{CommonArgs, Format};
use lane_core::scan::Lane;
use lane_core::{Error, Status};

pub use vote::{Decision, Options, Report, TallySection};

const AFTER_HELP: &str = "\
Example pipeline:
  lane-scan \\
    | lane-lock verify \\
    | freeze-ledger check --today \"$LANES_TODAY\" \\
    > evidence.json
  PYTHONHASHSEED=0 pytest -m merge   --strict-markers --junitxml=out/merge.xml
  PYTHONHASHSEED=0 pytest -m witness --strict-markers --junitxml=out/witness.xml
  PYTHONHASHSEED=0 pytest -m freeze  --strict-markers --junitxml=out/freeze.xml
  lane-tally --junit merge=out/merge.xml --junit witness=out/witness.xml \\
             --junit freeze=out/freeze.xml < evidence.json > verdict.json

JUnit text, CDATA and comments of any size stream through a bounded buffer; a single tag
over 16 MiB or an evidence document over 256 MiB is refused (docs/robustness.md).
Exit status: 0 approve, 1 reject, 2 the inputs could not be read.
Explain a rule: lane-tally --explain missing-vote";

/// Tally the lanes' votes: match each lane's JUnit reports against the scan and decide.
#[derive(Debug, Parser)]
#[command(name = "lane-tally", version = lane_core::VERSION, about, after_help = AFTER_HELP)]
pub struct Args {
    /// A lane's JUnit XML report, as LANE=PATH (merge, witness or freeze); repeat it for
    /// several lanes, and for several shards of one lane.
    #[arg(long = "junit", value_name = "LANE=PATH", value_parser = parse_junit)]
    pub junit: Vec<Report>,
    /// The base branch's evidence document (with its scan section): report merge tests that
    /// are gone or moved, and the per-lane change.
    #[arg(long, value_name = "FILE")]
    pub base: Option<PathBuf>,
    /// Acknowledge intended removals or lane changes of merge tests (they stay listed as
    /// warnings, with this text).
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    #[command(flatten)]
    pub common: CommonArgs,
}

fn parse_junit(text: &str) -> Result<Report, String> {
    let Some((lane, path)) = text.split_once('=') else {
        return Err(format!(
            "expected LANE=PATH (e.g. merge=out/merge.xml), found '{text}'"
        ));
    };
    let lane = Lane::from_name(lane)
        .ok_or_else(|| format!("unknown lane '{lane}': expected merge, witness or freeze"))?;
    if path.is_empty() {
        return Err(format!("--junit {lane}=: the path is empty"));
    }
    Ok(Report {
        lane,
        path: path.to_string(),
    })
}

/// The whole tool: read, vote, write. Returns approve (Clean) or reject (Findings).
pub fn run(args: Args) -> Result<Status, Error> {
    if let Some(done) = args.common.tool.meta(Args::command) {
        return done;
    }
    let rootdir = args.common.tool.rootdir()?;
    let mut doc = args.common.document.read()?;
    let base = match &args.base {
        Some(path) => Some(lane_core::Document::parse(
            &lane_core::io::read_file(path)?,
            &path.display().to_string(),
        )?),
        None => None,
    };
    for (i, report) in args.junit.iter().enumerate() {
        if args.junit[..i].contains(report) {
            return Err(Error::usage(format!(
                "--junit {}={} is given twice (each shard of a lane once)",
                report.lane, report.path
            )));
        }
    }
    let options = Options {
        reports: args.junit.clone(),
        rootdir,
        base,
        reason: args.reason.clone(),
    };
    let section = vote::tally(&doc, &options)?;
    let markdown = match args.common.document.format() {
        Format::Markdown => Some(markdown_verdict(&doc, &section)?),
        _ => None,
    };
    doc.set_section(vote::SECTION, &section);
    let document = &args.common.document;
    // Annotated and summarized: the reasons of the decision, then the tally's own warnings.
    let shown = render::shown(&section);
    document.emit_shown(vote::TOOL, &doc, vote::SECTION, markdown, Some(&shown))?;
    Ok(match section.decision {
        Decision::Approve => Status::Clean,
        Decision::Reject => Status::Findings,
    })
}

/// The markdown verdict of `section` over `doc` (the document the tally read): the decision
/// table, every reason, and the warnings of every section.
pub fn markdown_verdict(
    doc: &lane_core::Document,
    section: &TallySection,
) -> Result<String, Error> {
    let upstream: Vec<lane_core::Problem> = doc
        .all_problems("<evidence document>")?
        .into_iter()
        .filter(|(name, _)| name != vote::SECTION)
        .flat_map(|(_, p)| p)
        .collect();
    let illegal = upstream.iter().filter(|p| render::is_illegal(p)).count();
    Ok(render::markdown_with_warnings(section, illegal, &upstream))
}

/// This tool's detectors, as the rule registry lists them (lane-gate's `rule_registry` test).
pub fn registry() -> Vec<lane_core::detector::Registered> {
    lane_core::detector::registry(rules::DETECTORS, rules::RULE_FILES)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_markdown_verdict_shows_every_section_s_warnings() {
        let doc = lane_core::Document::parse(
            br#"{"version": 1,
                "scan": {"tool": "lane-scan", "counts": {"freeze": 0, "merge": 0, "unmarked": 0,
                         "witness": 0}, "files": [], "tests": [], "problems": [
                  {"rule": "runtime-hook", "severity": "warning", "file": "conftest.py",
                   "line": 3, "message": "conftest.py defines pytest_runtest_makereport"}]},
                "lock": {"tool": "lane-lock", "problems": [
                  {"rule": "orphan-lock", "severity": "warning", "file": "x.bin",
                   "message": "no witness test names x.bin"}]}}"#,
            "<test>",
        )
        .unwrap();
        let section = vote::tally(&doc, &Options::default()).unwrap();
        let md = markdown_verdict(&doc, &section).unwrap();
        assert!(md.contains("`runtime-hook`"), "{md}");
        assert!(md.contains("`orphan-lock`"), "{md}");
        assert!(md.contains("2 warnings"), "{md}");
        // the tally's own renderer alone does not know them
        assert!(!render::markdown_with_warnings(&section, 0, &[]).contains("`runtime-hook`"));
    }

    #[test]
    fn a_ledger_checked_on_the_local_clock_makes_a_verdict_that_says_so() {
        let verdict = |ledger: &str| {
            let text = format!(
                r#"{{"version": 1,
                    "scan": {{"tool": "lane-scan", "counts": {{"freeze": 0, "merge": 0,
                             "unmarked": 0, "witness": 0}}, "files": [], "tests": [],
                             "problems": []}},
                    "ledger": {ledger}}}"#
            );
            let doc = lane_core::Document::parse(text.as_bytes(), "<test>").unwrap();
            let section = vote::tally(&doc, &Options::default()).unwrap();
            let md = markdown_verdict(&doc, &section).unwrap();
            (section.clock, md)
        };
        let (clock, md) = verdict(r#"{"today": "2026-12-07", "clock": "local", "problems": []}"#);
        assert_eq!(clock.as_deref(), Some("local"));
        assert!(md.contains("**local clock: not a CI verdict**"), "{md}");
        for pinned in [
            r#"{"today": "2026-12-07", "problems": []}"#,
            r#"{"today": "2026-12-07", "clock": "pinned", "problems": []}"#,
        ] {
            let (clock, md) = verdict(pinned);
            assert_eq!(clock, None);
            assert!(!md.contains("local clock"), "{md}");
        }
    }
}
