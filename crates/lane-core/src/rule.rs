//! The rule catalogue: every rule id any lanes tool reports, with its severity, the tool that
//! reports it, a one-line summary and an explanation with the fix. `--explain RULE` on every
//! binary prints an entry; docs/evidence.md documents each id (a test keeps the two in step).

use crate::problem::Severity;

macro_rules! rules {
    ($( $variant:ident = $id:literal, $sev:ident, $tool:literal, $summary:literal, $explain:literal; )*) => {
        /// A rule id. `Rule::id()` is the kebab-case id written into documents.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rule { $( $variant, )* }

        impl Rule {
            pub const ALL: &'static [Rule] = &[ $( Rule::$variant, )* ];

            pub fn id(self) -> &'static str {
                match self { $( Rule::$variant => $id, )* }
            }

            /// The severity the rule reports with.
            pub fn severity(self) -> Severity {
                match self { $( Rule::$variant => Severity::$sev, )* }
            }

            /// The tool whose section carries this rule's problems.
            pub fn tool(self) -> &'static str {
                match self { $( Rule::$variant => $tool, )* }
            }

            pub fn summary(self) -> &'static str {
                match self { $( Rule::$variant => $summary, )* }
            }

            pub fn explanation(self) -> &'static str {
                match self { $( Rule::$variant => $explain, )* }
            }

            pub fn from_id(id: &str) -> Option<Rule> {
                match id { $( $id => Some(Rule::$variant), )* _ => None }
            }
        }
    };
}

