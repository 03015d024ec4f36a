//! `lane-scan --fix` / `--diff` (issue 19): a codemod that puts an existing pytest suite under
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
//! `fix-owner`: modules whose merge tests have no owner (docstring or CODEOWNERS) are listed, or
//! with `--owner TEAM` get an `owner:` line in their docstring. Only lines are inserted: every
//! byte outside them is kept, a test's body is never touched, each file is replaced atomically,
//! and a second run finds nothing to do. A file that does not parse is left untouched.

pub mod diff;
pub mod markers;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use lane_core::scan::{Lane, ScanTest};
use lane_core::{Error, Rule};
use lane_python::layout::{self, Def, ImportNext, Layout};

use crate::rules::{NoVote, NoVoteAt};

/// Fixture names that hold snapshot files: syrupy and pytest-snapshot's `snapshot` (and
/// syrupy's extension fixtures named `snapshot_*`); pytest-regressions' are matched by their
/// `_regression` suffix (data_, file_, num_, dataframe_, image_, ndarrays_regression).
pub const SNAPSHOT_FIXTURES: &[&str] = &["snapshot"];
/// The suffix of pytest-regressions' fixtures.
pub const REGRESSION_SUFFIX: &str = "_regression";

/// Loads a file's source and layout into the edits (false: it cannot be read or parsed, and
/// is left untouched).
type Loader<'l> = dyn FnMut(&str, &mut BTreeMap<String, FileEdit>, &mut FixOutcome) -> bool + 'l;

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

/// One inserted text: at a byte offset; among equal offsets, in the order pushed.
struct Insert {
    at: usize,
    text: String,
}

/// A test file being edited.
struct FileEdit {
    source: String,
    layout: Layout,
    inserts: Vec<Insert>,
    /// The lane marks put on functions, as (offset, text): a function collected as several
    /// tests is marked once.
    function_marks: HashSet<(usize, String)>,
    /// `pytest.mark.*` is written into it.
    needs_pytest: bool,
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
    let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
    let scan = crate::scan(&options.scan)?;
    let config = crate::config::load(&options.scan.paths, options.scan.rootdir.as_deref(), &cwd)?;
    let root = config.rootdir.clone();
    let mut out = FixOutcome::default();
    let mut lines: Vec<String> = Vec::new();

    let unparsable: BTreeSet<String> = scan
        .section
        .problems
        .iter()
        .filter(|p| crate::rules::is_parse_error(p))
        .filter_map(|p| p.file.clone())
        .collect();
    for p in scan
        .section
        .problems
        .iter()
        .filter(|p| crate::rules::is_parse_error(p))
    {
        out.unparsable.push(p.message.clone());
    }

    let mut files: BTreeMap<String, FileEdit> = BTreeMap::new();
    let mut broken: BTreeSet<String> = unparsable.clone();
    let mut load =
        |rel: &str, files: &mut BTreeMap<String, FileEdit>, out: &mut FixOutcome| -> bool {
            if broken.contains(rel) {
                return false;
            }
            if files.contains_key(rel) {
                return true;
            }
            let source = match std::fs::read(root.join(rel)).map(String::from_utf8) {
                Ok(Ok(s)) => s,
                _ => {
                    out.unparsable
                        .push(format!("{rel}: cannot be read as UTF-8"));
                    broken.insert(rel.to_string());
                    return false;
                }
            };
            match layout::read(&source) {
                Ok(layout) => {
                    files.insert(
                        rel.to_string(),
                        FileEdit {
                            source,
                            layout,
                            inserts: Vec::new(),
                            function_marks: HashSet::new(),
                            needs_pytest: false,
                        },
                    );
                    true
                }
                Err(e) => {
                    out.unparsable
                        .push(format!("{rel}:{}:{}: {}", e.line, e.column, e.message));
                    broken.insert(rel.to_string());
                    false
                }
            }
        };

