//! Markdown (a PR comment: the decision table filled with this patch's counts, then every
//! reason) and GitHub annotations (one per reason, at the test's file and line).

use lane_core::Problem;
use lane_core::render::{markdown, plural};
use lane_core::scan::Lane;

use crate::vote::{Decision, TallySection};
use lane_core::rights::{RIGHTS, Shown};

// Rules that make a suite illegal (the table's last row): the catalogue's.
use lane_core::rule::ILLEGAL;

/// [`markdown`] that also shows every other section's warnings (`runtime-hook`,
/// `no-assertion`, `orphan-lock`, ...): a warning is shown, never counted.
pub(crate) fn markdown_with_warnings(
    section: &TallySection,
    upstream_illegal: usize,
    upstream_warnings: &[Problem],
) -> String {
    let mut out = String::new();
    let verdict = match section.decision {
        Decision::Approve => "**approve**",
        Decision::Reject => "**reject**",
    };
    out.push_str(&format!("### lane-tally: {verdict}\n\n"));
    if section.clock.is_some() {
        out.push_str(&format!(
            "**{}**: the date came from this machine, not a pinned one (pass --today or set \
             LANES_TODAY).\n\n",
            lane_core::clock::LOCAL_NOTE
        ));
    }
    out.push_str(
        "| lane | what belongs there | may fail the patch | may approve the patch | required \
         attachment | tests | cases | passed | failed | errors | skipped | missing |\n",
    );
    out.push_str("|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    // The DESIGN.md §1 decision table, one row per lane, with this patch's counts.
    for rights in &RIGHTS {
        let Shown {
            belongs,
            may_fail,
            may_approve,
            attachment,
        } = rights.shown;
        let c = section.lanes.get(rights.lane);
        out.push_str(&format!(
            "| {} | {belongs} | {may_fail} | {may_approve} | {attachment} | {} | {} | {} | {} | {} | {} | {} |\n",
            rights.lane, c.tests, c.cases, c.passed, c.failed, c.errors, c.skipped, c.missing
        ));
    }
    out.push_str(&format!(
        "| — | unconditional skip, unmarked test, test in two lanes | illegal: reject the job | | \
         | {upstream_illegal} | | | | | | |\n\n"
    ));
    if let Some(delta) = &section.delta {
        out.push_str(
            "Change against the base:\n\n| lane | base | patch | change |\n|---|---:|---:|---:|\n",
        );
        for (lane, d) in [
            (Lane::Merge, delta.merge),
            (Lane::Witness, delta.witness),
            (Lane::Freeze, delta.freeze),
        ] {
            out.push_str(&format!(
                "| {lane} | {} | {} | {:+} |\n",
                d.base, d.head, d.change
            ));
        }
        out.push('\n');
    }
    if let Some(reason) = &section.reason {
        out.push_str(&format!(
            "Reason given for removed or moved merge tests: {}\n\n",
            markdown::cell(reason)
        ));
    }
    if section.reports.is_empty() {
        out.push_str("No JUnit report was given.\n\n");
    } else {
        let names: Vec<String> = section
            .reports
            .iter()
            .map(|r| format!("{}=`{}`", r.lane, r.path))
            .collect();
        out.push_str(&format!("Reports: {}\n\n", names.join(", ")));
    }
    let n = section.reasons.len();
    if n == 0 {
        out.push_str("No reason to reject.\n");
    } else {
        out.push_str(&format!("{n} reason{} to reject:\n\n", plural(n)));
        out.push_str(&markdown::problem_table(&section.reasons));
        out.push_str(&next_steps(&section.reasons));
    }
    let mut warnings: Vec<Problem> = upstream_warnings
        .iter()
        .chain(section.problems.iter())
        .filter(|p| !p.is_error())
        .cloned()
        .collect();
    lane_core::problem::normalize(&mut warnings);
    if !warnings.is_empty() {
        out.push_str(&format!(
            "\n{} warning{}:\n\n",
            warnings.len(),
            plural(warnings.len())
        ));
        out.push_str(&markdown::problem_table(&warnings));
    }
    out
}

/// What to do about each rule among `reasons` (lane_core's next steps), as a markdown list.
fn next_steps(reasons: &[Problem]) -> String {
    let mut out = String::from("\nWhat to do next:\n\n");
    for (id, text) in lane_core::render::next_steps(reasons) {
        out.push_str(&format!("- `{id}`: {text}\n"));
    }
    out
}

/// Whether `p` makes the suite illegal (the table's last row): a rule of the catalogue's
/// [`ILLEGAL`].
pub(crate) fn is_illegal(p: &Problem) -> bool {
    p.is_error() && ILLEGAL.iter().any(|r| r.id() == p.rule)
}

/// What the tally shows (annotates, summarizes): the reasons, then its own warnings.
pub(crate) fn shown(section: &TallySection) -> Vec<Problem> {
    let mut all: Vec<Problem> = section.reasons.clone();
    all.extend(section.problems.iter().filter(|p| !p.is_error()).cloned());
    all
}
