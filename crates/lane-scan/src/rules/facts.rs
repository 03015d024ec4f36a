//! The facts about one collected test that the detectors judge: its lanes, what its
//! decorators and marks do, its attachments, and the arguments that could not be read.

use lane_core::scan::{Attachments, EmptyParams, Lane};

use crate::pytest::collect::{Applied, EmptySetMark, TestFound};
use crate::pytest::fixtures::FixtureUse;
use crate::pytest::marks::{ModuleId, SourceTree, Val};
use lane_python::{Call, Ex, Function};

/// What one decorator or mark does to a test.
pub enum Effect {
    Lane(Lane),
    Skip,
    ConditionalSkip,
    Xfail,
    Retry,
    Unresolved,
    None,
}

/// A mark inside `pytest.param(..., marks=...)` that a detector judges.
pub enum ParamMark {
    /// A lane mark, by name.
    Lane(String),
    /// A skip (`skip`, or `skipif` decided as true), by the mark's name.
    Skip(String),
    /// An expected failure (`xfail`): judged by no rule here, but that parameter set cannot
    /// vote (`lane-scan --fix` lists the test).
    Xfail,
    Unresolved,
    /// The `params` of the fixture named cannot be read.
    UnresolvedFixture(String),
    /// A parametrize over an empty list under `empty_parameter_set_mark = fail_at_collect`
    /// (or a value pytest does not accept): the module fails collection.
    EmptySetFailsCollection,
}

/// A witness mark's argument that gives no attachment, and why.
pub enum BadWitnessArg {
    /// `fixture=` is not a string or a list of strings.
    FixtureNotText,
    /// The fixture path (as written) climbs out of the root.
    FixtureOutside(String),
    /// The fixture path (root-relative) names no file.
    FixtureMissing(String),
    /// `locked_on=` is not a date string.
    BadLockDate,
    /// pytest-snapshot's `snapshot_dir`, or a pytest-regressions `check`'s `basename=` /
    /// `fullpath=`, is something other than a string literal inside the root: its files
    /// cannot be found.
    SnapshotUnresolved(crate::snapshots::Unresolved),
}

/// Something found at a place in the source.
pub struct At<'a, T> {
    pub what: T,
    pub file: &'a str,
    pub line: u64,
}

/// Everything the detectors know about one test.
pub struct TestFacts<'a> {
    pub id: &'a str,
    pub func: &'a Function,
    /// Root-relative file the function is written in.
    pub func_file: &'a str,
    /// Root-relative file the test is collected from.
    pub file: &'a str,
    /// The test's lane when exactly one reaches it.
    pub lane: Option<Lane>,
    /// Every lane reaching it, sorted and unique.
    pub lanes: Vec<Lane>,
    pub marks: Vec<String>,
    /// While the facts are gathered: the marks that reach it through a
    /// `pytest.param(..., marks=...)` (one parameter set's, not the test's as a whole), joined
    /// to `marks` (those no other source gives) once every other source is known; empty after.
    pub param_only_marks: Vec<String>,
    pub parametrized: bool,
    /// `@hypothesis.given` reaches it.
    pub given: bool,
    pub attachments: Attachments,
    /// Effects other than a lane, with the decorator or mark that has them.
    pub effects: Vec<(Effect, &'a Applied<'a>)>,
    pub param_marks: Vec<At<'a, ParamMark>>,
    pub bad_witness_args: Vec<At<'a, BadWitnessArg>>,
    /// Top-level `pytest.skip()` / `self.skipTest()` calls in the body: the name called.
    pub body_skips: Vec<At<'a, String>>,
    /// A `pytest.skip()` at module level, by line.
    pub module_skip: Option<u64>,
    /// What a parametrize over an empty list gives the test.
    pub empty_set_mark: EmptySetMark,
    /// Parameter sets computed at run time (a parametrize's argvalues, a used fixture's
    /// `params=`): where each is written.
    pub computed_params: Vec<At<'a, ()>>,
    /// Fixtures the test uses whose `params=` is written as an empty list or tuple: pytest
    /// gives the test one item with the empty_parameter_set_mark, as for a parametrize
    ///.
    pub empty_fixture_params: Vec<At<'a, &'a str>>,
    /// An installed plugin marks the test xfail as it collects it (pytest-asyncio's async
    /// generators).
    pub plugin_xfail: bool,
    /// Its body asserts only things that cannot fail, and one of them compares with itself a
    /// value built by a project class that defines `__eq__` (see [`tests_project_eq`]): a
    /// reflexivity test of that `__eq__`.
    pub tests_project_eq: bool,
    /// Its body asserts and checks nothing, and calls a helper of the test tree that does (see
    /// [`asserting_helper`]): where, when found.
    pub asserting_helper: Option<At<'a, &'a str>>,
}

