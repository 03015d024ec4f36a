//! What pytest collects from a test module: its test functions, test classes (their bases'
//! methods included) and what it imports, each with every decorator and mark reaching it.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet};
use std::rc::Rc;

use crate::pytest::config::Config;
use crate::pytest::fixtures::{FixtureDef, FixtureUse, Fixtures};
use crate::pytest::fnmatch::matches_prefix_or_glob;
use crate::pytest::installed::{BaseInfo, Installed};
use crate::pytest::marks::{self, ModuleFile, ModuleId, SourceTree, Val};
use lane_python::{self as python, Class, Ex, Function, Located, RuntimeDef};

/// What collecting a test module left the scan unsure of: the facts the rules
/// runtime-test-definition, unresolved-test-base and undecided-test-branch judge.
pub(crate) enum Unsure<'a> {
    /// A statement of the module that binds names at run time, at its line.
    RuntimeDef { line: u64, def: &'a RuntimeDef },
    /// `setattr(C, ...)` at module level, C one of its classes.
    SetattrOnClass { line: u64, class: &'a str },
    /// A test-named module-level name bound to a value known only at run time.
    UnknownBinding {
        line: u64,
        name: &'a str,
        value: &'a Ex,
    },
    /// A test class, written in the root-relative file `written_in`, with a base that cannot
    /// be read.
    UnresolvedBase {
        class: &'a Class,
        written_in: &'a str,
        base: &'a Ex,
    },
    /// A test class with a metaclass (not `abc.ABCMeta`) that may make its test methods.
    Metaclass {
        class: &'a Class,
        written_in: &'a str,
        meta: &'a Ex,
    },
    /// A test function, class or method (`what`) of `file`, at `line`, defined under an `if`
    /// that cannot be decided for the target interpreter (`no_target`: none answered).
    UndecidedBranch {
        file: &'a str,
        line: u64,
        what: String,
        no_target: bool,
    },
}

/// A test as collected, with everything that reaches it.
pub struct TestFound<'a> {
    pub id: String,
    /// The module the test is collected from.
    pub module: ModuleId,
    pub func: &'a Function,
    /// The module the function is written in (a base class may live elsewhere).
    pub func_module: ModuleId,
    /// The decorators written on the function, nearest first.
    pub decorators: Vec<Applied<'a>>,
    /// The marks of its classes and module, nearest first: one list shared by all the tests
    /// they reach.
    pub inherited: Rc<[Applied<'a>]>,
    /// A `pytest.skip()` at module level, by line.
    pub module_skip: Option<u64>,
    /// The parametrized fixtures it uses: their params' marks reach it.
    pub fixture_params: Vec<FixtureUse<'a>>,
    /// Marks an installed plugin adds at collection (pytest-asyncio's `asyncio` in auto mode).
    pub plugin_marks: &'static [&'static str],
    /// What pytest gives a test parametrized over an empty list (see
    /// [`empty_parameter_set_mark`]).
    pub empty_set_mark: EmptySetMark,
}

/// The `empty_parameter_set_mark` ini key, as pytest reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmptySetMark {
    Skip,
    Xfail,
    /// `fail_at_collect`, or a value pytest does not accept (both fail the module's
    /// collection).
    FailAtCollect,
}

/// `empty_parameter_set_mark` of `config` (empty or absent: `skip`).
pub fn empty_parameter_set_mark(config: &Config) -> EmptySetMark {
    match config.empty_parameter_set_mark.trim() {
        "" | "skip" => EmptySetMark::Skip,
        "xfail" => EmptySetMark::Xfail,
        _ => EmptySetMark::FailAtCollect,
    }
}

impl<'a> TestFound<'a> {
    /// Marks and other decorators reaching the test, nearest first.
    pub fn applied(&self) -> impl Iterator<Item = &Applied<'a>> {
        self.decorators.iter().chain(self.inherited.iter())
    }
}

/// One decorator or pytestmark entry that reaches a test.
#[derive(Clone)]
pub struct Applied<'a> {
    pub val: Val<'a>,
    /// Root-relative file and line where it is written.
    pub file: &'a str,
    pub line: u64,
    pub module: ModuleId,
    /// From `pytestmark` (a list or single mark), not a decorator.
    pub from_pytestmark: bool,
}

/// The module's `pytestmark` for the target interpreter (see [`chosen_pytestmark`]).
fn module_pytestmark<'a>(
    tree: &SourceTree<'a>,
    lookups: &Lookups<'_, 'a>,
    m: ModuleId,
    unsure: &mut Vec<Unsure<'a>>,
) -> Option<&'a python::Located<python::Ex>> {
    let modules: &'a [ModuleFile] = tree.modules;
    let file = &modules[m];
    let undecided = chosen_pytestmark(lookups.names, file, &file.module.pytestmark_bindings);
    undecided_pytestmark(
        undecided.1,
        file,
        "pytestmark (the marks of every test in the module)".to_string(),
        (lookups.target)().is_none(),
        unsure,
    );
    undecided.0
}

