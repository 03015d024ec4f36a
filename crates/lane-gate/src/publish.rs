//! The last step, the same for a single run and `--collect`: the verdict written into the out
//! folder (verdict.json, verdict.md and comment.md each within GitHub's size limit,
//! verdict.sarif) and printed in the chosen format; the exit status from the decision.

use std::path::Path;

use lane_core::cli::Format;
use lane_core::render::markdown::{COMMENT_MAX_BYTES, SUMMARY_MAX_BYTES, fit};
use lane_core::{Document, Problem, Status};
use lane_tally::{Decision, TallySection};

use crate::{GateError, TOOL, from_tool};

/// The decided evidence and its markdown.
#[derive(Debug)]
pub(crate) struct Verdict {
    /// The evidence with the `tally` section.
    pub(crate) doc: Document,
    pub(crate) tally: TallySection,
    /// The markdown verdict, before any size cut.
    pub(crate) markdown: String,
}

impl Verdict {
    /// lane-tally's markdown of `tally` over `doc`, with `appendix` (the gate's part) after
    /// it; the tally section set in the document.
    pub(crate) fn new(
        mut doc: Document,
        tally: TallySection,
        appendix: &str,
    ) -> Result<Verdict, GateError> {
        let mut markdown =
            lane_tally::markdown_verdict(&doc, &tally).map_err(from_tool("lane-tally"))?;
        markdown.push_str(appendix);
        doc.set_section(lane_tally::vote::SECTION, &tally);
        Ok(Verdict {
            doc,
            tally,
            markdown,
        })
    }
}

/// What the annotations and the SARIF log show: the reasons of the decision, then every
/// section's warnings (as the markdown verdict does), sorted and without duplicates.
fn shown_problems(doc: &Document, tally: &TallySection) -> Result<Vec<Problem>, GateError> {
    let mut shown = tally.reasons.clone();
    let mut warnings: Vec<Problem> = doc
        .all_problems("<evidence document>")?
        .into_iter()
        .flat_map(|(_, problems)| problems)
        .filter(|p| !p.is_error())
        .collect();
    lane_core::problem::normalize(&mut warnings);
    shown.extend(warnings);
    Ok(shown)
}

/// What publishing gives: the decision's status and what to print.
#[derive(Debug)]
pub(crate) struct Published {
    pub(crate) status: Status,
    /// The verdict in the chosen format.
    pub(crate) stdout: Vec<u8>,
}

impl Published {
    /// Prints the verdict; the status.
    pub(crate) fn print(self) -> Result<Status, GateError> {
        lane_core::io::write_stdout(&self.stdout)?;
        Ok(self.status)
    }
}

/// The terminal's summary: the decision and its counts, each reason and warning on one line,
/// the next steps, whether the clock was local, and where the whole verdict is.
fn human(tally: &TallySection, shown: &[Problem], full: &str) -> String {
    let decision = match tally.decision {
        Decision::Approve => "APPROVE",
        Decision::Reject => "REJECT",
    };
    let reasons = tally.reasons.len();
    let warnings = shown.len().saturating_sub(reasons);
    let c = &tally.lanes;
    let mut headline = format!(
        "{TOOL}: {decision}: {reasons} reason{} to reject, {warnings} warning{}; merge {}/{} \
         cases passed, witness {}/{}, freeze {}/{}",
        lane_core::render::plural(reasons),
        lane_core::render::plural(warnings),
        c.merge.passed,
        c.merge.cases,
        c.witness.passed,
        c.witness.cases,
        c.freeze.passed,
        c.freeze.cases,
    );
    if tally.clock.is_some() {
        headline.push_str(&format!(" ({})", lane_core::clock::LOCAL_NOTE));
    }
    lane_core::render::human(&headline, shown, &format!("The whole verdict: {full}"))
}

