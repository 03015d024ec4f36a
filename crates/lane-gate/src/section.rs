//! The `gate` section of the evidence document: what lane-gate decided before the vote and
//! how each run went. No absolute paths, no timings: the same inputs give the same bytes.

use std::collections::BTreeMap;

use lane_core::{Document, Problem};
use serde::Serialize;

use crate::GateError;

use crate::python::Plugin;
use crate::surface::{Class, Entry};

pub(crate) const SECTION: &str = "gate";

#[derive(Debug, Clone, Serialize)]
pub(crate) struct GateSection {
    /// The warnings the base's `[tool.lanes.accept-warnings]` accepted, taken out of their
    /// sections (the gate's, the scan's, ...) whole.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) accepted: Vec<Problem>,
    /// The acknowledgment the vote ran under (`--ack` / `LANES_ACK`), as given.
    pub(crate) ack: Option<String>,
    pub(crate) base: Option<Base>,
    /// The patch's new or changed tests, run after the vote in its own tree (never counted).
    pub(crate) candidates: Option<Candidates>,
    pub(crate) interpreter: InterpreterInfo,
    /// Each lane's run, by lane name.
    pub(crate) lanes: BTreeMap<String, LaneRun>,
    pub(crate) plugins: Plugins,
    pub(crate) problems: Vec<Problem>,
    /// The hypothesis seed of every run, and where it came from.
    pub(crate) seed: Seed,
    /// Every path the patch changed, with its class and the rule that decided it.
    pub(crate) surface: Vec<Entry>,
    pub(crate) tool: String,
    /// Whose tests voted: `working-tree` (no --base), `base-test-surface`, or `patch`
    /// (acknowledged).
    pub(crate) voting_tree: String,
}

impl GateSection {
    /// The gate's part of the printed verdict: whose tests voted, the acknowledgment, the seed and
    /// the test surface the patch changed.
    pub(crate) fn markdown(&self) -> String {
        use lane_core::render::markdown::cell;
        let mut out = String::new();
        let voting = match self.voting_tree.as_str() {
            "base-test-surface" => "the base's test surface voted on the patch's code",
            "patch" => "the patch's own test surface voted (acknowledged)",
            _ => "the working tree's tests voted (no --base)",
        };
        out.push_str(&format!("\n### lane-gate: {voting}\n\n"));
        if let Some(base) = &self.base {
            out.push_str(&format!(
                "Base: `{}` (merge base `{}`).\n",
                cell(&base.reference),
                &base.merge_base[..base.merge_base.len().min(12)]
            ));
        }
        if let Some(text) = &self.ack {
            out.push_str(&format!("Acknowledged: {}\n", cell(text)));
        }
        match self.seed.value {
            Some(n) if self.seed.predictable && self.base.is_some() => out.push_str(&format!(
                "Hypothesis seed: {n} ({}): predictable, the patch's author could know it and \
                 test against it; set LANES_SEED_KEY in CI for a seed no patch can know.\n",
                self.seed.from
            )),
            Some(n) => out.push_str(&format!("Hypothesis seed: {n} ({}).\n", self.seed.from)),
            None => out.push_str("Hypothesis seed: none (hypothesis is not loaded).\n"),
        }
        let surface: Vec<&Entry> = self
            .surface
            .iter()
            .filter(|e| e.class == Class::TestSurface)
            .collect();
        if !surface.is_empty() {
            const SHOWN: usize = 50;
            out.push_str(&format!(
                "\nTest surface the patch changed ({}):\n\n| path | change | why |\n|---|---|---|\n",
                surface.len()
            ));
            for e in surface.iter().take(SHOWN) {
                out.push_str(&format!(
                    "| `{}` | {} | {} |\n",
                    cell(&e.path),
                    e.change.as_str(),
                    cell(&e.reason)
                ));
            }
            if surface.len() > SHOWN {
                out.push_str(&format!(
                    "\n… and {} more (evidence.json)\n",
                    surface.len() - SHOWN
                ));
            }
        }
        if let Some(c) = &self.candidates {
            out.push_str("\nCandidates (the patch's new or changed tests, not counted):\n\n");
            out.push_str(
                "| file | passed | failed | errors | skipped |\n|---|---:|---:|---:|---:|\n",
            );
            for f in &c.files {
                out.push_str(&format!(
                    "| `{}` | {} | {} | {} | {} |\n",
                    cell(&f.file),
                    f.passed,
                    f.failed,
                    f.errors,
                    f.skipped
                ));
            }
        }
        if let Some(list) = crate::rules::unpinned_change::by_file(&self.problems) {
            out.push_str(&list);
        }
        if let Some(line) = crate::accept::markdown(&self.accepted) {
            out.push_str(&line);
        }
        out
    }
}

