//! One gate run, as a sequence of named steps, each a function of typed inputs and outputs:
//!
//! 1. [`prepare`]: the arguments, the out folder, a temporary folder, the interpreter;
//! 2. [`evidence`]: the trees' scans, lock verification and ledger check (with `--base`: the
//!    base's checkout, the classification of the patch, the vote tree, the edit reviews);
//! 3. [`plan`]: the plugins, the seed, the environment, the watched files, the run manifest;
//! 4. [`lanes`]: the three lanes' pytest runs (one process, or one per lane);
//! 5. [`after`]: the checks after the runs (bytes that moved, files written meanwhile, the
//!    changed product lines no voter ran), then the candidates (the patch's own new tests, never counted);
//! 6. the evidence and manifest written, then [`crate::tally`]: lane-tally's vote;
//! 7. [`crate::publish`]: the verdict files and what is printed, shared with `--collect`.

mod after;
mod based;
mod candidates;
mod classify;
mod evidence;
mod lanes;
mod plan;
mod prepare;
mod review;

use std::path::Path;

use lane_core::{Document, Problem, Status};

use crate::publish::{self, Verdict};
use crate::section::{self, GateSection};
use crate::{Args, GateError, TOOL, ack, tally};
use candidates::CandidateRun;
use evidence::Evidence;
use lanes::{LaneRuns, LaneSetup};
use plan::Plan;
use prepare::Prepared;

pub(crate) use prepare::Places;

pub(crate) fn write(path: &Path, bytes: &[u8]) -> Result<(), GateError> {
    lane_core::io::atomic_write(path, bytes).map_err(GateError::from)
}

/// The gate: every step in order. A `--shard` run stops after writing its evidence and
/// manifest; the verdict then comes from `--collect`.
pub(crate) fn run(args: &Args) -> Result<Status, GateError> {
    let prepared = prepare::prepare(args)?;
    let mut evidence = evidence::gather(args, &prepared)?;
    let plan = plan::plan(
        args,
        &prepared.python,
        &prepared.places,
        prepared.today.date,
        &mut evidence,
    )?;
    let lanes_began = std::time::Instant::now();
    let mut lanes = lanes::run_lanes(&LaneSetup {
        shard: &plan.shard,
        setup: &plan.setup,
        vote_root: &evidence.vote_root,
        places: &prepared.places,
        together: !crate::together::separate_requested(),
        timeout_secs: args.lane_timeout,
        product_dirs: &plan.product_dirs,
    })?;
    let lanes_took = lanes_began.elapsed();
    if let Some(why) = lanes.could_not_run(&prepared.places, &prepared.python.command) {
        return Err(GateError::PytestCouldNotRun(why));
    }
    crate::capture::write(&prepared.places.out, plan.seed.value, &mut lanes.captured)?;
    let mut after = after::check(&evidence.doc, &evidence.vote_root, &plan.watched)?;
    let (unexercised, exercised) = after::exercised(
        &prepared.python.command,
        &evidence.vote_root,
        &plan.setup,
        &lanes.reports_dir,
    )?;
    after.extend(unexercised);
    after.extend(after::mutants(
        args,
        &evidence.vote_root,
        &plan.setup,
        exercised.as_ref(),
        &prepared.places.tmp.join("mutants"),
        lanes_took,
        lanes.voters_passed(),
    )?);
    plan.watched.writable_again();
    let candidates = run_candidates(&prepared, &evidence, &plan, &lanes)?;
    let ran = Ran {
        lanes,
        after,
        candidates,
    };
    let ack = prepared.ack.as_deref();
    let mut gate = gate_section(ack, prepared.interpreter_info(), &evidence, &plan, &ran);
    if let Some(ignored) = &prepared.ack_ignored {
        gate.problems.push(ignored.clone());
        lane_core::problem::normalize(&mut gate.problems);
    }
    let mut doc = evidence.doc;
    gate.accepted.extend(evidence.accept.take_from(&mut doc)?);
    lane_core::problem::normalize(&mut gate.accepted);
    let doc = record(doc, &gate, ack, &prepared.places.out, &plan)?;
    if plan.shard.is_shard() {
        eprint!(
            "{}",
            plan.shard.shard_summary(&gate, plan.shard.others_count())
        );
        return Ok(Status::Clean);
    }
    let options = lane_tally::Options {
        reports: ran.lanes.reports,
        rootdir: evidence.vote_root,
        base: evidence.base_doc,
        reason: prepared.ack.clone(),
    };
    let mut tally = tally::vote(&doc, &options, Vec::new(), ack)?;
    let mut doc = doc;
    let from_tally = evidence.accept.take(&mut tally.problems);
    if !from_tally.is_empty() {
        gate.accepted.extend(from_tally);
        lane_core::problem::normalize(&mut gate.accepted);
        // Only the list changes: the recorded section keeps what the acknowledgment made of it.
        if let Some(mut recorded) = doc.section(section::SECTION) {
            recorded["accepted"] =
                serde_json::to_value(&gate.accepted).map_err(|source| GateError::Encode {
                    what: "the gate section".into(),
                    source,
                })?;
            doc.set_section(section::SECTION, &recorded);
        }
    }
    let mut appendix = gate.markdown();
    if let Some(note) = gate.intended_change(&tally.reasons) {
        appendix.insert_str(0, &note);
    }
    let verdict = Verdict::new(doc, tally, &appendix)?;
    let full = prepared.places.out_name("verdict.md");
    let format = lane_core::cli::format_for_stdout(args.format, lane_core::cli::Format::Markdown);
    publish::publish(&prepared.places.out, &full, format, verdict)?.print()
}