/// Of the `pytestmark` bindings of a module or class body in `file`, the one that holds for the
/// target interpreter: the last whose `if` conditions hold (one under a condition decided false
/// never runs); and the line of a binding under a condition lane-scan cannot decide after it,
/// which may or may not replace it at run time.
fn chosen_pytestmark<'a>(
    names: &crate::pytest::names::Names<'_>,
    file: &'a ModuleFile,
    bindings: &'a [(python::Located<python::Ex>, python::Guards)],
) -> (Option<&'a python::Located<python::Ex>>, Option<u64>) {
    let mut chosen = None;
    let mut undecided = None;
    for (pm, guards) in bindings {
        match names.decide_all(guards, &file.abs, &file.module) {
            Some(true) => {
                chosen = Some(pm);
                undecided = None;
            }
            Some(false) => {}
            None => undecided = Some(pm.line),
        }
    }
    (chosen, undecided)
}

/// An undecided `pytestmark` binding (at `line` of `file`, naming `what`) as
/// `undecided-test-branch`.
fn undecided_pytestmark<'a>(
    line: Option<u64>,
    file: &'a ModuleFile,
    what: String,
    no_target: bool,
    unsure: &mut Vec<Unsure<'a>>,
) {
    if let Some(line) = line {
        unsure.push(Unsure::UndecidedBranch {
            file: &file.rel,
            line,
            what,
            no_target,
        });
    }
}

/// Collects the tests of test module `m` into `out`, as pytest does: its functions, its
/// classes, and the test functions and classes it imports from the tree. What makes the scan
/// unsure it has every test or mark of the module goes to `unsure`.
pub(crate) fn collect_module<'a>(
    tree: &SourceTree<'a>,
    config: &Config,
    lookups: &Lookups<'_, 'a>,
    m: ModuleId,
    out: &mut Vec<TestFound<'a>>,
    unsure: &mut Vec<Unsure<'a>>,
) {
    let modules: &'a [ModuleFile] = tree.modules;
    let module = &modules[m].module;
    if module.dunder_test == Some(false) {
        return;
    }
    runtime_definitions(tree, config, m, unsure);
    let mut module_marks = Vec::new();
    if let Some(pm) = module_pytestmark(tree, lookups, m, unsure) {
        pytestmark_entries(tree, pm, m, &mut module_marks);
    }
    let module_skip = module
        .calls
        .iter()
        .find(|c| matches!(tree.eval(&c.value, m), Val::CallOf(ref p, _) if p == "pytest.skip"))
        .map(|c| c.line);
    let mut collector = Collector {
        tree,
        config,
        installed: lookups.installed,
        fixtures: lookups.fixtures,
        target: lookups.target,
        cond_names: lookups.names,
        asyncio_auto: lookups.asyncio_auto,
        home: m,
        module_marks: module_marks.into(),
        module_skip,
        disabled: module
            .function_dunder_test
            .iter()
            .filter(|(_, t)| !t)
            .map(|(n, _)| n.as_str())
            .collect(),
        names: BTreeSet::new(),
        class_names: BTreeSet::new(),
        empty_set_mark: empty_parameter_set_mark(config),
        out,
        unsure,
    };
    for f in module.functions.iter().rev() {
        if collector.names.contains(f.name.as_str()) {
            continue;
        }
        let is_test = matches_prefix_or_glob(&config.python_functions, &f.name);
        if collector.guarded(
            &f.guards,
            f.line,
            || format!("test function {}", f.name),
            is_test,
        ) {
            collector.names.insert(f.name.as_str());
            collector.function(f, m, &f.name);
        }
    }
    let rel: &str = &tree.modules[m].rel;
    for class in module.classes.iter().rev() {
        if collector.class_names.contains(class.name.as_str()) {
            continue;
        }
        let is_test = matches_prefix_or_glob(&config.python_classes, &class.name)
            || class
                .methods
                .iter()
                .any(|f| f.name.starts_with("test") || f.name == "runTest");
        let what = || format!("test class {}", class.name);
        if collector.guarded(&class.guards, class.line, what, is_test) {
            collector.class_names.insert(class.name.as_str());
            let outer = Rc::clone(&collector.module_marks);
            collector.class(m, class, &node_id(rel, &class.name), &outer);
        }
    }
    collector.imported(module);
    collector.aliases(module);
}

/// What collecting looks up beyond the tree: installed bases, fixtures, the target
/// interpreter.
pub struct Lookups<'t, 'a> {
    pub installed: &'t Installed,
    pub fixtures: &'t Fixtures<'a>,
    pub target: &'t (dyn Fn() -> Option<python::Target> + Sync),
    /// Names read by conditions, followed to their modules.
    pub names: &'t crate::pytest::names::Names<'t>,
    /// pytest-asyncio is loaded in auto mode: it marks every async test function `asyncio`.
    pub asyncio_auto: bool,
}

/// The class a method is collected in: its node id, its marks, its fixtures.
struct InClass<'c, 'a> {
    prefix: &'c str,
    marks: &'c Rc<[Applied<'a>]>,
    fixtures: &'c [FixtureDef<'a>],
}

