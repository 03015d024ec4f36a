//! `lane-scan --fix` / `--diff`: a codemod that puts an existing pytest suite under
//! the gate. It registers the lane markers in the config file pytest already reads and gives
//! every unmarked test a lane by the `fix-*` rules of the catalogue (`--explain` prints each):
//!
//! - `fix-property`: a hypothesis property (`@given`) votes: merge;
//! - `fix-snapshot`: a test that takes a snapshot fixture (syrupy's or pytest-snapshot's
//!   `snapshot`, pytest-regressions' `*_regression`) compares golden bytes: witness;
//! - `fix-freeze-candidate`: a test the scan's own lane rules refuse as a voter (skipped
//!   unconditionally, an expected failure, retried: the facts the scan judges, [`NoVote`], so
//!   that the two never disagree) is listed for a human (a freeze ticket is a human's
//!   decision); `--mark-freeze` marks it freeze, still
//!   without a ticket, so freeze-ledger check keeps asking for one. An xfail or skip that
//!   reaches only one parameter set (`pytest.param(..., marks=...)`) is that parameter's, not
//!   the test's: the test gets the lane the other rules give it (its other parameters vote)
//!   and is listed as a candidate `--mark-freeze` does not mark;
//! - `fix-merge`: any other test: merge.
//!
//! A module whose tests are all unmarked and get one lane gets one `pytestmark`; otherwise each
//! outermost class that is uniform gets a class decorator, and each remaining test a decorator.
//! What no inserted line can mend is listed for a human with its reason (`LEFT_FOR_HUMAN`): a
//! test given a lane its assertions do not meet (`tautology`, `no-assertion`), the scan's own
//! problems of those rules, and tests defined under an `if` it cannot decide
//! (`undecided-test-branch`), so that the scan after `--fix` has no such problem `--diff` did
//! not name.
//! `fix-owner`: modules whose merge tests have no owner (docstring or CODEOWNERS) are listed, or
//! with `--owner TEAM` get an `owner:` line in their docstring. Only lines are inserted: every
//! byte outside them is kept, a test's body is never touched, each file is replaced atomically,
//! and a second run finds nothing to do. A file that does not parse is left untouched.

pub mod diff;
mod edits;
pub mod markers;
mod owners;
mod place;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use lane_core::scan::{Lane, ScanTest};
use lane_core::{Error, Rule};
use lane_python::layout::Def;

use crate::rules::{LEFT_FOR_HUMAN, NoVote, NoVoteAt};

use self::edits::{Files, apply, import_pytest, line_up};

/// Fixture names that hold snapshot files: syrupy and pytest-snapshot's `snapshot` (and
/// syrupy's extension fixtures named `snapshot_*`); pytest-regressions' are matched by their
/// `_regression` suffix (data_, file_, num_, dataframe_, image_, ndarrays_regression).
pub const SNAPSHOT_FIXTURES: &[&str] = &["snapshot"];
/// The suffix of pytest-regressions' fixtures.
pub const REGRESSION_SUFFIX: &str = "_regression";

/// The config change: root-relative path, old text (None: created), new text, the marker
/// names registered.
type ConfigChange = (String, Option<String>, String, Vec<String>);

/// What `--fix` is asked to do.
#[derive(Debug, Clone, Default)]
pub struct FixOptions {
    pub scan: crate::Options,
    /// Write the files (false: `--diff`, only show).
    pub write: bool,
    /// `--owner TEAM`: write an `owner:` line into the modules whose merge tests have none.
    pub owner: Option<String>,
    /// `--shrinking NOTE`: write a `shrinking:` line into the modules whose merge properties
    /// have none.
    pub shrinking: Option<String>,
    /// `--mark-freeze`: mark the freeze candidates freeze (their tickets are still a human's).
    pub mark_freeze: bool,
}

/// What `--fix` did or would do.
#[derive(Debug, Default)]
pub struct FixOutcome {
    /// One line per decision, sorted, then a summary line.
    pub report: String,
    /// The unified diff of every changed file (`--diff`; empty when the files are written).
    pub diff: String,
    /// Root-relative files left untouched because they do not parse, with why.
    pub unparsable: Vec<String>,
}

/// The lane a rule gives an unmarked test, or a candidate for a human.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decision {
    Lane(Lane, Rule),
    FreezeCandidate,
}

