//! `domain-changed` (`--base`): a merge test in both trees whose recorded domain (the
//! `@given` arguments, its `assume()` calls, its effective hypothesis settings) differs from the
//! base's, or that asserted something in the base and asserts nothing now. `--reason`
//! acknowledges it: it stays, as a warning.

use std::collections::{BTreeSet, HashMap, HashSet};

use lane_core::detector::Detector;
use lane_core::scan::{Attachments, Lane, ScanSection, ScanTest};
use lane_core::{Problem, Rule, Severity};

use super::{Tally, TallyFacts};

pub(crate) const DETECTOR: Detector<Tally> = Detector {
    rules: &[Rule::DomainChanged],
    check,
};

fn check(facts: &TallyFacts<'_>, problems: &mut Vec<Problem>) {
    let Some(base) = facts.base else {
        return;
    };
    let base_by_id: HashMap<&str, &ScanTest> = base
        .tests_in(Lane::Merge)
        .map(|t| (t.id.as_str(), t))
        .collect();
    let base_silent = no_assertion(Some(base));
    let head_silent = no_assertion(facts.scan);
    for new in facts.tests.iter().filter(|t| t.lane == Some(Lane::Merge)) {
        let Some(old) = base_by_id.get(new.id.as_str()) else {
            continue;
        };
        let mut changes = changes(&old.attachments, &new.attachments);
        if head_silent.contains(new.id.as_str()) && !base_silent.contains(new.id.as_str()) {
            changes.push("it asserted something in the base and asserts nothing now".into());
        }
        if changes.is_empty() {
            continue;
        }
        let message = format!(
            "merge test's domain changed from the base: {}",
            changes.join("; ")
        );
        let p = super::at(new, Problem::new(Rule::DomainChanged, message));
        problems.push(match facts.reason {
            Some(r) => Problem {
                message: format!("{} (acknowledged: {r})", p.message),
                ..p.severity(Severity::Warning)
            },
            None => p,
        });
    }
}

/// The ids of the tests a scan section reports `no-assertion` for.
fn no_assertion(scan: Option<&ScanSection>) -> HashSet<&str> {
    scan.map(|s| {
        s.problems
            .iter()
            .filter(|p| p.rule == Rule::NoAssertion.id())
            .filter_map(|p| p.test.as_deref())
            .collect()
    })
    .unwrap_or_default()
}

/// What differs between two domains, one phrase each, in a fixed order.
fn changes(old: &Attachments, new: &Attachments) -> Vec<String> {
    let mut out = Vec::new();
    if old.domain != new.domain {
        let show = |d: &Option<String>| {
            d.as_deref()
                .map_or("none".to_string(), |d| format!("`{d}`"))
        };
        out.push(format!(
            "@given arguments {} -> {}",
            show(&old.domain),
            show(&new.domain)
        ));
    }
    if old.assumes != new.assumes {
        let before: BTreeSet<&String> = old.assumes.iter().collect();
        let after: BTreeSet<&String> = new.assumes.iter().collect();
        let added: Vec<String> = after
            .difference(&before)
            .map(|a| format!("`{a}`"))
            .collect();
        let removed: Vec<String> = before
            .difference(&after)
            .map(|a| format!("`{a}`"))
            .collect();
        if !added.is_empty() {
            out.push(format!("assume() added: {}", added.join(", ")));
        }
        if !removed.is_empty() {
            out.push(format!("assume() removed: {}", removed.join(", ")));
        }
        if added.is_empty() && removed.is_empty() {
            out.push(format!(
                "assume() calls {} -> {}",
                old.assumes.len(),
                new.assumes.len()
            ));
        }
    }
    let keys: BTreeSet<&String> = old.settings.keys().chain(new.settings.keys()).collect();
    for k in keys {
        let (a, b) = (old.settings.get(k), new.settings.get(k));
        if a != b {
            let show = |v: Option<&String>| v.map_or("unset".to_string(), |v| format!("`{v}`"));
            out.push(format!("settings {k} {} -> {}", show(a), show(b)));
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn attachments(domain: &str, assumes: &[&str], settings: &[(&str, &str)]) -> Attachments {
        Attachments {
            domain: Some(domain.to_string()),
            assumes: assumes.iter().map(|a| a.to_string()).collect(),
            settings: settings
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Attachments::default()
        }
    }

    #[test]
    fn each_kind_of_change_is_named() {
        let base = attachments("x=st.integers()", &[], &[("max_examples", "200")]);
        assert_eq!(changes(&base, &base.clone()), Vec::<String>::new());
        let narrowed = attachments("x=st.integers(0, 5)", &[], &[("max_examples", "200")]);
        assert_eq!(
            changes(&base, &narrowed),
            ["@given arguments `x=st.integers()` -> `x=st.integers(0, 5)`"]
        );
        let filtered = attachments("x=st.integers()", &["x > 0"], &[("max_examples", "200")]);
        assert_eq!(changes(&base, &filtered), ["assume() added: `x > 0`"]);
        let fewer = attachments("x=st.integers()", &[], &[("max_examples", "5")]);
        assert_eq!(
            changes(&base, &fewer),
            ["settings max_examples `200` -> `5`"]
        );
        let unset = attachments("x=st.integers()", &[], &[]);
        assert_eq!(
            changes(&base, &unset),
            ["settings max_examples `200` -> unset"]
        );
    }
}