/// Collecting one test module.
struct Collector<'t, 'a> {
    tree: &'t SourceTree<'a>,
    config: &'t Config,
    /// Bases from installed packages.
    installed: &'t Installed,
    /// The fixtures of the tree, for the params a test's fixtures bring.
    fixtures: &'t Fixtures<'a>,
    /// The interpreter the tests run on: decides `if` conditions in class bodies.
    target: &'t (dyn Fn() -> Option<python::Target> + Sync),
    /// Follows the names conditions read (see [`Lookups::names`]).
    cond_names: &'t crate::pytest::names::Names<'t>,
    /// pytest-asyncio in auto mode (see [`Lookups::asyncio_auto`]).
    asyncio_auto: bool,
    /// The test module collecting (a class or function may be defined in another).
    home: ModuleId,
    /// The module's `pytestmark` entries, shared by every test in it.
    module_marks: Rc<[Applied<'a>]>,
    module_skip: Option<u64>,
    /// Function names the module sets `__test__ = False` on.
    disabled: HashSet<&'a str>,
    /// The function and class names bound in the module so far (the last definition wins).
    names: BTreeSet<&'a str>,
    class_names: BTreeSet<&'a str>,
    /// The `empty_parameter_set_mark` every test of the module gets.
    empty_set_mark: EmptySetMark,
    out: &'t mut Vec<TestFound<'a>>,
    unsure: &'t mut Vec<Unsure<'a>>,
}

impl<'a> Collector<'_, 'a> {
    /// Module-level function `f` (defined in module `m`), bound as `name` in the test module.
    fn function(&mut self, f: &'a Function, m: ModuleId, name: &str) {
        if self.disabled.contains(name)
            || !matches_prefix_or_glob(&self.config.python_functions, name)
        {
            return;
        }
        let decorators = decorators(self.tree, f, m);
        if is_fixture(&decorators) {
            return;
        }
        let fixture_params = self.fixture_params(f, false, &decorators, &self.module_marks, &[]);
        self.out.push(TestFound {
            id: node_id(&self.tree.modules[self.home].rel, name),
            module: self.home,
            func: f,
            func_module: m,
            decorators,
            inherited: Rc::clone(&self.module_marks),
            module_skip: self.module_skip,
            fixture_params,
            plugin_marks: self.plugin_marks(f, false),
            empty_set_mark: self.empty_set_mark,
        });
    }

    /// pytest walks the module's namespace: test classes and functions imported from modules
    /// in the tree are collected here too, under the name they are bound to.
    fn imported(&mut self, module: &'a python::Module) {
        let (tree, home) = (self.tree, self.home);
        let rel: &str = &tree.modules[home].rel;
        for (k, import) in module.imports.iter().enumerate().rev() {
            let Some(item) = import.name.as_deref() else {
                continue;
            };
            let bound = import.binds.as_str();
            if item == "*" || self.names.contains(bound) || self.class_names.contains(bound) {
                continue;
            }
            let Some(i) = tree.import_target(home, k) else {
                continue;
            };
            if i == home {
                continue;
            }
            let own = &tree.modules[i].module;
            if let Some(class) = own.class_named(item) {
                self.class_names.insert(bound);
                let outer = Rc::clone(&self.module_marks);
                self.class(i, class, &node_id(rel, bound), &outer);
            } else if let Some(f) = own.function_named(item) {
                self.names.insert(bound);
                self.function(f, i, bound);
            }
        }
    }

    /// `TestB = TestA`: pytest collects the class again under the name it is bound to.
    fn aliases(&mut self, module: &'a python::Module) {
        let (tree, home) = (self.tree, self.home);
        let rel: &str = &tree.modules[home].rel;
        for (name, value) in module.assigns.iter().rev() {
            // `def test_x` then `test_x = helper`: the later binding is the one pytest runs
            // (test-redefined reports the pair).
            if let Some((i, f)) = rebound_function(tree, &value.value, home)
                && module
                    .functions
                    .iter()
                    .any(|d| d.name == *name && d.line < value.line)
                && !self.class_names.contains(name.as_str())
            {
                let id = node_id(rel, name);
                self.out.retain(|t| t.id != id);
                self.names.insert(name.as_str());
                self.function(f, i, name);
                continue;
            }
            if self.class_names.contains(name.as_str()) || self.names.contains(name.as_str()) {
                continue;
            }
            if let Val::Class(i, class) = tree.eval(&value.value, home)
                && matches_prefix_or_glob(&self.config.python_classes, name)
            {
                self.class_names.insert(name.as_str());
                let outer = Rc::clone(&self.module_marks);
                self.class(i, class, &node_id(rel, name), &outer);
            } else if let Some((i, f)) = rebound_function(tree, &value.value, home) {
                // `test_x = helper`: the function object, its marks with it, under a new name.
                self.names.insert(name.as_str());
                self.function(f, i, name);
            }
        }
    }

