//! The rules of DESIGN.md §4, applied to each collected test and to the suite.

use lane_core::scan::{Attachments, Counts, Lane, ScanTest};
use lane_core::{Problem, Rule};

use crate::TestFound;
use crate::config::Config;
use crate::marks::{ModuleFile, Tree, Val};
use crate::python::{Call, Ex};

/// conftest.py hooks that can add marks, deselect tests or rewrite outcomes at run time.
const RUNTIME_HOOKS: &[&str] = &[
    "pytest_collection",
    "pytest_collection_modifyitems",
    "pytest_collection_finish",
    "pytest_collect_file",
    "pytest_pycollect_makeitem",
    "pytest_pycollect_makemodule",
    "pytest_generate_tests",
    "pytest_itemcollected",
    "pytest_deselected",
    "pytest_ignore_collect",
    "pytest_runtest_protocol",
    "pytest_runtest_setup",
    "pytest_runtest_call",
    "pytest_runtest_teardown",
    "pytest_runtest_makereport",
    "pytest_runtest_logreport",
    "pytest_pyfunc_call",
    "pytest_report_teststatus",
    "pytest_configure",
];

/// What one decorator or mark does to a test.
enum Effect {
    Lane(Lane),
    Skip,
    ConditionalSkip,
    Xfail,
    Retry,
    Unresolved,
    None,
}