/// What the decisions of one run came to: the report's lines, the lane each test has after the
/// fix (for owners), the tests a placed mark reaches by the rule that decided their lane, and
/// every freeze candidate listed (marked or not).
#[derive(Default)]
struct Decided<'s> {
    lines: Vec<String>,
    lane_after: Vec<(&'s ScanTest, Option<Lane>)>,
    given: BTreeMap<&'static str, usize>,
    candidates: usize,
    /// Problems listed as left for a human (see [`LEFT_FOR_HUMAN`]).
    left: usize,
}

/// Runs the fixes.
pub fn fix(options: &FixOptions) -> Result<FixOutcome, Error> {
    for (flag, value) in [
        ("--owner", &options.owner),
        ("--shrinking", &options.shrinking),
    ] {
        if let Some(v) = value {
            check_line(flag, v)?;
        }
    }
    let cwd = match &options.scan.dir {
        Some(dir) => std::path::absolute(dir).map_err(|e| Error::io(dir, e))?,
        None => std::env::current_dir().map_err(|e| Error::io(".", e))?,
    };
    let scan = crate::scan(&options.scan)?;
    let config = crate::config::load(&options.scan.paths, options.scan.rootdir.as_deref(), &cwd)?;
    let root = config.rootdir.clone();
    let mut out = FixOutcome::default();
    let parse_errors = || {
        scan.section
            .problems
            .iter()
            .filter(|p| crate::rules::is_parse_error(p))
    };
    let unparsable: BTreeSet<String> = parse_errors().filter_map(|p| p.file.clone()).collect();
    out.unparsable
        .extend(parse_errors().map(|p| p.message.clone()));
    let mut files = Files::new(root.clone(), unparsable);

    let mut decided = Decided::default();
    // Tests by the file they are collected from. Doctest items carry no mark of their own: the
    // configuration gives them all one lane (`doctest_lane`).
    let mut by_file: BTreeMap<&str, Vec<&ScanTest>> = BTreeMap::new();
    let mut unmarked_doctests = 0usize;
    for t in scan.runs.iter().flatten() {
        if scan.doctests.contains(&t.id) {
            unmarked_doctests += usize::from(t.lanes.is_empty());
            let lane = t.lane.or(Some(Lane::Merge));
            if t.file.ends_with(".py") {
                // The owner of a module's doctests goes into its docstring, as for tests.
                decided.lane_after.push((t, lane));
            } else if lane == Some(Lane::Merge) && t.attachments.owner.is_none() {
                decided.lines.push(format!(
                    "{}: doctest text file without an owner ({}): add an `owner:` line to it or \
                     a CODEOWNERS entry",
                    t.file,
                    Rule::FixOwner.id()
                ));
            }
            continue;
        }
        by_file.entry(t.file.as_str()).or_default().push(t);
    }
    if unmarked_doctests > 0 {
        *decided.given.entry(Rule::FixMerge.id()).or_default() += unmarked_doctests;
    }
    for (file, tests) in &by_file {
        decide_file(
            options,
            &scan.no_vote,
            file,
            tests,
            &mut files,
            &mut decided,
        );
    }
    left_in_scan(&scan.section.problems, &mut decided);
    let lacking = owners::lacking(&decided.lane_after);
    owners::owners(options, &lacking, &mut files, &mut decided.lines);
    let changed = write_changes(
        options,
        &config,
        unmarked_doctests,
        &root,
        &mut files,
        &mut decided.lines,
        &mut out,
    )?;
    out.unparsable.append(&mut files.unparsable);
    out.report = report(options, decided, changed, out.unparsable.len());
    out.unparsable.sort();
    out.unparsable.dedup();
    Ok(out)
}