    /// Class `class`, defined in module `m`, collected under node id `prefix` with the marks
    /// `outer` of what encloses it.
    fn class(&mut self, m: ModuleId, class: &'a Class, prefix: &str, outer: &[Applied<'a>]) {
        let tree = self.tree;
        let mro = mro(tree, self.installed, m, class);
        self.unsure_class(class, &mro);
        let unittest = mro.iter().any(|e| {
            matches!(
                e,
                MroEntry::TestCase | MroEntry::Installed(BaseInfo { testcase: true, .. })
            )
        });
        let classes: Vec<(ModuleId, &Class)> = mro
            .iter()
            .filter_map(|e| match e {
                MroEntry::Class(i, c) => Some((*i, *c)),
                MroEntry::TestCase
                | MroEntry::Abc
                | MroEntry::Unresolved(..)
                | MroEntry::Installed(_) => None,
            })
            .collect();
        if !self.collects_class(class, unittest, &mro, &classes) {
            return;
        }
        let own: usize = classes.iter().map(|(_, c)| c.decorators.len()).sum();
        let mut class_marks: Vec<Applied<'a>> = Vec::with_capacity(own + outer.len());
        for (i, c) in &classes {
            for d in &c.decorators {
                class_marks.push(applied_from(tree, d, *i, false));
            }
            let modules: &'a [ModuleFile] = tree.modules;
            let (chosen, undecided) =
                chosen_pytestmark(self.cond_names, &modules[*i], &c.pytestmark_bindings);
            undecided_pytestmark(
                undecided,
                &modules[*i],
                format!("pytestmark of class {} (the marks of its tests)", c.name),
                (self.target)().is_none(),
                self.unsure,
            );
            if let Some(pm) = chosen {
                pytestmark_entries(tree, pm, *i, &mut class_marks);
            }
        }
        class_marks.extend_from_slice(outer);
        let class_marks: Rc<[Applied<'a>]> = class_marks.into();

        // A unittest.TestCase with no test* method runs its runTest method, if it has one.
        let run_test = unittest
            && !classes
                .iter()
                .any(|(_, c)| c.methods.iter().any(|f| f.name.starts_with("test")));
        // The class's fixtures matter only where a parametrized fixture can be in reach: looked
        // up then (a decorator other than a call, or a call with `params=`, may be one).
        let class_fixtures = if self.fixtures.any_params(tree, self.home, &[])
            || classes.iter().any(|(_, c)| {
                c.methods.iter().any(|f| {
                    f.decorators.iter().any(|d| match &d.value {
                        python::Ex::Call(call) => call.kwargs.iter().any(|(k, _)| k == "params"),
                        _ => true,
                    })
                })
            }) {
            Fixtures::of_classes(tree, &classes)
        } else {
            Vec::new()
        };
        let mut names = BTreeSet::new();
        for (i, c) in &classes {
            for f in c.methods.iter().rev() {
                if names.contains(f.name.as_str()) || !self.defined(f, *i, c, unittest) {
                    continue;
                }
                names.insert(f.name.as_str());
                let in_class = InClass {
                    prefix,
                    marks: &class_marks,
                    fixtures: &class_fixtures,
                };
                self.method(f, *i, unittest, run_test, &in_class);
            }
        }
        if !unittest {
            let mut inner_names = BTreeSet::new();
            for inner in class.classes.iter().rev() {
                if inner_names.insert(inner.name.as_str()) {
                    self.class(m, inner, &node_id(prefix, &inner.name), &class_marks);
                }
            }
        }
    }

    /// The parametrized fixtures test `f` uses: its arguments (a method's first is the
    /// instance), `usefixtures` marks, autouse fixtures, and `anyio_backend` for an async
    /// test with the `anyio` mark (anyio's plugin requests it); names the test parametrizes
    /// itself override fixtures.
    fn fixture_params(
        &self,
        f: &'a Function,
        method: bool,
        decorators: &[Applied<'a>],
        inherited: &[Applied<'a>],
        class_fixtures: &[FixtureDef<'a>],
    ) -> Vec<FixtureUse<'a>> {
        // No parametrized fixture in reach (most tests): nothing to gather.
        if !self
            .fixtures
            .any_params(self.tree, self.home, class_fixtures)
        {
            return Vec::new();
        }
        let mut requested: Vec<&'a str> = f
            .params
            .iter()
            .skip(usize::from(method))
            .map(|p| p.as_str())
            .collect();
        let mut direct = HashSet::new();
        for a in decorators.iter().chain(inherited) {
            let Val::Mark(mark) = &a.val else { continue };
            let Some(call) = mark.call else { continue };
            match &*mark.name {
                "usefixtures" => requested.extend(call.args.iter().filter_map(|e| match e {
                    python::Ex::Str(s) => Some(s.as_str()),
                    _ => None,
                })),
                "parametrize" => {
                    let names = call.args.first().or_else(|| {
                        call.kwargs
                            .iter()
                            .find(|(k, _)| k == "argnames")
                            .map(|(_, v)| v)
                    });
                    match names {
                        Some(python::Ex::Str(s)) => {
                            direct.extend(s.split(',').map(str::trim).filter(|n| !n.is_empty()))
                        }
                        Some(python::Ex::List(items) | python::Ex::Tuple(items)) => {
                            direct.extend(items.iter().filter_map(|e| match e {
                                python::Ex::Str(s) => Some(s.as_str()),
                                _ => None,
                            }))
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        let anyio = decorators
            .iter()
            .chain(inherited)
            .any(|a| matches!(&a.val, Val::Mark(m) if m.name == "anyio"));
        if f.is_async && anyio {
            requested.push("anyio_backend");
        }
        self.fixtures
            .used(self.tree, self.home, class_fixtures, requested, &direct)
    }

    /// Whether method `f` of class `c` (in module `m`) is defined for the target interpreter:
    /// the `if` conditions around it in the class body decided. A test method under
    /// a condition that cannot be decided is kept (an extra id rather than a missed one) and
    /// reported as `undecided-test-branch`.
    fn defined(&mut self, f: &Function, m: ModuleId, c: &Class, unittest: bool) -> bool {
        if f.guards.is_empty() {
            return true;
        }
        let is_test = if unittest {
            f.name.starts_with("test") || f.name == "runTest"
        } else {
            matches_prefix_or_glob(&self.config.python_functions, &f.name)
        };
        let what = || format!("test method {}.{}", c.name, f.name);
        self.decide(&f.guards, m, f.line, what, is_test)
    }

    /// Whether a function or class of the test module, defined under `guards` (the `if`
    /// conditions around it at module level) on `line`, exists for the target interpreter
    ///; an undecided test (`is_test`) is kept and reported.
    fn guarded(
        &mut self,
        guards: &[(python::Cond, bool)],
        line: u64,
        what: impl FnOnce() -> String,
        is_test: bool,
    ) -> bool {
        self.decide(guards, self.home, line, what, is_test)
    }

    /// Decides `guards` for the target interpreter: false when one has the wrong truth value;
    /// true otherwise, with `undecided-test-branch` on `what` (in module `m`, at `line`) when
    /// one cannot be decided and it is a test.
    fn decide(
        &mut self,
        guards: &[(python::Cond, bool)],
        m: ModuleId,
        line: u64,
        what: impl FnOnce() -> String,
        is_test: bool,
    ) -> bool {
        if guards.is_empty() {
            return true;
        }
        let target = (self.target)();
        let file = &self.tree.modules[m];
        let decided = self.cond_names.decide_all(guards, &file.abs, &file.module);
        if decided == Some(false) {
            return false;
        }
        if decided.is_none() && is_test {
            let modules: &'a [ModuleFile] = self.tree.modules;
            self.unsure.push(Unsure::UndecidedBranch {
                file: &modules[m].rel,
                line,
                what: what(),
                no_target: target.is_none(),
            });
        }
        true
    }

    /// A test class (by name, or by a test method it has or inherits from the tree) whose
    /// bases lane-scan cannot all read, or whose metaclass may make methods at run time.
    fn unsure_class(&mut self, class: &'a Class, mro: &[MroEntry<'a>]) {
        let unresolved = mro.iter().find_map(|e| match e {
            MroEntry::Unresolved(i, c, base) => Some((*i, *c, *base)),
            _ => None,
        });
        let metaclass = mro.iter().find_map(|e| match e {
            MroEntry::Class(i, c) => c
                .metaclass
                .as_ref()
                .filter(|k| !is_abc_meta(self.tree, k, *i))
                .map(|k| (*i, *c, k)),
            _ => None,
        });
        if unresolved.is_none() && metaclass.is_none() {
            return;
        }
        let testish = matches_prefix_or_glob(&self.config.python_classes, &class.name)
            || mro.iter().any(|e| match e {
                MroEntry::Class(_, c) => c
                    .methods
                    .iter()
                    .any(|f| f.name.starts_with("test") || f.name == "runTest"),
                _ => false,
            });
        if !testish {
            return;
        }
        let modules: &'a [ModuleFile] = self.tree.modules;
        if let Some((i, c, base)) = unresolved {
            self.unsure.push(Unsure::UnresolvedBase {
                class: c,
                written_in: &modules[i].rel,
                base,
            });
        }
        if let Some((i, c, meta)) = metaclass {
            self.unsure.push(Unsure::Metaclass {
                class: c,
                written_in: &modules[i].rel,
                meta,
            });
        }
    }

    /// Whether pytest collects the class at all (`__test__`, its name, `__init__`, abstract).
    fn collects_class(
        &self,
        class: &Class,
        unittest: bool,
        mro: &[MroEntry],
        classes: &[(ModuleId, &Class)],
    ) -> bool {
        // `__test__` is inherited: the first class of the MRO that sets it decides.
        let dunder_test = mro.iter().find_map(|e| match e {
            MroEntry::Class(_, c) => c.dunder_test,
            MroEntry::Installed(info) => info.dunder_test,
            _ => None,
        });
        if dunder_test == Some(false) {
            return false;
        }
        if !unittest {
            if !matches_prefix_or_glob(&self.config.python_classes, &class.name) {
                return false;
            }
            let installed_init = mro
                .iter()
                .any(|e| matches!(e, MroEntry::Installed(BaseInfo { has_init: true, .. })));
            if installed_init || classes.iter().any(|(_, c)| c.has_init) {
                // pytest warns and does not collect a test class with an __init__.
                return false;
            }
        }
        // pytest skips abstract classes (inspect.isabstract).
        !(mro.iter().any(|e| matches!(e, MroEntry::Abc)) && is_abstract(self.tree, classes))
    }

    /// Method `f` of a class in the MRO (defined in module `m`).
    fn method(
        &mut self,
        f: &'a Function,
        m: ModuleId,
        unittest: bool,
        run_test: bool,
        in_class: &InClass<'_, 'a>,
    ) {
        let (prefix, class_marks) = (in_class.prefix, in_class.marks);
        let is_test = if unittest {
            f.name.starts_with("test") || (run_test && f.name == "runTest")
        } else {
            matches_prefix_or_glob(&self.config.python_functions, &f.name)
        };
        if !is_test {
            return;
        }
        let decorators = decorators(self.tree, f, m);
        if is_fixture(&decorators) {
            return;
        }
        // unittest.TestCase methods take no fixture arguments (autouse ones are not
        // parametrized there: pytest refuses that).
        let fixture_params = if unittest {
            Vec::new()
        } else {
            self.fixture_params(f, true, &decorators, class_marks, in_class.fixtures)
        };
        self.out.push(TestFound {
            id: node_id(prefix, &f.name),
            module: self.home,
            func: f,
            func_module: m,
            decorators,
            inherited: Rc::clone(class_marks),
            module_skip: self.module_skip,
            fixture_params,
            plugin_marks: self.plugin_marks(f, unittest),
            empty_set_mark: self.empty_set_mark,
        });
    }

    /// The marks installed plugins add to test `f` at collection: pytest-asyncio in auto
    /// mode marks every `async def` test `asyncio` (its `pytest_pycollect_makeitem` wrapper,
    /// which sees pytest's own function items; a unittest.TestCase's methods are collected
    /// by the class, not by that hook, and are left alone).
    fn plugin_marks(&self, f: &Function, unittest: bool) -> &'static [&'static str] {
        if self.asyncio_auto && f.async_generator && !unittest {
            // pytest-asyncio collects an async generator as its own item and marks it
            // xfail(run=False): it never runs.
            &["asyncio", "xfail"]
        } else if self.asyncio_auto && f.is_async && !unittest {
            &["asyncio"]
        } else {
            &[]
        }
    }
}

/// Whether a method, as the MRO resolves it, is still decorated `@abc.abstractmethod`.
fn is_abstract(tree: &SourceTree, classes: &[(ModuleId, &Class)]) -> bool {
    let mut names = HashSet::new();
    for (i, c) in classes {
        for f in c.methods.iter().rev() {
            if !names.insert(f.name.as_str()) {
                continue;
            }
            let abstract_ = f.decorators.iter().any(
                |d| matches!(tree.eval(&d.value, *i), Val::Path(p) if p == "abc.abstractmethod"),
            );
            if abstract_ {
                return true;
            }
        }
    }
    false
}

enum MroEntry<'a> {
    Class(ModuleId, &'a Class),
    /// A base of the class (in the module) that lane-scan cannot read.
    Unresolved(ModuleId, &'a Class, &'a python::Ex),
    TestCase,
    /// `abc.ABC` or `metaclass=abc.ABCMeta`: abstract methods make the class abstract.
    Abc,
    /// A class of an installed package, read statically.
    Installed(BaseInfo),
}

/// The class and its bases in the tree, depth first, each once; `unittest.TestCase` (and its
/// async variant) marks a unittest class.
fn mro<'a>(
    tree: &SourceTree<'a>,
    installed: &Installed,
    m: ModuleId,
    class: &'a Class,
) -> Vec<MroEntry<'a>> {
    fn walk<'a>(
        tree: &SourceTree<'a>,
        installed: &Installed,
        m: ModuleId,
        class: &'a Class,
        out: &mut Vec<MroEntry<'a>>,
        walked: &mut Walked,
        depth: usize,
    ) {
        if depth > 64 || !walked.first_time(class, out) {
            return;
        }
        out.push(MroEntry::Class(m, class));
        if class
            .metaclass
            .as_ref()
            .is_some_and(|k| is_abc_meta(tree, k, m))
        {
            out.push(MroEntry::Abc);
        }
        for base in &class.bases {
            let mut val = tree.eval(base, m);
            // `from m import Test` then `class Test(Test)`: the base is the name's binding
            // before the class statement (the import), not the class itself.
            if let (Val::Class(_, c), python::Ex::Name(n)) = (&val, base)
                && std::ptr::eq(*c, class)
            {
                val = tree.import_binding(n, m, 0).unwrap_or(Val::Unknown);
            }
            match val {
                Val::Class(i, c) => walk(tree, installed, i, c, out, walked, depth + 1),
                Val::Path(p)
                    if matches!(
                        &*p,
                        "unittest.TestCase"
                            | "unittest.case.TestCase"
                            | "unittest.IsolatedAsyncioTestCase"
                            | "unittest.async_case.IsolatedAsyncioTestCase"
                    ) =>
                {
                    out.push(MroEntry::TestCase)
                }
                Val::Path(p) if matches!(&*p, "abc.ABC" | "abc.ABCMeta") => out.push(MroEntry::Abc),
                Val::Path(p) if holds_no_tests(&p) => {}
                // Not in the tree: an installed package's class, read from its source.
                Val::Path(p) => match installed.base(&p) {
                    Some(info) => {
                        if info.abc {
                            out.push(MroEntry::Abc);
                        }
                        out.push(MroEntry::Installed(info));
                    }
                    None => out.push(MroEntry::Unresolved(m, class, base)),
                },
                _ => out.push(MroEntry::Unresolved(m, class, base)),
            }
        }
    }
    let mut out = Vec::new();
    walk(
        tree,
        installed,
        m,
        class,
        &mut out,
        &mut Walked::default(),
        0,
    );
    out
}

/// The classes an MRO walk has met, each walked once. A usual hierarchy holds a few, found
/// by looking through the walk's output; past `LIST_MAX` entries a set takes over, so a class
/// with thousands of bases costs a lookup per base, not a pass over all the earlier ones.
#[derive(Default)]
struct Walked {
    set: Option<HashSet<*const Class>>,
}

impl Walked {
    const LIST_MAX: usize = 32;

    /// True when `class` was not met before. The walk pushes it to `out` next, which is how
    /// the list remembers it; the set notes it here.
    fn first_time(&mut self, class: &Class, out: &[MroEntry]) -> bool {
        let key: *const Class = class;
        if self.set.is_none() && out.len() > Self::LIST_MAX {
            self.set = Some(
                out.iter()
                    .filter_map(|e| match e {
                        MroEntry::Class(_, c) => Some(*c as *const Class),
                        _ => None,
                    })
                    .collect(),
            );
        }
        match &mut self.set {
            Some(set) => set.insert(key),
            None => !out
                .iter()
                .any(|e| matches!(e, MroEntry::Class(_, c) if std::ptr::eq(*c, class))),
        }
    }
}

fn is_abc_meta<'a>(tree: &SourceTree<'a>, ex: &'a python::Ex, m: ModuleId) -> bool {
    matches!(tree.eval(ex, m), Val::Path(p) if p == "abc.ABCMeta")
}

/// Bases from outside the tree known to add no test methods and no marks: builtins and the
/// standard library's plain data and typing classes.
fn holds_no_tests(path: &str) -> bool {
    const BUILTINS: &[&str] = &[
        "object",
        "Exception",
        "BaseException",
        "ValueError",
        "TypeError",
        "KeyError",
        "RuntimeError",
        "dict",
        "list",
        "tuple",
        "set",
        "frozenset",
        "str",
        "int",
        "float",
        "bytes",
        "bytearray",
        "type",
        "Warning",
        "UserWarning",
        "DeprecationWarning",
    ];
    const MODULES: &[&str] = &["typing.", "enum.", "collections.", "abc.", "dataclasses."];
    BUILTINS.contains(&path) || MODULES.iter().any(|m| path.starts_with(m))
}

/// The module's statements that bind tests at run time, and its test-named bindings lane-scan
/// cannot resolve to a class or function it has read.
fn runtime_definitions<'a>(
    tree: &SourceTree<'a>,
    config: &Config,
    m: ModuleId,
    out: &mut Vec<Unsure<'a>>,
) {
    let modules: &'a [ModuleFile] = tree.modules;
    let module = &modules[m].module;
    for def in &module.runtime_defs {
        out.push(Unsure::RuntimeDef {
            line: def.line,
            def: &def.value,
        });
    }
    for target in &module.setattr_on {
        if let Val::Class(_, c) = tree.eval_name(&target.value, m) {
            out.push(Unsure::SetattrOnClass {
                line: target.line,
                class: &c.name,
            });
        }
    }
    for (name, value) in &module.assigns {
        let testish = matches_prefix_or_glob(&config.python_classes, name)
            || matches_prefix_or_glob(&config.python_functions, name);
        // Already reported as the construct it is (`TestX = type(...)`).
        if !testish || module.runtime_defs.iter().any(|d| d.line == value.line) {
            continue;
        }
        let known = match &value.value {
            python::Ex::Str(_) | python::Ex::Const(_) | python::Ex::List(_) => true,
            python::Ex::Tuple(_) | python::Ex::Add(..) => true,
            _ => {
                matches!(
                    tree.eval(&value.value, m),
                    Val::Class(..) | Val::Str(_) | Val::Const(_) | Val::List(_) | Val::Module(_)
                ) || rebound_function(tree, &value.value, m).is_some()
            }
        };
        if !known {
            out.push(Unsure::UnknownBinding {
                line: value.line,
                name,
                value: &value.value,
            });
        }
    }
}