    // Tests by the file they are collected from.
    let mut by_file: BTreeMap<&str, Vec<&ScanTest>> = BTreeMap::new();
    for t in scan.runs.iter().flatten() {
        by_file.entry(t.file.as_str()).or_default().push(t);
    }
    // The lane each test has after the fix (for owners).
    let mut lane_after: Vec<(&ScanTest, Option<Lane>)> = Vec::new();
    // Tests a placed mark reaches, by the rule that decided their lane; and every freeze
    // candidate listed (marked or not).
    let mut given: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut candidates = 0usize;
    for (file, tests) in &by_file {
        let unmarked: Vec<&ScanTest> = tests
            .iter()
            .copied()
            .filter(|t| t.lanes.is_empty())
            .collect();
        for t in tests.iter().filter(|t| !t.lanes.is_empty()) {
            lane_after.push((t, t.lane));
        }
        if unmarked.is_empty() {
            continue;
        }
        if !load(file, &mut files, &mut out) {
            continue;
        }
        // Each unmarked test's decision, from the file that defines it.
        let mut decided: Vec<(&ScanTest, Decision)> = Vec::new();
        for t in &unmarked {
            let def_file = t.defining_file();
            let def = if load(def_file, &mut files, &mut out) {
                files[def_file].layout.function_at(t.line).cloned()
            } else {
                None
            };
            let d = decide(t, scan.no_vote.get(&t.id), def.as_ref());
            decided.push((t, d));
        }
        let lane_of = |d: Decision| match d {
            Decision::Lane(l, _) => Some(l),
            Decision::FreezeCandidate if options.mark_freeze => Some(Lane::Freeze),
            Decision::FreezeCandidate => None,
        };
        let placements = place(tests, &decided, &lane_of, &files[*file].layout);
        // Which of the decided tests a placed mark reaches: only they are given a lane.
        let marked = apply_placements(
            file,
            &placements,
            &mut files,
            &mut lines,
            &decided,
            &lane_of,
        );
        for ((t, d), marked) in decided.iter().zip(&marked) {
            let rule = match d {
                Decision::Lane(_, r) => *r,
                Decision::FreezeCandidate => Rule::FixFreezeCandidate,
            };
            if *marked {
                *given.entry(rule.id()).or_default() += 1;
            }
            lane_after.push((t, if *marked { lane_of(*d) } else { None }));
            let no_vote = scan.no_vote.get(&t.id);
            let params = no_vote.map_or(&[][..], |n| &n.params[..]);
            if let (Decision::Lane(lane, _), false) = (d, params.is_empty()) {
                candidates += 1;
                let given = if *marked {
                    format!("given {lane} as its other parameters vote")
                } else {
                    "given no lane".to_string()
                };
                lines.push(format!(
                    "{}:{}: {} is a freeze candidate ({}) for a parameter set only (pytest.param(..., marks=...): {}): not marked freeze, {given}; move that parameter to a test of its own and write its ticket with `freeze-ledger add TEST_ID ...`, or fix it so it passes",
                    t.defining_file(),
                    t.line,
                    t.id,
                    Rule::FixFreezeCandidate.id(),
                    reasons(params),
                ));
            }
            if let Decision::FreezeCandidate = d {
                candidates += 1;
                let action = if *marked {
                    "marked freeze; write its ticket"
                } else {
                    "not marked: if it is a known failure, write its ticket"
                };
                let why = reasons(no_vote.map_or(&[][..], |n| &n.whole[..]));
                lines.push(format!(
                    "{}:{}: {} is a freeze candidate ({}: {why}): {action} with `freeze-ledger add {} ...`, or fix it so it passes",
                    t.defining_file(),
                    t.line,
                    t.id,
                    Rule::FixFreezeCandidate.id(),
                    t.id
                ));
            }
        }
    }

    let lacking = lacking(&lane_after);
    owners(
        options, &lacking, &mut files, &mut lines, &mut out, &mut load,
    );

    // Register the markers.
    let config_change = register_markers(&config, &root)?;
    let mut changed = 0usize;
    if let Some((rel, old, new, missing)) = &config_change {
        lines.push(format!(
            "{rel}: registers the marker{} {} ({})",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", "),
            Rule::FixMarkers.id()
        ));
        if options.write {
            lane_core::io::atomic_write(&root.join(rel), new.as_bytes())?;
        } else {
            out.diff.push_str(&diff::unified(rel, old.as_deref(), new));
        }
        changed += 1;
    }
    for (rel, edit) in &mut files {
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
    // By file, then line number (a line without one first), then text.
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
        if out.unparsable.is_empty() {
            String::new()
        } else {
            format!(", {} file{} left untouched (not parsable)", out.unparsable.len(), plural(out.unparsable.len()))
        }
    ));
    out.report = report;
    out.unparsable.sort();
    out.unparsable.dedup();
    Ok(out)
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

/// The outermost class in a test's id: the part after the file, when more parts follow it.
fn outer_class(t: &ScanTest) -> Option<&str> {
    let mut parts = t.id.split("::").skip(1);
    let first = parts.next()?;
    parts.next()?;
    Some(first)
}

