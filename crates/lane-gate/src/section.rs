//! The `gate` section of the evidence document: what lane-gate decided before the vote and
//! how each run went. No absolute paths, no timings: the same inputs give the same bytes.

use std::collections::BTreeMap;

use lane_core::Problem;
use serde::Serialize;

use crate::python::Plugin;
use crate::surface::Entry;

pub const SECTION: &str = "gate";

#[derive(Debug, Clone, Serialize)]
pub struct GateSection {
    /// The acknowledgment the vote ran under (`--ack` / `LANES_ACK`), as given.
    pub ack: Option<String>,
    pub base: Option<Base>,
    /// The patch's new or changed tests, run after the vote in its own tree (never counted).
    pub candidates: Option<Candidates>,
    pub interpreter: InterpreterInfo,
    /// Each lane's run, by lane name.
    pub lanes: BTreeMap<String, LaneRun>,
    pub plugins: Plugins,
    pub problems: Vec<Problem>,
    /// The hypothesis seed of every run, and where it came from.
    pub seed: Seed,
    /// Every path the patch changed, with its class and the rule that decided it.
    pub surface: Vec<Entry>,
    pub tool: String,
    /// Whose tests voted: `working-tree` (no --base), `base-test-surface`, or `patch`
    /// (acknowledged).
    pub voting_tree: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Base {
    pub commit: String,
    pub head: String,
    pub merge_base: String,
    /// `--base` as given.
    #[serde(rename = "ref")]
    pub reference: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct InterpreterInfo {
    pub hypothesis: Option<String>,
    pub implementation: String,
    pub pytest: Option<String>,
    pub version: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct LaneRun {
    /// pytest's exit status; null when it was killed.
    pub exit: Option<i32>,
    /// The report in the out folder, when pytest wrote one.
    pub report: Option<String>,
    pub timed_out: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Plugins {
    pub loaded: Vec<Plugin>,
    pub not_loaded: Vec<Plugin>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Seed {
    pub from: String,
    pub value: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Candidates {
    pub exit: Option<i32>,
    pub files: Vec<CandidateFile>,
    pub timed_out: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct CandidateFile {
    pub errors: u64,
    pub failed: u64,
    pub file: String,
    pub passed: u64,
    pub skipped: u64,
}
