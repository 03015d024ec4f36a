//! Names read by `if` conditions, followed to the module they come from:
//! `from attr._compat import PY_3_10_PLUS` then `if not PY_3_10_PLUS:` in a conftest,
//! `if PY3:` in a class body with `PY3` from the package's compat module, `import compat as c`
//! then `if c.PY3:`. The name's module-level bindings in the module it comes from (in the tree,
//! or in the target interpreter's standard library or site-packages, read statically) are
//! decided in order: an assignment whose value is a condition lane-scan decides
//! (`sys.version_info` comparisons, `sys.platform`, `os.name`, the implementation, literals,
//! `not` / `and` / `or`, other such names), under `if` conditions decided the same way. A
//! binding that may or may not run (under an undecided `if`, in a `try` or a loop) leaves the
//! name known only when every way gives the same truth (a name that may stay unbound is taken
//! as bound: where it is not, reading it fails the module's import, which pytest reports);
//! anything else is unknown, and the condition stays undecided (the caller reports it, naming
//! the line).
//!
//! Within the module a condition is written in, only the bindings above it count (the module
//! runs top to bottom); a module imported from is taken whole. Each module is parsed at most
//! once per run: tree modules come from the scan's own parse, others from [`Installed`]'s
//! cache; each name's value is remembered once known.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use compact_str::CompactString;

use crate::pytest::installed::{Installed, Parsed};
use crate::pytest::marks::{ModuleFile, ModuleId};
use lane_python::{Bound, Cond, Module, Target};

/// How deep names are followed (re-exports, names defined by other names) before giving up.
const MAX_HOPS: usize = 64;

/// Where a module lives: a file of the tree (imports resolved as the scan resolves them), or
/// an installed module with its dotted name (relative imports resolved against it).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Place {
    file: PathBuf,
    /// The dotted name of an installed module; `None` for a tree module.
    installed: Option<String>,
    is_package: bool,
}

/// What a name is bound to, as far as a condition needs it.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    /// Its truth, when known.
    Truth(Option<bool>),
    /// A module (truthy; its attributes are its names).
    Module(Place),
}

const UNKNOWN: Value = Value::Truth(None);

impl Value {
    fn truth(&self) -> Option<bool> {
        match self {
            Value::Truth(t) => *t,
            Value::Module(_) => Some(true),
        }
    }
}

/// A parsed module, borrowed from the tree or held from [`Installed`]'s cache.
enum Held<'t> {
    Tree(&'t Module),
    Cached(Parsed),
}

impl Held<'_> {
    fn module(&self) -> Option<&Module> {
        match self {
            Held::Tree(m) => Some(m),
            Held::Cached(p) => p.get().and_then(|m| m.as_ref()),
        }
    }
}

/// Follows names for one scan.
pub struct Names<'t> {
    installed: &'t Installed,
    root: PathBuf,
    target: &'t (dyn Fn() -> Option<Target> + Sync),
    /// The tree's parsed modules, by absolute path (none before the tree is parsed).
    tree: Option<(&'t [ModuleFile], &'t HashMap<PathBuf, ModuleId>)>,
    /// Module-level names' final values, by module file and name.
    known: Mutex<HashMap<(PathBuf, CompactString), Value>>,
}