pub fn check_test(tree: &Tree, found: TestFound, problems: &mut Vec<Problem>) -> ScanTest {
    let func = found.func;
    let func_file: &str = &tree.modules[found.func_module].rel;
    let file: &str = &tree.modules[found.module].rel;
    // Each decorator or mark gives at most one of each (parameter sets aside); sorted and
    // made unique once all are known.
    let reaching = found.decorators.len() + found.inherited.len();
    let mut lanes: Vec<Lane> = Vec::with_capacity(reaching);
    let mut marks: Vec<String> = Vec::with_capacity(reaching);
    let mut parametrized = false;
    let mut attachments = Attachments::default();
    let mut given = false;
    let mut local = Vec::new();

    for a in found.applied() {
        let effect = match &a.val {
            Val::Mark(mark) => {
                marks.push(mark.name.to_string());
                match &*mark.name {
                    "parametrize" => {
                        parametrized = true;
                        if let Some(call) = mark.call {
                            check_params(
                                tree, &found, a.module, call, a.file, a.line, &mut marks,
                                &mut lanes, problems,
                            );
                        }
                        Effect::None
                    }
                    "witness" => Effect::Lane(Lane::Witness),
                    "skip" => Effect::Skip,
                    "skipif" => skipif(mark.call),
                    "xfail" => Effect::Xfail,
                    "flaky" => Effect::Retry,
                    name => match Lane::from_name(name) {
                        Some(lane) => Effect::Lane(lane),
                        None => Effect::None,
                    },
                }
            }
            Val::CallOf(path, call) => match &**path {
                "hypothesis.given" => {
                    given = true;
                    marks.push("hypothesis".to_string());
                    if !call.args_src.is_empty() {
                        attachments.domain = Some(call.args_src.as_str().to_owned());
                    }
                    Effect::None
                }
                "unittest.skip" | "unittest.case.skip" => Effect::Skip,
                "unittest.skipIf" => condition_effect(call.args.first(), true),
                "unittest.skipUnless" => condition_effect(call.args.first(), false),
                "flaky.flaky" | "flaky" => Effect::Retry,
                _ => Effect::None,
            },
            Val::Path(path) => match &**path {
                "unittest.expectedFailure" | "unittest.case.expectedFailure" => Effect::Xfail,
                "unittest.skip" => Effect::Skip,
                "flaky.flaky" => Effect::Retry,
                _ => Effect::None,
            },
            Val::Unknown => Effect::Unresolved,
            _ => Effect::None,
        };
        match effect {
            Effect::Lane(lane) => lanes.push(lane),
            Effect::None => {}
            other => local.push((other, a)),
        }
    }
    lanes.sort_unstable();
    lanes.dedup();
    marks.sort_unstable();
    marks.dedup();

    let lane = if lanes.len() == 1 {
        lanes.first().copied()
    } else {
        None
    };
    let id = found.id.as_str();
    let at = |rule: Rule, msg: String, file: &str, line: u64| {
        Problem::new(rule, msg).at(file, line).test(id)
    };

    for (effect, a) in &local {
        match effect {
            Effect::Skip => problems.push(at(
                Rule::UnconditionalSkip,
                format!("{id} is skipped unconditionally: a skip deletes evidence"),
                a.file,
                a.line,
            )),
            Effect::ConditionalSkip => problems.push(at(
                Rule::ConditionalSkip,
                format!("{id} has a conditional skip; when it skips on the gate's runner it cannot vote"),
                a.file,
                a.line,
            )),
            Effect::Xfail if lane.is_some_and(Lane::votes) => problems.push(at(
                Rule::XfailInVotingLane,
                format!("{id} is an expected failure in the {} lane", lane.map(Lane::as_str).unwrap_or("")),
                a.file,
                a.line,
            )),
            Effect::Retry if lane.is_some_and(Lane::votes) => problems.push(at(
                Rule::RetryInVotingLane,
                format!("{id} is retried on failure in the {} lane", lane.map(Lane::as_str).unwrap_or("")),
                a.file,
                a.line,
            )),
            Effect::Unresolved => problems.push(at(
                Rule::UnresolvedMarker,
                if a.from_pytestmark {
                    "pytestmark cannot be resolved statically: write the marks literally, e.g. pytestmark = [pytest.mark.merge]".to_string()
                } else {
                    "a decorator refers to pytest marks but cannot be resolved statically".to_string()
                },
                a.file,
                a.line,
            )),
            _ => {}
        }
    }

    // Skips written in the body: `pytest.skip()` or `self.skipTest()` as a top-level statement.
    for call in &func.body_calls {
        if let Val::CallOf(path, _) = tree.eval(&call.value, found.func_module)
            && (path == "pytest.skip" || path == "self.skipTest")
        {
            problems.push(at(
                Rule::UnconditionalSkip,
                format!("{id} calls {path}() unconditionally in its body"),
                func_file,
                call.line,
            ));
        }
    }
    if let Some(line) = found.module_skip {
        problems.push(
            Problem::new(
                Rule::UnconditionalSkip,
                format!(
                    "{} calls pytest.skip() at module level: every test in it is skipped",
                    file
                ),
            )
            .at(file, line),
        );
    }

    if let Some(doc) = &func.docstring {
        [attachments.owner, attachments.shrinking] = docstring_fields(doc, ["owner", "shrinking"]);
    }
    for a in found.applied() {
        if matches!(&a.val, Val::Mark(mark) if mark.name == "witness") {
            witness_attachments(tree, &found, a, &mut attachments, problems);
        }
    }

    match lanes.len() {
        0 => problems.push(at(
            Rule::Unmarked,
            format!("{id} has no lane: mark it merge, witness or freeze"),
            func_file,
            func.line,
        )),
        1 => {}
        _ => problems.push(at(
            Rule::MultipleLanes,
            format!(
                "{id} is in {} lanes: {}",
                lanes.len(),
                lanes
                    .iter()
                    .map(|l| l.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            func_file,
            func.line,
        )),
    }
    match lane {
        Some(Lane::Merge) => {
            if given {
                let mut missing = Vec::new();
                if attachments.domain.is_none() {
                    missing.push("a domain (@given strategies)");
                }
                if attachments.shrinking.is_none() {
                    missing.push("a 'shrinking:' note in the docstring");
                }
                if !missing.is_empty() {
                    problems.push(at(
                        Rule::MissingAttachment,
                        format!("merge property {id} needs {}", missing.join(" and ")),
                        func_file,
                        func.line,
                    ));
                }
            } else if attachments.owner.is_none() {
                problems.push(at(
                    Rule::MissingAttachment,
                    format!("merge test {id} needs an 'owner:' line in its docstring"),
                    func_file,
                    func.line,
                ));
            }
            let asserts = &func.asserts;
            if asserts.checks == 0 && asserts.asserts > 0 && asserts.tautologies == asserts.asserts
            {
                problems.push(at(
                    Rule::Tautology,
                    format!("merge test {id} only asserts things that cannot fail"),
                    func_file,
                    asserts.first_tautology.unwrap_or(func.line),
                ));
            } else if asserts.checks == 0 && asserts.asserts == 0 {
                problems.push(at(
                    Rule::NoAssertion,
                    format!("merge test {id} asserts nothing"),
                    func_file,
                    func.line,
                ));
            }
        }
        Some(Lane::Witness)
            if attachments.fixtures.is_empty() && attachments.locked_on.is_none() =>
        {
            problems.push(at(
                    Rule::MissingAttachment,
                    format!("witness test {id} needs fixture= (locked golden bytes) or locked_on= (a lock date)"),
                    func_file,
                    func.line,
                ));
        }
        _ => {}
    }

    ScanTest {
        id: found.id,
        file: file.to_string(),
        line: func.line,
        lane,
        lanes,
        marks,
        parametrized,
        attachments,
    }
}

fn skipif(call: Option<&Call>) -> Effect {
    let Some(call) = call else {
        return Effect::Skip;
    };
    let condition = call.args.first().or_else(|| {
        call.kwargs
            .iter()
            .find(|(k, _)| k == "condition")
            .map(|(_, v)| v)
    });
    match condition {
        // skipif() without a condition skips unconditionally.
        None if !call.starred => Effect::Skip,
        None => Effect::ConditionalSkip,
        Some(c) => condition_effect(Some(c), true),
    }
}

/// A skip whose condition is a literal: `skip_when` is the truth value that skips.
fn condition_effect(condition: Option<&Ex>, skip_when: bool) -> Effect {
    let truth = match condition {
        Some(Ex::Const(b)) => Some(*b),
        // pytest evaluates string conditions as Python; a literal "True" is still constant.
        Some(Ex::Str(s)) => match s.trim() {
            "True" | "1" => Some(true),
            "False" | "0" | "None" | "" => Some(false),
            _ => None,
        },
        _ => None,
    };
    match truth {
        Some(t) if t == skip_when => Effect::Skip,
        Some(_) => Effect::None,
        None => Effect::ConditionalSkip,
    }
}

/// `pytest.param(..., marks=...)` inside a parametrize: lane marks and skips are refused.
#[allow(clippy::too_many_arguments)]
fn check_params(
    tree: &Tree,
    found: &TestFound,
    m: usize,
    call: &Call,
    file: &str,
    line: u64,
    marks: &mut Vec<String>,
    lanes: &mut Vec<Lane>,
    problems: &mut Vec<Problem>,
) {
    let values = call.args.get(1).or_else(|| {
        call.kwargs
            .iter()
            .find(|(k, _)| k == "argvalues")
            .map(|(_, v)| v)
    });
    let Some(Ex::List(items) | Ex::Tuple(items)) = values else {
        return;
    };
    for item in items {
        let Ex::Call(param) = item else { continue };
        let Val::Path(p) = tree.eval(&param.func, m) else {
            continue;
        };
        if p != "pytest.param" {
            continue;
        }
        let Some((_, marks_ex)) = param.kwargs.iter().find(|(k, _)| k == "marks") else {
            continue;
        };
        let vals = match tree.eval(marks_ex, m) {
            Val::List(v) => v,
            other => vec![other],
        };
        for v in vals {
            let problem = match &v {
                Val::Mark(mark) => {
                    marks.push(mark.name.to_string());
                    // pytest gives the parameter set's item this lane too.
                    if let Some(lane) = Lane::from_name(&mark.name) {
                        lanes.push(lane);
                    }
                    if Lane::from_name(&mark.name).is_some() {
                        Some(Problem::new(
                            Rule::ParamLaneMark,
                            format!(
                                "{}: a {} mark inside pytest.param(marks=...): split the cases into separate tests",
                                found.id, mark.name
                            ),
                        ))
                    } else if mark.name == "skip"
                        || (mark.name == "skipif" && matches!(skipif(mark.call), Effect::Skip))
                    {
                        Some(Problem::new(
                            Rule::UnconditionalSkip,
                            format!("{}: a parameter set is skipped unconditionally", found.id),
                        ))
                    } else {
                        None
                    }
                }
                _ => Some(Problem::new(
                    Rule::UnresolvedMarker,
                    format!(
                        "{}: pytest.param(marks=...) cannot be resolved statically",
                        found.id
                    ),
                )),
            };
            if let Some(p) = problem {
                problems.push(p.at(file, line).test(found.id.clone()));
            }
        }
    }
}

fn witness_attachments(
    tree: &Tree,
    found: &TestFound,
    w: &crate::Applied,
    attachments: &mut Attachments,
    problems: &mut Vec<Problem>,
) {
    let Val::Mark(mark) = &w.val else { return };
    let Some(call) = mark.call else { return };
    for (key, value) in &call.kwargs {
        match key.as_str() {
            "fixture" => {
                let paths: Vec<Option<&str>> = match value {
                    Ex::Str(s) => vec![Some(s.as_str())],
                    Ex::List(items) | Ex::Tuple(items) => items
                        .iter()
                        .map(|i| match i {
                            Ex::Str(s) => Some(s.as_str()),
                            _ => None,
                        })
                        .collect(),
                    _ => vec![None],
                };
                for p in paths {
                    let Some(p) = p else {
                        problems.push(
                            Problem::new(
                                Rule::MissingAttachment,
                                format!(
                                    "{}: fixture= must be a string or a list of strings",
                                    found.id
                                ),
                            )
                            .at(w.file, w.line)
                            .test(found.id.clone()),
                        );
                        continue;
                    };
                    fixture_path(tree, found, w, p, attachments, problems);
                }
            }
            "locked_on" => match value {
                Ex::Str(s) if lane_core::clock::parse_date(s).is_ok() => {
                    attachments.locked_on = Some(s.as_str().to_owned())
                }
                _ => problems.push(
                    Problem::new(
                        Rule::MissingAttachment,
                        format!("{}: locked_on= must be a date string YYYY-MM-DD", found.id),
                    )
                    .at(w.file, w.line)
                    .test(found.id.clone()),
                ),
            },
            _ => {}
        }
    }
}

fn fixture_path(
    tree: &Tree,
    found: &TestFound,
    w: &crate::Applied,
    p: &str,
    attachments: &mut Attachments,
    problems: &mut Vec<Problem>,
) {
    let test_dir = match w.file.rsplit_once('/') {
        Some((dir, _)) => dir.to_string(),
        None => String::new(),
    };
    let mut parts: Vec<&str> = test_dir.split('/').filter(|s| !s.is_empty()).collect();
    let mut escapes = p.starts_with('/');
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    escapes = true;
                }
            }
            s => parts.push(s),
        }
    }
    let rel = parts.join("/");
    let problem = |msg: String| {
        Problem::new(Rule::MissingFixture, msg)
            .at(w.file, w.line)
            .test(found.id.clone())
    };
    if escapes || rel.is_empty() {
        problems.push(problem(format!(
            "{}: fixture '{p}' is outside the root",
            found.id
        )));
        return;
    }
    if !tree.root.join(&rel).is_file() {
        problems.push(problem(format!(
            "{}: fixture '{rel}' does not exist",
            found.id
        )));
    }
    if !attachments.fixtures.contains(&rel) {
        attachments.fixtures.push(rel);
        attachments.fixtures.sort();
    }
}