/// Writes verdict.json, verdict.md (the step summary), comment.md (the pull-request comment)
/// and verdict.sarif into `out` (which exists); the verdict in `format`, to print, and the
/// decision's status. `full` names verdict.md as the human summary points to it.
pub(crate) fn publish(
    out: &Path,
    full: &str,
    format: Format,
    verdict: Verdict,
) -> Result<Published, GateError> {
    let write = |name: &str, bytes: &[u8]| -> Result<(), GateError> {
        lane_core::io::atomic_write(&out.join(name), bytes).map_err(GateError::from)
    };
    let json = verdict.doc.to_bytes();
    write("verdict.json", &json)?;
    // The step summary and the PR comment, each within GitHub's size limit.
    let markdown = fit(
        &verdict.markdown,
        SUMMARY_MAX_BYTES,
        "verdict.json (the lanes artifact)",
    );
    write("verdict.md", markdown.as_bytes())?;
    let comment = fit(
        &markdown,
        COMMENT_MAX_BYTES,
        "verdict.json and verdict.md (the lanes artifact)",
    );
    write("comment.md", comment.as_bytes())?;
    let shown = shown_problems(&verdict.doc, &verdict.tally)?;
    let sarif = lane_core::render::sarif::log(TOOL, &shown);
    write("verdict.sarif", sarif.as_bytes())?;
    let printed = match format {
        Format::Human => human(&verdict.tally, &shown, full).into_bytes(),
        Format::Markdown => markdown.into_bytes(),
        Format::Json => json,
        Format::Github => lane_core::render::github::annotations(&shown).into_bytes(),
        Format::Sarif => sarif.into_bytes(),
    };
    Ok(Published {
        status: match verdict.tally.decision {
            Decision::Approve => Status::Clean,
            Decision::Reject => Status::Findings,
        },
        stdout: printed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rejecting verdict (an empty document has no evidence) with `markdown` as its text.
    fn verdict(markdown: String) -> Verdict {
        let doc = Document::empty();
        let options = lane_tally::Options {
            reports: Vec::new(),
            rootdir: std::env::temp_dir(),
            base: None,
            reason: None,
        };
        let tally = lane_tally::vote::tally(&doc, &options).unwrap();
        let mut doc = doc;
        doc.set_section(lane_tally::vote::SECTION, &tally);
        Verdict {
            doc,
            tally,
            markdown,
        }
    }

    fn read(out: &Path, name: &str) -> String {
        std::fs::read_to_string(out.join(name)).unwrap()
    }

    #[test]
    fn every_verdict_file_is_written_and_the_format_chosen_is_printed() {
        let out = tempfile::tempdir().unwrap();
        let v = verdict("### lane-tally: **reject**\n".into());
        let json = v.doc.to_bytes();
        let published = publish(out.path(), "out/verdict.md", Format::Markdown, v).unwrap();
        assert_eq!(published.status, Status::Findings);
        assert_eq!(
            read(out.path(), "verdict.md"),
            "### lane-tally: **reject**\n"
        );
        assert_eq!(
            read(out.path(), "comment.md"),
            "### lane-tally: **reject**\n"
        );
        assert_eq!(published.stdout, b"### lane-tally: **reject**\n");
        assert_eq!(
            std::fs::read(out.path().join("verdict.json")).unwrap(),
            json
        );
        let sarif: serde_json::Value =
            serde_json::from_str(&read(out.path(), "verdict.sarif")).unwrap();
        assert_eq!(sarif["version"], "2.1.0");
        let rules: Vec<&str> = sarif["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["ruleId"].as_str())
            .collect();
        assert!(rules.contains(&"no-scan-evidence"), "{rules:?}");
        for (format, file) in [
            (Format::Json, "verdict.json"),
            (Format::Sarif, "verdict.sarif"),
        ] {
            let published =
                publish(out.path(), "out/verdict.md", format, verdict("v\n".into())).unwrap();
            assert_eq!(published.stdout, read(out.path(), file).as_bytes());
        }
        let github = publish(
            out.path(),
            "out/verdict.md",
            Format::Github,
            verdict("v\n".into()),
        )
        .unwrap();
        let text = String::from_utf8(github.stdout).unwrap();
        assert!(text.starts_with("::error"), "{text}");
        // The terminal's summary: the decision, each reason with its next step, where the
        // whole verdict is; never the markdown tables.
        let human = publish(
            out.path(),
            "out/verdict.md",
            Format::Human,
            verdict("v\n".into()),
        )
        .unwrap();
        let text = String::from_utf8(human.stdout).unwrap();
        assert!(text.starts_with("lane-gate: REJECT: "), "{text}");
        assert!(text.contains("error[no-scan-evidence]"), "{text}");
        assert!(
            text.contains("What to do next:\n  no-scan-evidence: "),
            "{text}"
        );
        assert!(
            text.ends_with("The whole verdict: out/verdict.md\n"),
            "{text}"
        );
        assert!(!text.contains('|'), "{text}");
    }

    #[test]
    fn the_comment_is_cut_to_fit_a_pull_request_and_the_summary_is_whole() {
        let out = tempfile::tempdir().unwrap();
        let line = format!("| `tests/test_a.py` | {} |\n", "x".repeat(80));
        let long = line.repeat(COMMENT_MAX_BYTES / line.len() + 10);
        assert!(long.len() > COMMENT_MAX_BYTES && long.len() < SUMMARY_MAX_BYTES);
        let published = publish(
            out.path(),
            "out/verdict.md",
            Format::Markdown,
            verdict(long.clone()),
        )
        .unwrap();
        assert_eq!(read(out.path(), "verdict.md"), long);
        assert_eq!(published.stdout, long.as_bytes());
        let comment = read(out.path(), "comment.md");
        assert!(comment.len() <= COMMENT_MAX_BYTES, "{}", comment.len());
        assert!(long.starts_with(comment.lines().next().unwrap()));
        assert!(
            comment.ends_with(
                "every problem is in verdict.json and verdict.md (the lanes artifact).**\n"
            ),
            "{}",
            &comment[comment.len() - 200..]
        );
        // over the step summary's limit too: verdict.md is cut, and what is printed with it
        let huge = line.repeat(SUMMARY_MAX_BYTES / line.len() + 10);
        let published = publish(
            out.path(),
            "out/verdict.md",
            Format::Markdown,
            verdict(huge),
        )
        .unwrap();
        let summary = read(out.path(), "verdict.md");
        assert!(summary.len() <= SUMMARY_MAX_BYTES);
        assert!(summary.ends_with("every problem is in verdict.json (the lanes artifact).**\n"));
        assert_eq!(published.stdout, summary.as_bytes());
    }
}
