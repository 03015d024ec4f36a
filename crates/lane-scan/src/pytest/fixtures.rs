//! Fixtures a test uses and the parameters they bring: marks written on
//! `pytest.param(..., marks=...)` entries of a fixture's `params` reach every test that uses
//! the fixture, directly, through another fixture's arguments, by `usefixtures` or by
//! `autouse`. Fixtures are looked up as pytest does: the test's class (and its bases), the test
//! module (its own and imported fixture functions), every conftest.py from the module's folder
//! up to the rootdir (nearest first), then the plugin modules the configuration loads.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::OnceLock;

use crate::pytest::marks::{ModuleFile, ModuleId, SourceTree, Val};
use lane_python::{Call, Class, Ex, Function};

/// A fixture function as pytest registers it.
#[derive(Debug, Clone, Copy)]
pub struct FixtureDef<'a> {
    /// The fixture's name: `name=` of the decorator, or the name it is bound to.
    pub name: &'a str,
    pub func: &'a Function,
    /// The module it is written in.
    pub module: ModuleId,
    pub autouse: bool,
    /// The `params=` expression, when given.
    pub params: Option<&'a Ex>,
    /// A method of a class: its first argument is the instance.
    pub method: bool,
}

/// A parametrized fixture a test uses.
#[derive(Debug, Clone, Copy)]
pub struct FixtureUse<'a> {
    pub name: &'a str,
    pub module: ModuleId,
    /// Line of the fixture's `def`.
    pub line: u64,
    pub params: &'a Ex,
}

/// The fixtures of the tree's modules, each module's read once.
pub struct Fixtures<'a> {
    per_module: Vec<OnceLock<Vec<FixtureDef<'a>>>>,
    /// Per test module: the fixtures visible from it (its own, its conftests', the plugins'),
    /// found once for all its tests.
    visible: Vec<OnceLock<Visible<'a>>>,
    /// Plugin modules the configuration loads, in module order.
    plugins: Vec<ModuleId>,
    /// The tree's conftest.py modules by folder: most suites have a few, many none, and then
    /// no test module's folders need be walked.
    conftests: HashMap<&'a Path, ModuleId>,
}

/// The fixtures visible from one module, nearest first, with what every test of the module
/// asks of them found once: which are looked up by a name, which are autouse, whether any is
/// parametrized. A test's lookups then cost a map probe each, not a pass over every fixture
/// (a conftest of thousands of fixtures under thousands of tests stays linear).
struct Visible<'a> {
    defs: Vec<FixtureDef<'a>>,
    /// Each name's places in `defs`, in order.
    by_name: HashMap<&'a str, Vec<usize>>,
    autouse: Vec<&'a str>,
    any_params: bool,
}

impl<'a> Visible<'a> {
    fn new(defs: Vec<FixtureDef<'a>>) -> Visible<'a> {
        let mut by_name: HashMap<&'a str, Vec<usize>> = HashMap::new();
        for (k, d) in defs.iter().enumerate() {
            by_name.entry(d.name).or_default().push(k);
        }
        Visible {
            autouse: defs.iter().filter(|d| d.autouse).map(|d| d.name).collect(),
            any_params: defs.iter().any(|d| d.params.is_some()),
            by_name,
            defs,
        }
    }
}

/// `Some(call)` when `f` (in module `m`) is decorated as a fixture (`None` inside for a bare
/// `@pytest.fixture`).
fn fixture_call<'a>(
    tree: &SourceTree<'a>,
    f: &'a Function,
    m: ModuleId,
) -> Option<Option<&'a Call>> {
    f.decorators
        .iter()
        .find_map(|d| match tree.eval(&d.value, m) {
            Val::Path(p) if is_fixture_path(&p) => Some(None),
            Val::CallOf(p, call) if is_fixture_path(&p) => Some(Some(call)),
            _ => None,
        })
}

fn is_fixture_path(p: &str) -> bool {
    matches!(p, "pytest.fixture" | "pytest_asyncio.fixture")
}

fn def_of<'a>(
    tree: &SourceTree<'a>,
    f: &'a Function,
    m: ModuleId,
    bound: &'a str,
    method: bool,
) -> Option<FixtureDef<'a>> {
    let call = fixture_call(tree, f, m)?;
    let kw =
        |name: &str| call.and_then(|c| c.kwargs.iter().find(|(k, _)| k == name).map(|(_, v)| v));
    let name = match kw("name") {
        Some(Ex::Str(s)) => s.as_str(),
        _ => bound,
    };
    Some(FixtureDef {
        name,
        func: f,
        module: m,
        autouse: matches!(kw("autouse"), Some(Ex::Const(true))),
        params: kw("params"),
        method,
    })
}