/// What the runs gave: the lanes, the checks after them, the candidates.
struct Ran {
    lanes: LaneRuns,
    after: Vec<Problem>,
    candidates: Option<CandidateRun>,
}

/// The patch's new or changed tests, in its own tree, when it has any and this run is the
/// first (or only) shard.
fn run_candidates(
    p: &Prepared,
    evidence: &Evidence,
    plan: &Plan,
    lanes: &LaneRuns,
) -> Result<Option<CandidateRun>, GateError> {
    if evidence.candidates.is_empty() || plan.shard.shard != 1 {
        return Ok(None);
    }
    let places = &p.places;
    let mut setup = plan.setup.clone();
    setup.pythonpath = plan::run_pythonpath(&places.cwd)?;
    setup.pycache_prefix = Some(places.tmp.join("pycache"));
    setup.trace = None;
    candidates::run_candidates(
        &setup,
        &places.cwd,
        &evidence.candidates,
        &lanes.reports_dir,
        &places.out,
    )
    .map(Some)
}

/// The `gate` section: what each step decided and found.
fn gate_section(
    ack: Option<&str>,
    interpreter: section::InterpreterInfo,
    evidence: &Evidence,
    plan: &Plan,
    ran: &Ran,
) -> GateSection {
    let mut problems: Vec<Problem> = evidence.problems.clone();
    problems.extend(plan.problems.iter().cloned());
    problems.extend(ran.lanes.problems.iter().cloned());
    problems.extend(ran.after.iter().cloned());
    if let Some(c) = &ran.candidates {
        problems.extend(c.problems.iter().cloned());
    }
    lane_core::problem::normalize(&mut problems);
    let accepted = evidence.accept.take(&mut problems);
    GateSection {
        accepted,
        ack: ack.map(str::to_string),
        base: evidence.vote.base.clone(),
        candidates: ran.candidates.as_ref().map(|c| c.candidates.clone()),
        interpreter,
        lanes: ran.lanes.runs.clone(),
        plugins: plan.plugins.clone(),
        problems,
        seed: plan.seed.clone(),
        surface: evidence.vote.surface.clone(),
        tool: TOOL.into(),
        voting_tree: evidence.vote.voting_tree.into(),
    }
}

