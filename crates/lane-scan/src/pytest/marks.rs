//! Static resolution of names and mark expressions across the modules of the tree:
//! `import pytest as pt`, `from pytest import mark as m`, `merge = pytest.mark.merge`, names
//! imported from modules inside the tree, and classes for inheritance.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use compact_str::CompactString;

use lane_python::{Call, Class, Ex, Function, Module};

/// How deep name chains are followed (`a = b`, `b = c` ...) before giving up.
const MAX_HOPS: usize = 32;

/// Up to this many names and dotted names per module keep their value once evaluated (see
/// [`SourceTree::eval_dotted`]); a module's decorators name a few (`pytest.mark.parametrize`,
/// `pytest.param`) many times.
const NAMES_KEPT: usize = 32;

/// The files an import may load that exist, nearest first, looked up once per folder:
/// the files of one folder share their imports (`import pytest` looks for `pytest.py` in
/// the same folders from each of them).
#[derive(Default)]
pub struct ImportCache(Mutex<HashMap<(PathBuf, String, u32), Vec<PathBuf>>>);

impl ImportCache {
    pub fn existing(&self, from: &Path, module: &str, level: u32, root: &Path) -> Vec<PathBuf> {
        let folder = from.parent().unwrap_or(from).to_path_buf();
        let key = (folder, module.to_string(), level);
        if let Some(found) = lock(&self.0).get(&key) {
            return found.clone();
        }
        let found: Vec<PathBuf> = candidates(from, module, level, root)
            .into_iter()
            .filter(|c| c.is_file())
            .collect();
        lock(&self.0).insert(key, found.clone());
        found
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic on another parser thread ends the scan anyway; the map itself stays valid.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A module's place in the tree's list of modules (sorted by path), which every cross-module
/// reference (`Val::Module`, an import's target, where a test is collected) is given as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ModuleId(pub usize);

impl std::ops::Index<ModuleId> for [ModuleFile] {
    type Output = ModuleFile;

    fn index(&self, id: ModuleId) -> &ModuleFile {
        &self[id.0]
    }
}

/// A parsed module of the tree.
#[derive(Debug)]
pub struct ModuleFile {
    pub abs: PathBuf,
    /// Root-relative `/` path.
    pub rel: String,
    pub module: Module,
}

/// The value of an expression, as far as it can be known without running anything.
/// Names are borrowed from the module summaries where they are written whole; only a
/// dotted path put together from several parts is allocated.
#[derive(Debug, Clone)]
pub enum Val<'a> {
    /// A dotted name outside the tree (`pytest.mark`, `hypothesis.given`, `getattr`).
    Path(Cow<'a, str>),
    /// `pytest.mark.NAME`, called or not.
    Mark(Mark<'a>),
    /// A call of something outside the tree (`pytest.param(...)`, `unittest.skip("r")`).
    CallOf(Cow<'a, str>, &'a Call),
    List(Vec<Val<'a>>),
    Class(ModuleId, &'a Class),
    Module(ModuleId),
    Str(&'a str),
    Const(bool),
    Unknown,
}

#[derive(Debug, Clone)]
pub struct Mark<'a> {
    pub name: Cow<'a, str>,
    pub call: Option<&'a Call>,
}

/// A value kept for a name (see [`SourceTree::eval_dotted`]): one that borrows nothing from
/// the tree, so that the tree's lifetime stays covariant. Its text is lent from the name
/// asked for where it is the same.
#[derive(Debug)]
enum Kept {
    Path(Text),
    /// `pytest.mark.NAME`, not called.
    Mark(Text),
    Module(ModuleId),
    Const(bool),
    Unknown,
}

/// The text of a kept value, as the name it was kept for (`d`) gives it back.
#[derive(Debug)]
enum Text {
    /// `d` itself.
    Whole,
    /// The last this many bytes of `d` (its last part).
    Last(usize),
    Static(&'static str),
    Own(CompactString),
}

impl Text {
    fn of(text: &str, d: &str) -> Text {
        let last = d
            .bytes()
            .rposition(|b| b == b'.')
            .map_or(d, |at| &d[at + 1..]);
        if text == d {
            Text::Whole
        } else if text == last {
            Text::Last(last.len())
        } else if text == "pytest.mark" {
            Text::Static("pytest.mark")
        } else {
            Text::Own(CompactString::new(text))
        }
    }

    fn lent<'a>(&self, d: &'a str) -> Cow<'a, str> {
        match self {
            Text::Whole => Cow::Borrowed(d),
            Text::Last(len) => Cow::Borrowed(&d[d.len() - len..]),
            Text::Static(s) => Cow::Borrowed(s),
            Text::Own(s) => Cow::Owned(s.to_string()),
        }
    }
}

impl Kept {
    /// What to keep of `val`, the value of `d`.
    fn of(val: &Val<'_>, d: &str) -> Option<Kept> {
        Some(match val {
            Val::Path(p) => Kept::Path(Text::of(p, d)),
            Val::Mark(Mark { name, call: None }) => Kept::Mark(Text::of(name, d)),
            Val::Module(i) => Kept::Module(*i),
            Val::Const(b) => Kept::Const(*b),
            Val::Unknown => Kept::Unknown,
            _ => return None,
        })
    }

    /// The value again, for the name or dotted name `d` it was kept for.
    fn to_val<'a>(&self, d: &'a str) -> Val<'a> {
        match self {
            Kept::Path(p) => Val::Path(p.lent(d)),
            Kept::Mark(name) => Val::Mark(Mark {
                name: name.lent(d),
                call: None,
            }),
            Kept::Module(i) => Val::Module(*i),
            Kept::Const(b) => Val::Const(*b),
            Kept::Unknown => Val::Unknown,
        }
    }
}

/// The parsed modules under the root and what their names resolve to: marks, classes and
/// modules across imports.
pub struct SourceTree<'a> {
    pub modules: &'a [ModuleFile],
    pub by_path: HashMap<PathBuf, ModuleId>,
    pub root: PathBuf,
    /// The project's CODEOWNERS file, the last source of a test's owner.
    pub codeowners: Option<crate::owners::CodeOwners>,
    files: &'a ImportCache,
    /// Per module, per import: the tree modules it names, found on first use (every test
    /// of a module evaluates its marks through the same few imports).
    imports: Vec<Vec<ImportTargets>>,
    /// Per module: names and dotted names evaluated there from the top (at hop 0 or 1), with
    /// the hop and their value when it borrows nothing from the tree (see [`Kept`]). Nothing a
    /// value depends on changes once the modules are parsed.
    names: Vec<Mutex<Vec<(CompactString, usize, Kept)>>>,
    /// Per module: where its classes' method lists lie, found on first use (see
    /// [`SourceTree::classes_around`]).
    methods: Vec<OnceLock<MethodLists>>,
}

/// A module's classes with methods, by where their method lists lie in memory, each with the
/// path to it from the module level (the index of each class in its parent's list): sorted by
/// address, so the list holding a method is found by halving. Indices, not references, keep
/// [`SourceTree`] free to shorten its lifetime.
pub struct MethodLists(Vec<(std::ops::Range<usize>, Box<[u32]>)>);

impl MethodLists {
    pub fn new(classes: &[Class]) -> MethodLists {
        fn walk(
            classes: &[Class],
            path: &mut Vec<u32>,
            out: &mut Vec<(std::ops::Range<usize>, Box<[u32]>)>,
        ) {
            for (k, class) in classes.iter().enumerate() {
                path.push(u32::try_from(k).unwrap_or(u32::MAX));
                if !class.methods.is_empty() {
                    let range = class.methods.as_ptr_range();
                    out.push((range.start.addr()..range.end.addr(), path.as_slice().into()));
                }
                walk(&class.classes, path, out);
                path.pop();
            }
        }
        let mut out = Vec::new();
        walk(classes, &mut Vec::new(), &mut out);
        out.sort_unstable_by_key(|(range, _)| range.start);
        MethodLists(out)
    }