/// `owner: X` / `shrinking: ...` fields of a docstring, in one pass: each key's first `key:`
/// line (the key in any case) gives the rest of that line, or the next non-empty line when
/// the rest is empty, as if each key were looked for alone. Keys must be ASCII.
fn docstring_fields<const N: usize>(doc: &str, keys: [&str; N]) -> [Option<String>; N] {
    /// Where the search for one key stands.
    #[derive(Clone, Copy)]
    enum State<'d> {
        Looking,
        /// `key:` ended its line: the value is the next non-empty line.
        NextLine,
        Found(&'d str),
    }
    let mut states = [State::Looking; N];
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', doc.as_bytes()).chain([doc.len()]);
    for end in ends {
        // Trimmed at the end only when it is a value.
        let line = doc[start..end].trim_start();
        start = end + 1;
        if line.is_empty() {
            continue;
        }
        let mut done = true;
        for (state, key) in states.iter_mut().zip(keys) {
            match state {
                State::Looking => match field_rest(line, key) {
                    Some("") => *state = State::NextLine,
                    Some(rest) => *state = State::Found(rest),
                    None => {}
                },
                State::NextLine => *state = State::Found(line.trim_end()),
                State::Found(_) => {}
            }
            done &= matches!(state, State::Found(_));
        }
        if done {
            break;
        }
    }
    states.map(|state| match state {
        State::Found(value) => Some(value.to_string()),
        State::Looking | State::NextLine => None,
    })
}

