//! Test-class bases from installed packages: `class TestX(AioHTTPTestCase)`,
//! `class TestY(django.test.TestCase)`. The environment of the interpreter the tests run on is
//! found without running any of its packages: `python -I -S` reports its prefixes and standard
//! library folders (no site, no project code), its `pyvenv.cfg` says whether a venv also sees
//! the system's packages, and site-packages is where the standard layout puts it. A base's
//! module is then parsed statically there, each file once per run, and only bases the tree does
//! not define are looked up.
//!
//! What an installed base contributes is summarized ([`BaseInfo`]): whether it is a
//! `unittest.TestCase`, `__test__`, `__init__`, `abc`. A base that would add test methods or
//! marks of its own, has a metaclass, or cannot be read stays unresolved (an error): the tests
//! of installed code are not collected.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use lane_python::{self as python, Class, Ex, ImportFolders, Interpreter, Module};

/// How deep base chains and re-exports are followed.
const MAX_HOPS: usize = 32;

/// What an installed class brings to a test class deriving from it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BaseInfo {
    /// It derives from `unittest.TestCase` (or the async variant).
    pub testcase: bool,
    /// `__test__ = <const>` on it or the first base setting it.
    pub dunder_test: Option<bool>,
    /// It or a base defines `__init__` / `__new__` (pytest does not collect such a class).
    pub has_init: bool,
    /// It derives from `abc.ABC` or uses `abc.ABCMeta`.
    pub abc: bool,
}

pub(crate) type Parsed = Arc<OnceLock<Option<Module>>>;

/// Installed sources read for one scan.
pub struct Installed {
    python: Option<PathBuf>,
    interpreter: OnceLock<Option<Interpreter>>,
    env: OnceLock<Option<ImportFolders>>,
    files: Mutex<HashMap<PathBuf, Parsed>>,
    classes: Mutex<HashMap<String, Option<BaseInfo>>>,
}

impl Installed {
    /// Installed packages of `python` (none: `python3`, then `python`, on PATH), looked up on
    /// first use.
    pub fn new(python: Option<PathBuf>) -> Installed {
        Installed {
            python,
            interpreter: OnceLock::new(),
            env: OnceLock::new(),
            files: Mutex::new(HashMap::new()),
            classes: Mutex::new(HashMap::new()),
        }
    }

    /// The interpreter the tests run on, asked on first use (None when none answers).
    pub(crate) fn interpreter(&self) -> Option<&Interpreter> {
        self.interpreter
            .get_or_init(|| Interpreter::find(self.python.as_deref()))
            .as_ref()
    }

    fn environment(&self) -> Option<&ImportFolders> {
        self.env
            .get_or_init(|| self.interpreter()?.import_folders())
            .as_ref()
    }

    /// Whether the environment's site-packages hold an importable top-level package or
    /// module `name` (a folder or `name.py`); false when no interpreter answered.
    pub fn has_package(&self, name: &str) -> bool {
        self.environment().is_some_and(|env| {
            env.site.iter().any(|site| {
                site.join(name).join("__init__.py").is_file()
                    || site.join(format!("{name}.py")).is_file()
            })
        })
    }

    /// The installed class a dotted path names (`pkg.mod.Class`), summarized; `None` when it
    /// cannot be found or read, or may add tests or marks.
    pub fn base(&self, dotted: &str) -> Option<BaseInfo> {
        self.base_hops(dotted, &mut HashSet::new(), 0)
    }

    fn base_hops(
        &self,
        dotted: &str,
        visiting: &mut HashSet<String>,
        hops: usize,
    ) -> Option<BaseInfo> {
        if let Some(known) = lock(&self.classes).get(dotted) {
            return *known;
        }
        if hops > MAX_HOPS || !visiting.insert(dotted.to_string()) {
            return None;
        }
        let info = self.resolve(dotted, visiting, hops);
        visiting.remove(dotted);
        lock(&self.classes).insert(dotted.to_string(), info);
        info
    }

