//! The vote across shards (issue 21): every report's run manifest (its `<testsuite>` name,
//! [`lane_core::manifest`]) checked against the document the vote reads, and the shards of each
//! lane against each other.
//!
//! - `stale-report`: a manifest naming another document's digest, for another lane, malformed,
//!   several manifests in one file, or none where the document was made by lane-gate (it has a
//!   `run` section, so every report it asked for carries one).
//! - `missing-shard`: shard K of N of a lane with tests has no report.
//! - `conflicting-shard`: one shard of a lane reported twice with different outcomes, shards
//!   that disagree on N, or one test answered by two shards.
//!
//! Reports without a manifest, given with a document that has no `run` section (the plain
//! pipeline of DESIGN.md §2), are not bound to anything and are counted as before.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use lane_core::manifest::{self, Manifest};
use lane_core::paths::display_name;
use lane_core::scan::{Lane, ScanTest};
use lane_core::{Document, Error, Problem, Rule};
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

/// What the shard checks found.
#[derive(Debug, Default)]
pub struct ShardFacts {
    pub problems: Vec<Problem>,
    pub counts: Vec<ShardCounts>,
    /// Reports that do not vote (indices into the reports): stale ones, and a shard's second
    /// report with the same outcomes as its first (a re-upload counts once).
    pub ignored: Vec<usize>,
}

/// At most this many tests are named one by one as answered by two shards (per lane); the
/// rest are counted in one more problem.
const NAMED_TWICE: usize = 20;

fn short(digest: &str) -> &str {
    &digest[..digest.len().min(12)]
}