/// A test's definition: its defining file and the line of its name.
fn def_key(t: &ScanTest) -> (&str, u64) {
    (t.defining_file(), t.line)
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
fn reasons(at: &[NoVoteAt]) -> String {
    at.iter()
        .map(|r| format!("{} at {}:{}", r.what, r.file, r.line))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where a lane mark goes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Place {
    Module(Lane),
    /// The outermost class, by name.
    Class(String, Lane),
    /// A test function, by the line of its name, in its defining file.
    Function(String, u64, Lane),
    /// A test defined in another file under a class that is not uniform: not placed.
    Nowhere(String),
    /// A test function (defining file, line, id without parameters) collected as several
    /// tests that need different lanes (a base class's test inherited by a freeze class and a
    /// class that is not uniform): one decorator would give some of them a wrong or second
    /// lane, so none is placed and it is listed for a human.
    Mixed(String, u64, String),
}

/// Where the marks of one collected file's unmarked tests go.
fn place(
    tests: &[&ScanTest],
    decided: &[(&ScanTest, Decision)],
    lane_of: &dyn Fn(Decision) -> Option<Lane>,
    layout: &Layout,
) -> Vec<Place> {
    let lanes: Vec<Option<Lane>> = decided.iter().map(|(_, d)| lane_of(*d)).collect();
    let all_unmarked = decided.len() == tests.len();
    if all_unmarked
        && !layout.has_pytestmark
        && let Some(Some(first)) = lanes.first()
        && lanes.iter().all(|l| *l == Some(*first))
    {
        return vec![Place::Module(*first)];
    }
    // What each test's check asks of the file's other tests, counted once (a file of
    // thousands of tests stays linear): the tests of each outermost class, the lanes its
    // unmarked tests get, the items of each definition and how many get each lane.
    let mut members: HashMap<&str, usize> = HashMap::new();
    let mut items: HashMap<(&str, u64), usize> = HashMap::new();
    for x in tests {
        if let Some(outer) = outer_class(x) {
            *members.entry(outer).or_default() += 1;
        }
        *items.entry(def_key(x)).or_default() += 1;
    }
    // Per outermost class: how many of its tests are decided here, and the lane all of them
    // get (None once two differ or one gets none).
    let mut class_lane: HashMap<&str, (usize, Option<Lane>)> = HashMap::new();
    let mut agreeing: HashMap<((&str, u64), Lane), usize> = HashMap::new();
    for ((x, _), l) in decided.iter().zip(&lanes) {
        if let Some(outer) = outer_class(x) {
            let (count, all) = class_lane.entry(outer).or_insert((0, *l));
            *count += 1;
            if *all != *l {
                *all = None;
            }
        }
        if let Some(l) = l {
            *agreeing.entry((def_key(x), *l)).or_default() += 1;
        }
    }
    let classes_in_file: HashSet<&str> = layout
        .defs
        .iter()
        .filter(|d| d.is_class && d.qual.len() == 1)
        .map(|d| d.qual[0].as_str())
        .collect();
    let mut places = Vec::new();
    let mut done_classes: BTreeSet<String> = BTreeSet::new();
    let mut mixed: HashSet<Place> = HashSet::new();
    for ((t, _), lane) in decided.iter().zip(&lanes) {
        let Some(lane) = lane else { continue };
        if let Some(outer) = outer_class(t) {
            // Every test of the class is decided here and gets this lane.
            let uniform = class_lane.get(outer).is_some_and(|(count, all)| {
                *all == Some(*lane) && members.get(outer) == Some(count)
            });
            if classes_in_file.contains(outer) && uniform {
                if done_classes.insert(outer.to_string()) {
                    places.push(Place::Class(outer.to_string(), *lane));
                }
                continue;
            }
        }
        // Every item of this function (same defining file and line) collected here: one
        // decorator reaches them all, so it is placed only if they all get this lane.
        let key = def_key(t);
        if agreeing.get(&(key, *lane)) != items.get(&key) {
            let id = t.id.split('[').next().unwrap_or(&t.id).to_string();
            let place = Place::Mixed(t.defining_file().to_string(), t.line, id);
            if mixed.insert(place.clone()) {
                places.push(place);
            }
            continue;
        }
        match &t.defined_in {
            None => places.push(Place::Function(t.file.clone(), t.line, *lane)),
            Some(_) if outer_class(t).is_none() => places.push(Place::Function(
                t.defining_file().to_string(),
                t.line,
                *lane,
            )),
            Some(_) => places.push(Place::Nowhere(t.id.clone())),
        }
    }
    places
}

/// Turns placements into inserts and report lines.
fn apply_placements(
    file: &str,
    places: &[Place],
    files: &mut BTreeMap<String, FileEdit>,
    lines: &mut Vec<String>,
    decided: &[(&ScanTest, Decision)],
    lane_of: &dyn Fn(Decision) -> Option<Lane>,
) -> Vec<bool> {
    // The decided tests of each definition and of each outermost class, found once: a mark
    // placed looks only at the tests it can reach (a file of thousands of tests stays linear).
    let mut by_def: HashMap<(&str, u64), Vec<usize>> = HashMap::new();
    let mut by_class: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, (t, _)) in decided.iter().enumerate() {
        by_def.entry(def_key(t)).or_default().push(k);
        if let Some(outer) = outer_class(t) {
            by_class.entry(outer).or_default().push(k);
        }
    }
    fn of_def<'m, 'k>(
        by_def: &'m HashMap<(&'k str, u64), Vec<usize>>,
        file: &'k str,
        line: u64,
    ) -> &'m [usize] {
        by_def.get(&(file, line)).map_or(&[], Vec::as_slice)
    }
    // A class's tests: those whose id starts `FILE::CLASS::`.
    let of_class = |prefix: &str, name: &str| -> Vec<usize> {
        by_class.get(name).map_or_else(Vec::new, |ks| {
            ks.iter()
                .copied()
                .filter(|&k| decided[k].0.id.starts_with(prefix))
                .collect()
        })
    };
    // Which decided tests a placed mark reaches.
    let mut marked = vec![false; decided.len()];
    let mut mark = |reached: &[usize]| {
        for &k in reached {
            if lane_of(decided[k].1).is_some() {
                marked[k] = true;
            }
        }
    };
    let rules_of = |reached: &[usize]| -> String {
        let mut rules: BTreeMap<&str, usize> = BTreeMap::new();
        for &k in reached {
            let r = match decided[k].1 {
                Decision::Lane(_, r) => r,
                Decision::FreezeCandidate => Rule::FixFreezeCandidate,
            };
            *rules.entry(r.id()).or_default() += 1;
        }
        rules
            .iter()
            .map(|(r, n)| format!("{r}: {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for p in places {
        match p {
            Place::Module(lane) => {
                let Some(edit) = files.get_mut(file) else { continue };
                let text = format!("pytestmark = pytest.mark.{}\n", lane.as_str());
                module_mark(edit, text);
                let all: Vec<usize> = (0..decided.len()).collect();
                mark(&all);
                lines.push(format!(
                    "{file}: pytestmark = pytest.mark.{} ({})",
                    lane.as_str(),
                    rules_of(&all)
                ));
            }
            Place::Class(name, lane) => {
                let Some(edit) = files.get_mut(file) else { continue };
                let Some(def) = edit
                    .layout
                    .defs
                    .iter()
                    .find(|d| d.is_class && d.qual.len() == 1 && &d.qual[0] == name)
                    .cloned()
                else {
                    continue;
                };
                edit.inserts.push(Insert {
                    at: def.start,
                    text: format!("{}@pytest.mark.{}\n", def.indent, lane.as_str()),
                });
                edit.needs_pytest = true;
                let reached = of_class(&format!("{file}::{name}::"), name);
                mark(&reached);
                lines.push(format!(
                    "{file}:{}: class {name}: @pytest.mark.{} ({})",
                    def.line,
                    lane.as_str(),
                    rules_of(&reached)
                ));
            }
            Place::Function(def_file, line, lane) => {
                let Some(edit) = files.get_mut(def_file.as_str()) else { continue };
                let Some(def) = edit.layout.function_at(*line).cloned() else {
                    continue;
                };
                let text = format!("{}@pytest.mark.{}\n", def.indent, lane.as_str());
                mark(of_def(&by_def, def_file, *line));
                if !edit.function_marks.insert((def.start, text.clone())) {
                    continue;
                }
                edit.inserts.push(Insert { at: def.start, text });
                edit.needs_pytest = true;
                let name = def.qual.join("::");
                lines.push(format!(
                    "{def_file}:{line}: {name}: @pytest.mark.{} ({})",
                    lane.as_str(),
                    rules_of(of_def(&by_def, def_file, *line))
                ));
            }
            Place::Nowhere(id) => lines.push(format!(
                "{file}: {id}: not marked: it is defined in another file and its class here is not uniform; mark it by hand"
            )),
            Place::Mixed(def_file, line, id) => lines.push(format!(
                "{def_file}:{line}: {id}: not marked: its definition is collected as several tests that need different lanes ({}), and one decorator would reach them all; mark it by hand",
                rules_of(of_def(&by_def, def_file, *line))
            )),
        }
    }
    marked
}

/// Inserts a module's `pytestmark` after its imports (or where `import pytest` goes).
fn module_mark(edit: &mut FileEdit, text: String) {
    edit.needs_pytest = true;
    match edit.layout.after_imports {
        Some(at) => edit.inserts.push(Insert {
            at,
            text: format!("\n{text}"),
        }),
        None => {
            let (at, next) = import_place(edit);
            let gap = match next {
                Some(ImportNext::Definition) => "\n\n",
                Some(_) => "\n",
                None => "",
            };
            // `import pytest` goes first at the same offset (pushed in `import_pytest`, which
            // runs later: it is put in front).
            edit.inserts.push(Insert {
                at,
                text: format!("{text}{gap}"),
            });
            edit.layout.after_imports = None;
        }
    }
}

/// Where `import pytest` goes and what follows it; at the end of the file when nothing does.
fn import_place(edit: &FileEdit) -> (usize, Option<ImportNext>) {
    match edit.layout.import_at {
        Some((at, next)) => (at, Some(next)),
        None => (edit.source.len(), None),
    }
}

/// Adds `import pytest` after the docstring and `__future__` imports (before any insert at
/// the same offset).
fn import_pytest(edit: &mut FileEdit) {
    let (at, next) = import_place(edit);
    let mut text = String::new();
    if next.is_none() && !edit.source.is_empty() && !edit.source.ends_with('\n') {
        text.push('\n');
    }
    if next.is_none() && !edit.source.is_empty() {
        text.push('\n');
    }
    text.push_str("import pytest\n");
    let module_mark_here = edit.layout.after_imports.is_none()
        && edit
            .inserts
            .iter()
            .any(|i| i.at == at && i.text.starts_with("pytestmark"));
    match next {
        Some(ImportNext::Import) => {}
        _ if module_mark_here => text.push('\n'),
        Some(ImportNext::Definition) => text.push_str("\n\n"),
        Some(ImportNext::Other) => text.push('\n'),
        None => {}
    }
    // In front of every insert at the same offset, after a new docstring.
    let pos = edit
        .inserts
        .iter()
        .position(|i| i.at == at && !i.text.starts_with("\"\"\""))
        .unwrap_or(edit.inserts.len());
    edit.inserts.insert(pos, Insert { at, text });
}

/// Where `source` and the text [`apply`] makes of it with `inserts` (sorted by offset) line
/// up: the start of each line an insert falls in, paired with where that line starts after
/// the inserts before it. The diff compares the lines between two such places alone.
fn line_up(source: &str, inserts: &[Insert]) -> Vec<(usize, usize)> {
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let (mut before, mut counted) = (0, 0);
    for insert in inserts {
        let line = source[..insert.at].rfind('\n').map_or(0, |nl| nl + 1);
        while counted < inserts.len() && inserts[counted].at < line {
            before += inserts[counted].text.len();
            counted += 1;
        }
        if cuts.last().is_none_or(|&(at, _)| at < line) {
            cuts.push((line, line + before));
        }
    }
    cuts
}

/// `source` with the inserts applied (stable by offset).
fn apply(source: &str, inserts: &mut [Insert]) -> String {
    inserts.sort_by_key(|i| i.at);
    let mut out =
        String::with_capacity(source.len() + inserts.iter().map(|i| i.text.len()).sum::<usize>());
    let mut at = 0;
    for i in inserts.iter() {
        out.push_str(&source[at..i.at]);
        out.push_str(&i.text);
        at = i.at;
    }
    out.push_str(&source[at..]);
    out
}

/// What the merge tests of one module lack: an owner (human-written tests), a `shrinking:`
/// note (hypothesis properties).
#[derive(Debug, Default)]
struct Lacking {
    owner: usize,
    shrinking: usize,
}

/// The defining modules of merge tests that lack an owner or a shrinking note.
fn lacking(lane_after: &[(&ScanTest, Option<Lane>)]) -> BTreeMap<String, Lacking> {
    let mut modules: BTreeMap<String, Lacking> = BTreeMap::new();
    for (t, lane) in lane_after {
        if *lane != Some(Lane::Merge) {
            continue;
        }
        let property = t.marks.iter().any(|m| m == "hypothesis");
        if property && t.attachments.shrinking.is_none() {
            modules
                .entry(t.defining_file().to_string())
                .or_default()
                .shrinking += 1;
        } else if !property && t.attachments.owner.is_none() {
            modules
                .entry(t.defining_file().to_string())
                .or_default()
                .owner += 1;
        }
    }
    modules
}

/// fix-owner (and fix-property's `shrinking:` note): writes `--owner TEAM` / `--shrinking
/// NOTE` into the docstring of each module whose merge tests lack them, or lists the module.
fn owners(
    options: &FixOptions,
    modules: &BTreeMap<String, Lacking>,
    files: &mut BTreeMap<String, FileEdit>,
    lines: &mut Vec<String>,
    out: &mut FixOutcome,
    load: &mut Loader,
) {
    for (module, lacks) in modules {
        let mut fields: Vec<String> = Vec::new();
        let mut what: Vec<String> = Vec::new();
        let wants = [
            (
                lacks.owner,
                "merge test",
                "an owner",
                "owner",
                options.owner.as_deref(),
                Rule::FixOwner,
                "add an `owner:` line to its docstring or a CODEOWNERS entry, or run lane-scan --fix --owner TEAM",
            ),
            (
                lacks.shrinking,
                "merge property",
                "a shrinking note",
                "shrinking",
                options.shrinking.as_deref(),
                Rule::FixProperty,
                "add a `shrinking:` line (how hypothesis shrinks its failures) to its docstring, or run lane-scan --fix --shrinking NOTE",
            ),
        ];
        for (n, noun, lack, key, value, rule, how) in wants {
            if n == 0 {
                continue;
            }
            let noun = match (noun, n) {
                ("merge property", 1) => noun.to_string(),
                ("merge property", _) => "merge properties".to_string(),
                (noun, n) => format!("{noun}{}", plural(n)),
            };
            let tests = format!("{n} {noun} without {lack}");
            match value {
                Some(v) => {
                    fields.push(format!("{key}: {v}"));
                    what.push(format!("{key}: {v} for {tests} ({})", rule.id()));
                }
                None => lines.push(format!("{module}: {tests} ({}): {how}", rule.id())),
            }
        }
        if fields.is_empty() || !load(module, files, out) {
            continue;
        }
        let Some(edit) = files.get_mut(module) else {
            continue;
        };
        let what = what.join("; ");
        match edit.layout.docstring.clone() {
            Some(doc) if doc.triple => {
                let close = doc.end - 3;
                let before = &edit.source[..close];
                let last_line_start = before.rfind('\n').map_or(0, |i| i + 1);
                let own_line = last_line_start > 0
                    && before[last_line_start..]
                        .chars()
                        .all(|c| c == ' ' || c == '\t');
                let body: String = fields.iter().map(|f| format!("{f}\n")).collect();
                let (at, text) = if own_line {
                    (last_line_start, format!("\n{body}"))
                } else {
                    (close, format!("\n\n{body}"))
                };
                edit.inserts.push(Insert { at, text });
                lines.push(format!("{module}: written into its docstring: {what}"));
            }
            Some(_) => lines.push(format!(
                "{module}: its docstring is not triple-quoted; add by hand: {what}"
            )),
            None => {
                let at = edit.layout.first_stmt.unwrap_or(0);
                let text = match &fields[..] {
                    [one] => format!("\"\"\"{one}\"\"\"\n\n"),
                    many => format!("\"\"\"{}\n\"\"\"\n\n", many.join("\n")),
                };
                edit.inserts.insert(0, Insert { at, text });
                lines.push(format!("{module}: written into a new docstring: {what}"));
            }
        }
    }
}

/// The config file's text with the missing lane markers registered: (root-relative path, old
/// text or None when created, new text, missing marker names). None when nothing is missing or
/// pytest-lanes-gate is required (it registers them).
fn register_markers(
    config: &crate::config::Config,
    root: &Path,
) -> Result<Option<ConfigChange>, Error> {
    let required = crate::config::ini_args(config, "required_plugins").unwrap_or_default();
    if required
        .iter()
        .any(|r| crate::rules::markers::names_markers_plugin(r))
    {
        return Ok(None);
    }
    let missing: Vec<Lane> = Lane::ALL
        .iter()
        .copied()
        .filter(|l| !config.markers.iter().any(|m| m == l.as_str()))
        .collect();
    if missing.is_empty() {
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
                "{}: lane-scan --fix cannot register markers in this file",
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
    let new = markers::register(name, old.as_deref(), &missing)?;
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