    fn resolve(
        &self,
        dotted: &str,
        visiting: &mut HashSet<String>,
        hops: usize,
    ) -> Option<BaseInfo> {
        match known_base(dotted) {
            Known::TestCase => {
                return Some(BaseInfo {
                    testcase: true,
                    ..BaseInfo::default()
                });
            }
            Known::Abc => {
                return Some(BaseInfo {
                    abc: true,
                    ..BaseInfo::default()
                });
            }
            Known::Nothing => return Some(BaseInfo::default()),
            Known::Other => {}
        }
        let parts: Vec<&str> = dotted.split('.').collect();
        // The longest module prefix that is a file: `a.b.C` is class C of module a.b.
        for split in (1..parts.len()).rev() {
            let module_name = parts[..split].join(".");
            let Some((file, is_package)) = self.find_module(&module_name) else {
                continue;
            };
            let parsed = self.parse(&file);
            let module = parsed.get().and_then(|m| m.as_ref())?;
            let scope = Scope {
                module,
                name: &module_name,
                is_package,
            };
            return self.in_module(&scope, &parts[split..], visiting, hops + 1);
        }
        None
    }

    /// `rest` (a name and attributes) as bound in module `scope`.
    fn in_module(
        &self,
        scope: &Scope,
        rest: &[&str],
        visiting: &mut HashSet<String>,
        hops: usize,
    ) -> Option<BaseInfo> {
        let (first, more) = rest.split_first()?;
        let module = scope.module;
        if let Some(class) = module.class_named(first) {
            let mut class = class;
            for name in more {
                class = class.classes.iter().rev().find(|c| c.name == *name)?;
            }
            return self.class_info(scope, class, visiting, hops);
        }
        // Re-exported: `from .case import TestCase`, `TestCase = _Base`.
        let target = self.binding(scope, first)?;
        let mut path = target;
        for name in more {
            path.push('.');
            path.push_str(name);
        }
        self.base_hops(&path, visiting, hops + 1)
    }

    /// The dotted path module-level `name` is bound to by an import or a plain assignment.
    fn binding(&self, scope: &Scope, name: &str) -> Option<String> {
        let module = scope.module;
        if let Some((_, import)) = module.import_named(name) {
            let base = absolute(scope, &import.module, import.level)?;
            return Some(match &import.name {
                Some(item) if base.is_empty() => item.to_string(),
                Some(item) => format!("{base}.{item}"),
                // `import a.b` binds `a`; `import a.b as c` binds `c` to `a.b`.
                None => base,
            });
        }
        if let Some(value) = module.assign_named(name) {
            return self.dotted_in(scope, &value.value, 0);
        }
        None
    }

    /// A name or attribute chain written in module `scope`, as a dotted path.
    fn dotted_in(&self, scope: &Scope, ex: &Ex, depth: usize) -> Option<String> {
        if depth > MAX_HOPS {
            return None;
        }
        match ex {
            Ex::Name(n) => self.name_in(scope, n),
            // As the chain of attributes it stands for: its name is that many levels deeper.
            Ex::Dotted(d) => {
                let (name, attrs) = d.split_once('.')?;
                if depth + d.matches('.').count() > MAX_HOPS {
                    return None;
                }
                Some(format!("{}.{attrs}", self.name_in(scope, name)?))
            }
            Ex::Attr(base, attr) => Some(format!(
                "{}.{attr}",
                self.dotted_in(scope, base, depth + 1)?
            )),
            _ => None,
        }
    }

    /// A name written in module `scope`, as a dotted path.
    fn name_in(&self, scope: &Scope, n: &str) -> Option<String> {
        if scope.module.class_named(n).is_some() {
            return Some(format!("{}.{n}", scope.name));
        }
        match self.binding(scope, n) {
            Some(p) => Some(p),
            // A builtin (`object`, `Exception`).
            None if scope.module.function_named(n).is_none() => Some(n.to_string()),
            None => None,
        }
    }