/// What a test's parameter sets are, as far as the source says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sets {
    /// Written as an empty list or tuple.
    Empty,
    /// At least one set, whatever happens at run time.
    NonEmpty,
    /// Computed at run time (a call, a generator, a name that may be filled or emptied later):
    /// it may come out empty.
    Computed,
}

/// The sets of a written parametrize argvalues or fixture `params=`. Literals decide alone; a
/// name is read through its binding (`CASES = [...]`, non-empty: sets; bound to `[]` it is
/// usually filled later, so it counts as computed).
fn sets_of(tree: &SourceTree<'_>, ex: &Ex, module: ModuleId) -> Sets {
    match ex {
        Ex::List(items) | Ex::Tuple(items) if items.is_empty() => Sets::Empty,
        Ex::List(_) | Ex::Tuple(_) => Sets::NonEmpty,
        Ex::Str(s) if s.is_empty() => Sets::Empty,
        Ex::Str(_) => Sets::NonEmpty,
        Ex::Add(left, right) => match (sets_of(tree, left, module), sets_of(tree, right, module)) {
            (Sets::NonEmpty, _) | (_, Sets::NonEmpty) => Sets::NonEmpty,
            (Sets::Empty, Sets::Empty) => Sets::Empty,
            _ => Sets::Computed,
        },
        Ex::Name(_) | Ex::Dotted(_) | Ex::Attr(..) => match tree.eval(ex, module) {
            Val::List(items) if !items.is_empty() => Sets::NonEmpty,
            Val::Str(s) if !s.is_empty() => Sets::NonEmpty,
            _ => Sets::Computed,
        },
        _ => Sets::Computed,
    }
}

/// A parametrize whose argvalues are written as an empty list or tuple. Only the literal is
/// read: a name bound to `[]` is often filled later (`CASES.append(...)`), and values computed
/// at run time are unknown (an empty one shows at run time as pytest's `got empty parameter
/// set` skip, which lane-tally reports for the test).
fn empty_argvalues(call: &Call) -> bool {
    let values = call.args.get(1).or_else(|| kwarg(call, "argvalues"));
    matches!(values, Some(Ex::List(items) | Ex::Tuple(items)) if items.is_empty())
}

/// The most module-level definitions a domain records.
const DOMAIN_DEFINITIONS_MAX: usize = 32;

/// A `@given(...)`'s domain: the arguments as written and, after `where`, the definitions of
/// the module-level names they read, transitively (in the decorator's module, and in tree
/// modules a name is imported from), so a strategy narrowed behind a name changes the text.
fn domain_text(tree: &SourceTree<'_>, module: ModuleId, call: &Call) -> String {
    fn names_of(ex: &Ex, out: &mut Vec<String>) {
        match ex {
            Ex::Name(n) => out.push(n.to_string()),
            Ex::Dotted(d) => out.push(d.split('.').next().unwrap_or_default().to_string()),
            Ex::Attr(v, _) => names_of(v, out),
            Ex::Call(c) => {
                names_of(&c.func, out);
                c.args.iter().for_each(|a| names_of(a, out));
                c.kwargs.iter().for_each(|(_, a)| names_of(a, out));
            }
            Ex::List(items) | Ex::Tuple(items) => items.iter().for_each(|a| names_of(a, out)),
            Ex::Add(a, b) => {
                names_of(a, out);
                names_of(b, out);
            }
            Ex::Str(_) | Ex::Const(_) | Ex::Other => {}
        }
    }
    let mut start = Vec::new();
    names_of(&Ex::Call(Box::new(call.clone())), &mut start);
    let mut todo: Vec<(ModuleId, String)> = start.into_iter().map(|n| (module, n)).collect();
    let mut seen: std::collections::HashSet<(ModuleId, String)> = Default::default();
    let mut found: std::collections::BTreeMap<String, String> = Default::default();
    while let Some((m, name)) = todo.pop() {
        if found.len() >= DOMAIN_DEFINITIONS_MAX || !seen.insert((m, name.clone())) {
            continue;
        }
        let file = &tree.modules[m];
        if let Some(d) = file.module.definitions.iter().find(|d| d.name == name) {
            let key = if m == module {
                name.clone()
            } else {
                format!("{}:{name}", file.rel)
            };
            found.insert(key, d.text.to_string());
            todo.extend(d.names.iter().map(|n| (m, n.to_string())));
            continue;
        }
        // `from M import name` of a tree module: its definition there.
        if let Some(import) = file
            .module
            .imports
            .iter()
            .rev()
            .find(|i| i.binds == name.as_str() && i.name.is_some())
            && let Some(other) = tree.find_module(&file.abs, &import.module, import.level)
            && let Some(real) = &import.name
        {
            todo.push((other, real.to_string()));
        }
    }
    let mut text = call.args_src.to_string();
    if !found.is_empty() {
        let parts: Vec<String> = found.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        text.push_str(" where ");
        text.push_str(&parts.join("; "));
    }
    text
}