/// Decides the lanes of one collected file's unmarked tests and places their marks.
fn decide_file<'s>(
    options: &FixOptions,
    no_votes: &'s BTreeMap<String, NoVote>,
    file: &str,
    tests: &[&'s ScanTest],
    files: &mut Files,
    decided: &mut Decided<'s>,
) {
    let unmarked: Vec<&ScanTest> = tests
        .iter()
        .copied()
        .filter(|t| t.lanes.is_empty())
        .collect();
    for t in tests.iter().filter(|t| !t.lanes.is_empty()) {
        decided.lane_after.push((t, t.lane));
    }
    if unmarked.is_empty() || !files.load(file) {
        return;
    }
    // Each unmarked test's decision, from the file that defines it.
    let mut decisions: Vec<(&ScanTest, Decision)> = Vec::new();
    for t in &unmarked {
        let def_file = t.defining_file();
        let def = if files.load(def_file) {
            files.edits[def_file].layout.function_at(t.line).cloned()
        } else {
            None
        };
        decisions.push((t, decide(t, no_votes.get(&t.id), def.as_ref())));
    }
    let lane_of = |d: Decision| match d {
        Decision::Lane(l, _) => Some(l),
        Decision::FreezeCandidate if options.mark_freeze => Some(Lane::Freeze),
        Decision::FreezeCandidate => None,
    };
    let placements = place::place(tests, &decisions, &lane_of, &files.edits[file].layout);
    // Which of the decided tests a placed mark reaches: only they are given a lane.
    let marked = place::Placer::new(file, &decisions, &lane_of).apply(
        &placements,
        &mut files.edits,
        &mut decided.lines,
    );
    for ((t, d), marked) in decisions.iter().zip(&marked) {
        let rule = match d {
            Decision::Lane(_, r) => *r,
            Decision::FreezeCandidate => Rule::FixFreezeCandidate,
        };
        if *marked {
            *decided.given.entry(rule.id()).or_default() += 1;
        }
        decided
            .lane_after
            .push((t, if *marked { lane_of(*d) } else { None }));
        if let Some(line) = candidate_line(t, *d, *marked, no_votes.get(&t.id)) {
            decided.candidates += 1;
            decided.lines.push(line);
        }
        if let (Decision::Lane(lane, _), true, Some(no_vote)) = (d, *marked, no_votes.get(&t.id)) {
            for left in no_vote.left.iter().filter(|l| l.lane == *lane) {
                decided.left += 1;
                decided.lines.push(left_line(
                    t.defining_file(),
                    left.line,
                    &left.rule,
                    &left.message,
                ));
            }
        }
    }
}

/// The problems of the scan that nothing `--fix` writes mends ([`LEFT_FOR_HUMAN`]: a test
/// already in a lane whose assertions cannot fail, a test defined under an undecided `if`),
/// listed as left for a human.
fn left_in_scan(problems: &[lane_core::Problem], decided: &mut Decided<'_>) {
    for p in problems {
        if !LEFT_FOR_HUMAN.iter().any(|r| r.id() == p.rule) {
            continue;
        }
        let (file, line) = (p.file.as_deref().unwrap_or(""), p.line.unwrap_or(0));
        decided.left += 1;
        decided
            .lines
            .push(left_line(file, line, &p.rule, &p.message));
    }
}

/// The report line of a problem left for a human: where, the rule and its message (the
/// message's own `file:line: ` prefix dropped), and where the fix is explained.
fn left_line(file: &str, line: u64, rule: &str, message: &str) -> String {
    let prefix = format!("{file}:{line}: ");
    let message = message.strip_prefix(&prefix).unwrap_or(message);
    format!(
        "{prefix}left for a human ({rule}): {message}; `lane-scan --explain {rule}` says how to \
         fix it"
    )
}

/// The report line of a freeze candidate: a test the lane rules refuse as a voter, or one whose
/// parameter set alone is skipped or expected to fail.
fn candidate_line(
    t: &ScanTest,
    d: Decision,
    marked: bool,
    no_vote: Option<&NoVote>,
) -> Option<String> {
    let params = no_vote.map_or(&[][..], |n| &n.params[..]);
    match d {
        Decision::Lane(lane, _) if !params.is_empty() => {
            let given = if marked {
                format!("given {lane} as its other parameters vote")
            } else {
                "given no lane".to_string()
            };
            Some(format!(
                "{}:{}: {} is a freeze candidate ({}) for a parameter set only (pytest.param(..., marks=...): {}): not marked freeze, {given}; move that parameter to a test of its own and write its ticket with `freeze-ledger add TEST_ID ...`, or fix it so it passes",
                t.defining_file(),
                t.line,
                t.id,
                Rule::FixFreezeCandidate.id(),
                reasons(params),
            ))
        }
        Decision::Lane(..) => None,
        Decision::FreezeCandidate => {
            let action = if marked {
                "marked freeze; write its ticket"
            } else {
                "not marked: if it is a known failure, write its ticket"
            };
            let whole = no_vote.map_or(&[][..], |n| &n.whole[..]);
            Some(format!(
                "{}:{}: {} is a freeze candidate ({}: {}): {action} {}, or fix it so it passes",
                t.defining_file(),
                t.line,
                t.id,
                Rule::FixFreezeCandidate.id(),
                reasons(whole),
                ticket_command(&t.id, whole)
            ))
        }
    }
}

