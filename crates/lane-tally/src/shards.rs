//! The vote across shards: every report's run manifest (its `<testsuite>` name,
//! [`lane_core::manifest`]) read against the document the vote reads, and the shards of each
//! lane side by side. These are facts: which reports answer this document and vote, which
//! shard each one is, and which tests two shards answered. The rule files `stale_report`,
//! `missing_shard` and `conflicting_shard` judge them.
//!
//! Reports without a manifest, given with a document that has no `run` section (the plain
//! pipeline of DESIGN.md §2), are not bound to anything and are counted as before.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use lane_core::manifest::{self, Manifest};
use lane_core::paths::display_name;
use lane_core::scan::{Lane, ScanTest};
use lane_core::{Document, Error};
use serde::{Deserialize, Serialize};

use crate::junit::Outcome;
use crate::reports::{NO_TEST, ReportTally};
use crate::vote::Report;

/// One shard's report in the tally section: which shard of which lane, and its own cases
/// (every case of the file, before folding).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardCounts {
    pub cases: u64,
    pub errors: u64,
    pub failed: u64,
    pub lane: Lane,
    /// Number of shards.
    pub of: u32,
    pub passed: u64,
    /// The report file (as the section's `reports` name it).
    pub report: String,
    /// 1-based shard index.
    pub shard: u32,
    pub skipped: u64,
}

/// What one report's run manifests say it answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Binding {
    /// No manifest, and the document asks for none: counted as before.
    Unbound,
    /// No manifest, though the document was made by lane-gate (it has a `run` section).
    NoManifest,
    /// Its one manifest cannot be read: why.
    Malformed(String),
    /// This many manifests (reports of several runs merged into one file).
    Several(usize),
    /// Its manifest names another lane than the one the report was given for.
    OtherLane(Manifest),
    /// Its manifest names another evidence document than the one the vote reads.
    OtherDocument(Manifest),
    /// Its manifest answers this document, for its lane.
    Answers(Manifest),
}

/// One report as the manifests bind it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BoundReport {
    /// As the section's `reports` name it.
    pub name: String,
    /// The lane it was given for.
    pub lane: Lane,
    pub binding: Binding,
}

/// One shard of a lane reported again (`other` after `first`, indices into the reports).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Repeat {
    pub shard: u32,
    pub first: usize,
    pub other: usize,
    /// Both reports hold the same outcomes (a re-upload).
    pub same: bool,
}

/// One lane's shards among the reports that answer the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LaneShards {
    pub lane: Lane,
    /// The lane's scanned tests.
    pub tests: usize,
    /// The shards that have a report (K of N).
    pub reported: BTreeSet<u32>,
    pub repeats: Vec<Repeat>,
    /// Per scanned test answered by more than one shard, every shard that answered it.
    pub twice: BTreeMap<u32, BTreeSet<u32>>,
}

/// What the reports' run manifests and the shards showed.
#[derive(Debug, Default)]
pub(crate) struct ShardFacts {
    /// Every report, in the reports' order, with what its manifests say; empty when no
    /// report carries a manifest and the document has no `run` section.
    pub(crate) reports: Vec<BoundReport>,
    /// The digest of the document the vote reads (with `bindings`).
    pub(crate) digest: String,
    /// Every N the reports that answer the document were split into.
    pub(crate) splits: BTreeSet<u32>,
    /// The number of shards: the largest of `splits`.
    pub(crate) of: u32,
    /// Per lane (`Lane::ALL` order) when some report answers the document.
    pub(crate) lanes: Vec<LaneShards>,
    pub(crate) counts: Vec<ShardCounts>,
    /// Reports that do not vote (indices into the reports): those not bound to this document
    /// by a manifest that answers it, and a shard's second report with the same outcomes as
    /// its first (a re-upload counts once).
    pub(crate) ignored: Vec<usize>,
}

/// What the manifests of a report (its suites' names) say it answers.
fn binding(report: &Report, tally: &ReportTally, bound: bool, digest: &str) -> Binding {
    let found: Vec<Result<Manifest, String>> = tally
        .suites
        .iter()
        .filter_map(|s| Manifest::parse(s))
        .collect();
    match found.as_slice() {
        [] if bound => Binding::NoManifest,
        [] => Binding::Unbound,
        [Err(why)] => Binding::Malformed(why.clone()),
        [Ok(m)] if m.lane != report.lane => Binding::OtherLane(m.clone()),
        [Ok(m)] if m.evidence != digest => Binding::OtherDocument(m.clone()),
        [Ok(m)] => Binding::Answers(m.clone()),
        more => Binding::Several(more.len()),
    }
}