    /// An installed class's summary, its bases followed.
    fn class_info(
        &self,
        scope: &Scope,
        class: &Class,
        visiting: &mut HashSet<String>,
        hops: usize,
    ) -> Option<BaseInfo> {
        let adds_tests = class
            .methods
            .iter()
            .any(|f| f.name.starts_with("test") || f.name == "runTest");
        let adds_marks = class.pytestmark.is_some()
            || class.decorators.iter().any(|d| mentions_mark(&d.value, 0));
        if adds_tests || adds_marks {
            return None;
        }
        let mut info = BaseInfo {
            dunder_test: class.dunder_test,
            has_init: class.has_init,
            ..BaseInfo::default()
        };
        if let Some(meta) = &class.metaclass {
            match self.dotted_in(scope, meta, 0).as_deref() {
                Some("abc.ABCMeta") => info.abc = true,
                _ => return None,
            }
        }
        for base in &class.bases {
            let path = self.dotted_in(scope, base, 0)?;
            let b = self.base_hops(&path, visiting, hops + 1)?;
            info.testcase |= b.testcase;
            info.has_init |= b.has_init;
            info.abc |= b.abc;
            info.dunder_test = info.dunder_test.or(b.dunder_test);
        }
        Some(info)
    }

    /// The file of an absolute module name in the standard library or site-packages, and
    /// whether it is a package (`__init__.py`).
    pub(crate) fn find_module(&self, name: &str) -> Option<(PathBuf, bool)> {
        let env = self.environment()?;
        let rel: PathBuf = name.split('.').collect();
        for dir in env.stdlib.iter().chain(env.site.iter()) {
            let base = dir.join(&rel);
            let mut file = base.clone().into_os_string();
            file.push(".py");
            let file = PathBuf::from(file);
            if file.is_file() {
                return Some((file, false));
            }
            let init = base.join("__init__.py");
            if init.is_file() {
                return Some((init, true));
            }
        }
        None
    }

    /// Parses `file` once per run (a file that cannot be read or parsed is `None`).
    pub(crate) fn parse(&self, file: &Path) -> Parsed {
        let cell = Arc::clone(lock(&self.files).entry(file.to_path_buf()).or_default());
        cell.get_or_init(|| {
            let size = std::fs::metadata(file).map(|m| m.len()).ok()?;
            if size > lane_core::rule::SOURCE_MAX_BYTES {
                return None;
            }
            let text = std::fs::read_to_string(file).ok()?;
            python::summarize(&text).ok()
        });
        cell
    }
}

/// A parsed installed module and its dotted name.
struct Scope<'m> {
    module: &'m Module,
    name: &'m str,
    is_package: bool,
}

/// `from .x import y` in module `scope`: the absolute module name (`""` for the top).
fn absolute(scope: &Scope, module: &str, level: u32) -> Option<String> {
    if level == 0 {
        return Some(module.to_string());
    }
    let mut parts: Vec<&str> = scope.name.split('.').collect();
    // A package's own `__init__` is its level-1 base; a module's is its package.
    let drop = if scope.is_package { level - 1 } else { level };
    for _ in 0..drop {
        parts.pop()?;
    }
    if !module.is_empty() {
        parts.push(module);
    }
    Some(parts.join("."))
}

fn mentions_mark(ex: &Ex, depth: usize) -> bool {
    if depth > MAX_HOPS {
        return true;
    }
    match ex {
        Ex::Name(n) => n == "mark",
        // As the chain of attributes it stands for, the last attribute first.
        Ex::Dotted(d) => d
            .rsplit('.')
            .enumerate()
            .any(|(up, part)| depth + up > MAX_HOPS || part == "mark"),
        Ex::Attr(base, attr) => attr == "mark" || mentions_mark(base, depth + 1),
        Ex::Call(c) => {
            mentions_mark(&c.func, depth + 1) || c.args.iter().any(|a| mentions_mark(a, depth + 1))
        }
        _ => false,
    }
}

enum Known {
    TestCase,
    Abc,
    /// Builtins and the standard library's data classes: no tests, no marks.
    Nothing,
    Other,
}

fn known_base(path: &str) -> Known {
    match path {
        "unittest.TestCase"
        | "unittest.case.TestCase"
        | "unittest.IsolatedAsyncioTestCase"
        | "unittest.async_case.IsolatedAsyncioTestCase" => Known::TestCase,
        "abc.ABC" | "abc.ABCMeta" => Known::Abc,
        "object" | "builtins.object" => Known::Nothing,
        _ => Known::Other,
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic on another thread ends the scan anyway; the map itself stays valid.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