rules! {
    // ---- lane-scan ----
    Unmarked = "unmarked", Error, "lane-scan",
        "a collected test has no lane",
        "Every test pytest collects must carry exactly one of the marks merge, witness or freeze. A test without a lane is not a default merge vote: the gate cannot know what it is evidence of. Fix: add @pytest.mark.merge (a property or a human-written oracle), @pytest.mark.witness (locked bytes) or @pytest.mark.freeze (a known flake with a ledger row), or delete the test.";
    MultipleLanes = "multiple-lanes", Error, "lane-scan",
        "more than one distinct lane reaches a test",
        "Lanes are exclusive. Marks from the function, its classes, base classes and pytestmark all reach a test; when two different lanes arrive the test would both vote and not vote. Fix: keep one lane, usually by moving the test out of the marked class or module.";
    ParamLaneMark = "param-lane-mark", Error, "lane-scan",
        "a lane mark inside pytest.param(..., marks=...)",
        "A lane mark given to one parameter set splits a single test id across lanes, and test ids in the evidence have no parameters. Fix: split the cases into separate test functions, one per lane.";
    UnconditionalSkip = "unconditional-skip", Error, "lane-scan",
        "a test is skipped unconditionally",
        "A skip deletes evidence. pytest.mark.skip, unittest.skip, skipif with a constant-true condition, pytest.skip() at the top of a test body or at module level, and skip marks in pytestmark or pytest.param all hide a test from the vote. Fix: move a flaky test to the freeze lane with a ledger row, or delete it.";
    ConditionalSkip = "conditional-skip", Warning, "lane-scan",
        "skipif with a real condition",
        "A test skipped on some platforms is fine, but a skipped merge test does not vote: lane-tally reports merge-skipped when it does not run where the gate runs. Make sure the condition is false on the gate's runner.";
    XfailInVotingLane = "xfail-in-voting-lane", Error, "lane-scan",
        "xfail or expectedFailure on a merge or witness test",
        "An expected failure in a voting lane turns a failing voter into a silent pass. Fix: make the test pass, delete it, or move the known failure to the freeze lane with a ledger row.";
    RetryInVotingLane = "retry-in-voting-lane", Error, "lane-scan",
        "a retry reaches a merge or witness test",
        "A voter that passes on its second try has not passed. A flaky mark (pytest-rerunfailures, flaky) or --reruns / --force-flaky in the configuration's addopts reaches merge and witness tests. Fix: remove the retry; a genuinely intermittent test belongs in the freeze lane.";
    UnresolvedMarker = "unresolved-marker", Error, "lane-scan",
        "a mark expression cannot be resolved statically",
        "lane-scan never runs the code it reads, so a decorator or pytestmark value computed at run time (pytestmark = make_marks(), getattr(pytest.mark, name)) could carry any lane or skip. Fix: write the marks literally, e.g. pytestmark = [pytest.mark.merge].";
    MissingAttachment = "missing-attachment", Error, "lane-scan",
        "a test lacks the attachment its lane requires",
        "merge property tests (@given) need a 'shrinking:' note in the docstring; human-written merge tests need an 'owner:' line in the docstring; witness tests need fixture= (golden bytes, locked in lanes.lock) or locked_on= (characterization date). Fix: add the attachment the message names.";
    MissingFixture = "missing-fixture", Error, "lane-scan",
        "a witness fixture= path does not exist",
        "The golden file a witness test names (relative to the test file's folder) is not on disk, so its bytes cannot be locked. Fix: correct the path or add the file and lock it with lane-lock lock.";
    Tautology = "tautology", Error, "lane-scan",
        "a merge test whose assertions cannot fail",
        "assert True, assert x == x and similar assertions pass whatever the code does, so the test cannot fail a wrong patch and must not vote. Fix: assert a property of the code under test (a round trip, an inverse, a known input/output pair).";
    NoAssertion = "no-assertion", Warning, "lane-scan",
        "a merge test with no assertion",
        "A merge test without assert, pytest.raises / pytest.warns or self.assert* only proves the code does not crash. Consider asserting the behaviour you rely on.";
    ParseError = "parse-error", Error, "lane-scan",
        "a Python file does not parse",
        "A test file that cannot be parsed cannot be scanned, so its tests are unknown and the gate fails closed. The other files are still scanned. Fix the syntax error at the reported line and column.";
    RuntimeHook = "runtime-hook", Warning, "lane-scan",
        "a conftest.py hook can change marks or outcomes at run time",
        "Hooks such as pytest_collection_modifyitems or pytest_runtest_makereport can add marks, deselect tests or rewrite results after lane-scan has read the source. The tally still matches every reported case against the scan, but review these hooks by hand.";
    UnregisteredMarker = "unregistered-marker", Error, "lane-scan",
        "merge, witness and freeze are not all registered markers",
        "The gate runs pytest with --strict-markers, which fails on unregistered marks. Fix: register them in the pytest configuration, e.g. markers = merge: votes / witness: locked bytes / freeze: ledger-backed flake.";
    EmptyMergeLane = "empty-merge-lane", Error, "lane-scan",
        "no merge test at all",
        "Only merge tests can approve a patch; with none, nothing can vote and the gate fails closed. Fix: write at least one property or human-written oracle in the merge lane.";
    FreezeOverBudget = "freeze-over-budget", Error, "lane-scan",
        "more freeze tests than merge tests",
        "Freeze count is a queue length. When it outgrows the merge lane the suite is parking failures instead of specifying behaviour. Fix: replay and promote or delete frozen tests; do not raise the budget.";
    // ---- lane-lock ----
    DigestMoved = "digest-moved", Error, "lane-lock",
        "a locked file's SHA-256 no longer matches",
        "The bytes of a locked fixture changed. Witness tests corroborate locked bytes, and only a human moves the lock. If the change is intended, re-lock it with lane-lock lock in a separate, reviewed change and say why the bytes changed.";
    MissingFile = "missing-file", Error, "lane-lock",
        "a locked file is gone",
        "The lock names a file that does not exist (or is not a regular file). Restore it, or remove its entry in a reviewed lock change.";
    UnlockedFixture = "unlocked-fixture", Error, "lane-lock",
        "a witness fixture has no lock entry",
        "A witness test names a fixture whose digest is in neither lanes.lock nor a .sha256 sidecar, so nothing pins its bytes. Fix: lane-lock lock PATH --today DATE, and review the new entry.";
    OrphanLock = "orphan-lock", Warning, "lane-lock",
        "a lock entry that no witness test names",
        "The locked file is not a fixture of any witness test in the scan. It may be left over; remove it or name it in a witness test's fixture=.";
    UnsafePath = "unsafe-path", Error, "lane-lock",
        "a path that leaves the root",
        "Absolute paths, '..' components and symlinks resolving outside the root are never read. Fix: use a root-relative path to a file inside the repository.";
    LockEntryMoved = "lock-entry-moved", Error, "lane-lock",
        "a lock entry's digest changed between base and head",
        "The patch changes locked bytes. Lock edits are a separate review surface: a human must confirm the new bytes are right.";
    LockEntryRemoved = "lock-entry-removed", Error, "lane-lock",
        "a lock entry was removed between base and head",
        "The patch drops a locked file from the lock, so its bytes are no longer witnessed. Review the removal.";
    LockBatchedWithBehavior = "lock-batched-with-behavior", Error, "lane-lock",
        "a patch moves digests and changes code in the same change",
        "When the same patch rewrites a golden file, its lock and the code it witnesses, the witness proves nothing. Split the lock edit into its own change, or pass --reason TEXT explaining why the bytes changed.";
    // ---- freeze-ledger ----
    InvalidTicket = "invalid-ticket", Error, "freeze-ledger",
        "a ledger row has a bad or missing field",
        "Each row needs test_id, seed (an integer), input_sha256 (64 lowercase hex digits), expires_on (YYYY-MM-DD) and last_replay_job (an http(s) URL); unknown fields are refused because they are usually typos. Fix the fields the message names.";
    DuplicateTicket = "duplicate-ticket", Error, "freeze-ledger",
        "two ledger rows for the same test",
        "A freeze test has exactly one ticket. Remove the extra row.";
    MissingTicket = "missing-ticket", Error, "freeze-ledger",
        "a freeze test without a ledger row",
        "A freeze without a capsule is a skip with extra steps. Add a row with freeze-ledger add (seed, input digest, expiry, replay job), or move the test to another lane.";
    OrphanTicket = "orphan-ticket", Error, "freeze-ledger",
        "a ledger row whose test is not in the freeze lane",
        "The row's test does not exist or is not a freeze test. Remove the row with freeze-ledger remove.";
    ExpiredTicket = "expired-ticket", Error, "freeze-ledger",
        "a freeze ticket is past its expiry",
        "Frozen evidence that never comes back is a skip. Replay the flake and promote or delete the test, or renew the ticket with the new replay job that justifies it.";
    ExpiryTooFar = "expiry-too-far", Error, "freeze-ledger",
        "a ticket expires beyond the allowed horizon",
        "Tickets expire within --max-days (90 by default) of today. Choose an earlier expiry.";
    CapsuleMismatch = "capsule-mismatch", Error, "freeze-ledger",
        "the capsule file does not hash to input_sha256",
        "The replay input at input_path changed or is missing, so the flake can no longer be replayed as recorded. Restore the capsule, or record a new one with freeze-ledger renew.";
    ExpiringSoon = "expiring-soon", Warning, "freeze-ledger",
        "a ticket expires within 7 days",
        "Replay the flake and promote or delete the test before the ticket expires and starts failing the gate.";
    TicketAdded = "ticket-added", Error, "freeze-ledger",
        "the patch adds a freeze ticket",
        "The agent does not write freeze tickets. A human reviews every new ticket, as a separate change.";
    TicketRenewed = "ticket-renewed", Error, "freeze-ledger",
        "the patch renews a freeze ticket",
        "A renewal extends how long a flake may stay out of the vote. A human reviews it, with the replay job that justifies it.";
    TicketChanged = "ticket-changed", Error, "freeze-ledger",
        "the patch changes a freeze ticket's seed, input or capsule",
        "A ticket whose capsule changes is a new ticket in disguise. A human reviews it.";
    // ---- lane-tally ----
    MergeFailed = "merge-failed", Error, "lane-tally",
        "a merge test failed or errored",
        "A voter said no. Fix the code (or, if the test is wrong, the test, in a reviewed change).";
    MergeSkipped = "merge-skipped", Error, "lane-tally",
        "a merge test was skipped at run time",
        "A skip deletes evidence: a merge test that did not run did not vote for the patch.";
    FlakyVoter = "flaky-voter", Error, "lane-tally",
        "a merge test both failed and passed, or carries rerun evidence",
        "A voter that passes on a retry has not passed. Remove reruns from the merge lane; a genuinely intermittent test belongs in the freeze lane.";
    MissingVote = "missing-vote", Error, "lane-tally",
        "a merge test has no case in the merge reports",
        "The test exists in the scan but did not run in the merge lane (deselected with -k, a shard missing, a report from another run). Every merge test must vote.";
    WitnessFailed = "witness-failed", Error, "lane-tally",
        "a witness test failed or errored",
        "The bytes a witness test corroborates no longer match what the code produces.";
    WitnessSkipped = "witness-skipped", Error, "lane-tally",
        "a witness test was skipped at run time",
        "A skipped witness corroborates nothing; it must run.";
    MissingWitness = "missing-witness", Error, "lane-tally",
        "a witness test has no case in the witness reports",
        "The test exists in the scan but did not run in the witness lane.";
    MissingFreezeRun = "missing-freeze-run", Error, "lane-tally",
        "a freeze test did not run, or was skipped",
        "Freeze tests do not vote, but they must run and record; a freeze that does not run is a skip.";
    FreezeFailed = "freeze-failed", Warning, "lane-tally",
        "a freeze test failed (recorded, not a vote)",
        "The known flake failed again. It does not vote; its replay artifact is recorded for whoever works the freeze queue.";
    MissingReplayArtifact = "missing-replay-artifact", Error, "lane-tally",
        "a failed freeze case recorded no replay artifact",
        "A failing freeze test must record where its replay capsule is: record_property(\"replay\", path) naming an existing file.";
    LaneMismatch = "lane-mismatch", Error, "lane-tally",
        "a case in one lane's report belongs to another lane",
        "Each lane runs in its own pytest invocation (-m merge, -m witness, -m freeze). A report holding another lane's tests was produced with a wider selection and cannot be counted.";
    UnknownTest = "unknown-test", Error, "lane-tally",
        "a report case matches no scanned test",
        "The report holds a test that lane-scan did not see (generated at run time, from another tree, or from an earlier run). Unknown evidence is a rejection, never ignored.";
    CollectionError = "collection-error", Error, "lane-tally",
        "pytest could not collect a module",
        "A collection error means some tests never existed in the run. Fix the import or syntax error the report shows.";
    NoScanEvidence = "no-scan-evidence", Error, "lane-tally",
        "the evidence document has no scan section",
        "lane-tally matches cases against lane-scan's list of tests; without it nothing can be counted. Run lane-scan first in the pipeline.";
    NoLockEvidence = "no-lock-evidence", Error, "lane-tally",
        "witness tests exist but the lock section is absent",
        "Witness tests corroborate locked digests; without lane-lock verify in the pipeline, the digests were never checked.";
    NoLedgerEvidence = "no-ledger-evidence", Error, "lane-tally",
        "freeze tests exist but the ledger section is absent",
        "Freeze tests need valid, unexpired tickets; without freeze-ledger check in the pipeline, the tickets were never checked.";
    MergeTestRemoved = "merge-test-removed", Error, "lane-tally",
        "a merge test of the base is gone or left the merge lane",
        "Deleting or renaming a failing voter is the cheapest way to pass a gate. If the removal is intended, acknowledge it with --reason TEXT so a reviewer sees it.";
    LaneChanged = "lane-changed", Error, "lane-tally",
        "a test moved from merge to witness or freeze",
        "Moving a voter out of the merge lane removes its vote. A human reviews lane changes; acknowledge an intended one with --reason TEXT.";
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// The text `--explain RULE` prints, or a usage error listing the known ids.
pub fn explain(id: &str) -> Result<String, crate::Error> {
    match Rule::from_id(id) {
        Some(rule) => Ok(format!(
            "{id} ({severity}, reported by {tool})\n  {summary}\n\n{text}\n",
            severity = rule.severity().as_str(),
            tool = rule.tool(),
            summary = rule.summary(),
            text = wrap(rule.explanation(), 92),
        )),
        None => {
            let ids: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
            Err(crate::Error::usage(format!(
                "unknown rule '{id}'; known rules: {}",
                ids.join(", ")
            )))
        }
    }
}

fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line_len = 0;
    for word in text.split_whitespace() {
        if line_len > 0 && line_len + 1 + word.len() > width {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(word);
        line_len += word.len();
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_kebab_case_and_round_trip() {
        let mut seen = std::collections::BTreeSet::new();
        for rule in Rule::ALL {
            let id = rule.id();
            assert!(seen.insert(id), "duplicate rule id {id}");
            assert!(
                id.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{id} is not kebab-case"
            );
            assert_eq!(Rule::from_id(id), Some(*rule));
        }
    }

    #[test]
    fn severities_follow_the_design_tables() {
        let warnings: Vec<&str> = Rule::ALL
            .iter()
            .filter(|r| r.severity() == Severity::Warning)
            .map(|r| r.id())
            .collect();
        assert_eq!(
            warnings,
            [
                "conditional-skip",
                "no-assertion",
                "runtime-hook",
                "orphan-lock",
                "expiring-soon",
                "freeze-failed"
            ]
        );
    }

    #[test]
    fn explain_unknown_rule_lists_known_ids() {
        let err = explain("no-such-rule").unwrap_err().to_string();
        assert!(err.contains("unknown rule 'no-such-rule'"));
        assert!(err.contains("missing-vote"));
        let ok = explain("missing-vote").unwrap();
        assert!(ok.starts_with("missing-vote (error, reported by lane-tally)"));
    }
}