/// Checks every report's manifest and the shards of each lane. `tallies` are the reports read,
/// in `options.reports` order.
pub fn check(
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
    let digest = manifest::evidence_digest(doc)?;
    let name_of = |r: &Report| display_name(rootdir, Path::new(&r.path));
    let stale = |report: &Report, why: String| {
        Problem::new(
            Rule::StaleReport,
            format!("{} ({} lane): {why}", name_of(report), report.lane),
        )
        .file(name_of(report))
    };

    // The reports that answer this document, with their manifests.
    let mut valid: Vec<(usize, Manifest)> = Vec::new();
    for (i, (report, tally)) in reports.iter().zip(tallies).enumerate() {
        let found: Vec<Result<Manifest, String>> = tally
            .suites
            .iter()
            .filter_map(|s| Manifest::parse(s))
            .collect();
        let m = match &found[..] {
            [] if bound => {
                facts.problems.push(stale(
                    report,
                    "carries no run manifest (no <testsuite> named 'lanes-run ...'): it was not \
                     written by a run of this evidence document"
                        .to_string(),
                ));
                continue;
            }
            [] => continue,
            [Err(why)] => {
                facts
                    .problems
                    .push(stale(report, format!("malformed run manifest: {why}")));
                continue;
            }
            [Ok(m)] => m.clone(),
            more => {
                facts.problems.push(stale(
                    report,
                    format!(
                        "holds {} run manifests (reports of several runs merged into one \
                         file): give each shard's report on its own",
                        more.len()
                    ),
                ));
                continue;
            }
        };
        if m.lane != report.lane {
            facts.problems.push(stale(
                report,
                format!(
                    "its run manifest says it is the {} lane's report (shard {}/{})",
                    m.lane, m.shard, m.of
                ),
            ));
            continue;
        }
        if m.evidence != digest {
            facts.problems.push(stale(
                report,
                format!(
                    "answers evidence document {}, but the vote reads {}: a report from another \
                     scan or an earlier run",
                    short(&m.evidence),
                    short(&digest)
                ),
            ));
            continue;
        }
        valid.push((i, m));
    }
    // Every report that carries a problem above (a stale one) does not vote.
    for (i, tally) in tallies.iter().enumerate() {
        let has_manifest = valid.iter().any(|(j, _)| *j == i);
        let unbound = !bound && tally.suites.iter().all(|s| Manifest::parse(s).is_none());
        if !has_manifest && !unbound {
            facts.ignored.push(i);
        }
    }
    if valid.is_empty() {
        return Ok(facts);
    }

    // N: the shard count every manifest should agree on.
    let totals: BTreeSet<u32> = valid.iter().map(|(_, m)| m.of).collect();
    let of = totals.iter().copied().max().unwrap_or(1);
    if totals.len() > 1 {
        let names: Vec<String> = totals.iter().map(|n| n.to_string()).collect();
        facts.problems.push(Problem::new(
            Rule::ConflictingShard,
            format!(
                "the reports were split into different numbers of shards ({}): the shard jobs \
                 did not run one split",
                names.join(", ")
            ),
        ));
    }

    for lane in Lane::ALL {
        let lane_tests = tests.iter().filter(|t| t.lane == Some(lane)).count();
        let mut by_shard: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, m) in valid.iter().filter(|(_, m)| m.lane == lane) {
            by_shard.entry(m.shard).or_default().push(*i);
        }
        if lane_tests > 0 {
            for k in 1..=of {
                if !by_shard.contains_key(&k) {
                    facts.problems.push(Problem::new(
                        Rule::MissingShard,
                        format!(
                            "the {lane} lane's shard {k}/{of} has no report: its tests did not \
                             vote"
                        ),
                    ));
                }
            }
        }
        for (k, files) in &by_shard {
            if files.len() < 2 {
                continue;
            }
            let first = outcomes(&tallies[files[0]]);
            for &other in &files[1..] {
                if outcomes(&tallies[other]) == first {
                    facts.ignored.push(other);
                } else {
                    facts.problems.push(Problem::new(
                        Rule::ConflictingShard,
                        format!(
                            "the {lane} lane's shard {k}/{of} was reported twice with different \
                             outcomes ({} and {}): keep one attempt's report",
                            name_of(&reports[files[0]]),
                            name_of(&reports[other])
                        ),
                    ));
                }
            }
        }
        answered_once(lane, &by_shard, tallies, tests, of, &mut facts.problems);
    }

    for (i, m) in &valid {
        let mut c = ShardCounts {
            cases: 0,
            errors: 0,
            failed: 0,
            lane: m.lane,
            of: m.of,
            passed: 0,
            report: name_of(&reports[*i]),
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
        facts.counts.push(c);
    }
    let order = |l: Lane| Lane::ALL.iter().position(|&x| x == l);
    facts.counts.sort_by(|a, b| {
        (order(a.lane), a.shard, &a.report).cmp(&(order(b.lane), b.shard, &b.report))
    });
    Ok(facts)
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

/// Every test of the lane answered by at most one shard (missing ones are `missing-vote`); an
/// ignored report (a re-upload with the same outcomes) answers nothing more.
fn answered_once(
    lane: Lane,
    by_shard: &BTreeMap<u32, Vec<usize>>,
    tallies: &[ReportTally],
    tests: &[ScanTest],
    of: u32,
    problems: &mut Vec<Problem>,
) {
    const NONE: u32 = 0;
    let mut shard_of: Vec<u32> = vec![NONE; tests.len()];
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
    for (&test, shards) in twice.iter().take(NAMED_TWICE) {
        let t = &tests[test as usize];
        let names: Vec<String> = shards.iter().map(|k| format!("{k}/{of}")).collect();
        problems.push(
            Problem::new(
                Rule::ConflictingShard,
                format!(
                    "answered by the {lane} lane's shards {}: each test belongs to one shard of \
                     one split",
                    names.join(" and ")
                ),
            )
            .at(t.file.clone(), t.line)
            .test(t.id.clone()),
        );
    }
    if twice.len() > NAMED_TWICE {
        problems.push(Problem::new(
            Rule::ConflictingShard,
            format!(
                "{} more tests of the {lane} lane were answered by more than one shard",
                twice.len() - NAMED_TWICE
            ),
        ));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::path::PathBuf;

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