/// `name = helper` / `name = mod.helper`: the tree function a plain name or attribute binds
/// (never a call of one, whose result is known only at run time), and its module.
fn rebound_function<'a>(
    tree: &SourceTree<'a>,
    value: &'a python::Ex,
    m: ModuleId,
) -> Option<(ModuleId, &'a Function)> {
    if !matches!(
        value,
        python::Ex::Name(_) | python::Ex::Dotted(_) | python::Ex::Attr(..)
    ) {
        return None;
    }
    let f = tree.function(value, m)?;
    let modules: &'a [ModuleFile] = tree.modules;
    // The module it is written in: usually this one; otherwise the one imported from.
    let i = std::iter::once(m)
        .chain((0..modules.len()).map(ModuleId))
        .find(|i| {
            modules[*i]
                .module
                .functions
                .iter()
                .any(|g| std::ptr::eq(g, f))
        })?;
    Some((i, f))
}

/// The decorators written on `f` (in module `m`).
fn decorators<'a>(tree: &SourceTree<'a>, f: &'a Function, m: ModuleId) -> Vec<Applied<'a>> {
    f.decorators
        .iter()
        .map(|d| applied_from(tree, d, m, false))
        .collect()
}

fn applied_from<'a>(
    tree: &SourceTree<'a>,
    d: &'a Located<python::Ex>,
    m: ModuleId,
    from_pytestmark: bool,
) -> Applied<'a> {
    let val = match tree.eval(&d.value, m) {
        v @ Val::Mark(_) => v,
        // `getattr(pytest.mark, name)` and friends: refers to marks, resolves to none.
        _ if marks::mentions_marks(tree, &d.value, m) => Val::Unknown,
        // A decorator written in the tree whose body reads `pytest.mark`: it may apply marks
        // that exist only at run time.
        Val::Unknown if tree.function(&d.value, m).is_some_and(|f| f.mentions_mark) => Val::Unknown,
        // `X.mark.NAME` with X unresolvable (an alias of pytest bound at run time): a mark
        // lane-scan cannot see, not an ordinary decorator.
        Val::Unknown | Val::CallOf(..) if written_as_mark(&d.value) => Val::Unknown,
        // An ordinary decorator we cannot see into: not a mark.
        Val::Unknown => Val::Path(Cow::Borrowed("")),
        v => v,
    };
    let modules: &'a [ModuleFile] = tree.modules;
    Applied {
        val,
        file: &modules[m].rel,
        line: d.line,
        module: m,
        from_pytestmark,
    }
}

