//! Against the base's scan (`lane-lock diff --base-scan`): `witness-test-removed` (a witness
//! test of the base is gone or left the lane) and `witness-fixture-changed` (its `fixture=`
//! differs from the base's).

use std::collections::{BTreeMap, BTreeSet};

use lane_core::detector::Detector;
use lane_core::scan::{Lane, ScanTest};
use lane_core::{Problem, Rule};

use super::{Lock, LockFacts};
use crate::diff::DiffFacts;

pub(crate) const DETECTOR: Detector<Lock> = Detector {
    rules: &[Rule::WitnessTestRemoved, Rule::WitnessFixtureChanged],
    check,
};

fn check(facts: &LockFacts<'_>, problems: &mut Vec<Problem>) {
    if let LockFacts::Diff(facts) = facts {
        problems.extend(witness_tests_kept(facts));
    }
}

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

fn witness_tests_kept(facts: &DiffFacts<'_>) -> Vec<Problem> {
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
