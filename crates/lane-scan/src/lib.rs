//! lane-scan: finds pytest tests without importing or running the code it reads, gives each
//! its lane, and reports every rule broken (DESIGN.md §4).

pub mod arena;
pub mod config;
pub mod discover;
pub mod marks;
pub mod python;
pub mod rules;

use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use lane_core::scan::{Counts, Lane, ScanSection, ScanTest};
use lane_core::{Error, Problem, Rule};
use rayon::prelude::*;

use crate::config::{Config, matches_prefix_or_glob};
use crate::marks::{ModuleFile, Tree, Val};
use crate::python::{Class, Function, Located};

/// Stack for parser threads: the parser and the AST's drop are recursive, and hostile input
/// can nest deeply. The memory is reserved, not touched.
const PARSER_STACK: usize = 512 << 20;

/// How many rounds of "parse the tree modules the parsed ones import" are followed.
const IMPORT_ROUNDS: usize = 8;

/// What to scan.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Files and folders as given (none: testpaths or the current folder).
    pub paths: Vec<PathBuf>,
    pub rootdir: Option<PathBuf>,
}

/// Scans the suite and returns the `scan` section.
pub fn scan(options: &Options) -> Result<Scan, Error> {
    let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
    for p in &options.paths {
        if std::fs::symlink_metadata(p).is_err() {
            return Err(Error::usage(format!(
                "{}: no such file or folder",
                p.display()
            )));
        }
    }
    let config = config::load(&options.paths, options.rootdir.as_deref(), &cwd)?;
    let args = arguments(options, &config, &cwd);
    let found = discover::discover(&config, &args, &config::normalize(&cwd))?;
    let root = &config.rootdir;

    let pool = rayon::ThreadPoolBuilder::new()
        .stack_size(PARSER_STACK)
        .build()
        .map_err(|e| Error::usage(format!("cannot start parser threads: {e}")))?;

    let mut problems = Vec::new();
    let mut files = Vec::new();
    let mut modules: Vec<ModuleFile> = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut wanted: Vec<PathBuf> = found
        .test_files
        .iter()
        .chain(found.conftests.iter())
        .cloned()
        .collect();
    let test_files: HashSet<&PathBuf> = found.test_files.iter().collect();
    let imports = marks::ImportCache::default();
    for round in 0..=IMPORT_ROUNDS {
        wanted.retain(|p| seen.insert(p.clone()));
        if wanted.is_empty() {
            break;
        }
        // Parsing and looking for the files each import may load both happen on every core;
        // only the bookkeeping of what was already seen is sequential.
        let parsed: Vec<Parsed> = pool.install(|| {
            wanted
                .par_iter()
                .map(|abs| {
                    let rel = rel_path(abs, root);
                    let result = parse_file(abs, &rel);
                    let imported = match &result {
                        Ok(module) => imported_files(abs, module, root, &imports),
                        Err(_) => Vec::new(),
                    };
                    Parsed {
                        abs: abs.clone(),
                        rel,
                        result,
                        imported,
                    }
                })
                .collect()
        });
        let mut next = Vec::new();
        for parsed in parsed {
            let Parsed {
                abs,
                rel,
                result,
                imported,
            } = parsed;
            let is_test_file = test_files.contains(&abs) || round == 0;
            if is_test_file {
                files.push(rel.clone());
            }
            match result {
                Ok(module) => {
                    // Of each import's existing candidates, the first not loaded yet.
                    for found in imported {
                        if let Some(c) = found.into_iter().find(|c| !seen.contains(c)) {
                            next.push(c);
                        }
                    }
                    modules.push(ModuleFile { abs, rel, module });
                }
                // Only the files pytest would import are reported; a helper module that does not
                // parse is reported too, since the tests importing it cannot run.
                Err(problem) => problems.push(problem),
            }
        }
        next.sort();
        next.dedup();
        wanted = next;
    }
    files.sort();
    files.dedup();
    // Parallel parsing finishes in any order; resolution below must not depend on it.
    modules.sort_by(|a, b| a.abs.cmp(&b.abs));

    let tree = Tree::new(&modules, root, &imports);
    // Each module is collected and its tests checked on one core, so the intermediate
    // lists never exist for the whole tree at once. Test ids start with their module's path,
    // so two modules never share one; each module's list is sorted by id, and the lists are
    // put in id order (`in_id_order`), whatever the scheduling.
    let per_module: Vec<(Vec<ScanTest>, Vec<Problem>)> = pool.install(|| {
        modules
            .par_iter()
            .enumerate()
            .map(|(i, module)| module_tests(&tree, &config, &test_files, i, module))
            .collect()
    });
    let mut runs = Vec::with_capacity(per_module.len());
    for (module_tests, module_problems) in per_module {
        if !module_tests.is_empty() {
            runs.push(module_tests);
        }
        problems.extend(module_problems);
    }
    let runs = in_id_order(runs);
    let counts = count(runs.iter().flatten());
    rules::check_suite(&config, &counts, &mut problems);
    lane_core::problem::normalize(&mut problems);
    drop(tree);
    Ok(Scan {
        section: ScanSection {
            tool: "lane-scan".to_string(),
            tests: Vec::new(),
            counts,
            files,
            problems,
        },
        runs,
        _modules: modules,
    })
}