impl<'a> Fixtures<'a> {
    pub fn new(tree: &SourceTree<'a>, plugins: &HashSet<ModuleId>) -> Fixtures<'a> {
        let mut plugins: Vec<ModuleId> = plugins.iter().copied().collect();
        plugins.sort_by_key(|m| m.0);
        let modules: &'a [ModuleFile] = tree.modules;
        let conftests = modules
            .iter()
            .enumerate()
            .filter(|(_, f)| f.abs.file_name().is_some_and(|n| n == "conftest.py"))
            .filter_map(|(i, f)| Some((f.abs.parent()?, ModuleId(i))))
            .collect();
        Fixtures {
            per_module: (0..tree.modules.len()).map(|_| OnceLock::new()).collect(),
            visible: (0..tree.modules.len()).map(|_| OnceLock::new()).collect(),
            plugins,
            conftests,
        }
    }

    /// The fixtures module `m` defines or imports at module level (the last binding of a name
    /// wins).
    pub fn of_module(&self, tree: &SourceTree<'a>, m: ModuleId) -> &[FixtureDef<'a>] {
        self.per_module[m.0].get_or_init(|| {
            let modules = tree.modules;
            let module = &modules[m].module;
            let mut seen = HashSet::with_capacity(module.functions.len() + module.imports.len());
            let mut out = Vec::new();
            for f in module.functions.iter().rev() {
                if seen.insert(f.name.as_str())
                    && let Some(d) = def_of(tree, f, m, &f.name, false)
                {
                    out.push(d);
                }
            }
            for (k, import) in module.imports.iter().enumerate().rev() {
                let Some(item) = import.name.as_deref() else {
                    continue;
                };
                if item == "*" || !seen.insert(import.binds.as_str()) {
                    continue;
                }
                let Some(i) = tree.import_target(m, k) else {
                    continue;
                };
                if let Some(f) = modules[i].module.function_named(item)
                    && let Some(d) = def_of(tree, f, i, &import.binds, false)
                {
                    out.push(d);
                }
            }
            out
        })
    }

    /// The fixtures visible from module `m`, found once per module.
    fn visible(&self, tree: &SourceTree<'a>, m: ModuleId) -> &Visible<'a> {
        self.visible[m.0].get_or_init(|| Visible::new(self.find_visible(tree, m)))
    }

    /// Whether a test of module `home` with its class's fixtures `class_defs` can use a
    /// parametrized fixture at all (most suites: none, and nothing more is looked up).
    pub fn any_params(
        &self,
        tree: &SourceTree<'a>,
        home: ModuleId,
        class_defs: &[FixtureDef<'a>],
    ) -> bool {
        class_defs.iter().any(|d| d.params.is_some()) || self.visible(tree, home).any_params
    }

    /// The fixtures visible from module `m`: its own, its conftests' (nearest first), the
    /// plugins'.
    fn find_visible(&self, tree: &SourceTree<'a>, m: ModuleId) -> Vec<FixtureDef<'a>> {
        let mut out: Vec<FixtureDef<'a>> = self.of_module(tree, m).to_vec();
        let abs = &tree.modules[m].abs;
        // The module's folder and its parents up to the rootdir: as many as the module's path
        // has components past the rootdir's (compared once, not folder by folder).
        let folders = if self.conftests.is_empty() {
            0
        } else if abs.starts_with(&tree.root) {
            abs.components().count() - tree.root.components().count()
        } else {
            0
        };
        for d in abs.ancestors().skip(1).take(folders) {
            if let Some(&c) = self.conftests.get(d)
                && c != m
            {
                out.extend_from_slice(self.of_module(tree, c));
            }
        }
        for &p in &self.plugins {
            if p != m {
                out.extend_from_slice(self.of_module(tree, p));
            }
        }
        out
    }

    /// The fixtures of the classes `classes` (a test class and its bases, nearest first).
    pub fn of_classes(
        tree: &SourceTree<'a>,
        classes: &[(ModuleId, &'a Class)],
    ) -> Vec<FixtureDef<'a>> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        for (i, c) in classes {
            for f in c.methods.iter().rev() {
                if seen.insert(f.name.as_str())
                    && let Some(d) = def_of(tree, f, *i, &f.name, true)
                {
                    out.push(d);
                }
            }
        }
        out
    }

    /// The parametrized fixtures a test of module `home` uses: `requested` are the names it
    /// asks for (its arguments and `usefixtures`), `direct` the argument names it parametrizes
    /// itself (they override fixtures of the same name), `class_defs` its class's fixtures.
    pub fn used(
        &self,
        tree: &SourceTree<'a>,
        home: ModuleId,
        class_defs: &[FixtureDef<'a>],
        requested: Vec<&'a str>,
        direct: &HashSet<&'a str>,
    ) -> Vec<FixtureUse<'a>> {
        if !self.any_params(tree, home, class_defs) {
            return Vec::new();
        }
        // The class's fixtures come first (places 0..), then the module's visible ones: the
        // place of a fixture is its rank in the lookup, and an override asks for the next one
        // of its name past its own place.
        let visible = self.visible(tree, home);
        let first = |name: &str, from: usize| -> Option<(usize, FixtureDef<'a>)> {
            let own = class_defs.len();
            if let Some((k, d)) = class_defs
                .iter()
                .enumerate()
                .skip(from)
                .find(|(_, d)| d.name == name)
            {
                return Some((k, *d));
            }
            let ks = visible.by_name.get(name)?;
            let j = *ks.iter().find(|&&j| own + j >= from)?;
            Some((own + j, visible.defs[j]))
        };
        let mut todo: Vec<(&'a str, usize)> = requested.into_iter().map(|n| (n, 0)).collect();
        todo.extend(
            class_defs
                .iter()
                .filter(|d| d.autouse)
                .map(|d| d.name)
                .chain(visible.autouse.iter().copied())
                .map(|name| (name, 0)),
        );
        let mut seen = HashSet::new();
        let mut used = Vec::new();
        while let Some((name, from)) = todo.pop() {
            if direct.contains(name) || !seen.insert((name, from)) {
                continue;
            }
            let Some((k, d)) = first(name, from) else {
                continue;
            };
            if let Some(params) = d.params {
                used.push((
                    k,
                    FixtureUse {
                        name: d.name,
                        module: d.module,
                        line: d.func.line,
                        params,
                    },
                ));
            }
            let skip = usize::from(d.method);
            for arg in d.func.params.iter().skip(skip) {
                let arg = arg.as_str();
                if arg == "request" {
                    continue;
                }
                // A fixture asking for its own name gets the next one out (an override).
                todo.push((arg, if arg == d.name { k + 1 } else { 0 }));
            }
        }
        used.sort_by_key(|(k, _)| *k);
        used.dedup_by_key(|(k, _)| *k);
        used.into_iter().map(|(_, u)| u).collect()
    }
}