    /// The path (see above) to the class of `classes` whose methods hold `func`, if any.
    pub fn around(&self, func: &Function) -> Option<&[u32]> {
        let at = std::ptr::from_ref(func).addr();
        let next = self.0.partition_point(|(range, _)| range.start <= at);
        let (range, path) = self.0.get(next.checked_sub(1)?)?;
        range.contains(&at).then_some(&**path)
    }
}

/// The classes along `path` (see [`MethodLists`]) from `classes`, from the module level in.
pub fn classes_on<'c>(classes: &'c [Class], path: &[u32]) -> impl Iterator<Item = &'c Class> {
    path.iter().scan(classes, |level, &k| {
        let class = level.get(k as usize)?;
        *level = &class.classes;
        Some(class)
    })
}

#[derive(Default)]
struct ImportTargets {
    /// The module `M` of `import M` / `from M import X`.
    module: OnceLock<Option<ModuleId>>,
    /// The submodule `M.X` of `from M import X`.
    submodule: OnceLock<Option<ModuleId>>,
}

impl<'a> SourceTree<'a> {
    pub fn new(modules: &'a [ModuleFile], root: &Path, files: &'a ImportCache) -> SourceTree<'a> {
        let by_path = modules
            .iter()
            .enumerate()
            .map(|(i, m)| (m.abs.clone(), ModuleId(i)))
            .collect();
        let imports = modules
            .iter()
            .map(|m| {
                m.module
                    .imports
                    .iter()
                    .map(|_| ImportTargets::default())
                    .collect()
            })
            .collect();
        SourceTree {
            modules,
            by_path,
            root: root.to_path_buf(),
            codeowners: None,
            files,
            imports,
            names: modules.iter().map(|_| Mutex::default()).collect(),
            methods: modules.iter().map(|_| OnceLock::new()).collect(),
        }
    }

    /// The path to the class of module `m` whose methods hold `func` (see [`MethodLists`]):
    /// one lookup per test, however many classes the module holds.
    pub fn method_path(&self, m: ModuleId, func: &Function) -> Option<&[u32]> {
        self.methods[m.0]
            .get_or_init(|| MethodLists::new(&self.modules[m.0].module.classes))
            .around(func)
    }

    /// The tree module that import `k` of module `m` names (`M` of `from M import X`).
    pub fn import_target(&self, m: ModuleId, k: usize) -> Option<ModuleId> {
        *self.imports[m.0][k].module.get_or_init(|| {
            let import = &self.modules[m].module.imports[k];
            self.find_module(&self.modules[m].abs, &import.module, import.level)
        })
    }

    /// For `from M import X` as import `k` of module `m`: the tree module `M.X`.
    fn import_submodule(&self, m: ModuleId, k: usize) -> Option<ModuleId> {
        *self.imports[m.0][k].submodule.get_or_init(|| {
            let import = &self.modules[m].module.imports[k];
            self.find_module(&self.modules[m].abs, &import.submodule()?, import.level)
        })
    }

    /// Evaluates `ex` as written in module `m`.
    pub fn eval(&self, ex: &'a Ex, m: ModuleId) -> Val<'a> {
        self.eval_hops(ex, m, 0)
    }

    fn eval_hops(&self, ex: &'a Ex, m: ModuleId, hops: usize) -> Val<'a> {
        if hops > MAX_HOPS {
            return Val::Unknown;
        }
        match ex {
            Ex::Name(n) | Ex::Dotted(n) => self.eval_dotted(n, m, hops),
            Ex::Attr(base, attr) => {
                let base = self.eval_hops(base, m, hops + 1);
                self.attr_of(base, attr, hops)
            }
            Ex::Call(call) => match self.eval_hops(&call.func, m, hops + 1) {
                Val::Mark(Mark { name, call: None }) => Val::Mark(Mark {
                    name,
                    call: Some(call),
                }),
                Val::Path(p) => match self.imported_by_call(&p, call.args.first(), m, hops) {
                    Some(module) => module,
                    None => Val::CallOf(p, call),
                },
                Val::Unknown => self.helper_import(call, m, hops).unwrap_or(Val::Unknown),
                _ => Val::Unknown,
            },
            Ex::List(items) | Ex::Tuple(items) => Val::List(
                items
                    .iter()
                    .map(|i| self.eval_hops(i, m, hops + 1))
                    .collect(),
            ),
            Ex::Add(left, right) => match (
                self.eval_hops(left, m, hops + 1),
                self.eval_hops(right, m, hops + 1),
            ) {
                (Val::List(mut a), Val::List(b)) => {
                    a.extend(b);
                    Val::List(a)
                }
                _ => Val::Unknown,
            },
            Ex::Str(s) => Val::Str(s),
            Ex::Const(b) => Val::Const(*b),
            Ex::Other => Val::Unknown,
        }
    }

    /// Evaluates the name or dotted name `d` (see [`Ex::Dotted`]) as written in module `m`, as
    /// the chain of attributes it stands for.
    pub fn eval_path(&self, d: &'a str, m: ModuleId) -> Val<'a> {
        self.eval_dotted(d, m, 0)
    }

    /// [`Self::eval_hops`] of the [`Ex::Attr`] chain over an [`Ex::Name`] that `d` stands for
    /// (a name alone when it has no dot), hop for hop.
    /// Evaluated from the top of an expression (hop 0 or 1, where decorators are), its value
    /// is kept for the next time the module's decorators name it.
    fn eval_dotted(&self, d: &'a str, m: ModuleId, hops: usize) -> Val<'a> {
        if hops > 1 {
            return self.eval_dotted_anew(d, m, hops);
        }
        let kept = |(name, at, _): &(CompactString, usize, Kept)| *at == hops && name == d;
        if let Some((_, _, val)) = lock(&self.names[m.0]).iter().find(|e| kept(e)) {
            return val.to_val(d);
        }
        // Not held while evaluating: the value may be looked up in other modules.
        let val = self.eval_dotted_anew(d, m, hops);
        if let Some(k) = Kept::of(&val, d) {
            let mut names = lock(&self.names[m.0]);
            if names.len() < NAMES_KEPT && !names.iter().any(kept) {
                names.push((CompactString::new(d), hops, k));
            }
        }
        val
    }

    fn eval_dotted_anew(&self, d: &'a str, m: ModuleId, hops: usize) -> Val<'a> {
        if hops > MAX_HOPS {
            return Val::Unknown;
        }
        // Scanned from the end: each part is read once over the whole chain.
        match d.bytes().rposition(|b| b == b'.') {
            Some(at) => {
                let base = self.eval_dotted(&d[..at], m, hops + 1);
                self.attr_of(base, &d[at + 1..], hops)
            }
            None => self.lookup(d, m, hops + 1),
        }
    }

    /// Attribute `attr` of the value `base` (`base.attr` evaluated at `hops`).
    fn attr_of(&self, base: Val<'a>, attr: &'a str, hops: usize) -> Val<'a> {
        match base {
            Val::Path(p) => attr_val(&p, attr),
            Val::Module(i) => {
                if self.defines(i, attr) {
                    self.lookup(attr, i, hops + 1)
                } else {
                    // `import pkg.sub` binds `pkg`; `pkg.sub` is the submodule.
                    self.submodule(i, attr)
                        .map(Val::Module)
                        .unwrap_or_else(|| self.lookup(attr, i, hops + 1))
                }
            }
            Val::Class(i, class) => class
                .classes
                .iter()
                .find(|c| c.name == *attr)
                .map(|c| Val::Class(i, c))
                .unwrap_or(Val::Unknown),
            _ => Val::Unknown,
        }
    }

    /// The module a call of `func` returns: `pytest.importorskip("M")`,
    /// `importlib.import_module("M")` and `__import__("M")` (its top package) with a literal
    /// name (`pytest = pytest.importorskip("pytest")` keeps `pytest.mark` a mark).
    fn imported_by_call(
        &self,
        func: &str,
        arg: Option<&'a Ex>,
        m: ModuleId,
        hops: usize,
    ) -> Option<Val<'a>> {
        if !matches!(
            func,
            "pytest.importorskip" | "importlib.import_module" | "__import__"
        ) {
            return None;
        }
        let Val::Str(name) = self.eval_hops(arg?, m, hops + 1) else {
            return None;
        };
        let name = if func == "__import__" {
            name.split('.').next().unwrap_or(name)
        } else {
            name
        };
        if name.is_empty() || name.starts_with('.') {
            return None;
        }
        Some(match self.find_module(&self.modules[m].abs, name, 0) {
            Some(i) => Val::Module(i),
            None => path_val(name.to_string()),
        })
    }

    /// A call of a tree function all of whose returns are `F(param)` with `F` one of the
    /// import calls of [`Self::imported_by_call`]: the module named by the argument passed
    /// (`pytest = import_or_skip("pytest")`).
    fn helper_import(
        &self,
        call: &'a lane_python::Call,
        m: ModuleId,
        hops: usize,
    ) -> Option<Val<'a>> {
        if hops > MAX_HOPS || call.starred {
            return None;
        }
        let (i, f) = self.function_and_module(&call.func, m, hops + 1)?;
        let (func, k) = f.returns_call_of_param.as_ref()?;
        let Val::Path(p) = self.eval_hops(func, i, hops + 1) else {
            return None;
        };
        self.imported_by_call(&p, call.args.get(k.to_owned()), m, hops + 1)
    }

    /// The tree function `ex` names (`helper`, `mod.helper`, imported ones) and its module.
    fn function_and_module(
        &self,
        ex: &'a Ex,
        m: ModuleId,
        hops: usize,
    ) -> Option<(ModuleId, &'a lane_python::Function)> {
        if hops > MAX_HOPS {
            return None;
        }
        let modules: &'a [ModuleFile] = self.modules;
        let (base, attr) = match ex {
            Ex::Name(n) => return self.named_function(n, m, hops),
            Ex::Dotted(d) => match d.rsplit_once('.') {
                Some((base, attr)) => (self.eval_dotted(base, m, hops + 1), attr),
                None => return self.named_function(d, m, hops),
            },
            Ex::Attr(base, attr) => (self.eval_hops(base, m, hops + 1), attr.as_str()),
            _ => return None,
        };
        match base {
            Val::Module(i) => modules[i]
                .module
                .functions
                .iter()
                .rev()
                .find(|f| f.name == *attr)
                .map(|f| (i, f)),
            _ => None,
        }
    }

    /// The module-level tree function `ex` names (`helper`, `mod.helper`, `from helpers
    /// import check`) and the module defining it.
    pub fn function_of(&self, ex: &'a Ex, m: ModuleId) -> Option<(ModuleId, &'a Function)> {
        self.function_and_module(ex, m, 0)
    }

    /// The tree function a decorator expression names (`deco`, `deco(...)`, `mod.deco`,
    /// `from helpers import deco`), if it is one.
    pub fn function(&self, ex: &'a Ex, m: ModuleId) -> Option<&'a lane_python::Function> {
        self.function_hops(ex, m, 0)
    }

    fn function_hops(
        &self,
        ex: &'a Ex,
        m: ModuleId,
        hops: usize,
    ) -> Option<&'a lane_python::Function> {
        match ex {
            Ex::Call(call) if hops <= MAX_HOPS => self.function_hops(&call.func, m, hops + 1),
            _ => self.function_and_module(ex, m, hops).map(|(_, f)| f),
        }
    }

    fn named_function(
        &self,
        name: &str,
        m: ModuleId,
        hops: usize,
    ) -> Option<(ModuleId, &'a lane_python::Function)> {
        if hops > MAX_HOPS {
            return None;
        }
        let modules: &'a [ModuleFile] = self.modules;
        let module = &modules[m].module;
        if let Some(f) = module.function_named(name) {
            return Some((m, f));
        }
        let (k, import) = module.import_named(name)?;
        let item = import.name.as_deref()?;
        let i = self.import_target(m, k)?;
        self.named_function(item, i, hops + 1)
    }

    /// What an import statement of module `m` binds `name` to, if one does.
    pub fn import_binding(&self, name: &str, m: ModuleId, hops: usize) -> Option<Val<'a>> {
        if hops > MAX_HOPS {
            return Some(Val::Unknown);
        }
        let modules: &'a [ModuleFile] = self.modules;
        let module = &modules[m].module;
        let (k, import) = module.import_named(name)?;
        let Some(item) = &import.name else {
            return Some(match self.import_target(m, k) {
                Some(i) => Val::Module(i),
                None => Val::Path(Cow::Borrowed(import.module.as_str())),
            });
        };
        if let Some(i) = self.import_target(m, k) {
            // `from pkg import sub` may name a submodule.
            let own = &modules[i].module;
            let defined = own.class_named(item).is_some()
                || own.assign_named(item).is_some()
                || own.import_named(item).is_some();
            if !defined && let Some(j) = self.import_submodule(m, k) {
                return Some(Val::Module(j));
            }
            return Some(self.lookup(item, i, hops + 1));
        }
        if import.level > 0 {
            return Some(Val::Unknown);
        }
        Some(attr_val(&import.module, item))
    }

    /// What `name` is bound to at module level in module `m`.
    pub fn eval_name(&self, name: &'a str, m: ModuleId) -> Val<'a> {
        self.lookup(name, m, 0)
    }

    /// What `name` is bound to at module level in module `m`.
    fn lookup(&self, name: &'a str, m: ModuleId, hops: usize) -> Val<'a> {
        if hops > MAX_HOPS {
            return Val::Unknown;
        }
        let modules: &'a [ModuleFile] = self.modules;
        let module = &modules[m].module;
        if let Some(class) = module.class_named(name) {
            return Val::Class(m, class);
        }
        if let Some(value) = module.assign_named(name) {
            // `pytest = pytest.importorskip("pytest")`: the `pytest` on the right is the
            // binding before this one (the import), not this assignment.
            if let Ex::Call(call) = &value.value
                && let Ex::Dotted(func) = &call.func
                && let Some((b, attr)) = func.split_once('.')
                && b == name
                && !attr.contains('.')
            {
                return match self.import_binding(name, m, hops + 1) {
                    Some(Val::Path(p)) => {
                        let func = format!("{p}.{attr}");
                        self.imported_by_call(&func, call.args.first(), m, hops + 1)
                            .unwrap_or(Val::Unknown)
                    }
                    _ => Val::Unknown,
                };
            }
            return self.eval_hops(&value.value, m, hops + 1);
        }
        if let Some(v) = self.import_binding(name, m, hops) {
            return v;
        }
        if module.function_named(name).is_some() {
            return Val::Unknown;
        }
        // `from M import *` with M in the tree: the names of its `__all__`, or its public names.
        for (k, import) in module.imports.iter().enumerate().rev() {
            if import.name.as_deref() != Some("*") {
                continue;
            }
            let Some(i) = self.import_target(m, k) else {
                continue;
            };
            if self.exports(i, name) {
                return self.lookup(name, i, hops + 1);
            }
        }
        // A builtin or a global we cannot see.
        Val::Path(Cow::Borrowed(name))
    }

    /// Whether module `i` binds `name` at module level.
    fn defines(&self, i: ModuleId, name: &str) -> bool {
        let own = &self.modules[i].module;
        own.class_named(name).is_some()
            || own.assign_named(name).is_some()
            || own.import_named(name).is_some()
            || own.function_named(name).is_some()
    }

    /// Whether `from <module i> import *` binds `name`: listed in a literal `__all__`, or
    /// (without `__all__`) defined there and not starting with `_`.
    fn exports(&self, i: ModuleId, name: &str) -> bool {
        let own = &self.modules[i].module;
        match own.assign_named("__all__") {
            // A literal list or tuple names what the star import binds; anything else binds
            // nothing that can be read.
            Some(_) => own.dunder_all_lists(name).unwrap_or(false),
            None => !name.starts_with('_') && self.defines(i, name),
        }
    }

    /// The submodule `name` of package module `i` (`pkg/__init__.py` -> `pkg/name.py`).
    fn submodule(&self, i: ModuleId, name: &str) -> Option<ModuleId> {
        let abs = &self.modules[i].abs;
        if abs.file_name().and_then(|n| n.to_str()) != Some("__init__.py") {
            return None;
        }
        let dir = abs.parent()?;
        [
            dir.join(format!("{name}.py")),
            dir.join(name).join("__init__.py"),
        ]
        .into_iter()
        .find_map(|c| self.by_path.get(&c).copied())
    }

    /// The tree module an import names, when it is one of the parsed modules.
    pub fn find_module(&self, from: &Path, module: &str, level: u32) -> Option<ModuleId> {
        self.files
            .existing(from, module, level, &self.root)
            .iter()
            .find_map(|c| self.by_path.get(c).copied())
    }
}

/// Files an import may refer to, nearest first: relative imports from the importer's package;
/// absolute ones from the importer's folder and each parent up to the rootdir (pytest puts the
/// rootdir-side base folders on sys.path).
pub fn candidates(from: &Path, module: &str, level: u32, root: &Path) -> Vec<PathBuf> {
    let rel: PathBuf = module.split('.').filter(|s| !s.is_empty()).collect();
    let mut bases = Vec::new();
    let Some(dir) = from.parent() else {
        return Vec::new();
    };
    if level > 0 {
        let mut base = dir.to_path_buf();
        for _ in 1..level {
            if !base.pop() {
                return Vec::new();
            }
        }
        bases.push(base);
    } else {
        for d in dir.ancestors() {
            if !d.starts_with(root) {
                break;
            }
            bases.push(d.to_path_buf());
        }
    }
    let mut out = Vec::new();
    for base in bases {
        let target = base.join(&rel);
        if rel.as_os_str().is_empty() {
            out.push(target.join("__init__.py"));
            continue;
        }
        let mut file = target.clone().into_os_string();
        file.push(".py");
        out.push(PathBuf::from(file));
        out.push(target.join("__init__.py"));
    }
    out
}

/// The dotted path `base.attr` outside the tree: `pytest.mark.NAME` becomes a mark.
/// `pytest.mark` and its marks, the paths every test goes through, are not allocated.
fn attr_val<'a>(base: &str, attr: &'a str) -> Val<'a> {
    match (base, attr) {
        ("pytest.mark", name) if is_mark_name(name) => Val::Mark(Mark {
            name: Cow::Borrowed(name),
            call: None,
        }),
        ("pytest", "mark") => Val::Path(Cow::Borrowed("pytest.mark")),
        _ => {
            // Joined without `format!`: this runs for every `pytest.param(...)` of every test.
            let mut path = String::with_capacity(base.len() + 1 + attr.len());
            path.push_str(base);
            path.push('.');
            path.push_str(attr);
            path_val(path)
        }
    }
}