/// Registers the markers and writes (`--fix`) or diffs (`--diff`) every changed file; the
/// number of files changed.
fn write_changes(
    options: &FixOptions,
    config: &crate::config::Config,
    unmarked_doctests: usize,
    root: &Path,
    files: &mut Files,
    lines: &mut Vec<String>,
    out: &mut FixOutcome,
) -> Result<usize, Error> {
    let mut changed = 0usize;
    if let Some((rel, old, new, missing)) = &config_change(config, unmarked_doctests > 0, root)? {
        if !missing.is_empty() {
            lines.push(format!(
                "{rel}: registers the marker{} {} ({})",
                if missing.len() == 1 { "" } else { "s" },
                missing.join(", "),
                Rule::FixMarkers.id()
            ));
        }
        if unmarked_doctests > 0 {
            lines.push(format!(
                "{rel}: {} = merge for {unmarked_doctests} doctest item{} ({}: {unmarked_doctests}; \
                 pytest-lanes-gate gives every doctest item that lane)",
                crate::pytest::doctest::LANE_KEY,
                plural(unmarked_doctests),
                Rule::FixMerge.id()
            ));
        }
        if options.write {
            lane_core::io::atomic_write(&root.join(rel), new.as_bytes())?;
        } else {
            out.diff.push_str(&diff::unified(rel, old.as_deref(), new));
        }
        changed += 1;
    }
    for (rel, edit) in &mut files.edits {
        if edit.inserts.is_empty() {
            continue;
        }
        if edit.needs_pytest && !edit.layout.imports_pytest {
            import_pytest(edit);
        }
        let new = apply(&edit.source, &mut edit.inserts);
        if new == edit.source {
            continue;
        }
        // `--fix` writes the files; `--diff` only prints the diff.
        if options.write {
            lane_core::io::atomic_write(&root.join(rel), new.as_bytes())?;
        } else {
            let cuts = line_up(&edit.source, &edit.inserts);
            out.diff
                .push_str(&diff::unified_cut(rel, &edit.source, &new, &cuts));
        }
        changed += 1;
    }
    Ok(changed)
}