impl GateSection {
    /// When a voting lane of the base's tests failed while every one of the patch's own new or
    /// changed tests passed (and no acknowledgment was given): the words that say it looks
    /// like an intended change of behaviour, and what would let the patch's tests vote.
    pub(crate) fn intended_change(&self, reasons: &[Problem]) -> Option<String> {
        let failed_rules: Vec<&str> = lane_core::rights::RIGHTS
            .iter()
            .filter(|r| r.may_fail)
            .map(|r| r.failed.rule.id())
            .collect();
        let voters_failed = reasons
            .iter()
            .any(|p| failed_rules.contains(&p.rule.as_str()));
        let c = self.candidates.as_ref()?;
        let candidates_passed = !c.timed_out
            && !c.files.is_empty()
            && c.files
                .iter()
                .all(|f| f.failed == 0 && f.errors == 0 && f.passed > 0);
        (voters_failed && candidates_passed && self.ack.is_none() && self.base.is_some()).then(
            || {
                "\nThe base's voting tests fail on this patch while every one of the patch's own \
                 new or changed tests passes: this looks like an intended change of behaviour \
                 whose tests were updated with it. If a maintainer agrees, an acknowledgment \
                 (--ack naming the head commit, granted by CI from an approving review: \
                 docs/ci.md) lets the patch's own tests vote instead; otherwise the patch \
                 broke what the base's tests pin.\n"
                    .to_string()
            },
        )
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Base {
    pub(crate) commit: String,
    pub(crate) head: String,
    pub(crate) merge_base: String,
    /// `--base` as given.
    #[serde(rename = "ref")]
    pub(crate) reference: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct InterpreterInfo {
    pub(crate) hypothesis: Option<String>,
    pub(crate) implementation: String,
    pub(crate) pytest: Option<String>,
    pub(crate) version: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct LaneRun {
    /// pytest's exit status; null when it was killed.
    pub(crate) exit: Option<i32>,
    /// The report in the out folder, when pytest wrote one.
    pub(crate) report: Option<String>,
    pub(crate) timed_out: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Plugins {
    pub(crate) loaded: Vec<Plugin>,
    pub(crate) not_loaded: Vec<Plugin>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Seed {
    pub(crate) from: String,
    pub(crate) value: Option<u64>,
    /// Whether the patch's author could know the seed while writing it (anything but a CI
    /// key's HMAC of the head's tree).
    pub(crate) predictable: bool,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Candidates {
    pub(crate) exit: Option<i32>,
    pub(crate) files: Vec<CandidateFile>,
    pub(crate) timed_out: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct CandidateFile {
    pub(crate) errors: u64,
    pub(crate) failed: u64,
    pub(crate) file: String,
    pub(crate) passed: u64,
    pub(crate) skipped: u64,
}

/// Replaces the problems of the section `name` of `doc`, when it has that section (as an
/// object).
pub(crate) fn set_problems(
    doc: &mut Document,
    name: &str,
    problems: &[Problem],
) -> Result<(), GateError> {
    let Some(mut section) = doc.section(name) else {
        return Ok(());
    };
    if let Some(obj) = section.as_object_mut() {
        obj.insert(
            "problems".into(),
            serde_json::to_value(problems).map_err(|source| GateError::Encode {
                what: "problems".into(),
                source,
            })?,
        );
    }
    doc.set_section(name, &section);
    Ok(())
}