/// Writes the evidence (with the `gate` section, acknowledged) and the manifest into `out`.
fn record(
    mut doc: Document,
    gate: &GateSection,
    ack: Option<&str>,
    out: &Path,
    plan: &Plan,
) -> Result<Document, GateError> {
    doc.set_section(section::SECTION, gate);
    if let Some(text) = ack {
        ack::acknowledge_document(&mut doc, text)?;
    }
    write(&out.join("evidence.json"), &doc.to_bytes())?;
    plan.shard.write_manifest(out, gate)?;
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use lane_core::cli::Format;
    use lane_tally::Decision;

    use super::*;
    use crate::section::{InterpreterInfo, Seed};
    use crate::stand_in::{Scratch, StandIn, report};

    const INI: &str =
        "[pytest]\nmarkers =\n    merge: votes\n    witness: locked\n    freeze: flakes\n";
    const TEST: &str = "import pytest\n\nfrom product import double\n\n\n@pytest.mark.merge\n\
                        def test_m():\n    \"\"\"owner: team\"\"\"\n    assert double(2) == 4\n";

    /// A small project gated through the steps after `prepare` (which reads the process's
    /// folder): its evidence for real, the lanes answered by the stand-in (the merge test
    /// failing or not), up to the recorded evidence.
    struct Gated {
        scratch: Scratch,
        _pytest: StandIn,
        doc: Document,
        gate: GateSection,
        options: lane_tally::Options,
    }

    fn gated(merge_failed: bool) -> Gated {
        let scratch = Scratch::new();
        scratch
            .file("pytest.ini", INI)
            .file("product.py", "def double(x):\n    return 2 * x\n")
            .file("tests/test_a.py", TEST);
        let pytest = StandIn::new();
        pytest
            .answer(
                "merge",
                Some(&report(&[("test_m", merge_failed)])),
                i32::from(merge_failed),
            )
            .answer("witness", Some(&report(&[])), 5)
            .answer("freeze", Some(&report(&[])), 5);
        let today = jiff::civil::date(2026, 12, 1);
        let places = &scratch.places;
        let scan = lane_scan::Options {
            target: Some(lane_scan::python::Target {
                version: (3, 12, 1),
                platform: "linux".into(),
                implementation: "cpython".into(),
                builtin_modules: Vec::new(),
            }),
            ..Default::default()
        };
        let seed = Seed {
            from: "default".into(),
            value: Some(0),
            predictable: true,
        };
        let mut evidence = evidence::working_tree(
            &places.cwd,
            lane_core::clock::Today::pinned(today),
            &scan,
            &seed,
        )
        .unwrap();
        let python = prepare::interpreter(Some(pytest.python())).unwrap();
        let args = Args::try_parse_from(["lane-gate"]).unwrap();
        let plan = plan::plan(&args, &python, places, today, &mut evidence).unwrap();
        let lanes = lanes::run_lanes(&LaneSetup {
            shard: &plan.shard,
            setup: &plan.setup,
            vote_root: &evidence.vote_root,
            places,
            together: false,
            timeout_secs: 60,
            product_dirs: &plan.product_dirs,
        })
        .unwrap();
        let after = after::check(&evidence.doc, &evidence.vote_root, &plan.watched).unwrap();
        let ran = Ran {
            lanes,
            after,
            candidates: None,
        };
        let interpreter = InterpreterInfo {
            hypothesis: None,
            implementation: "cpython".into(),
            pytest: None,
            version: "3.12.1".into(),
        };
        let gate = gate_section(None, interpreter, &evidence, &plan, &ran);
        let doc = record(evidence.doc, &gate, None, &places.out, &plan).unwrap();
        let options = lane_tally::Options {
            reports: ran.lanes.reports,
            rootdir: evidence.vote_root,
            base: None,
            reason: None,
        };
        Gated {
            scratch,
            _pytest: pytest,
            doc,
            gate,
            options,
        }
    }

    #[test]
    fn the_steps_chain_into_a_verdict() {
        for merge_failed in [false, true] {
            let g = gated(merge_failed);
            assert!(g.gate.problems.is_empty(), "{:?}", g.gate.problems);
            // the evidence and the manifest are recorded before the vote
            let recorded = Document::parse(g.scratch.out("evidence.json").as_bytes(), "e").unwrap();
            assert!(recorded.has_section(section::SECTION));
            let manifest: serde_json::Value =
                serde_json::from_str(&g.scratch.out("manifest.json")).unwrap();
            let merge_xml = g.scratch.places.out.join("merge.xml");
            assert_eq!(
                manifest["lanes"]["merge"]["sha256"],
                lane_core::io::sha256_file(&merge_xml).unwrap().0
            );
            let tally = tally::vote(&g.doc, &g.options, Vec::new(), None).unwrap();
            let reasons: Vec<String> = tally.reasons.iter().map(|p| p.rule.clone()).collect();
            let verdict = Verdict::new(g.doc, tally, &g.gate.markdown()).unwrap();
            let published = publish::publish(
                &g.scratch.places.out,
                "verdict.md",
                Format::Markdown,
                verdict,
            )
            .unwrap();
            let md = g.scratch.out("verdict.md");
            assert!(md.contains("### lane-gate: the working tree's tests voted (no --base)"));
            assert_eq!(g.scratch.out("comment.md"), md);
            if merge_failed {
                assert_eq!(published.status, Status::Findings);
                assert_eq!(reasons, ["merge-failed"]);
            } else {
                assert_eq!(published.status, Status::Clean, "{reasons:?}");
            }
        }
    }

    #[test]
    fn the_gate_s_own_reasons_reject_and_an_acknowledgment_lifts_those_it_covers() {
        let g = gated(false);
        let stale = Problem::new(lane_core::Rule::StaleReport, "merge.xml: replaced");
        let tally = tally::vote(&g.doc, &g.options, vec![stale], None).unwrap();
        assert_eq!(tally.decision, Decision::Reject);
        assert_eq!(tally.reasons.len(), 1);
        assert!(tally.problems.iter().any(|p| p.rule == "stale-report"));
        // an acknowledgment covers review rules only
        let review = Problem::new(lane_core::Rule::TestSurfaceChanged, "changed test surface");
        let tally = tally::vote(
            &g.doc,
            &g.options,
            vec![review.clone()],
            Some("ok by @lead"),
        )
        .unwrap();
        assert_eq!(tally.decision, Decision::Approve, "{:?}", tally.reasons);
        let lifted = tally
            .problems
            .iter()
            .find(|p| p.rule == review.rule)
            .unwrap();
        assert!(!lifted.is_error());
        assert!(lifted.message.ends_with("(acknowledged: ok by @lead)"));
        let stale = Problem::new(lane_core::Rule::StaleReport, "merge.xml: replaced");
        let tally = tally::vote(&g.doc, &g.options, vec![stale], Some("ok by @lead")).unwrap();
        assert_eq!(tally.decision, Decision::Reject);
    }
}