/// Reads every report's manifest and the shards of each lane. `tallies` are the reports read,
/// in `reports` order.
pub(crate) fn check(
    doc: &Document,
    reports: &[Report],
    rootdir: &Path,
    tallies: &[ReportTally],
    tests: &[ScanTest],
) -> Result<ShardFacts, Error> {
    let mut facts = ShardFacts::default();
    let bound = doc.has_section(manifest::RUN_SECTION);
    let any_manifest = tallies
        .iter()
        .any(|t| t.suites.iter().any(|s| Manifest::parse(s).is_some()));
    if !bound && !any_manifest {
        return Ok(facts);
    }
    facts.digest = manifest::evidence_digest(doc)?;
    for (report, tally) in reports.iter().zip(tallies) {
        facts.reports.push(BoundReport {
            name: display_name(rootdir, Path::new(&report.path)),
            lane: report.lane,
            binding: binding(report, tally, bound, &facts.digest),
        });
    }
    // The reports that answer this document, with their manifests; no other report votes.
    let mut valid: Vec<(usize, &Manifest)> = Vec::new();
    for (i, r) in facts.reports.iter().enumerate() {
        match &r.binding {
            Binding::Answers(m) => valid.push((i, m)),
            Binding::Unbound => {}
            _ => facts.ignored.push(i),
        }
    }
    if valid.is_empty() {
        return Ok(facts);
    }
    facts.splits = valid.iter().map(|(_, m)| m.of).collect();
    facts.of = facts.splits.iter().copied().max().unwrap_or(1);
    for lane in Lane::ALL {
        let shards = lane_shards(lane, &valid, tallies, tests);
        facts
            .ignored
            .extend(shards.repeats.iter().filter(|r| r.same).map(|r| r.other));
        facts.lanes.push(shards);
    }
    facts.counts = shard_counts(&valid, &facts.reports, tallies);
    Ok(facts)
}

/// The shards of `lane` among the reports that answer the document.
fn lane_shards(
    lane: Lane,
    valid: &[(usize, &Manifest)],
    tallies: &[ReportTally],
    tests: &[ScanTest],
) -> LaneShards {
    let mut by_shard: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, m) in valid.iter().filter(|(_, m)| m.lane == lane) {
        by_shard.entry(m.shard).or_default().push(*i);
    }
    let mut repeats = Vec::new();
    for (&shard, files) in &by_shard {
        let Some((&first, others)) = files.split_first() else {
            continue;
        };
        let outcomes_first = outcomes(&tallies[first]);
        for &other in others {
            repeats.push(Repeat {
                shard,
                first,
                other,
                same: outcomes(&tallies[other]) == outcomes_first,
            });
        }
    }
    LaneShards {
        lane,
        tests: tests.iter().filter(|t| t.lane == Some(lane)).count(),
        reported: by_shard.keys().copied().collect(),
        repeats,
        twice: answered_twice(&by_shard, tallies, tests.len()),
    }
}