impl<'a> TestFacts<'a> {
    /// Gathers the facts of `found`.
    pub fn gather(
        tree: &'a SourceTree<'a>,
        found: &'a TestFound<'a>,
        profile: Option<&super::weakened_search::Profile>,
    ) -> TestFacts<'a> {
        let func = found.func;
        // Each decorator or mark gives at most one of each (parameter sets aside); sorted and
        // made unique once all are known.
        let reaching = found.decorators.len() + found.inherited.len();
        let mut facts = TestFacts {
            id: found.id.as_str(),
            func,
            func_file: &tree.modules[found.func_module].rel,
            file: &tree.modules[found.module].rel,
            lane: None,
            lanes: Vec::with_capacity(reaching),
            marks: Vec::with_capacity(reaching),
            param_only_marks: Vec::new(),
            parametrized: false,
            given: false,
            attachments: Attachments::default(),
            effects: Vec::new(),
            param_marks: Vec::new(),
            bad_witness_args: Vec::new(),
            body_skips: Vec::new(),
            module_skip: found.module_skip,
            empty_set_mark: found.empty_set_mark,
            computed_params: Vec::new(),
            empty_fixture_params: Vec::new(),
            plugin_xfail: found.plugin_marks.contains(&"xfail"),
            tests_project_eq: false,
            asserting_helper: None,
        };
        for a in found.applied() {
            match facts.effect_of(tree, a) {
                Effect::Lane(lane) => facts.lanes.push(lane),
                Effect::None => {}
                other => facts.effects.push((other, a)),
            }
        }
        for u in &found.fixture_params {
            facts.fixture_param_sets(tree, u);
        }
        for m in found.plugin_marks {
            facts.add_mark(m);
        }
        // The asyncio mark makes an async generator pytest-asyncio's in strict mode too: it
        // marks it xfail(run=False).
        if func.async_generator && !facts.plugin_xfail && facts.marks.iter().any(|m| m == "asyncio")
        {
            facts.add_mark("xfail");
            facts.plugin_xfail = true;
        }
        // The parameter sets' marks (noted apart so far): those no other source gives.
        let mut from_params = std::mem::take(&mut facts.param_only_marks);
        from_params.retain(|m| !facts.marks.contains(m));
        from_params.sort_unstable();
        facts.marks.extend(from_params);
        if facts.given {
            facts.search_domain(tree, found, profile);
        }
        facts.lanes.sort_unstable();
        facts.lanes.dedup();
        facts.marks.sort_unstable();
        facts.marks.dedup();
        if let [lane] = facts.lanes[..] {
            facts.lane = Some(lane);
        }
        for call in &func.body_calls {
            if let Val::CallOf(path, _) = tree.eval(&call.value, found.func_module)
                && (path == "pytest.skip" || path == "self.skipTest")
            {
                facts.body_skips.push(At {
                    what: path.into_owned(),
                    file: facts.func_file,
                    line: call.line,
                });
            }
        }
        let counted = &func.asserts;
        if counted.asserts == 0 && counted.checks == 0 && !func.calls.is_empty() {
            facts.asserting_helper = asserting_helper(tree, func, found.func_module);
        }
        if counted.checks == 0
            && counted.tautologies == counted.asserts
            && !counted.self_compared.is_empty()
        {
            facts.tests_project_eq = tests_project_eq(tree, func, found.func_module);
        }
        if let Some(doc) = &func.docstring {
            [facts.attachments.owner, facts.attachments.shrinking] =
                docstring_fields(doc, ["owner", "shrinking"]);
        }
        if facts.given && facts.attachments.shrinking.is_none() {
            facts.attachments.shrinking = outer_field(tree, found, "shrinking").map(|(v, _)| v);
        }
        facts.attachments.owner_from = match facts.attachments.owner {
            Some(_) => Some(crate::owners::FROM_TEST.to_string()),
            None => facts.outer_owner(tree, found),
        };
        for a in found.applied() {
            if let Val::Mark(mark) = &a.val
                && mark.name == "witness"
                && let Some(call) = mark.call
            {
                facts.witness_args(tree, a, call);
            }
        }
        facts
    }

    /// The evidence's `empty_params`: where the test's computed parameter sets are written and
    /// what pytest's empty_parameter_set_mark makes of an empty one.
    pub fn empty_params(&self) -> Option<EmptyParams> {
        if self.computed_params.is_empty() {
            return None;
        }
        let mut places: Vec<(&str, u64)> = self
            .computed_params
            .iter()
            .map(|at| (at.file, at.line))
            .collect();
        places.sort_unstable();
        places.dedup();
        let computed = places.iter().map(|(f, l)| format!("{f}:{l}")).collect();
        let mark = match self.empty_set_mark {
            EmptySetMark::Skip => "skip",
            EmptySetMark::Xfail => "xfail",
            EmptySetMark::FailAtCollect => "fail_at_collect",
        };
        Some(EmptyParams {
            computed,
            mark: mark.to_string(),
        })
    }

    /// The owner from an enclosing class's docstring (innermost first), the module's
    /// docstring, or CODEOWNERS for the test file; sets `owner` and returns where it came from.
    fn outer_owner(
        &mut self,
        tree: &'a SourceTree<'a>,
        found: &'a TestFound<'a>,
    ) -> Option<String> {
        if let Some((owner, from)) = outer_field(tree, found, "owner") {
            self.attachments.owner = Some(owner);
            return Some(from.to_string());
        }
        let (owner, from) = tree.codeowners.as_ref()?.owner_of(self.file)?;
        self.attachments.owner = Some(owner);
        Some(from)
    }

    /// Notes mark `name` once: a name reaching the test again (stacked parametrizes, a class's
    /// and its base's marks) is not copied only to be dropped when `marks` is made unique.
    fn add_mark(&mut self, name: &str) {
        if !self.marks.iter().any(|m| m == name) {
            self.marks.push(name.to_string());
        }
    }

    /// What `a` does to the test; marks and parameter sets are noted on the way.
    fn effect_of(&mut self, tree: &'a SourceTree<'a>, a: &'a Applied<'a>) -> Effect {
        match &a.val {
            Val::Mark(mark) => {
                self.add_mark(&mark.name);
                match &*mark.name {
                    "parametrize" => {
                        self.parametrized = true;
                        let Some(call) = mark.call else {
                            return Effect::None;
                        };
                        self.param_sets(tree, a, call);
                        if !empty_argvalues(call) {
                            let values = call.args.get(1).or_else(|| kwarg(call, "argvalues"));
                            let sets =
                                values.map_or(Sets::Computed, |v| sets_of(tree, v, a.module));
                            if sets == Sets::Computed {
                                self.computed_params.push(At {
                                    what: (),
                                    file: a.file,
                                    line: a.line,
                                });
                            }
                            return Effect::None;
                        }
                        // pytest gives the test one item with the empty_parameter_set_mark
                        //.
                        match self.empty_set_mark {
                            EmptySetMark::Skip => {
                                self.add_mark("skip");
                                Effect::Skip
                            }
                            EmptySetMark::Xfail => {
                                self.add_mark("xfail");
                                Effect::Xfail
                            }
                            EmptySetMark::FailAtCollect => {
                                self.param_marks.push(At {
                                    what: ParamMark::EmptySetFailsCollection,
                                    file: a.file,
                                    line: a.line,
                                });
                                Effect::None
                            }
                        }
                    }
                    "witness" => Effect::Lane(Lane::Witness),
                    "skip" => Effect::Skip,
                    "skipif" => skipif(mark.call),
                    "xfail" => Effect::Xfail,
                    "flaky" => Effect::Retry,
                    name => Lane::from_name(name).map_or(Effect::None, Effect::Lane),
                }
            }
            Val::CallOf(path, call) => match &**path {
                "hypothesis.given" => {
                    self.given = true;
                    self.add_mark("hypothesis");
                    if !call.args_src.is_empty() {
                        self.attachments.domain = Some(domain_text(tree, a.module, call));
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
        }
    }

    /// A property's `assume()` calls and effective settings: the loaded profile's, overridden by
    /// the `@settings(...)` decorators reaching it (the nearest last, as it wins).
    fn search_domain(
        &mut self,
        tree: &'a SourceTree<'a>,
        found: &'a TestFound<'a>,
        profile: Option<&super::weakened_search::Profile>,
    ) {
        for call in &found.func.assumes {
            if let Val::CallOf(path, c) = tree.eval(&call.value, found.func_module)
                && path == "hypothesis.assume"
            {
                self.attachments.assumes.push(c.args_src.to_string());
            }
        }
        let settings = &mut self.attachments.settings;
        if let Some(p) = profile {
            settings.extend(p.settings.clone());
            settings.insert("profile".to_string(), p.name.clone());
        }
        let decorators: Vec<&Applied> = found.decorators.iter().collect();
        for a in decorators.into_iter().rev() {
            if let Val::CallOf(path, c) = &a.val
                && path == "hypothesis.settings"
            {
                for ((k, _), src) in c.kwargs.iter().zip(c.kwargs_src()) {
                    settings.insert(k.to_string(), src.to_string());
                }
            }
        }
    }

    /// The marks of `pytest.param(..., marks=...)` in a parametrize: noted as the test's marks
    /// (and lanes: pytest gives the parameter set's item the lane too), and kept for judging.
    fn param_sets(&mut self, tree: &'a SourceTree<'a>, a: &'a Applied<'a>, call: &'a Call) {
        let values = call.args.get(1).or_else(|| kwarg(call, "argvalues"));
        let Some(Ex::List(items) | Ex::Tuple(items)) = values else {
            return;
        };
        for item in items {
            let Ex::Call(param) = item else { continue };
            let Val::Path(p) = tree.eval(&param.func, a.module) else {
                continue;
            };
            if p != "pytest.param" {
                continue;
            }
            let Some(marks_ex) = kwarg(param, "marks") else {
                continue;
            };
            self.param_entry_marks(tree, a.module, marks_ex, a.file, a.line);
        }
    }

    /// The params of a parametrized fixture the test uses: the test is
    /// parametrized, and the marks of its `pytest.param` entries reach it. Params that are not
    /// a list lane-scan can read may hold marks it cannot see.
    fn fixture_param_sets(&mut self, tree: &'a SourceTree<'a>, u: &'a FixtureUse<'a>) {
        self.parametrized = true;
        let file: &'a str = &tree.modules[u.module].rel;
        match sets_of(tree, u.params, u.module) {
            Sets::Empty => {
                // pytest parametrizes the test over the fixture's params: one `[NOTSET]` item
                // with the empty_parameter_set_mark (skips.rs, voting_lane.rs and
                // param_marks.rs judge it).
                match self.empty_set_mark {
                    EmptySetMark::Skip => self.add_mark("skip"),
                    EmptySetMark::Xfail => self.add_mark("xfail"),
                    EmptySetMark::FailAtCollect => {}
                }
                self.empty_fixture_params.push(At {
                    what: u.name,
                    file,
                    line: u.line,
                });
            }
            Sets::Computed => self.computed_params.push(At {
                what: (),
                file,
                line: u.line,
            }),
            Sets::NonEmpty => {}
        }
        match tree.eval(u.params, u.module) {
            Val::List(items) => {
                for item in items {
                    if let Val::CallOf(p, param) = item
                        && p == "pytest.param"
                        && let Some(marks_ex) = kwarg(param, "marks")
                    {
                        self.param_entry_marks(tree, u.module, marks_ex, file, u.line);
                    }
                }
            }
            Val::Str(_) => {}
            Val::CallOf(p, _) if p == "range" => {}
            _ => self.param_marks.push(At {
                what: ParamMark::UnresolvedFixture(u.name.to_string()),
                file,
                line: u.line,
            }),
        }
    }

    /// The marks `marks_ex` of one `pytest.param(..., marks=...)` written in `module`.
    fn param_entry_marks(
        &mut self,
        tree: &'a SourceTree<'a>,
        module: ModuleId,
        marks_ex: &'a Ex,
        file: &'a str,
        line: u64,
    ) {
        {
            let val = tree.eval(marks_ex, module);
            let vals = match &val {
                Val::List(v) => &v[..],
                other => std::slice::from_ref(other),
            };
            for v in vals {
                let what = match &v {
                    Val::Mark(mark) => {
                        // Joined to `marks` once every other source is known.
                        if !self.param_only_marks.iter().any(|m| *m == mark.name) {
                            self.param_only_marks.push(mark.name.to_string());
                        }
                        if let Some(lane) = Lane::from_name(&mark.name) {
                            self.lanes.push(lane);
                            Some(ParamMark::Lane(mark.name.to_string()))
                        } else if mark.name == "skip"
                            || (mark.name == "skipif" && matches!(skipif(mark.call), Effect::Skip))
                        {
                            Some(ParamMark::Skip(mark.name.to_string()))
                        } else if mark.name == "xfail" {
                            Some(ParamMark::Xfail)
                        } else {
                            None
                        }
                    }
                    _ => Some(ParamMark::Unresolved),
                };
                if let Some(what) = what {
                    self.param_marks.push(At { what, file, line });
                }
            }
        }
    }

    /// A witness test's snapshot files are its fixtures; a `snapshot_dir` that
    /// cannot be followed is refused. Other lanes' snapshot files are no fixtures.
    pub fn snapshot_fixtures(&mut self, s: &crate::snapshots::TestSnapshots) {
        if !self.lanes.contains(&Lane::Witness) {
            return;
        }
        let fixtures = &mut self.attachments.fixtures;
        fixtures.extend(s.files.iter().cloned());
        fixtures.sort();
        fixtures.dedup();
        for u in &s.unresolved {
            self.bad_witness_args.push(At {
                what: BadWitnessArg::SnapshotUnresolved(u.clone()),
                file: self.func_file,
                line: u.line,
            });
        }
    }

    /// A witness mark's `fixture=` and `locked_on=`: attachments, or arguments refused.
    fn witness_args(&mut self, tree: &SourceTree<'_>, w: &'a Applied<'a>, call: &Call) {
        let bad = |what| At {
            what,
            file: w.file,
            line: w.line,
        };
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
                        let refused = match p {
                            None => Some(BadWitnessArg::FixtureNotText),
                            Some(p) => self.fixture(tree, w.file, p),
                        };
                        if let Some(what) = refused {
                            self.bad_witness_args.push(bad(what));
                        }
                    }
                }
                "locked_on" => match value {
                    Ex::Str(s) if lane_core::clock::parse_date(s).is_ok() => {
                        self.attachments.locked_on = Some(s.as_str().to_owned())
                    }
                    _ => self.bad_witness_args.push(bad(BadWitnessArg::BadLockDate)),
                },
                _ => {}
            }
        }
    }

    /// Fixture path `p`, written in `file`, resolved against that file's folder and added to
    /// the attachments; `Some` when it is refused.
    fn fixture(&mut self, tree: &SourceTree<'_>, file: &str, p: &str) -> Option<BadWitnessArg> {
        let test_dir = file.rsplit_once('/').map_or("", |(dir, _)| dir);
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
        if escapes || rel.is_empty() {
            return Some(BadWitnessArg::FixtureOutside(p.to_string()));
        }
        let missing = (!tree.root.join(&rel).is_file()).then(|| rel.clone());
        let fixtures = &mut self.attachments.fixtures;
        if !fixtures.contains(&rel) {
            fixtures.push(rel);
            fixtures.sort();
        }
        missing.map(BadWitnessArg::FixtureMissing)
    }
}