/// The tests of module `i`, sorted by id and checked, and the problems found in it.
fn module_tests(
    tree: &Tree,
    config: &Config,
    test_files: &HashSet<&PathBuf>,
    i: usize,
    module: &ModuleFile,
) -> (Vec<ScanTest>, Vec<Problem>) {
    let mut found = Vec::new();
    let mut found_problems = Vec::new();
    if test_files.contains(&module.abs) {
        collect_module(tree, config, i, &mut found, &mut found_problems);
    } else if module.abs.file_name().is_some_and(|n| n == "conftest.py") {
        rules::runtime_hooks(module, &mut found_problems);
    }
    // Found last definition first, the tests are mostly in descending id order already.
    found.sort_by(|a: &TestFound, b| b.id.cmp(&a.id));
    // Two definitions of one test id: the last one written (found first) wins at import time.
    found.dedup_by(|later, earlier| later.id == earlier.id);
    found.reverse();
    let tests = found
        .into_iter()
        .map(|t| rules::check_test(tree, t, &mut found_problems))
        .collect();
    (tests, found_problems)
}

/// A scan's result: the section, and its tests apart, as runs that are in id order one after
/// the other (one per module, as collected), so 100,000 tests are neither copied into one
/// list nor sorted again before they are written.
#[derive(Debug)]
pub struct Scan {
    /// The `scan` section with `tests` empty.
    pub section: ScanSection,
    /// The tests, sorted by id across the runs.
    pub runs: Vec<Vec<ScanTest>>,
    /// The module summaries the tests were found in, kept with the result so that freeing
    /// them is the caller's choice (a process about to exit need not).
    _modules: Vec<ModuleFile>,
}

/// Orders per-module runs of tests (each sorted by id) so that their concatenation is sorted
/// by id. A module's test ids share its path as a prefix, so ordering the runs by their first
/// id is enough; should two runs interleave all the same, they become one sorted run.
fn in_id_order(mut runs: Vec<Vec<ScanTest>>) -> Vec<Vec<ScanTest>> {
    runs.sort_unstable_by(|a, b| a[0].id.cmp(&b[0].id));
    let disjoint = runs
        .windows(2)
        .all(|w| w[0][w[0].len() - 1].id < w[1][0].id);
    if disjoint {
        return runs;
    }
    let mut all: Vec<ScanTest> = runs.into_iter().flatten().collect();
    all.sort_unstable_by(|a, b| a.id.cmp(&b.id));
    vec![all]
}