/// A report's cases as a sorted set of (test, parameters, outcome, retry).
fn outcomes(tally: &ReportTally) -> Vec<(u32, u64, Outcome, bool)> {
    let mut v: Vec<(u32, u64, Outcome, bool)> = tally
        .occurrences
        .iter()
        .map(|o| (o.test, o.hash, o.outcome, o.retry))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Per test answered by more than one shard of the lane, every shard that answered it. A
/// re-upload of one shard answers nothing more.
fn answered_twice(
    by_shard: &BTreeMap<u32, Vec<usize>>,
    tallies: &[ReportTally],
    tests: usize,
) -> BTreeMap<u32, BTreeSet<u32>> {
    const NONE: u32 = 0;
    let mut shard_of: Vec<u32> = vec![NONE; tests];
    // test -> every shard beyond the first that answered it
    let mut twice: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for (&k, files) in by_shard {
        for &i in files {
            for o in &tallies[i].occurrences {
                if o.test == NO_TEST {
                    continue;
                }
                let slot = &mut shard_of[o.test as usize];
                if *slot == NONE {
                    *slot = k;
                } else if *slot != k {
                    twice.entry(o.test).or_default().extend([*slot, k]);
                }
            }
        }
    }
    twice
}

/// Every report that answers the document, with its own cases counted, in lane, shard and
/// name order.
fn shard_counts(
    valid: &[(usize, &Manifest)],
    reports: &[BoundReport],
    tallies: &[ReportTally],
) -> Vec<ShardCounts> {
    let mut counts: Vec<ShardCounts> = valid
        .iter()
        .map(|(i, m)| {
            let mut c = ShardCounts {
                cases: 0,
                errors: 0,
                failed: 0,
                lane: m.lane,
                of: m.of,
                passed: 0,
                report: reports[*i].name.clone(),
                shard: m.shard,
                skipped: 0,
            };
            for o in &tallies[*i].occurrences {
                c.cases += 1;
                match o.outcome {
                    Outcome::Passed => c.passed += 1,
                    Outcome::Failed => c.failed += 1,
                    Outcome::Error => c.errors += 1,
                    Outcome::Skipped | Outcome::XFail => c.skipped += 1,
                }
            }
            c
        })
        .collect();
    let order = |l: Lane| Lane::ALL.iter().position(|&x| x == l);
    counts.sort_by(|a, b| {
        (order(a.lane), a.shard, &a.report).cmp(&(order(b.lane), b.shard, &b.report))
    });
    counts
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::path::PathBuf;

    use lane_core::Problem;

    use super::*;
    use crate::vote::{Options, TallySection, tally};

    const T: [&str; 4] = [
        "t/test_a.py::test_1",
        "t/test_a.py::test_2",
        "t/test_b.py::test_3",
        "t/test_b.py::test_4",
    ];

    fn doc(bound: bool) -> Document {
        let tests: Vec<String> = T
            .iter()
            .map(|id| {
                let file = id.split("::").next().unwrap();
                format!(
                    r#"{{"id":"{id}","file":"{file}","line":3,"lane":"merge","lanes":["merge"],"marks":[],"parametrized":false,"attachments":{{}}}}"#
                )
            })
            .collect();
        let run = if bound {
            r#","run":{"tool":"lane-gate","today":"2026-12-01","problems":[]}"#
        } else {
            ""
        };
        let json = format!(
            r#"{{"version":1,"scan":{{"tool":"lane-scan","tests":[{}],"counts":{{"merge":4,"witness":0,"freeze":0,"unmarked":0}},"files":[],"problems":[]}},"lock":{{"problems":[]}},"ledger":{{"problems":[]}}{run}}}"#,
            tests.join(",")
        );
        Document::parse(json.as_bytes(), "doc").unwrap()
    }

    /// A report of `tests` (indices into T; `failed` fail) as shard k of n of `evidence`.
    fn xml(manifest: Option<(u32, u32, &str)>, tests: &[usize], failed: &[usize]) -> String {
        let name = manifest.map_or("pytest".to_string(), |(k, n, e)| {
            Manifest {
                lane: Lane::Merge,
                shard: k,
                of: n,
                evidence: e.to_string(),
            }
            .suite_name()
        });
        let cases: String = tests
            .iter()
            .map(|&i| {
                let (file, name) = T[i].split_once("::").unwrap();
                let class = file.trim_end_matches(".py").replace('/', ".");
                let body = if failed.contains(&i) {
                    "<failure message=\"x\"/>"
                } else {
                    ""
                };
                format!(r#"<testcase classname="{class}" name="{name}">{body}</testcase>"#)
            })
            .collect();
        format!(r#"<testsuites><testsuite name="{name}">{cases}</testsuite></testsuites>"#)
    }

    fn vote(name: &str, doc: &Document, reports: &[String]) -> TallySection {
        let dir =
            std::env::temp_dir().join(format!("lane-tally-shards-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut list = Vec::new();
        for (i, text) in reports.iter().enumerate() {
            let path: PathBuf = dir.join(format!("r{i}.xml"));
            std::fs::write(&path, text).unwrap();
            list.push(Report {
                lane: Lane::Merge,
                path: path.display().to_string(),
            });
        }
        let options = Options {
            reports: list,
            rootdir: dir.clone(),
            base: None,
            reason: None,
        };
        let section = tally(doc, &options).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        section
    }

    fn rules(s: &TallySection) -> Vec<String> {
        s.reasons.iter().map(|p| p.rule.clone()).collect()
    }

    #[test]
    fn shards_that_answer_the_document_vote_as_one_report() {
        let d = doc(true);
        let ev = manifest::evidence_digest(&d).unwrap();
        let one = vote("one", &d, &[xml(Some((1, 1, &ev)), &[0, 1, 2, 3], &[])]);
        let two = vote(
            "two",
            &d,
            &[
                xml(Some((1, 2, &ev)), &[0, 2], &[]),
                xml(Some((2, 2, &ev)), &[1, 3], &[]),
            ],
        );
        assert_eq!(one.decision, crate::Decision::Approve, "{:?}", rules(&one));
        assert_eq!(two.decision, crate::Decision::Approve, "{:?}", rules(&two));
        assert_eq!(one.lanes, two.lanes);
        let shards: Vec<(u32, u32, u64)> = two
            .shards
            .iter()
            .map(|c| (c.shard, c.of, c.cases))
            .collect();
        assert_eq!(shards, [(1, 2, 2), (2, 2, 2)]);
    }

    #[test]
    fn a_report_of_another_document_does_not_vote() {
        let d = doc(true);
        let other = "0".repeat(64);
        let s = vote(
            "stale",
            &d,
            &[xml(Some((1, 1, &other)), &[0, 1, 2, 3], &[])],
        );
        assert_eq!(
            rules(&s),
            [
                "stale-report",
                "missing-vote",
                "missing-vote",
                "missing-vote",
                "missing-vote"
            ]
        );
        assert!(
            s.reasons[0]
                .message
                .contains("answers evidence document 000000000000")
        );
        // no manifest at all, where the document requires one
        let s = vote("bare", &d, &[xml(None, &[0, 1, 2, 3], &[])]);
        assert!(rules(&s).contains(&"stale-report".to_string()));
        assert!(
            s.reasons
                .iter()
                .any(|p| p.message.contains("carries no run manifest"))
        );
        // a malformed one
        let mut text = xml(Some((1, 1, &other)), &[0, 1, 2, 3], &[]);
        text = text.replace(" v1 ", " v9 ");
        let s = vote("malformed", &d, &[text]);
        assert!(
            s.reasons
                .iter()
                .any(|p| p.message.contains("malformed run manifest"))
        );
    }

    #[test]
    fn without_a_run_section_a_report_without_manifest_counts_as_before() {
        let s = vote("plain", &doc(false), &[xml(None, &[0, 1, 2, 3], &[1])]);
        assert_eq!(rules(&s), ["merge-failed"]);
        assert!(s.shards.is_empty());
    }

    #[test]
    fn a_missing_shard_is_named() {
        let d = doc(true);
        let ev = manifest::evidence_digest(&d).unwrap();
        let s = vote("missing", &d, &[xml(Some((1, 3, &ev)), &[0, 3], &[])]);
        let missing: Vec<&str> = s
            .reasons
            .iter()
            .filter(|p| p.rule == "missing-shard")
            .map(|p| p.message.as_str())
            .collect();
        assert_eq!(
            missing,
            [
                "the merge lane's shard 2/3 has no report: its tests did not vote",
                "the merge lane's shard 3/3 has no report: its tests did not vote"
            ]
        );
    }

    #[test]
    fn a_shard_twice_conflicts_only_with_other_outcomes() {
        let d = doc(true);
        let ev = manifest::evidence_digest(&d).unwrap();
        let first = xml(Some((1, 2, &ev)), &[0, 2], &[]);
        let second = xml(Some((2, 2, &ev)), &[1, 3], &[]);
        // the same outcomes again: counted once, no rerun, no conflict
        let s = vote("same", &d, &[first.clone(), second.clone(), first.clone()]);
        assert_eq!(s.decision, crate::Decision::Approve, "{:?}", rules(&s));
        assert_eq!(s.lanes.merge.cases, 4);
        // a re-run with another outcome
        let again = xml(Some((1, 2, &ev)), &[0, 2], &[2]);
        let s = vote("other", &d, &[first.clone(), second.clone(), again]);
        assert!(rules(&s).contains(&"conflicting-shard".to_string()));
        assert!(rules(&s).contains(&"merge-failed".to_string()));
        // a test answered by two shards
        let both = xml(Some((2, 2, &ev)), &[0, 1, 3], &[]);
        let s = vote("both", &d, &[first, both]);
        let c: Vec<&Problem> = s
            .reasons
            .iter()
            .filter(|p| p.rule == "conflicting-shard")
            .collect();
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].test.as_deref(), Some(T[0]));
        // shards that disagree on N
        let s = vote(
            "n",
            &d,
            &[
                xml(Some((1, 2, &ev)), &[0, 2], &[]),
                xml(Some((2, 3, &ev)), &[1, 3], &[]),
            ],
        );
        assert!(s.reasons.iter().any(|p| p.rule == "conflicting-shard"
            && p.message.contains("different numbers of shards (2, 3)")));
    }
}
