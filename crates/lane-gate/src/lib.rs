//! lane-gate: the whole lanes workflow in one binary (DESIGN.md §9). It calls lane-scan,
//! lane-lock, freeze-ledger and lane-tally in-process and spawns only git and pytest.
//!
//! With `--base REF` the vote runs in a copy of the working tree whose test surface is the
//! base's (`surface`, `tree`); the patch's own tree is scanned too and its new or changed
//! tests run afterwards as non-voting candidates. `--ack TEXT` (from CI, never from the tree)
//! lets the patch's own tree vote and turns acknowledgeable problems into warnings.
//!
//! A run is a sequence of named steps (`gate`): prepare, evidence, plan, run lanes, after-run
//! checks, tally, publish; `--collect` (`collect`) votes over shards' out folders with the same
//! tally and publish. The rules the gate reports have one file each under `rules`, in one
//! table. Every error is a `GateError`, mapped to the exit status in [`main`].

#![cfg_attr(test, allow(clippy::unwrap_used))]

mod accept;
mod ack;
mod capture;
mod changed;
mod channel;
mod collect;
mod error;
mod exercised;
mod gate;
mod git;
mod mutants;
mod publish;
mod pytest;
mod python;
mod room;
mod rules;
mod section;
mod shard;
#[cfg(test)]
mod stand_in;
mod surface;
mod tally;
mod together;
mod tree;
mod trial;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use lane_core::Status;
use lane_core::cli::{Format, Generate};

pub(crate) use error::{GateError, from_tool};

pub(crate) const TOOL: &str = "lane-gate";

