//! Against the base's scan (`lane-lock diff --base-scan`, issue 16): `witness-test-removed`
//! (a witness test of the base is gone or left the lane), `witness-fixture-changed` (its
//! `fixture=` differs from the base's) and `orphan-lock` as an error (a HEAD lock entry that
//! no witness test names now, but a witness test of the base did).

use std::collections::{BTreeMap, BTreeSet};

use lane_core::scan::{Lane, ScanTest};
use lane_core::{Problem, Rule, Severity};

use crate::diff::DiffFacts;

fn at(test: &ScanTest, p: Problem) -> Problem {
    p.at(test.file.clone(), test.line).test(test.id.clone())
}

fn fixtures(test: &ScanTest) -> BTreeSet<&str> {
    test.attachments
        .fixtures
        .iter()
        .map(String::as_str)
        .collect()
}

fn shown(set: &BTreeSet<&str>) -> String {
    if set.is_empty() {
        "none".to_string()
    } else {
        set.iter().copied().collect::<Vec<_>>().join(", ")
    }
}

pub fn witness_tests_kept(facts: &DiffFacts<'_>) -> Vec<Problem> {
    let Some((base, head)) = facts.scans else {
        return Vec::new();
    };
    let head_by_id: BTreeMap<&str, &ScanTest> =
        head.tests.iter().map(|t| (t.id.as_str(), t)).collect();
    let mut out = Vec::new();
    for old in base.tests_in(Lane::Witness) {
        let Some(new) = head_by_id.get(old.id.as_str()) else {
            out.push(at(
                old,
                Problem::new(
                    Rule::WitnessTestRemoved,
                    format!(
                        "witness test of the base is gone from the change (it corroborated {})",
                        shown(&fixtures(old))
                    ),
                ),
            ));
            continue;
        };
        if new.lane != Some(Lane::Witness) {
            let now = match new.lane {
                Some(l) => format!("it is a {l} test now"),
                None => "it has no single lane now".to_string(),
            };
            out.push(at(
                new,
                Problem::new(
                    Rule::WitnessTestRemoved,
                    format!("witness test of the base left the witness lane: {now}"),
                ),
            ));
            continue;
        }
        let (was, is) = (fixtures(old), fixtures(new));
        if was != is {
            out.push(at(
                new,
                Problem::new(
                    Rule::WitnessFixtureChanged,
                    format!(
                        "fixture= was {} in the base and is {} now: review which bytes the \
                         witness corroborates",
                        shown(&was),
                        shown(&is)
                    ),
                ),
            ));
        }
    }
    out
}

pub fn orphaned_by_the_change(facts: &DiffFacts<'_>) -> Vec<Problem> {
    let Some((base, head)) = facts.scans else {
        return Vec::new();
    };
    let named_now: BTreeSet<&str> = head
        .tests_in(Lane::Witness)
        .flat_map(|t| t.attachments.fixtures.iter().map(String::as_str))
        .collect();
    let mut named_before: BTreeMap<&str, &str> = BTreeMap::new();
    for t in base.tests_in(Lane::Witness) {
        for f in &t.attachments.fixtures {
            named_before.entry(f.as_str()).or_insert(t.id.as_str());
        }
    }
    facts
        .head_entries
        .iter()
        .filter(|e| !named_now.contains(e.path.as_str()))
        .filter_map(|e| {
            let test = named_before.get(e.path.as_str())?;
            Some(
                Problem::new(
                    Rule::OrphanLock,
                    format!(
                        "{} is still locked but no witness test names it; the base's witness \
                         test {test} did: the change dropped the witness and kept its bytes",
                        e.path
                    ),
                )
                .severity(Severity::Error)
                .file(e.path.clone()),
            )
        })
        .collect()
}