/// `X.mark.NAME` or `X.mark.NAME(...)` as written, whatever `X` is.
fn written_as_mark(ex: &python::Ex) -> bool {
    match ex {
        python::Ex::Call(c) => written_as_mark(&c.func),
        python::Ex::Dotted(d) => d
            .rsplit_once('.')
            .and_then(|(base, _)| base.rsplit_once('.'))
            .is_some_and(|(_, m)| m == "mark"),
        python::Ex::Attr(base, _) => matches!(&**base, python::Ex::Attr(_, m) if m == "mark"),
        _ => false,
    }
}

/// Expands a `pytestmark = ...` value: a mark, or a list/tuple of marks. Anything else is
/// kept as an unresolved entry.
fn pytestmark_entries<'a>(
    tree: &SourceTree<'a>,
    pm: &'a Located<python::Ex>,
    m: ModuleId,
    out: &mut Vec<Applied<'a>>,
) {
    let modules: &'a [ModuleFile] = tree.modules;
    let make = |val| Applied {
        val,
        file: &modules[m].rel,
        line: pm.line,
        module: m,
        from_pytestmark: true,
    };
    // pytest 9 refuses a tuple here ("got (MarkDecorator(...),) instead of Mark"): the
    // module would not even be collected, so it is reported rather than read as marks.
    if matches!(pm.value, python::Ex::Tuple(_)) {
        out.push(make(Val::Unknown));
        return;
    }
    match tree.eval(&pm.value, m) {
        Val::List(items) => out.extend(items.into_iter().map(|item| match item {
            Val::Mark(_) => make(item),
            _ => make(Val::Unknown),
        })),
        v @ Val::Mark(_) => out.push(make(v)),
        _ => out.push(make(Val::Unknown)),
    }
}

/// The node id of `name` inside the module or class `prefix`: `prefix::name`.
fn node_id(prefix: &str, name: &str) -> String {
    let mut id = String::with_capacity(prefix.len() + 2 + name.len());
    id.push_str(prefix);
    id.push_str("::");
    id.push_str(name);
    id
}

fn is_fixture(applied: &[Applied]) -> bool {
    applied.iter().any(|a| match &a.val {
        Val::Path(p) | Val::CallOf(p, _) => p == "pytest.fixture",
        _ => false,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn an_mro_walk_meets_each_class_once_before_and_after_its_set_takes_over() {
        let source: String = (0..80).map(|i| format!("class C{i}: pass\n")).collect();
        let module = python::summarize(&source).unwrap();
        let mut walked = Walked::default();
        let mut out = Vec::new();
        for (round, class) in module.classes.iter().enumerate() {
            assert!(walked.first_time(class, &out), "class {round}");
            out.push(MroEntry::Class(ModuleId(0), class));
            out.push(MroEntry::Abc);
            for earlier in &module.classes[..=round] {
                assert!(!walked.first_time(earlier, &out), "class {round}");
            }
        }
        assert!(walked.set.is_some());
    }
}