/// Whether root-relative `rel` is test code: a conftest, a file named like a test module
/// (`test_*.py`, `*_test.py`), or one under a test folder (`tests`, `test`, `testing`).
fn in_test_tree(rel: &str) -> bool {
    let (dirs, name) = rel.rsplit_once('/').unwrap_or(("", rel));
    name == "conftest.py"
        || name.starts_with("test_")
        || name.ends_with("_test.py")
        || dirs
            .split('/')
            .any(|d| crate::aware::TEST_FOLDERS.contains(&d))
}

/// Whether a self-comparison of `func` (module `m`; see `Asserts::self_compared`) compares a
/// value built by a project class that defines `__eq__` itself: the name called resolves,
/// through the test module's imports, to a class of another module that is not test code,
/// with an unconditional `def __eq__` in its body. A function's result, a class without its
/// own `__eq__` (inherited, or none), a test-tree class, a parameter (a fixture) and anything
/// the scan cannot resolve stay tautologies.
fn tests_project_eq<'a>(tree: &SourceTree<'a>, func: &'a Function, m: ModuleId) -> bool {
    func.asserts.self_compared.iter().any(|s| {
        let first = s.built_by.split('.').next().unwrap_or_default();
        if func.params.iter().any(|p| p == first) {
            return false;
        }
        match tree.eval_path(&s.built_by, m) {
            Val::Class(i, class) => {
                i != m
                    && !in_test_tree(&tree.modules[i].rel)
                    && class
                        .methods
                        .iter()
                        .any(|f| f.name == "__eq__" && f.guards.is_empty())
            }
            _ => false,
        }
    })
}