fn arguments(options: &Options, config: &Config, cwd: &Path) -> Vec<PathBuf> {
    if !options.paths.is_empty() {
        return options
            .paths
            .iter()
            .map(|p| config::normalize(&cwd.join(p)))
            .collect();
    }
    let cwd = config::normalize(cwd);
    if cwd == config.rootdir && !config.testpaths.is_empty() {
        let paths: Vec<PathBuf> = config
            .testpaths
            .iter()
            .flat_map(|t| expand_testpath(&config.rootdir, t))
            .collect();
        if !paths.is_empty() {
            return paths;
        }
    }
    vec![cwd]
}

/// A `testpaths` entry as pytest reads it: a glob relative to the rootdir (`*`, `?`, `[..]`,
/// `**` for any depth), expanded to the existing paths it names, sorted.
fn expand_testpath(root: &Path, entry: &str) -> Vec<PathBuf> {
    let mut current = vec![root.to_path_buf()];
    for part in entry
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != ".")
    {
        let mut next = Vec::new();
        for dir in &current {
            if part == "**" {
                next.extend(all_dirs(dir));
            } else if part.contains(['*', '?', '[']) {
                next.extend(children(dir).into_iter().filter(|p| {
                    p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                        (!n.starts_with('.') || part.starts_with('.')) && config::fnmatch(part, n)
                    })
                }));
            } else {
                next.push(dir.join(part));
            }
        }
        current = next;
    }
    let mut out: Vec<PathBuf> = current
        .into_iter()
        .map(|p| config::normalize(&p))
        .filter(|p| p.exists())
        .collect();
    out.sort();
    out.dedup();
    out
}

fn children(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// `dir` and every folder under it (hidden ones and symlinks excluded, as glob's `**` does).
fn all_dirs(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_dir())
        .map(|e| e.into_path())
        .collect()
}

/// One parsed file and, per import in it, the candidate files that exist (nearest first).
struct Parsed {
    abs: PathBuf,
    rel: String,
    result: Result<python::Module, Problem>,
    imported: Vec<Vec<PathBuf>>,
}

/// For each module a file's imports load, the candidate files that exist, nearest first.
fn imported_files(
    abs: &Path,
    module: &python::Module,
    root: &Path,
    cache: &marks::ImportCache,
) -> Vec<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut existing = |name: &str, level: u32| {
        let found = cache.existing(abs, name, level, root);
        if !found.is_empty() {
            out.push(found);
        }
    };
    for import in &module.imports {
        existing(&import.module, import.level);
        // `import a.b.c` loads a, a.b and a.b.c.
        if let Some(dotted) = &import.dotted {
            let parts: Vec<&str> = dotted.split('.').collect();
            for n in 2..=parts.len() {
                existing(&parts[..n].join("."), 0);
            }
        }
        if let Some(sub) = import.submodule() {
            existing(&sub, import.level);
        }
    }
    out
}

fn rel_path(abs: &Path, root: &Path) -> String {
    lane_core::paths::relative_to(abs, root).unwrap_or_else(|| lane_core::paths::to_slash(abs))
}

fn parse_file(abs: &Path, rel: &str) -> Result<python::Module, Problem> {
    let bytes = lane_core::io::read_file(abs).map_err(|e| {
        // The I/O error's own text, under the root-relative name: an absolute path would make
        // the document depend on where the tree was checked out.
        let why = match &e {
            lane_core::Error::Io { source, .. } => source.to_string(),
            other => other.to_string(),
        };
        Problem::new(Rule::ParseError, format!("cannot read {rel}: {why}")).file(rel)
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        Problem::new(
            Rule::ParseError,
            format!("{rel}:{line}: not valid UTF-8 (byte offset {offset})"),
        )
        .at(rel, line)
    })?;
    python::summarize(&text).map_err(|e| {
        Problem::new(
            Rule::ParseError,
            format!("{rel}:{}:{}: {}", e.line, e.column, e.message),
        )
        .at(rel, e.line)
    })
}

