//! `report-contradicts-stream`: the run's JUnit report or exit status says something other than
//! the outcomes pytest reported over the bootstrap's channel (DESIGN §9.6).

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Gate, GateFacts};
use crate::trial::{TrialFacts, Went};

pub(crate) const DETECTOR: Detector<Gate> = Detector {
    rules: &[Rule::ReportContradictsStream],
    check,
};

/// How many contradicting cases a message names.
const SHOWN: usize = 3;

/// What the exit status and the channel's own records contradict.
fn status_contradictions(t: &TrialFacts) -> Vec<String> {
    let s = &t.stream;
    let mut found: Vec<String> = s.garbled.clone();
    if let Some(what) = &s.fatal {
        found.push(format!("the gate's bootstrap could not set up ({what})"));
    }
    let Some(code) = t.ended.code.filter(|_| !t.ended.timed_out) else {
        return found;
    };
    if !s.started {
        if matches!(code, 0 | 1 | 5) {
            found.push(format!(
                "exited {code}, but the gate's channel carried nothing of the run"
            ));
        }
        return found;
    }
    match s.end {
        Some(end) if end != code => found.push(format!(
            "exited {code}, but pytest's session ended with status {end}"
        )),
        None if code == 0 => found.push(
            "exited 0 before pytest's session ended (the bootstrap's last record is missing)"
                .into(),
        ),
        _ => {}
    }
    if let (Some(session), Some(end)) = (s.session, s.end)
        && session != end
    {
        found.push(format!(
            "pytest's session ended with status {session}, but pytest.main returned {end}"
        ));
    }
    found
}

/// What the report's cases contradict: a case pytest never reported, one better in the report
/// than pytest reported it, a failure the report lost.
fn case_contradictions(t: &TrialFacts) -> Vec<String> {
    let Some(report) = &t.report else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (key, &said) in report {
        let shown = format!("{}::{}", key.0, key.1);
        match t.stream.tests.get(key) {
            None if said != Went::Failed => found.push(format!(
                "the report has {shown}, which pytest never reported"
            )),
            Some((id, went)) if said < *went => found.push(format!(
                "{id} {} as pytest reported it, but the report says it {}",
                went.as_str(),
                said.as_str()
            )),
            _ => {}
        }
    }
    for (key, (id, went)) in &t.stream.tests {
        if *went == Went::Failed && !report.contains_key(key) {
            found.push(format!("{id} failed, but the report has no case of it"));
        }
    }
    found
}

fn check(facts: &GateFacts<'_>, problems: &mut Vec<Problem>) {
    let GateFacts::Trial(t) = facts else { return };
    let mut found = status_contradictions(t);
    found.extend(case_contradictions(t));
    if found.is_empty() {
        return;
    }
    let more = found.len().saturating_sub(SHOWN);
    let mut said = found.into_iter().take(SHOWN).collect::<Vec<_>>().join("; ");
    if more > 0 {
        said.push_str(&format!("; and {more} more"));
    }
    problems.push(Problem::new(
        Rule::ReportContradictsStream,
        format!(
            "{}: {said}. Code inside the run rewrote the evidence, and the run does not vote",
            t.run
        ),
    ));
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::BTreeMap;

    use crate::pytest::Ended;
    use crate::rules::{GateFacts, check};
    use crate::trial::{TrialFacts, Went, read};

    const PASSED: &str =
        r#"{"k":"report","id":"t/test_a.py::test_x","when":"call","outcome":"passed"}"#;
    const FAILED: &str =
        r#"{"k":"report","id":"t/test_a.py::test_x","when":"call","outcome":"failed"}"#;

    /// What the rule says of a run that exited `code`, whose channel carried `records` and whose
    /// report says `test_x` went `said` (None: no case of it).
    fn judged(code: i32, records: &[String], said: Option<Went>) -> Vec<String> {
        let bytes = records.join("\n");
        let mut report = BTreeMap::new();
        if let Some(went) = said {
            report.insert(("t.test_a".to_string(), "test_x".to_string()), went);
        }
        let facts = TrialFacts {
            run: "the merge lane's pytest run".into(),
            ended: Ended {
                code: Some(code),
                timed_out: false,
            },
            stream: read(bytes.as_bytes()),
            report: Some(report),
            foreign: Vec::new(),
        };
        check(&GateFacts::Trial(&facts))
            .into_iter()
            .map(|p| p.message)
            .collect()
    }

    const START: &str = r#"{"k":"start","pid":7}"#;
    const END_0: &[&str] = &[r#"{"k":"session","status":0}"#, r#"{"k":"end","status":0}"#];
    const END_1: &[&str] = &[r#"{"k":"session","status":1}"#, r#"{"k":"end","status":1}"#];

    /// A run's channel: the start record, `records`, then `end`.
    fn run(records: &[&str], end: &[&str]) -> Vec<String> {
        let mut all = vec![START];
        all.extend(records);
        all.extend(end);
        all.into_iter().map(String::from).collect()
    }

    #[test]
    fn an_honest_run_agrees_with_its_channel() {
        assert!(judged(0, &run(&[PASSED], END_0), Some(Went::Passed)).is_empty());
        assert!(judged(1, &run(&[FAILED], END_1), Some(Went::Failed)).is_empty());
    }

    #[test]
    fn a_forged_report_or_exit_contradicts_the_channel() {
        let cases: &[(i32, Vec<String>, Option<Went>, &str)] = &[
            // the failure became a pass in the report
            (
                0,
                run(&[FAILED], END_1),
                Some(Went::Passed),
                "failed as pytest reported it",
            ),
            // a case pytest never reported
            (
                0,
                run(&[], END_0),
                Some(Went::Passed),
                "which pytest never reported",
            ),
            // the failing case was removed from the report
            (
                1,
                run(&[FAILED], END_1),
                None,
                "the report has no case of it",
            ),
            // exit 0 from a thread after the failure: no end record
            (
                0,
                run(&[FAILED], &[]),
                Some(Went::Failed),
                "before pytest's session ended",
            ),
            // an exit status other than the session's
            (
                0,
                run(&[FAILED], END_1),
                Some(Went::Failed),
                "ended with status 1",
            ),
            // a forged second record for the same phase
            (
                0,
                run(&[FAILED, PASSED], END_1),
                Some(Went::Failed),
                "a second call record",
            ),
            // the channel silenced
            (0, vec![], Some(Went::Passed), "carried nothing of the run"),
        ];
        for (code, records, said, expected) in cases {
            let got = judged(*code, records, *said);
            assert_eq!(got.len(), 1, "{expected}: {got:?}");
            assert!(got[0].contains(expected), "{expected}: {got:?}");
            assert!(
                got[0].starts_with("the merge lane's pytest run: "),
                "{got:?}"
            );
        }
    }
}