/// How many calls deep [`asserting_helper`] follows helpers.
const HELPER_DEPTH: usize = 8;
/// How many helpers it reads at most, over all depths.
const HELPERS_READ: usize = 256;

/// The first helper of the test tree that `func` calls, directly or through up to
/// [`HELPER_DEPTH`] such helpers, and that asserts something that can fail, raises
/// `AssertionError` or checks (`pytest.fail`, `pytest.raises` ...). A helper is a module-level
/// function of the test's own module or of one it imports that is test code (a conftest,
/// `tests/helpers.py`), or, for a test written as a method, a method of its class (or of a
/// base class of the test tree) called as `self.name(...)` / `cls.name(...)`. Each helper is
/// read once (calls that cycle end), a name that is another parameter of the caller (a
/// fixture) is not followed, and what the scan cannot resolve (other methods, product code,
/// installed modules) asserts nothing.
fn asserting_helper<'a>(
    tree: &SourceTree<'a>,
    func: &'a Function,
    m: ModuleId,
) -> Option<At<'a, &'a str>> {
    let class = tree.method_path(m, func).and_then(|path| {
        crate::pytest::marks::classes_on(&tree.modules[m].module.classes, path).last()
    });
    let mut read: Vec<*const Function> = vec![std::ptr::from_ref(func)];
    let mut todo: Vec<Caller<'a>> = vec![(m, func, class.map(|c| (m, c)), 0)];
    // Each caller's calls in the order written, then the helpers among them in that order:
    // the helper found is the same every run.
    while let Some((caller_module, caller, caller_class, depth)) = todo.pop() {
        let mut next = Vec::new();
        for called in &caller.calls {
            let (Ex::Name(name) | Ex::Dotted(name)) = called else {
                continue;
            };
            if read.len() >= HELPERS_READ {
                break;
            }
            let Some((i, helper, helper_class)) =
                helper_of(tree, name, called, (caller_module, caller, caller_class))
            else {
                continue;
            };
            let rel = tree.modules[i].rel.as_str();
            if read.contains(&std::ptr::from_ref(helper)) || (i != m && !in_test_tree(rel)) {
                continue;
            }
            read.push(std::ptr::from_ref(helper));
            let a = &helper.asserts;
            if a.asserts > a.tautologies || a.checks > 0 {
                return Some(At {
                    what: helper.name.as_str(),
                    file: rel,
                    line: helper.line,
                });
            }
            if depth + 1 < HELPER_DEPTH {
                next.push((i, helper, helper_class, depth + 1));
            }
        }
        todo.extend(next.into_iter().rev());
    }
    None
}