/// The report: one line per decision, by file, then line number (a line without one first),
/// then text; then the summary line.
fn report(options: &FixOptions, decided: Decided<'_>, changed: usize, unparsable: usize) -> String {
    let Decided {
        mut lines,
        given,
        candidates,
        left,
        ..
    } = decided;
    lines.sort_by_cached_key(|l| {
        let mut parts = l.splitn(3, ':');
        let file = parts.next().unwrap_or("").to_string();
        let line: u64 = parts.next().and_then(|n| n.parse().ok()).unwrap_or(0);
        (file, line, l.clone())
    });
    lines.dedup();
    let mut report = lines.join("\n");
    if !report.is_empty() {
        report.push('\n');
    }
    let frozen = given
        .get(Rule::FixFreezeCandidate.id())
        .copied()
        .unwrap_or(0);
    let given: usize = given.values().sum();
    report.push_str(&format!(
        "lane-scan --fix: {changed} file{} {}, {given} test{} given a lane{}, {candidates} freeze candidate{} listed{}\n",
        plural(changed),
        if options.write { "changed" } else { "would change" },
        plural(given),
        if frozen == 0 {
            String::new()
        } else {
            format!(" ({frozen} of them freeze, without a ticket)")
        },
        plural(candidates),
        if unparsable == 0 {
            String::new()
        } else {
            format!(", {unparsable} file{} left untouched (not parsable)", plural(unparsable))
        }
    ));
    // A line of its own: the summary line above is what scripts already read.
    if left > 0 {
        report.push_str(&format!(
            "lane-scan --fix: {left} problem{} left for a human, listed above with the rule \
             that reports each\n",
            plural(left)
        ));
    }
    report
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `--owner TEAM` / `--shrinking NOTE` is one line of text that fits in a docstring.
fn check_line(flag: &str, value: &str) -> Result<(), Error> {
    if value.trim().is_empty()
        || value != value.trim()
        || value
            .chars()
            .any(|c| c.is_control() || matches!(c, '"' | '\'' | '\\'))
    {
        return Err(Error::usage(format!(
            "{flag} {value:?}: expected one line without quotes or backslashes"
        )));
    }
    Ok(())
}

/// The rule that gives an unmarked test its lane. `no_vote`: why the scan's lane rules refuse
/// it as a voter (the scan's own facts, so that the two never disagree): anything that keeps
/// the whole test from voting makes it a freeze candidate; a parameter set's skip or xfail is
/// that parameter's, not the test's.
fn decide(t: &ScanTest, no_vote: Option<&NoVote>, def: Option<&Def>) -> Decision {
    if no_vote.is_some_and(|n| !n.whole.is_empty()) {
        return Decision::FreezeCandidate;
    }
    if t.marks.iter().any(|m| m == "hypothesis") {
        return Decision::Lane(Lane::Merge, Rule::FixProperty);
    }
    let snapshot = def.is_some_and(|d| {
        d.params.iter().any(|p| {
            SNAPSHOT_FIXTURES.contains(&p.as_str())
                || p.starts_with("snapshot_")
                || p.ends_with(REGRESSION_SUFFIX)
        })
    });
    if snapshot {
        return Decision::Lane(Lane::Witness, Rule::FixSnapshot);
    }
    Decision::Lane(Lane::Merge, Rule::FixMerge)
}

/// `rule at file:line, ...` for the reasons of a [`NoVote`].
/// How a candidate's ticket is written: a deterministic known failure (an expected failure and
/// nothing else) gets a known-failure ticket; a skipped test first loses its skip (it runs in
/// no lane, a ticket cannot change that); anything else (a retried flake) gets its capsule
/// captured from the gate's run that saw it fail.
fn ticket_command(id: &str, whole: &[NoVoteAt]) -> String {
    use crate::rules::{skips, voting_lane};
    let known = voting_lane::KNOWN_FAILURE.id();
    if !whole.is_empty() && whole.iter().all(|r| r.what == known) {
        format!(
            "with `freeze-ledger add {id} --known-failure --issue URL --owner WHO --expires DATE` \
             (a known bug: mark it xfail(strict=True))"
        )
    } else if whole.iter().any(|r| r.what == skips::RUNS_IN_NO_LANE.id()) {
        format!(
            "once its skip is removed (a skipped test runs in no lane), with `freeze-ledger add \
             {id} --from out/lanes --expires DATE` after a gate run that saw it fail"
        )
    } else {
        format!(
            "with `freeze-ledger add {id} --from out/lanes --expires DATE` after a gate run that \
             saw it fail"
        )
    }
}

fn reasons(at: &[NoVoteAt]) -> String {
    at.iter()
        .map(|r| format!("{} at {}:{}", r.what, r.file, r.line))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The config file's text with the missing lane markers registered (none when pytest-lanes-gate
/// is required: it registers them) and, with `doctest_lane`, the doctest items given the merge
/// lane: (root-relative path, old text or None when created, new text, missing marker names).
/// None when there is nothing to write.
fn config_change(
    config: &crate::config::Config,
    doctest_lane: bool,
    root: &Path,
) -> Result<Option<ConfigChange>, Error> {
    let required = crate::config::ini_args(config, "required_plugins").unwrap_or_default();
    let markers_from_plugin = required
        .iter()
        .any(|r| crate::rules::markers::names_markers_plugin(r));
    let missing: Vec<Lane> = Lane::ALL
        .iter()
        .copied()
        .filter(|l| !markers_from_plugin && !config.markers.iter().any(|m| m == l.as_str()))
        .collect();
    if missing.is_empty() && !doctest_lane {
        return Ok(None);
    }
    let (path, old): (PathBuf, Option<String>) = match &config.file {
        Some(f) if markers::editable(f) => {
            let bytes = std::fs::read(f).map_err(|e| Error::io(f, e))?;
            let text = String::from_utf8(bytes)
                .map_err(|_| Error::parse(f.display().to_string(), 0, 0, "not valid UTF-8"))?;
            (f.clone(), Some(text))
        }
        Some(f) => {
            return Err(Error::usage(format!(
                "{}: lane-scan --fix cannot edit the pytest configuration in this file",
                f.display()
            )));
        }
        None => (root.join("pytest.ini"), None),
    };
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("pytest.ini");
    let rel = path
        .strip_prefix(root)
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_else(|_| name.to_string());
    let new = markers::edit(
        name,
        old.as_deref(),
        &missing,
        doctest_lane.then_some(Lane::Merge),
    )?;
    Ok(Some((
        rel,
        old,
        new,
        missing.iter().map(|l| l.as_str().to_string()).collect(),
    )))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::edits::Insert;
    use super::*;

    /// `old` with the unified diff `patch` applied, as `patch` would do it; panics where a
    /// context or removed line is not the file's.
    fn patched(old: &str, patch: &str) -> String {
        let old: Vec<&str> = old.split_inclusive('\n').collect();
        let mut rows: Vec<&str> = patch.split_inclusive('\n').skip(2).collect();
        // A line without its newline is followed by a marker line: join them back.
        let mut lines: Vec<String> = Vec::new();
        while let Some(row) = rows.first().copied() {
            rows.remove(0);
            if row.starts_with("\\ No newline") {
                let last = lines.last_mut().unwrap();
                last.pop();
            } else {
                lines.push(row.to_string());
            }
        }
        let (mut out, mut next) = (String::new(), 0usize);
        for line in &lines {
            if let Some(head) = line.strip_prefix("@@ -") {
                let from: usize = head.split([',', ' ']).next().unwrap().parse().unwrap();
                let count: usize = head.split([',', ' ']).nth(1).unwrap().parse().unwrap();
                let start = if count == 0 { from } else { from - 1 };
                while next < start {
                    out.push_str(old[next]);
                    next += 1;
                }
                continue;
            }
            let (mark, text) = line.split_at(1);
            match mark {
                " " | "-" => {
                    assert_eq!(old[next], text, "line {}", next + 1);
                    if mark == " " {
                        out.push_str(text);
                    }
                    next += 1;
                }
                _ => out.push_str(text),
            }
        }
        for line in &old[next..] {
            out.push_str(line);
        }
        out
    }

    /// The lines a diff adds and removes.
    fn changes(patch: &str) -> (usize, usize) {
        let rows = patch.lines().skip(2);
        let added = rows.clone().filter(|r| r.starts_with('+')).count();
        (added, rows.filter(|r| r.starts_with('-')).count())
    }

    proptest::proptest! {
        /// The diff compared piece by piece between the places `line_up` finds turns the old
        /// file into the new one: inserts of whole lines at line starts, of text inside a line
        /// (a docstring's closing line), several at one offset, at the end of a file without
        /// a final newline. Where the fixes only insert whole lines (every decorator and
        /// `pytestmark` they write), it changes as few lines as the diff of the whole files;
        /// where equal lines repeat, the two may pair them differently. (A line split by an
        /// insert next to an inserted copy of it can cost the pieces one line more.)
        #[test]
        fn a_diff_cut_where_the_files_line_up_is_a_shortest_diff(
            lines in proptest::collection::vec(0u8..4, 0..40),
            edits in proptest::collection::vec((0usize..400, 0u8..4), 0..12),
            last_newline in proptest::bool::ANY,
        ) {
            let mut source: String = lines.iter().map(|l| format!("line {l}\n")).collect();
            if !last_newline {
                source.push_str("tail");
            }
            let mut inserts: Vec<Insert> = edits
                .iter()
                .map(|&(at, kind)| {
                    let at = at % (source.len() + 1);
                    let line = source[..at].rfind('\n').map_or(0, |nl| nl + 1);
                    match kind {
                        0 => Insert { at: line, text: "@pytest.mark.merge\n".into() },
                        1 => Insert { at: line, text: "line 1\n".into() },
                        2 => Insert { at, text: "owner: x\n".into() },
                        _ => Insert { at, text: String::new() },
                    }
                })
                .collect();
            let new = apply(&source, &mut inserts);
            let cut = diff::unified_cut("t.py", &source, &new, &line_up(&source, &inserts));
            let whole = diff::unified("t.py", Some(&source), &new);
            let whole_lines = inserts
                .iter()
                .all(|i| i.text.is_empty() || (i.text.ends_with('\n') && (i.at == 0 || source.as_bytes()[i.at - 1] == b'\n')));
            if whole_lines {
                proptest::prop_assert_eq!(changes(&cut), changes(&whole));
            }
            if new != source {
                proptest::prop_assert_eq!(patched(&source, &cut), new.clone());
                proptest::prop_assert_eq!(patched(&source, &whole), new);
            }
        }
    }
}