impl<'t> Names<'t> {
    pub fn new(
        installed: &'t Installed,
        root: &Path,
        target: &'t (dyn Fn() -> Option<Target> + Sync),
    ) -> Names<'t> {
        Names {
            installed,
            root: root.to_path_buf(),
            target,
            tree: None,
            known: Mutex::new(HashMap::new()),
        }
    }

    /// Tree modules are taken from the scan's parse instead of being parsed again.
    pub fn with_tree(
        mut self,
        modules: &'t [ModuleFile],
        by_path: &'t HashMap<PathBuf, ModuleId>,
    ) -> Names<'t> {
        self.tree = Some((modules, by_path));
        self
    }

    /// Decides `cond`, written in tree module `module` (file `file`), for the target
    /// interpreter, following the names it reads.
    pub fn decide(&self, cond: &Cond, file: &Path, module: &Module) -> Option<bool> {
        let target = (self.target)();
        let place = tree_place(file);
        let mut hops = 0;
        cond.eval_with(target.as_ref(), &mut |path, line| {
            self.read(&place, module, path, Some(line), &mut hops)
        })
    }

    /// Whether code under `guards` (each condition with the truth value it must have) runs
    /// for the target interpreter: false as soon as one is decided the other way, unknown
    /// when one cannot be decided, true when all hold.
    pub fn decide_all(
        &self,
        guards: &[(Cond, bool)],
        file: &Path,
        module: &Module,
    ) -> Option<bool> {
        let mut runs = Some(true);
        for (cond, want) in guards {
            match self.decide(cond, file, module) {
                Some(v) if v != *want => return Some(false),
                Some(_) => {}
                None => runs = None,
            }
        }
        runs
    }

    /// The truth of `path` (`name.attr...`) read in `module` at `line` (`None`: the end).
    fn read(
        &self,
        place: &Place,
        module: &Module,
        path: &[CompactString],
        line: Option<u64>,
        hops: &mut usize,
    ) -> Option<bool> {
        let (first, rest) = path.split_first()?;
        let mut value = self.name(place, module, first, line, hops);
        for attr in rest {
            let Value::Module(inner) = value else {
                return None;
            };
            value = self.attribute(&inner, attr, hops);
        }
        value.truth()
    }

    /// Attribute `attr` of the module at `place`: its module-level name, or its submodule.
    fn attribute(&self, place: &Place, attr: &str, hops: &mut usize) -> Value {
        let Some(held) = self.held(&place.file) else {
            return UNKNOWN;
        };
        let Some(module) = held.module() else {
            return UNKNOWN;
        };
        if binds(module, attr) {
            return self.final_value(place, module, attr, hops);
        }
        match self.submodule(place, attr) {
            Some(p) => Value::Module(p),
            // Bound by `from M import *`, or not at all (unknown).
            None => self.final_value(place, module, attr, hops),
        }
    }

    /// A name's value at the end of its module, remembered.
    fn final_value(&self, place: &Place, module: &Module, name: &str, hops: &mut usize) -> Value {
        let key = (place.file.clone(), CompactString::new(name));
        if let Some(v) = lock(&self.known).get(&key) {
            return v.clone();
        }
        let v = self.name(place, module, name, None, hops);
        lock(&self.known).insert(key, v.clone());
        v
    }

    /// What `name` is bound to in `module` just before `line` (`None`: after the module ran).
    fn name(
        &self,
        place: &Place,
        module: &Module,
        name: &str,
        line: Option<u64>,
        hops: &mut usize,
    ) -> Value {
        *hops += 1;
        if *hops > MAX_HOPS {
            return UNKNOWN;
        }
        let before = |l: u64| line.is_none_or(|end| l < end);
        // Every binding of the name above `line`, in source order: names, defs, classes and
        // `from M import *` (which binds it when M exports it).
        enum Event<'m> {
            Name(&'m lane_python::NameBinding),
            Definition(&'m [(Cond, bool)]),
            Star(usize, Option<&'m lane_python::NameBinding>),
        }
        let mut events: Vec<(u64, Event)> = Vec::new();
        for b in module
            .names
            .iter()
            .filter(|b| b.name == name && before(b.line))
        {
            events.push((b.line, Event::Name(b)));
        }
        for f in module.functions.iter().filter(|f| f.name == name) {
            if before(f.line) {
                events.push((f.line, Event::Definition(&f.guards)));
            }
        }
        for c in module.classes.iter().filter(|c| c.name == name) {
            if before(c.line) {
                events.push((c.line, Event::Definition(&c.guards)));
            }
        }
        for (k, i) in module.imports.iter().enumerate() {
            if i.name.as_deref() == Some("*") && before(i.line) {
                let b = module
                    .names
                    .iter()
                    .find(|b| b.name == "*" && b.line == i.line);
                events.push((i.line, Event::Star(k, b)));
            }
        }
        events.sort_by_key(|(l, _)| *l);
        // `None`: unbound so far.
        let mut state: Option<Value> = None;
        for (at, event) in events {
            let (guards, maybe): (&[(Cond, bool)], bool) = match &event {
                Event::Name(b) => (&b.guards, b.maybe),
                Event::Definition(g) => (g, false),
                Event::Star(_, Some(b)) => (&b.guards, b.maybe),
                Event::Star(_, None) => (&[], false),
            };
            let runs = self.guards_hold(place, module, guards, hops);
            if runs == Some(false) {
                continue;
            }
            let value = match event {
                Event::Name(b) => match &b.value {
                    Bound::Cond(c) => {
                        let target = (self.target)();
                        Value::Truth(c.eval_with(target.as_ref(), &mut |path, l| {
                            self.read(place, module, path, Some(l), hops)
                        }))
                    }
                    Bound::Import => self.import_value(place, module, name, at, hops),
                    Bound::Other => UNKNOWN,
                },
                Event::Definition(_) => UNKNOWN,
                Event::Star(k, _) => match self.star_binds(place, module, k, name, hops) {
                    Some(v) => v,
                    None => continue,
                },
            };
            // A binding that may not run leaves the old value or this one. While the name is
            // unbound, only this one: where it stays unbound, reading it raises NameError and
            // pytest reports the module's collection error.
            state = Some(if runs == Some(true) && !maybe {
                value
            } else {
                match state {
                    None => value,
                    Some(old) if old == value => old,
                    Some(_) => UNKNOWN,
                }
            });
        }
        state.unwrap_or(UNKNOWN)
    }

    /// Whether all of `guards` hold (`None`: undecided).
    fn guards_hold(
        &self,
        place: &Place,
        module: &Module,
        guards: &[(Cond, bool)],
        hops: &mut usize,
    ) -> Option<bool> {
        if guards.is_empty() {
            return Some(true);
        }
        let target = (self.target)();
        let mut all = Some(true);
        for (cond, want) in guards {
            match cond.eval_with(target.as_ref(), &mut |path, l| {
                self.read(place, module, path, Some(l), hops)
            }) {
                Some(v) if v != *want => return Some(false),
                Some(_) => {}
                None => all = None,
            }
        }
        all
    }

    /// What the import on `line` of `module` binds `name` to.
    fn import_value(
        &self,
        place: &Place,
        module: &Module,
        name: &str,
        line: u64,
        hops: &mut usize,
    ) -> Value {
        let Some(import) = module
            .imports
            .iter()
            .find(|i| i.line == line && i.binds == name)
        else {
            return UNKNOWN;
        };
        match &import.name {
            // `import a.b` binds `a`; `import a.b as c` binds `c` to `a.b`.
            None => match self.find(place, &import.module, import.level) {
                Some(p) => Value::Module(p),
                None => UNKNOWN,
            },
            Some(item) => {
                let Some(from) = self.find(place, &import.module, import.level) else {
                    return UNKNOWN;
                };
                self.attribute(&from, item, hops)
            }
        }
    }

    /// `from M import *` (import `k` of `module`) binds `name`: its value there, when M exports
    /// it; `None` when it does not bind it.
    fn star_binds(
        &self,
        place: &Place,
        module: &Module,
        k: usize,
        name: &str,
        hops: &mut usize,
    ) -> Option<Value> {
        let import = &module.imports[k];
        let Some(from) = self.find(place, &import.module, import.level) else {
            // What an unknown module exports is unknown.
            return Some(UNKNOWN);
        };
        let held = self.held(&from.file)?;
        let Some(other) = held.module() else {
            return Some(UNKNOWN);
        };
        let exported = match other.names.iter().rev().find(|b| b.name == "__all__") {
            // A literal list or tuple bound unconditionally; anything else is unknown.
            Some(all) if all.guards.is_empty() && !all.maybe => {
                match other.dunder_all_lists(name) {
                    Some(listed) => listed,
                    None => return Some(UNKNOWN),
                }
            }
            Some(_) => return Some(UNKNOWN),
            None => !name.starts_with('_') && binds(other, name),
        };
        exported.then(|| self.final_value(&from, other, name, hops))
    }

    /// The module an import written in the module at `place` names.
    fn find(&self, place: &Place, module: &str, level: u32) -> Option<Place> {
        match &place.installed {
            None => {
                let in_tree =
                    crate::pytest::marks::candidates(&place.file, module, level, &self.root)
                        .into_iter()
                        .find(|c| c.is_file());
                match in_tree {
                    Some(file) => Some(tree_place(&file)),
                    None if level == 0 => self.installed_place(module),
                    None => None,
                }
            }
            Some(name) => {
                let absolute = absolute(name, place.is_package, module, level)?;
                self.installed_place(&absolute)
            }
        }
    }

    fn installed_place(&self, dotted: &str) -> Option<Place> {
        let (file, is_package) = self.installed.find_module(dotted)?;
        Some(Place {
            file,
            installed: Some(dotted.to_string()),
            is_package,
        })
    }

    /// Submodule `name` of the package at `place`.
    fn submodule(&self, place: &Place, name: &str) -> Option<Place> {
        if !place.is_package {
            return None;
        }
        match &place.installed {
            None => {
                let dir = place.file.parent()?;
                [
                    dir.join(format!("{name}.py")),
                    dir.join(name).join("__init__.py"),
                ]
                .into_iter()
                .find(|c| c.is_file())
                .map(|f| tree_place(&f))
            }
            Some(dotted) => self.installed_place(&format!("{dotted}.{name}")),
        }
    }

    /// The parsed module of `file`: the tree's, or parsed once into [`Installed`]'s cache.
    fn held(&self, file: &Path) -> Option<Held<'t>> {
        if let Some((modules, by_path)) = self.tree
            && let Some(i) = by_path.get(file)
        {
            return Some(Held::Tree(&modules[*i].module));
        }
        Some(Held::Cached(self.installed.parse(file)))
    }
}

fn tree_place(file: &Path) -> Place {
    Place {
        file: file.to_path_buf(),
        installed: None,
        is_package: file.file_name().is_some_and(|n| n == "__init__.py"),
    }
}

/// Whether `module` binds `name` at module level by name (not through `import *`).
fn binds(module: &Module, name: &str) -> bool {
    module.names.iter().any(|b| b.name == name)
        || module.function_named(name).is_some()
        || module.class_named(name).is_some()
}

/// `from .x import y` in installed module `name`: the absolute module name.
fn absolute(name: &str, is_package: bool, module: &str, level: u32) -> Option<String> {
    if level == 0 {
        return Some(module.to_string());
    }
    let mut parts: Vec<&str> = name.split('.').collect();
    let drop = if is_package { level - 1 } else { level };
    for _ in 0..drop {
        parts.pop()?;
    }
    if !module.is_empty() {
        parts.push(module);
    }
    let joined = parts.join(".");
    (!joined.is_empty()).then_some(joined)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic on another thread ends the scan anyway; the map itself stays valid.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