/// The class `self` is an instance of in a method, with its module.
type SelfClass<'a> = Option<(ModuleId, &'a lane_python::Class)>;

/// A function [`asserting_helper`] reads, with its module, its class when it is a method, and
/// how deep it was called.
type Caller<'a> = (ModuleId, &'a Function, SelfClass<'a>, usize);

/// How many base classes deep a `self.name(...)` call is looked for.
const BASE_DEPTH: usize = 4;

/// The helper the call of `name` (`called`) in `caller` names: a method of the caller's class
/// (or a base's) for `self.name` / `cls.name` when the caller's first parameter is `self` /
/// `cls`, else a module-level function the name resolves to, unless its first part is another
/// parameter of the caller (a fixture). With its module and its class context.
fn helper_of<'a>(
    tree: &SourceTree<'a>,
    name: &str,
    called: &'a Ex,
    (module, caller, class): (ModuleId, &'a Function, SelfClass<'a>),
) -> Option<(ModuleId, &'a Function, SelfClass<'a>)> {
    let (first, rest) = name.split_once('.').unwrap_or((name, ""));
    let receiver = caller.params.first().is_some_and(|p| p == first);
    if let (Some((cm, c)), true, true) = (class, receiver, matches!(first, "self" | "cls"))
        && !rest.is_empty()
        && !rest.contains('.')
    {
        return method_of(tree, cm, c, rest, 0).map(|(hm, f)| (hm, f, class));
    }
    if caller.params.iter().any(|p| p == first) {
        return None;
    }
    let (i, f) = tree.function_of(called, module)?;
    Some((i, f, None))
}