/// The rest of a docstring line `key: rest` (trimmed at the start), trimmed, when the line
/// is one.
fn field_rest<'d>(line: &'d str, key: &str) -> Option<&'d str> {
    // An ASCII key matched byte for byte ends on a character boundary.
    let head = line.as_bytes().get(..key.len())?;
    if !head.eq_ignore_ascii_case(key.as_bytes()) {
        return None;
    }
    Some(line[key.len()..].trim_start().strip_prefix(':')?.trim())
}

pub fn check_suite(config: &Config, counts: &Counts, problems: &mut Vec<Problem>) {
    let config_rel = config
        .file
        .as_ref()
        .and_then(|f| lane_core::paths::relative_to(f, &config.rootdir));
    let locate = |p: Problem, line: Option<u64>| match (&config_rel, line) {
        (Some(f), Some(l)) if l > 0 => p.at(f, l),
        (Some(f), _) => p.file(f),
        _ => p,
    };
    let missing: Vec<&str> = Lane::ALL
        .iter()
        .map(|l| l.as_str())
        .filter(|l| !config.markers.iter().any(|m| m == l))
        .collect();
    if !missing.is_empty() {
        let msg = match &config_rel {
            Some(f) => format!(
                "{f} does not register the marker{} {} (--strict-markers would fail)",
                if missing.len() == 1 { "" } else { "s" },
                missing.join(", ")
            ),
            None => format!(
                "no pytest configuration file registers the markers {} (--strict-markers would fail)",
                missing.join(", ")
            ),
        };
        problems.push(locate(
            Problem::new(Rule::UnregisteredMarker, msg),
            config.markers_line,
        ));
    }
    let retry = config
        .addopts
        .iter()
        .find(|a| a.starts_with("--reruns") || a.starts_with("--force-flaky"));
    if let Some(opt) = retry
        && counts.merge + counts.witness > 0
    {
        problems.push(locate(
            Problem::new(
                Rule::RetryInVotingLane,
                format!("addopts has {opt}: every merge and witness test is retried on failure"),
            ),
            config.addopts_line,
        ));
    }
    if counts.merge == 0 {
        problems.push(Problem::new(
            Rule::EmptyMergeLane,
            "no merge test: nothing can approve the patch",
        ));
    }
    if counts.freeze > counts.merge {
        problems.push(Problem::new(
            Rule::FreezeOverBudget,
            format!(
                "{} freeze tests but only {} merge tests: freeze may not outgrow merge",
                counts.freeze, counts.merge
            ),
        ));
    }
}

