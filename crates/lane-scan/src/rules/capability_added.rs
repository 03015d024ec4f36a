//! `capability-added`: product code the patch added or changed that does more than plain
//! computation (lane-python's `capability` finds each use, with its class, from the table of
//! plain uses). Judged on the lines a patch changed (an error) or, without a base, on every
//! product file (a warning). One problem per function, listing each use's line and class. A
//! third-party module is plain only when the base's product code already imports it.

use std::collections::BTreeMap;

use lane_core::detector::Detector;
use lane_core::{Problem, Rule, Severity};
use lane_python::capability::{Found, Use};

use super::{Scan, ScanFacts};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::CapabilityAdded],
    check,
};

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Product(p) = facts else { return };
    let touched = |u: &Use| match p.changed {
        None => true,
        Some(ranges) => ranges.iter().any(|&(c, d)| u.first <= d && c <= u.last),
    };
    let mut by_scope: BTreeMap<&str, Vec<(u64, String)>> = BTreeMap::new();
    for u in p.uses.iter().filter(|u| touched(u)) {
        let class = match &u.found {
            Found::Capability(c) => c.name().to_string(),
            Found::ThirdParty(top) => {
                if p.base_imports.is_some_and(|b| b.contains(top)) {
                    continue;
                }
                format!("a third-party module the base does not import ({top})")
            }
        };
        by_scope
            .entry(u.scope.as_str())
            .or_default()
            .push((u.first, format!("line {} {class}: {}", u.first, u.what)));
    }
    let rel = p.file;
    let mut found: Vec<(u64, Problem)> = Vec::new();
    for (scope, mut list) in by_scope {
        list.sort();
        list.dedup();
        let line = list[0].0;
        let whose = if scope.is_empty() {
            "module-level code".to_string()
        } else {
            format!("`{scope}`")
        };
        let uses: Vec<String> = list.into_iter().map(|(_, s)| s).collect();
        let mut problem = Problem::new(
            Rule::CapabilityAdded,
            format!(
                "{rel}:{line}: {whose} does more than plain computation, for a maintainer to \
                 read: {}",
                uses.join("; ")
            ),
        )
        .at(rel, line);
        if p.changed.is_none() {
            problem = problem.severity(Severity::Warning);
        }
        found.push((line, problem));
    }
    found.sort_by_key(|(line, _)| *line);
    problems.extend(found.into_iter().map(|(_, p)| p));
}