/// `pytest.mark.NAME` becomes a mark; aliases of the pytest package normalize.
fn path_val(path: String) -> Val<'static> {
    if let Some(name) = path.strip_prefix("pytest.mark.")
        && is_mark_name(name)
    {
        return Val::Mark(Mark {
            name: Cow::Owned(name.to_string()),
            call: None,
        });
    }
    Val::Path(Cow::Owned(path))
}

/// The `NAME` of `pytest.mark.NAME` that is a mark (`pytest.mark._x` is an attribute).
fn is_mark_name(name: &str) -> bool {
    !name.contains('.') && !name.starts_with('_')
}

/// True when an expression mentions pytest's marks at all (`pytest.mark`, a mark, or a name
/// bound to one), so a value we cannot resolve is a mark we cannot see.
pub fn mentions_marks<'a>(tree: &SourceTree<'a>, ex: &'a Ex, m: ModuleId) -> bool {
    fn walk<'a>(tree: &SourceTree<'a>, ex: &'a Ex, m: ModuleId, depth: usize) -> bool {
        if depth > 32 {
            return false;
        }
        if names_marks(&tree.eval(ex, m)) {
            return true;
        }
        match ex {
            Ex::Dotted(d) => d
                .rsplit_once('.')
                .is_some_and(|(base, _)| walk_dotted(tree, base, m, depth + 1)),
            Ex::Attr(base, _) => walk(tree, base, m, depth + 1),
            Ex::Call(c) => {
                walk(tree, &c.func, m, depth + 1)
                    || c.args.iter().any(|a| walk(tree, a, m, depth + 1))
                    || c.kwargs.iter().any(|(_, v)| walk(tree, v, m, depth + 1))
            }
            Ex::List(items) | Ex::Tuple(items) => items.iter().any(|i| walk(tree, i, m, depth + 1)),
            Ex::Add(a, b) => walk(tree, a, m, depth + 1) || walk(tree, b, m, depth + 1),
            _ => false,
        }
    }
    /// `walk` of the [`Ex::Attr`] chain that the name or dotted name `d` stands for.
    fn walk_dotted<'a>(tree: &SourceTree<'a>, d: &'a str, m: ModuleId, depth: usize) -> bool {
        if depth > 32 {
            return false;
        }
        if names_marks(&tree.eval_path(d, m)) {
            return true;
        }
        d.rsplit_once('.')
            .is_some_and(|(base, _)| walk_dotted(tree, base, m, depth + 1))
    }
    /// A mark, `pytest.mark` or a path below it.
    fn names_marks(val: &Val) -> bool {
        match val {
            Val::Mark(_) => true,
            Val::Path(p) => p == "pytest.mark" || p.starts_with("pytest.mark."),
            _ => false,
        }
    }
    walk(tree, ex, m, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dotted name evaluates as the attribute nodes it stands for, hop for hop: along a
    /// chain of aliases up to the hop limit and beyond it.
    #[test]
    fn dotted_names_evaluate_as_attribute_chains() {
        let mut source = String::from("import pytest\nm0 = pytest\n");
        for k in 1..40 {
            source.push_str(&format!("m{k} = m{}\n", k - 1));
        }
        let modules = [ModuleFile {
            abs: PathBuf::from("/r/t.py"),
            rel: "t.py".to_string(),
            module: lane_python::summarize(&source).expect("the aliases parse"),
        }];
        let files = ImportCache::default();
        let tree = SourceTree::new(&modules, Path::new("/r"), &files);
        let name = |n: &str| Box::new(Ex::Name(n.into()));
        let (mut marks, mut unknown) = (0, 0);
        for k in 0..40 {
            let alias = format!("m{k}");
            let nodes = Ex::Attr(
                Box::new(Ex::Attr(name(&alias), "mark".into())),
                "merge".into(),
            );
            let dotted = Ex::Dotted(format!("{alias}.mark.merge").into());
            let called = |func: Ex| {
                let m = lane_python::summarize("f()\n").expect("a call parses");
                let Ex::Call(mut call) = m.calls[0].value.clone() else {
                    panic!("not a call")
                };
                call.func = func;
                Ex::Call(call)
            };
            for (a, b) in [
                (nodes.clone(), dotted.clone()),
                (called(nodes.clone()), called(dotted.clone())),
            ] {
                // The calls differ as written (their `func`), not in what they are.
                let shown = |v: &Val| match v {
                    Val::Mark(mark) => format!("mark {} called {}", mark.name, mark.call.is_some()),
                    other => format!("{other:?}"),
                };
                let (a, b) = (tree.eval(&a, ModuleId(0)), tree.eval(&b, ModuleId(0)));
                assert_eq!(shown(&a), shown(&b), "m{k}");
                match b {
                    Val::Mark(_) => marks += 1,
                    Val::Unknown => unknown += 1,
                    other => panic!("m{k}: {other:?}"),
                }
            }
            assert_eq!(
                mentions_marks(&tree, &nodes, ModuleId(0)),
                mentions_marks(&tree, &dotted, ModuleId(0)),
                "m{k}"
            );
        }
        // Both sides of the hop limit are reached.
        assert!(marks > 0 && unknown > 0, "{marks} marks, {unknown} unknown");
        // Values kept for a name come back the same, whatever text they lend.
        for (d, want) in [
            ("m3.mark.merge", "mark merge"),
            ("m39.mark.merge", "Unknown"),
            ("pytest.param", "Path(\"pytest.param\")"),
            ("m0.mark", "Path(\"pytest.mark\")"),
            ("m5.param", "Path(\"pytest.param\")"),
            ("getattr", "Path(\"getattr\")"),
        ] {
            for _ in 0..2 {
                let got = match tree.eval_path(d, ModuleId(0)) {
                    Val::Mark(mark) => format!("mark {}", mark.name),
                    other => format!("{other:?}"),
                };
                assert_eq!(got, want, "{d}");
            }
        }
    }

    #[test]
    fn attribute_paths_as_if_joined() {
        let cases = [
            ("pytest.mark", "merge"),
            ("pytest.mark", "_private"),
            ("pytest", "mark"),
            ("pytest", "fixture"),
            ("pt", "mark"),
            ("pytest.mark.merge", "x"),
            ("pytest.marks", "merge"),
            ("", "mark"),
        ];
        for (base, attr) in cases {
            assert_eq!(
                format!("{:?}", attr_val(base, attr)),
                format!("{:?}", path_val(format!("{base}.{attr}"))),
                "{base}.{attr}"
            );
        }
        assert!(matches!(
            attr_val("pytest.mark", "merge"),
            Val::Mark(Mark { ref name, call: None }) if name == "merge"
        ));
    }
}