pub fn runtime_hooks(module: &ModuleFile, problems: &mut Vec<Problem>) {
    for f in &module.module.functions {
        if RUNTIME_HOOKS.contains(&f.name.as_str()) {
            problems.push(
                Problem::new(
                    Rule::RuntimeHook,
                    format!(
                        "{} defines {}, which can change marks or outcomes at run time",
                        module.rel, f.name
                    ),
                )
                .at(&module.rel, f.line),
            );
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn doc_fields() {
        let doc = "Round trip.\n\n    owner: billing-team\n    Shrinking:\n      toward zero\n";
        assert_eq!(
            docstring_fields(doc, ["owner", "shrinking"]),
            [Some("billing-team".into()), Some("toward zero".into())]
        );
        assert_eq!(docstring_fields("ownership: x", ["owner"]), [None]);
    }

    /// `doc_field` as it was when it read one key per pass: `docstring_fields` must agree with it.
    fn doc_field_alone(doc: &str, key: &str) -> Option<String> {
        let mut lines = doc.lines().map(str::trim);
        while let Some(line) = lines.next() {
            let Some(head) = line.get(..key.len()) else {
                continue;
            };
            if !head.eq_ignore_ascii_case(key) {
                continue;
            }
            let Some(rest) = line[key.len()..].trim_start().strip_prefix(':') else {
                continue;
            };
            let rest = rest.trim();
            if !rest.is_empty() {
                return Some(rest.to_string());
            }
            return lines.find(|l| !l.is_empty()).map(str::to_string);
        }
        None
    }

    #[test]
    fn docstring_fields_in_one_pass() {
        let both = |doc: &str| docstring_fields(doc, ["owner", "shrinking"]);
        // A key whose value is on the next line does not hide a key on that line.
        assert_eq!(
            both("OWNER:\n\n  shrinking : toward zero \r\n"),
            [
                Some("shrinking : toward zero".to_string()),
                Some("toward zero".to_string())
            ]
        );
        // Only each key's first line counts, even when it has no value.
        assert_eq!(
            both("Shrinking:\n\t\n\nowner: a\nowner: b\nshrinking: c"),
            [Some("a".to_string()), Some("owner: a".to_string())]
        );
        assert_eq!(both("owner:\n \n"), [None, None]);
        // Unicode spaces are trimmed; a key split by a character is not a key.
        assert_eq!(
            both("\u{a0}owner:\u{2003}x\u{a0}\nshrinkingé: y"),
            [Some("x".to_string()), None]
        );
    }

    proptest::proptest! {
        #[test]
        fn docstring_fields_agree_with_one_key_at_a_time(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "owner", "Owner", "SHRINKING", "shrinking", "ownership", ":", " ", "\t",
                    "\n", "\r\n", "\r", "x", "é", "\u{a0}", "\u{2003}",
                ]),
                0..24,
            )
        ) {
            let doc = parts.concat();
            let [owner, shrinking] = docstring_fields(&doc, ["owner", "shrinking"]);
            proptest::prop_assert_eq!(owner, doc_field_alone(&doc, "owner"));
            proptest::prop_assert_eq!(shrinking, doc_field_alone(&doc, "shrinking"));
        }
    }

    #[test]
    fn skip_conditions() {
        let cases: &[(Option<Ex>, bool, &str)] = &[
            (Some(Ex::Const(true)), true, "skip"),
            (Some(Ex::Const(false)), true, "none"),
            (Some(Ex::Str("True".into())), true, "skip"),
            (
                Some(Ex::Str("sys.platform == 'win32'".into())),
                true,
                "conditional",
            ),
            (Some(Ex::Name("FLAG".into())), true, "conditional"),
            (Some(Ex::Const(false)), false, "skip"),
        ];
        for (cond, when, want) in cases {
            let got = match condition_effect(cond.as_ref(), *when) {
                Effect::Skip => "skip",
                Effect::ConditionalSkip => "conditional",
                _ => "none",
            };
            assert_eq!(got, *want, "{cond:?}");
        }
    }
}