const AFTER_HELP: &str = "\
What it does:
  1. lane-scan, lane-lock verify and freeze-ledger check (in-process) -> OUT/evidence.json
  2. with --base REF: classifies every path the patch changed as product code or test surface,
     builds a vote tree (the working tree with the base's test surface), reviews lock and
     ledger edits, scans the base (OUT/base-evidence.json) and the patch's own tree
  3. the three lanes in one pytest process the patch cannot steer (merge, then witness, then
     freeze; one process per lane with LANES_GATE_SEPARATE=1 or when one run cannot serve):
     OUT/{merge,witness,freeze}.{xml,log}, OUT/pytest-status
  4. the patch's new or changed tests as non-voting candidates (OUT/candidates.{xml,log})
  5. lane-tally -> OUT/verdict.json, OUT/verdict.md (printed), OUT/verdict.sarif,
     OUT/comment.md (verdict.md cut to fit a pull-request comment)
  Every report carries a run manifest (the evidence digest, the lane, shard K of N), and
  OUT/manifest.json records each report's SHA-256. With --shard K/N only shard K of each lane
  runs and step 5 is left to --collect over every shard's out folder.

Exit status: 0 approve, 1 reject, 2 the gate could not decide (one message on stderr).

Example (CI pins the date once per run, and grants --ack from a maintainer's approving review
of the head commit, which the text must name; docs/ci.md):
  LANES_TODAY=$(date -u +%F) lane-gate --base origin/main
  lane-gate --base origin/main --ack \"approving review by @maintainer at $(git rev-parse HEAD)\"
Sharded (docs/ci.md), one job per shard, then one vote over their out folders:
  lane-gate --base origin/main --shard 2/7 --out out/shard-2
  lane-gate --collect out/shard-1 out/shard-2 ... out/shard-7 --out out/vote";

/// Gate a patch: the base's tests vote on the patch's code, in a pytest the patch cannot steer.
#[derive(Debug, Parser)]
#[command(name = "lane-gate", version = lane_core::VERSION, about, after_help = AFTER_HELP)]
pub struct Args {
    /// The pinned date [default: $LANES_TODAY; outside CI, the local date, and the verdict says
    /// so]; the job's start, never a commit's date.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub(crate) today: Option<String>,
    /// Where the evidence, reports, logs and verdict go.
    #[arg(long, value_name = "DIR", default_value = "out/lanes")]
    pub(crate) out: PathBuf,
    /// The commit the patch is judged against (its merge base with HEAD): its test surface
    /// votes.
    #[arg(long, value_name = "REF")]
    pub(crate) base: Option<String>,
    /// An acknowledgment from outside the patch [default: $LANES_ACK]: the patch's own test
    /// surface votes, acknowledgeable problems become warnings carrying TEXT.
    #[arg(long, value_name = "TEXT", visible_alias = "reason")]
    pub(crate) ack: Option<String>,
    /// Seconds each lane's pytest run may take before its process group is killed.
    #[arg(long, value_name = "SECS", default_value_t = 3600)]
    pub(crate) lane_timeout: u64,
    /// Whether the changed product statements' mutants run (unpinned-change); `off` is for
    /// local runs, and the verdict says it was given.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = Mutants::On)]
    pub(crate) mutants: Mutants,
    /// The interpreter the lanes run in [default: python on PATH].
    #[arg(long, value_name = "PATH")]
    pub(crate) python: Option<PathBuf>,
    /// The hypothesis seed of every run [default: $LANES_SEED, else derived from the base
    /// commit, else 0].
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,
    /// What to print on stdout: a short summary (human; the default on a terminal), the
    /// markdown verdict (the default otherwise), the verdict document (json), workflow
    /// annotations (github) or a SARIF 2.1.0 log (sarif). OUT gets verdict.md, verdict.json and
    /// verdict.sarif whatever is printed.
    #[arg(long, value_enum)]
    pub(crate) format: Option<Format>,
    /// Print what a rule means and how to fix it, then exit.
    #[arg(long, value_name = "RULE")]
    pub(crate) explain: Option<String>,
    #[arg(long, value_enum, hide = true)]
    pub(crate) generate: Option<Generate>,
    /// Run only shard K of N of each lane: a deterministic split of the scan's test
    /// ids. OUT gets the reports, evidence.json and manifest.json, no verdict: vote with
    /// --collect over every shard's out folder.
    #[arg(long, value_name = "K/N", value_parser = shard::parse_shard_arg)]
    pub(crate) shard: Option<(u32, u32)>,
    /// With --shard: weigh the split by the durations of a previous run (a JSON object of test
    /// ids to seconds, as pytest-split's .test_durations); it must come from outside the
    /// checkout.
    #[arg(long, value_name = "FILE", requires = "shard")]
    pub(crate) timings: Option<PathBuf>,
    /// Vote over the out folders of every shard (lane-gate --shard K/N runs): checks each
    /// folder's manifest and every report's run manifest, then tallies; OUT gets the verdict.
    #[arg(long, value_name = "DIR", num_args = 1.., conflicts_with_all = ["shard", "base"])]
    pub(crate) collect: Vec<PathBuf>,
    /// With --shard: print the test ids of the shard (LANE ID per line) from --evidence and
    /// exit, running nothing.
    #[arg(long, requires_all = ["shard", "evidence"])]
    pub(crate) list: bool,
    /// With --list: the evidence document whose scan is split.
    #[arg(long, value_name = "FILE")]
    pub(crate) evidence: Option<PathBuf>,
    /// Arguments for every pytest run (after `--`); they may not override the gate's own.
    #[arg(last = true, value_name = "PYTEST_ARGS")]
    pub(crate) pytest_args: Vec<String>,
}

/// `--mutants`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Mutants {
    On,
    Off,
}

/// Runs the gate and maps the outcome to the exit status once: 0 approve (or a shard that
/// ran), 1 reject, 2 for every error, printed as one line.
pub fn main(args: Args) -> ExitCode {
    if let Some(rule) = &args.explain {
        return lane_core::cli::run(TOOL, || lane_core::cli::explain(rule));
    }
    if let Some(what) = args.generate {
        return lane_core::cli::run(TOOL, || lane_core::cli::generate(Args::command(), what));
    }
    let outcome = if args.list {
        shard::list(&args)
    } else if !args.collect.is_empty() {
        collect::collect(&args)
    } else {
        gate::run(&args)
    };
    match outcome {
        Ok(status) => status.into(),
        Err(e) => {
            eprintln!("{TOOL}: error: {e}");
            Status::Failure.into()
        }
    }
}

/// This tool's detectors, as the rule registry lists them (lane-gate's `rule_registry` test).
pub fn registry() -> Vec<lane_core::detector::Registered> {
    rules::registry()
}