/// A test as collected, with everything that reaches it.
pub struct TestFound<'a> {
    pub id: String,
    /// The module the test is collected from.
    pub module: usize,
    pub func: &'a Function,
    /// The module the function is written in (a base class may live elsewhere).
    pub func_module: usize,
    /// The decorators written on the function, nearest first.
    pub decorators: Vec<Applied<'a>>,
    /// The marks of its classes and module, nearest first: one list shared by all the tests
    /// they reach.
    pub inherited: Rc<[Applied<'a>]>,
    /// A `pytest.skip()` at module level, by line.
    pub module_skip: Option<u64>,
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
    pub module: usize,
    /// From `pytestmark` (a list or single mark), not a decorator.
    pub from_pytestmark: bool,
}

fn collect_module<'a>(
    tree: &Tree<'a>,
    config: &Config,
    m: usize,
    out: &mut Vec<TestFound<'a>>,
    problems: &mut Vec<Problem>,
) {
    let file = &tree.modules[m];
    let module = &file.module;
    if module.dunder_test == Some(false) {
        return;
    }
    let mut module_marks = Vec::new();
    if let Some(pm) = &module.pytestmark {
        pytestmark_entries(tree, pm, m, &mut module_marks);
    }
    let module_marks: Rc<[Applied<'a>]> = module_marks.into();
    let module_skip = module
        .calls
        .iter()
        .find(|c| matches!(tree.eval(&c.value, m), Val::CallOf(ref p, _) if p == "pytest.skip"))
        .map(|c| c.line);
    let disabled: HashSet<&str> = module
        .function_dunder_test
        .iter()
        .filter(|(_, t)| !t)
        .map(|(n, _)| n.as_str())
        .collect();
    let mut names = BTreeSet::new();
    for f in module.functions.iter().rev() {
        if !names.insert(f.name.as_str()) {
            continue;
        }
        if disabled.contains(f.name.as_str())
            || !matches_prefix_or_glob(&config.python_functions, &f.name)
        {
            continue;
        }
        let decorators = decorators(tree, f, m);
        if is_fixture(&decorators) {
            continue;
        }
        out.push(TestFound {
            id: node_id(&file.rel, &f.name),
            module: m,
            func: f,
            func_module: m,
            decorators,
            inherited: Rc::clone(&module_marks),
            module_skip,
        });
    }
    let mut class_names = BTreeSet::new();
    for class in module.classes.iter().rev() {
        if !class_names.insert(class.name.as_str()) {
            continue;
        }
        collect_class(
            tree,
            config,
            m,
            m,
            class,
            &node_id(&file.rel, &class.name),
            &module_marks,
            module_skip,
            out,
            problems,
        );
    }
    // pytest walks the module's namespace: test classes and functions imported from modules
    // in the tree are collected here too, under the name they are bound to.
    for (k, import) in module.imports.iter().enumerate().rev() {
        let Some(item) = import.name.as_deref() else {
            continue;
        };
        let bound = import.binds.as_str();
        if item == "*" || names.contains(bound) || class_names.contains(bound) {
            continue;
        }
        let Some(i) = tree.import_target(m, k) else {
            continue;
        };
        if i == m {
            continue;
        }
        let own = &tree.modules[i].module;
        if let Some(class) = own.classes.iter().rev().find(|c| c.name == item) {
            class_names.insert(bound);
            collect_class(
                tree,
                config,
                m,
                i,
                class,
                &node_id(&file.rel, bound),
                &module_marks,
                module_skip,
                out,
                problems,
            );
        } else if let Some(f) = own.functions.iter().rev().find(|f| f.name == item) {
            names.insert(bound);
            if disabled.contains(bound) || !matches_prefix_or_glob(&config.python_functions, bound)
            {
                continue;
            }
            let decorators = decorators(tree, f, i);
            if is_fixture(&decorators) {
                continue;
            }
            out.push(TestFound {
                id: node_id(&file.rel, bound),
                module: m,
                func: f,
                func_module: i,
                decorators,
                inherited: Rc::clone(&module_marks),
                module_skip,
            });
        }
    }
}

#[allow(clippy::too_many_arguments, clippy::only_used_in_recursion)]
fn collect_class<'a>(
    tree: &Tree<'a>,
    config: &Config,
    home: usize,
    m: usize,
    class: &'a Class,
    prefix: &str,
    outer: &[Applied<'a>],
    module_skip: Option<u64>,
    out: &mut Vec<TestFound<'a>>,
    problems: &mut Vec<Problem>,
) {
    // `home`: the test module collecting the class; `m`: the module defining it.
    let mro = mro(tree, m, class);
    let unittest = mro.iter().any(|e| matches!(e, MroEntry::TestCase));
    let classes: Vec<(usize, &Class)> = mro
        .iter()
        .filter_map(|e| match e {
            MroEntry::Class(i, c) => Some((*i, *c)),
            MroEntry::TestCase | MroEntry::Abc => None,
        })
        .collect();
    let dunder_test = classes.iter().find_map(|(_, c)| c.dunder_test);
    if dunder_test == Some(false) {
        return;
    }
    if !unittest {
        if !matches_prefix_or_glob(&config.python_classes, &class.name) {
            return;
        }
        if classes.iter().any(|(_, c)| c.has_init) {
            // pytest warns and does not collect a test class with an __init__.
            return;
        }
    }
    if mro.iter().any(|e| matches!(e, MroEntry::Abc)) && is_abstract(tree, &classes) {
        // pytest skips abstract classes (inspect.isabstract).
        return;
    }
    let mut class_marks: Vec<Applied<'a>> = Vec::new();
    for (i, c) in &classes {
        for d in &c.decorators {
            class_marks.push(applied_from(tree, d, *i, false));
        }
        if let Some(pm) = &c.pytestmark {
            pytestmark_entries(tree, pm, *i, &mut class_marks);
        }
    }
    class_marks.extend_from_slice(outer);
    let class_marks: Rc<[Applied<'a>]> = class_marks.into();

    let mut names = BTreeSet::new();
    for (i, c) in &classes {
        for f in c.methods.iter().rev() {
            if !names.insert(f.name.as_str()) {
                continue;
            }
            let is_test = if unittest {
                f.name.starts_with("test")
            } else {
                matches_prefix_or_glob(&config.python_functions, &f.name)
            };
            if !is_test {
                continue;
            }
            let decorators = decorators(tree, f, *i);
            if is_fixture(&decorators) {
                continue;
            }
            out.push(TestFound {
                id: node_id(prefix, &f.name),
                module: home,
                func: f,
                func_module: *i,
                decorators,
                inherited: Rc::clone(&class_marks),
                module_skip,
            });
        }
    }
    if !unittest {
        let mut inner_names = BTreeSet::new();
        for inner in class.classes.iter().rev() {
            if !inner_names.insert(inner.name.as_str()) {
                continue;
            }
            collect_class(
                tree,
                config,
                home,
                m,
                inner,
                &node_id(prefix, &inner.name),
                &class_marks,
                module_skip,
                out,
                problems,
            );
        }
    }
}

/// Whether a method, as the MRO resolves it, is still decorated `@abc.abstractmethod`.
fn is_abstract(tree: &Tree, classes: &[(usize, &Class)]) -> bool {
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
    Class(usize, &'a Class),
    TestCase,
    /// `abc.ABC` or `metaclass=abc.ABCMeta`: abstract methods make the class abstract.
    Abc,
}

/// The class and its bases in the tree, depth first, each once; `unittest.TestCase` (and its
/// async variant) marks a unittest class.
fn mro<'a>(tree: &Tree<'a>, m: usize, class: &'a Class) -> Vec<MroEntry<'a>> {
    fn walk<'a>(
        tree: &Tree<'a>,
        m: usize,
        class: &'a Class,
        out: &mut Vec<MroEntry<'a>>,
        seen: &mut HashSet<*const Class>,
        depth: usize,
    ) {
        if depth > 64 || !seen.insert(class as *const Class) {
            return;
        }
        out.push(MroEntry::Class(m, class));
        for base in &class.bases {
            match tree.eval(base, m) {
                Val::Class(i, c) => walk(tree, i, c, out, seen, depth + 1),
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
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(tree, m, class, &mut out, &mut HashSet::new(), 0);
    out
}

/// The decorators written on `f` (in module `m`).
fn decorators<'a>(tree: &Tree<'a>, f: &'a Function, m: usize) -> Vec<Applied<'a>> {
    f.decorators
        .iter()
        .map(|d| applied_from(tree, d, m, false))
        .collect()
}

fn applied_from<'a>(
    tree: &Tree<'a>,
    d: &'a Located<crate::python::Ex>,
    m: usize,
    from_pytestmark: bool,
) -> Applied<'a> {
    let val = match tree.eval(&d.value, m) {
        v @ Val::Mark(_) => v,
        // `getattr(pytest.mark, name)` and friends: refers to marks, resolves to none.
        _ if marks::mentions_marks(tree, &d.value, m) => Val::Unknown,
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

/// Expands a `pytestmark = ...` value: a mark, or a list/tuple of marks. Anything else is
/// kept as an unresolved entry.
fn pytestmark_entries<'a>(
    tree: &Tree<'a>,
    pm: &'a Located<crate::python::Ex>,
    m: usize,
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
    if matches!(pm.value, crate::python::Ex::Tuple(_)) {
        out.push(make(Val::Unknown));
        return;
    }
    match tree.eval(&pm.value, m) {
        Val::List(items) => {
            for item in items {
                match item {
                    Val::Mark(_) => out.push(make(item)),
                    _ => out.push(make(Val::Unknown)),
                }
            }
        }
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

fn count<'a>(tests: impl Iterator<Item = &'a ScanTest>) -> Counts {
    let mut counts = Counts::default();
    for t in tests {
        match t.lane {
            Some(Lane::Merge) => counts.merge += 1,
            Some(Lane::Witness) => counts.witness += 1,
            Some(Lane::Freeze) => counts.freeze += 1,
            None if t.lanes.is_empty() => counts.unmarked += 1,
            None => {}
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(ids: &[&str]) -> Vec<ScanTest> {
        ids.iter()
            .map(|id| ScanTest {
                attachments: Default::default(),
                file: id.split("::").next().unwrap_or_default().to_string(),
                id: id.to_string(),
                lane: None,
                lanes: Vec::new(),
                line: 1,
                marks: Vec::new(),
                parametrized: false,
            })
            .collect()
    }

    fn ids(runs: &[Vec<ScanTest>]) -> Vec<Vec<&str>> {
        runs.iter()
            .map(|r| r.iter().map(|t| t.id.as_str()).collect())
            .collect()
    }

    #[test]
    fn runs_are_ordered_by_id_not_by_path() {
        // Path order puts `a/b.py` before `a.py`; id (string) order is the other way round.
        let runs = in_id_order(vec![
            run(&["t/a/b.py::test_1", "t/a/b.py::test_2"]),
            run(&["t/a.py::test_9"]),
            run(&["t/0.py::test_0"]),
        ]);
        assert_eq!(
            ids(&runs),
            [
                vec!["t/0.py::test_0"],
                vec!["t/a.py::test_9"],
                vec!["t/a/b.py::test_1", "t/a/b.py::test_2"],
            ]
        );
    }

    #[test]
    fn interleaving_runs_become_one_sorted_run() {
        let runs = in_id_order(vec![
            run(&["m.py::b", "m.py::d"]),
            run(&["m.py::a", "m.py::c"]),
        ]);
        assert_eq!(
            ids(&runs),
            [vec!["m.py::a", "m.py::b", "m.py::c", "m.py::d"]]
        );
    }
}