/// Method `name` of `class` (module `m`), defined unconditionally in its body or, when it has
/// none, in a base class the scan resolves, up to [`BASE_DEPTH`] bases deep.
fn method_of<'a>(
    tree: &SourceTree<'a>,
    m: ModuleId,
    class: &'a lane_python::Class,
    name: &str,
    depth: usize,
) -> Option<(ModuleId, &'a Function)> {
    if let Some(f) = class
        .methods
        .iter()
        .rev()
        .find(|f| f.name == name && f.guards.is_empty())
    {
        return Some((m, f));
    }
    if depth >= BASE_DEPTH {
        return None;
    }
    class
        .bases
        .iter()
        .find_map(|base| match tree.eval(base, m) {
            Val::Class(i, base_class) => method_of(tree, i, base_class, name, depth + 1),
            _ => None,
        })
}

fn kwarg<'c>(call: &'c Call, name: &str) -> Option<&'c Ex> {
    call.kwargs.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

fn skipif(call: Option<&Call>) -> Effect {
    let Some(call) = call else {
        return Effect::Skip;
    };
    match call.args.first().or_else(|| kwarg(call, "condition")) {
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

/// A `key:` field of the docstring of a class around the test (innermost first) or of its
/// module, with where it came from: an `owner:` or `shrinking:` line there covers every test
/// inside.
fn outer_field(
    tree: &SourceTree,
    found: &TestFound,
    key: &'static str,
) -> Option<(String, &'static str)> {
    let module = &tree.modules[found.func_module].module;
    if let Some(path) = tree.method_path(found.func_module, found.func)
        && let Some(value) = class_field(&module.classes, path, key)
    {
        return Some((value, crate::owners::FROM_CLASS));
    }
    let value = remembered_field(module.docstring.as_deref()?, key)?;
    Some((value, crate::owners::FROM_MODULE))
}

/// How many (docstring, key) answers [`remembered_field`] keeps per thread.
const REMEMBERED_FIELDS: usize = 8;

/// `docstring_fields(doc, [key])`, remembered for the last few docstrings read on this thread:
/// every test of a class or module reads the same docstring's field in turn. Kept by the
/// docstring's text, so a docstring equal to one seen gives the same answer whatever it is.
fn remembered_field(doc: &str, key: &'static str) -> Option<String> {
    type Seen = Vec<(Box<str>, &'static str, Option<String>)>;
    thread_local! {
        static SEEN: std::cell::RefCell<Seen> = const { std::cell::RefCell::new(Vec::new()) };
    }
    SEEN.with_borrow_mut(|seen| {
        // The newest first: the tests of one module come in a row.
        if let Some((_, _, value)) = seen.iter().rev().find(|(d, k, _)| *k == key && **d == *doc) {
            return value.clone();
        }
        let [value] = docstring_fields(doc, [key]);
        if seen.len() == REMEMBERED_FIELDS {
            seen.remove(0);
        }
        seen.push((doc.into(), key, value.clone()));
        value
    })
}

/// Field `key` of the docstrings of the classes along `path` from `classes` (the classes
/// around a test, from the module level in; see [`crate::pytest::marks::MethodLists`]), innermost first.
fn class_field(classes: &[lane_python::Class], path: &[u32], key: &'static str) -> Option<String> {
    (1..=path.len()).rev().find_map(|depth| {
        let class = crate::pytest::marks::classes_on(classes, &path[..depth]).last()?;
        remembered_field(class.docstring.as_deref()?, key)
    })
}

/// `owner: X` / `shrinking: ...` fields of a docstring, in one pass: each key's first `key:`
/// line (the key in any case) gives the rest of that line, or the next non-empty line when
/// the rest is empty, as if each key were looked for alone. Keys must be ASCII.
pub(crate) fn docstring_fields<const N: usize>(doc: &str, keys: [&str; N]) -> [Option<String>; N] {
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn class_field_innermost_first() {
        let m = lane_python::summarize(
            "class Outer:\n    \"\"\"owner: outer\"\"\"\n\n    class Mid:\n        \"\"\"nothing\"\"\"\n\n\
             \x20       class Inner:\n            \"\"\"owner: inner\"\"\"\n\n            def test_a(self):\n\
             \x20               pass\n\n        def test_b(self):\n            pass\n\n\
             class Other:\n    def test_c(self):\n        pass\n\n\
             def test_d():\n    pass\n",
        )
        .unwrap();
        let mid = &m.classes[0].classes[0];
        let (inner, other) = (&mid.classes[0], &m.classes[1]);
        let lists = crate::pytest::marks::MethodLists::new(&m.classes);
        let field = |f: &Function| {
            lists
                .around(f)
                .map(|path| class_field(&m.classes, path, "owner"))
        };
        // The innermost class that gives the field wins; one that does not is passed over.
        assert_eq!(field(&inner.methods[0]), Some(Some("inner".to_string())));
        assert_eq!(field(&mid.methods[0]), Some(Some("outer".to_string())));
        // Inside a class without the field: found, no value; outside every class: not found.
        assert_eq!(field(&other.methods[0]), Some(None));
        assert_eq!(field(&m.functions[0]), None);
    }

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
