//! lane-scan: finds pytest tests without importing or running the code it reads, gives each
//! its lane, and reports every rule broken (DESIGN.md §4).

pub mod aware;
pub mod fix;
mod owners;
pub(crate) mod pytest;
/// The target interpreter's type, for callers that name it.
pub mod python {
    pub use lane_python::Target;
}
mod rules;
mod shell_split;
mod snapshots;
pub mod trace;

pub use pytest::{config, fnmatch};

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use lane_core::rule::SOURCE_MAX_BYTES;
use lane_core::scan::{Counts, Lane, ScanSection, ScanTest};
use lane_core::{Error, Problem};
use rayon::prelude::*;

use crate::pytest::collect::TestFound;
use crate::pytest::config::Config;
use crate::pytest::marks::{ModuleFile, ModuleId, SourceTree};
use crate::pytest::{
    asyncio, collect, collect_ignore, discover, doctest, fixtures, installed, marks, names,
};

/// Stack for parser threads: the parser and the AST's drop are recursive, and hostile input
/// can nest deeply. The memory is reserved, not touched.
const PARSER_STACK: usize = 512 << 20;

/// Set once rayon's global pool was started with [`PARSER_STACK`] ([`start_threads`]).
static GLOBAL_THREADS: AtomicBool = AtomicBool::new(false);

/// Starts rayon's global pool with the parser's stack, for a binary whose scans and whatever
/// it renders afterwards should share one set of threads (lane-scan's output is rendered on
/// the threads that parsed, whose heaps are warm). Returns false when the global
/// pool was already started; scans then start a pool of their own, as they do in a process
/// that never calls this.
pub fn start_threads() -> bool {
    let started = rayon::ThreadPoolBuilder::new()
        .stack_size(PARSER_STACK)
        .build_global()
        .is_ok();
    if started {
        GLOBAL_THREADS.store(true, Ordering::Relaxed);
    }
    started
}

/// The threads a scan parses and collects on.
#[derive(Clone, Copy)]
enum Threads<'a> {
    /// Rayon's global pool, started by [`start_threads`]; the scan is not running on a
    /// worker of some other pool (whose stack may be small).
    Global,
    Own(&'a rayon::ThreadPool),
}

impl Threads<'_> {
    fn install<R: Send>(self, work: impl FnOnce() -> R + Send) -> R {
        match self {
            Threads::Global => work(),
            Threads::Own(pool) => pool.install(work),
        }
    }
}

/// How many rounds of "parse the tree modules the parsed ones import" are followed.
const IMPORT_ROUNDS: usize = 8;

/// What to scan.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The folder the scan runs from, as pytest's invocation folder: relative `paths` and
    /// `rootdir` are resolved against it and the configuration is searched from it. None: the
    /// process's current folder (a library caller names its folder instead of changing the
    /// process's).
    pub dir: Option<PathBuf>,
    /// Files and folders as given (none: testpaths or `dir`).
    pub paths: Vec<PathBuf>,
    pub rootdir: Option<PathBuf>,
    /// The interpreter the tests will run on, for deciding `sys.version_info` and
    /// `sys.platform` conditions (test-redefined). When unset, `python` is asked.
    pub target: Option<python::Target>,
    /// The interpreter to ask for the target (`-I -S -c`, no project code runs): default
    /// `python3`, then `python`, on PATH.
    pub python: Option<PathBuf>,
    /// pytest-lanes-gate will be loaded into the runs (lane-gate loads it when installed): it
    /// registers the lane markers, so `unregistered-marker` is satisfied.
    pub markers_plugin: bool,
    /// The product code judged for test-aware-code: the lines a patch changed, or every
    /// product file. None: product code is not judged.
    pub changed: Option<aware::Changed>,
    /// The tree whose build configuration says whether the project is a pytest plugin (which
    /// lets its code import `_pytest`): the base's checkout when a patch is judged, so that a
    /// patch cannot declare itself a plugin. None: the scanned tree.
    pub plugin_root: Option<PathBuf>,
}

/// Asks `python` (or `python3`, then `python`, on PATH) for its version, `sys.platform` and
/// implementation, in isolated mode without site (nothing of the project is imported). `None`
/// when none answers: version and platform conditions then stay undecided, which fails closed.
pub fn probe_target(python: Option<&Path>) -> Option<python::Target> {
    lane_python::Interpreter::find(python).map(|found| found.target())
}

/// Scans the suite and returns the `scan` section.
pub fn scan(options: &Options) -> Result<Scan, Error> {
    let (config, args, mut found) = configure(options)?;
    trace::mark("config and discovery");
    let root = &config.rootdir;
    // Installed sources (bases, names conditions read) are parsed once per run, shared by
    // both passes; the interpreter is asked once, for its folders and for the target.
    let installed = installed::Installed::new(options.python.clone());
    let target_cell: std::sync::OnceLock<Option<python::Target>> = std::sync::OnceLock::new();
    let target = || {
        target_cell
            .get_or_init(|| {
                options.target.clone().or_else(|| {
                    installed
                        .interpreter()
                        .map(lane_python::Interpreter::target)
                })
            })
            .clone()
    };
    let ignore_problems = {
        let names = names::Names::new(&installed, root, &target);
        apply_collect_ignore(&mut found, root, &args, &names)
    };
    trace::mark("collect_ignore");
    let mut own_pool = None;
    let pool = threads(&mut own_pool)?;
    let test_files: HashSet<&PathBuf> = found.test_files.iter().collect();
    let imports = marks::ImportCache::default();
    let cli_plugins = addopts_plugins(&config, &imports);
    let Parsed {
        files,
        modules,
        mut problems,
    } = parse_tree(pool, &found, &cli_plugins, &test_files, root, &imports);
    trace::mark("parse");
    let mut tree = SourceTree::new(&modules, root, &imports);
    tree.codeowners = owners::CodeOwners::load(root)?;
    problems.extend(ignore_problems);
    let shared = Shared {
        config: &config,
        installed: &installed,
        target: &target,
        cli_plugins: &cli_plugins,
        test_files: &found.test_files,
    };
    let Collected {
        mut runs,
        problems: collected_problems,
        no_vote,
        mut snapshots,
    } = collect_tree(pool, &tree, &shared)?;
    problems.extend(collected_problems);
    // Doctest items: one per text file, one per docstring with examples of every module with
    // --doctest-modules, in the lane the config gives them.
    let doctests = doctest_runs(
        pool,
        &tree,
        &found,
        options,
        &config,
        &mut runs,
        &mut problems,
    )?;
    let runs = in_id_order(runs);
    trace::mark("doctests and id order");
    // Each test module's snapshot files were listed with its tests (`module_tests`).
    snapshots.sort();
    snapshots.dedup();
    trace::mark("snapshots");
    let counts = count(runs.iter().flatten());
    if let Some(changed) = &options.changed {
        let scope = aware::Scope {
            config: &config,
            test_files: &found.test_files,
            conftests: &found.conftests,
            plugin_root: options.plugin_root.as_deref(),
        };
        problems.extend(aware::check(&scope, changed));
    }
    rules::check_suite(
        &config,
        &counts,
        options.markers_plugin,
        !found.doctest_modules.is_empty(),
        &mut problems,
    );
    lane_core::problem::normalize(&mut problems);
    drop(tree);
    trace::mark("suite rules");
    Ok(Scan {
        section: ScanSection {
            tool: "lane-scan".to_string(),
            tests: Vec::new(),
            counts,
            files,
            problems,
            snapshots,
        },
        runs,
        no_vote,
        doctests,
        _modules: modules,
    })
}

/// The configuration, the arguments pytest would walk (given paths, or `testpaths`, or the
/// folder the scan runs from) and what discovery finds under them.
fn configure(options: &Options) -> Result<(Config, Vec<PathBuf>, discover::Found), Error> {
    let cwd = match &options.dir {
        Some(dir) => std::path::absolute(dir).map_err(|e| Error::io(dir, e))?,
        None => std::env::current_dir().map_err(|e| Error::io(".", e))?,
    };
    for p in &options.paths {
        if std::fs::symlink_metadata(cwd.join(p)).is_err() {
            return Err(Error::usage(format!(
                "{}: no such file or folder",
                p.display()
            )));
        }
    }
    let config = config::load(&options.paths, options.rootdir.as_deref(), &cwd)?;
    refuse_outside_root(options, &config, &cwd)?;
    let args = arguments(options, &config, &cwd);
    let found = discover::discover(&config, &args, &config::normalize(&cwd))?;
    Ok((config, args, found))
}

/// The threads the scan parses and collects on: rayon's global pool when it was started for
/// the parser ([`start_threads`]) and the scan is not on a worker of another pool, else a
/// pool of its own, kept in `own`.
fn threads(own: &mut Option<rayon::ThreadPool>) -> Result<Threads<'_>, Error> {
    if GLOBAL_THREADS.load(Ordering::Relaxed) && rayon::current_thread_index().is_none() {
        return Ok(Threads::Global);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .stack_size(PARSER_STACK)
        .build()
        .map_err(|e| Error::usage(format!("cannot start parser threads: {e}")))?;
    Ok(Threads::Own(own.insert(pool)))
}

/// What the collection of the whole tree shares beyond the tree itself.
struct Shared<'a> {
    config: &'a Config,
    installed: &'a installed::Installed,
    target: &'a (dyn Fn() -> Option<python::Target> + Sync),
    /// The tree modules `-p NAME` in addopts loads.
    cli_plugins: &'a [PathBuf],
    /// Discovery's test files, sorted.
    test_files: &'a [PathBuf],
}

/// The tests of every test module and what the rules found, module by module.
struct Collected {
    /// One run a module, each sorted by id.
    runs: Vec<Vec<ScanTest>>,
    problems: Vec<Problem>,
    no_vote: BTreeMap<String, rules::NoVote>,
    /// Every file a test's snapshots name (a `snapshot_dir` it sets, a
    /// `check(fullpath=...)`), wherever it lies, and the files of the snapshot layouts beside
    /// each test module.
    snapshots: Vec<String>,
}

/// Collects and checks the tests of every module of `tree`, each module on one core.
fn collect_tree(pool: Threads, tree: &SourceTree, shared: &Shared) -> Result<Collected, Error> {
    let (config, root, modules) = (shared.config, &tree.root, tree.modules);
    let is_test = test_flags(modules, shared.test_files);
    let plugins = plugin_modules(tree, shared.cli_plugins);
    let all_modules: Vec<ModuleId> = (0..modules.len()).map(ModuleId).collect();
    let profile = rules::weakened_search::loaded_profile(tree, &all_modules);
    let names =
        names::Names::new(shared.installed, root, shared.target).with_tree(modules, &tree.by_path);
    let asyncio_auto = asyncio::auto_mode(config, shared.installed)?;
    let fixtures = fixtures::Fixtures::new(tree, &plugins);
    // The snapshot folders are looked for once per folder of test modules, not twice per
    // module.
    let snapshot_folders = snapshots::Folders::of(
        root,
        modules
            .iter()
            .zip(&is_test)
            .filter(|(_, t)| **t)
            .map(|(m, _)| m.rel.as_str()),
    )
    .with_class_names(snapshots::regression_class_names(&config.addopts))
    .with_names(config);
    let ctx = ModuleCtx {
        tree,
        config,
        installed: shared.installed,
        fixtures: &fixtures,
        is_test: &is_test,
        plugins: &plugins,
        profile: profile.as_ref(),
        target: shared.target,
        names: &names,
        asyncio_auto,
        snapshot_folders: &snapshot_folders,
    };
    trace::mark("tree, fixtures, names");
    // Each module is collected and its tests checked on one core, so the intermediate
    // lists never exist for the whole tree at once. Test ids start with their module's path,
    // so two modules never share one; each module's list is sorted by id, and the lists are
    // put in id order (`in_id_order`), whatever the scheduling.
    let per_module: Vec<ModuleTests> = pool.install(|| {
        modules
            .par_iter()
            .enumerate()
            .map(|(i, module)| module_tests(&ctx, ModuleId(i), module))
            .collect()
    });
    trace::mark("per-module tests");
    let mut out = Collected {
        runs: Vec::with_capacity(per_module.len()),
        problems: Vec::new(),
        no_vote: BTreeMap::new(),
        snapshots: Vec::new(),
    };
    let mut no_vote = Vec::new();
    for (module_tests, module_problems, module_no_vote, module_snapshots) in per_module {
        if !module_tests.is_empty() {
            out.runs.push(module_tests);
        }
        out.problems.extend(module_problems);
        no_vote.extend(module_no_vote);
        out.snapshots.extend(module_snapshots);
    }
    // Built at once from the (nearly sorted) list rather than inserted one by one: on this
    // sequential step, tens of thousands of entries cost a sort's run detection, not as many
    // tree descents. A key given twice keeps its last value, as inserting would.
    out.no_vote = no_vote.into_iter().collect();
    trace::mark("join");
    Ok(out)
}

/// The doctest items of the doctest text files and of the modules collected with
/// `--doctest-modules` (on every core), added to `runs`, their problems to `problems`; their ids.
fn doctest_runs(
    pool: Threads,
    tree: &SourceTree,
    found: &discover::Found,
    options: &Options,
    config: &Config,
    runs: &mut Vec<Vec<ScanTest>>,
    problems: &mut Vec<Problem>,
) -> Result<BTreeSet<String>, Error> {
    let root = &tree.root;
    let mut ids = BTreeSet::new();
    let doctests = doctest::Ctx::new(config, tree.codeowners.as_ref(), options.changed.as_ref())?;
    for abs in &found.doctest_files {
        if let Some(test) = doctest::text_file(&doctests, abs, &rel_path(abs, root), problems) {
            ids.insert(test.id.clone());
            runs.push(vec![test]);
        }
    }
    let module_doctests: Vec<(Vec<ScanTest>, Vec<Problem>)> = pool.install(|| {
        found
            .doctest_modules
            .par_iter()
            .map(|abs| {
                let mut found_problems = Vec::new();
                let reported = tree.by_path.contains_key(abs);
                let tests = doctest::module(
                    &doctests,
                    abs,
                    &rel_path(abs, root),
                    reported,
                    &mut found_problems,
                );
                (tests, found_problems)
            })
            .collect()
    });
    for (tests, found_problems) in module_doctests {
        ids.extend(tests.iter().map(|t| t.id.clone()));
        if !tests.is_empty() {
            runs.push(tests);
        }
        problems.extend(found_problems);
    }
    Ok(ids)
}

/// Leaves out of `found` what the conftests' `collect_ignore` / `collect_ignore_glob` ignore
///, and returns the problems of lists that cannot be read. Only conftests that
/// mention the lists are parsed here (again in the main pass: they are few and small).
fn apply_collect_ignore(
    found: &mut discover::Found,
    root: &Path,
    args: &[PathBuf],
    names: &names::Names,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    let parsed: Vec<(PathBuf, String, lane_python::Module)> = found
        .conftests
        .iter()
        .filter(|abs| {
            std::fs::read(abs).is_ok_and(|b| memchr::memmem::find(&b, b"collect_ignore").is_some())
        })
        .filter_map(|abs| {
            let rel = rel_path(abs, root);
            // A conftest that does not parse is reported by the main pass.
            let module = parse_file(abs, &rel).ok()?;
            Some((abs.clone(), rel, module))
        })
        .collect();
    if parsed.is_empty() {
        return problems;
    }
    let mut unsure = Vec::new();
    let ignores = collect_ignore::CollectIgnore::read(
        parsed.iter().map(|(a, r, m)| (a.as_path(), r.as_str(), m)),
        names,
        &mut unsure,
    );
    for u in &unsure {
        rules::judge(&rules::ScanFacts::CollectIgnore(u), &mut problems);
    }
    if !ignores.is_empty() {
        found.test_files.retain(|f| !ignores.ignored(f, root, args));
        found
            .doctest_files
            .retain(|f| !ignores.ignored(f, root, args));
        found
            .doctest_modules
            .retain(|f| !ignores.ignored(f, root, args));
        found
            .conftests
            .retain(|f| f.parent().is_none_or(|d| !ignores.ignored(d, root, args)));
    }
    problems
}

/// The modules read for a scan: the test files and conftests, then the tree modules they
/// import, round by round.
struct Parsed {
    /// Root-relative test files, sorted.
    files: Vec<String>,
    /// Sorted by path (the order [`ModuleId`]s count in).
    modules: Vec<ModuleFile>,
    /// Files that cannot be read or parsed.
    problems: Vec<Problem>,
}

/// Parses the found files and, for up to [`IMPORT_ROUNDS`] rounds, the tree modules the parsed
/// ones import. Long for a reason: one round is parse on every core, then a sequential pass
/// over the results that must see the whole round (what is already loaded).
fn parse_tree(
    pool: Threads,
    found: &discover::Found,
    cli_plugins: &[PathBuf],
    test_files: &HashSet<&PathBuf>,
    root: &Path,
    imports: &marks::ImportCache,
) -> Parsed {
    let mut problems = Vec::new();
    let mut files = Vec::new();
    let mut modules: Vec<ModuleFile> = Vec::new();
    let mut wanted: Vec<PathBuf> = found
        .test_files
        .iter()
        .chain(found.conftests.iter())
        .chain(cli_plugins.iter())
        .cloned()
        .collect();
    // Made at the size of the first round (most of the files): a set grown by doubling hashes
    // every path again at each growth.
    let mut seen: HashSet<PathBuf> = HashSet::with_capacity(wanted.len());
    for round in 0..=IMPORT_ROUNDS {
        wanted.retain(|p| seen.insert(p.clone()));
        if wanted.is_empty() {
            break;
        }
        // Parsing and looking for the files each import may load both happen on every core;
        // only the bookkeeping of what was already seen is sequential.
        let parsed: Vec<ParsedFile> = pool.install(|| {
            wanted
                .par_iter()
                .map(|abs| {
                    let rel = rel_path(abs, root);
                    let result = parse_file(abs, &rel);
                    let imported = match &result {
                        Ok(module) => imported_files(abs, module, root, imports),
                        Err(_) => Vec::new(),
                    };
                    ParsedFile {
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
            let ParsedFile {
                abs,
                rel,
                result,
                imported,
            } = parsed;
            let is_test_file =
                test_files.contains(&abs) || (round == 0 && !cli_plugins.contains(&abs));
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
                Err(unreadable) => {
                    rules::judge(&rules::ScanFacts::Unreadable(&unreadable), &mut problems)
                }
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
    Parsed {
        files,
        modules,
        problems,
    }
}

/// What every module's check shares.
struct ModuleCtx<'a> {
    tree: &'a SourceTree<'a>,
    config: &'a Config,
    installed: &'a installed::Installed,
    fixtures: &'a fixtures::Fixtures<'a>,
    /// Per module (by [`ModuleId`]): whether it is one of the test files (see [`test_flags`]).
    is_test: &'a [bool],
    plugins: &'a HashSet<ModuleId>,
    profile: Option<&'a rules::weakened_search::Profile>,
    target: &'a (dyn Fn() -> Option<python::Target> + Sync),
    names: &'a names::Names<'a>,
    asyncio_auto: bool,
    snapshot_folders: &'a snapshots::Folders,
}

/// Per module, whether it is one of `test_files`: one merge walk of the two lists, both sorted
/// by path (the modules by [`parse_tree`], the test files by discovery), instead of hashing
/// every path (a path hashes component by component) once per phase that asks.
fn test_flags(modules: &[ModuleFile], test_files: &[PathBuf]) -> Vec<bool> {
    let mut files = test_files.iter().peekable();
    modules
        .iter()
        .map(|m| {
            while files.next_if(|f| **f < m.abs).is_some() {}
            files.peek().is_some_and(|f| **f == m.abs)
        })
        .collect()
}

/// The tree modules `-p NAME` in addopts names (`-p no:NAME` disables, and is not one),
/// looked up as pytest imports them: from the rootdir.
fn addopts_plugins(config: &Config, imports: &marks::ImportCache) -> Vec<PathBuf> {
    let mut names = Vec::new();
    let mut it = config.addopts.iter();
    while let Some(opt) = it.next() {
        let name = if opt == "-p" {
            it.next().cloned()
        } else {
            opt.strip_prefix("-p").map(str::to_string)
        };
        if let Some(name) = name.filter(|n| !n.is_empty() && !n.starts_with("no:")) {
            names.push(name);
        }
    }
    let anchor = config.rootdir.join("conftest.py");
    let mut out: Vec<PathBuf> = names
        .iter()
        .filter_map(|n| {
            imports
                .existing(&anchor, n, 0, &config.rootdir)
                .into_iter()
                .next()
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The tree modules pytest loads as plugins: `-p` ones, and those the conftest files (and
/// those plugins, in turn) name in `pytest_plugins`.
fn plugin_modules(tree: &SourceTree, cli_plugins: &[PathBuf]) -> HashSet<ModuleId> {
    let mut out: HashSet<ModuleId> = cli_plugins
        .iter()
        .filter_map(|p| tree.by_path.get(p).copied())
        .collect();
    let mut todo: Vec<ModuleId> = tree
        .modules
        .iter()
        .enumerate()
        .filter(|(_, m)| m.abs.file_name().is_some_and(|n| n == "conftest.py"))
        .map(|(i, _)| ModuleId(i))
        .chain(out.iter().copied())
        .collect();
    while let Some(m) = todo.pop() {
        let module = &tree.modules[m];
        let Some(Some(names)) = module.module.pytest_plugins.as_ref().map(|p| &p.value) else {
            continue;
        };
        for name in names {
            if let Some(p) = tree.find_module(&module.abs, name, 0)
                && out.insert(p)
            {
                todo.push(p);
            }
        }
    }
    out
}

/// One module's tests (sorted by id, checked), its problems, why its unmarked tests cannot
/// vote, by test id (tests nothing keeps from voting absent), and the snapshot files its tests
/// name (in any lane).
type ModuleTests = (
    Vec<ScanTest>,
    Vec<Problem>,
    Vec<(String, rules::NoVote)>,
    Vec<String>,
);

/// The tests of module `i`, sorted by id and checked, and the problems found in it.
fn module_tests(ctx: &ModuleCtx, i: ModuleId, module: &ModuleFile) -> ModuleTests {
    let (tree, config) = (ctx.tree, ctx.config);
    let mut found = Vec::new();
    let mut found_problems = Vec::new();
    let mut unsure = Vec::new();
    let is_test_file = ctx.is_test[i.0];
    if is_test_file {
        collect::collect_module(
            tree,
            config,
            &collect::Lookups {
                installed: ctx.installed,
                fixtures: ctx.fixtures,
                target: ctx.target,
                names: ctx.names,
                asyncio_auto: ctx.asyncio_auto,
            },
            i,
            &mut found,
            &mut unsure,
        );
    }
    let facts = rules::ModuleFacts {
        module,
        config,
        is_test_file,
        loads_hooks: module.abs.file_name().is_some_and(|n| n == "conftest.py")
            || ctx.plugins.contains(&i),
        target: ctx.target,
        unsure: &unsure,
    };
    rules::judge(&rules::ScanFacts::Module(&facts), &mut found_problems);
    // Found last definition first, the tests are mostly in descending id order already.
    found.sort_by(|a: &TestFound, b| b.id.cmp(&a.id));
    // Two definitions of one test id: the last one written (found first) wins at import time.
    found.dedup_by(|later, earlier| later.id == earlier.id);
    found.reverse();
    let snapshots = snapshots::for_module(
        &tree.root,
        module,
        &found,
        snapshots::regression_class_names(&config.addopts),
    );
    let mut no_vote = Vec::new();
    // The files the tests' snapshots name, and a test module's snapshot and data files (read
    // here, while the module's summary is still in the cache).
    let mut attached: Vec<String> = snapshots
        .values()
        .flat_map(|s| s.files.iter().cloned())
        .collect();
    if is_test_file {
        attached.extend(snapshots::module_files_in(
            &tree.root,
            &module.rel,
            &module.module,
            ctx.snapshot_folders,
        ));
    }
    let tests = found
        .into_iter()
        .map(|t| {
            let snaps = snapshots.get(&t.id);
            let (test, why) = rules::check_test(tree, t, ctx.profile, snaps, &mut found_problems);
            if let Some(why) = why {
                no_vote.push((test.id.clone(), why));
            }
            test
        })
        .collect();
    (tests, found_problems, no_vote, attached)
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
    /// Why an unmarked test cannot vote, as the scan's lane rules judge it, by test id (tests
    /// with a lane, and those nothing keeps from voting, absent). Not part of the scan
    /// document: `--fix` decides by it.
    pub(crate) no_vote: BTreeMap<String, rules::NoVote>,
    /// The ids of the doctest items among the tests: their lane is the configuration's
    /// (`lanes_doctest_lane`), never a mark `--fix` could place.
    pub(crate) doctests: BTreeSet<String>,
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

/// Refuses arguments and `testpaths` entries that lie outside the rootdir (exit 2): test ids
/// are rootdir-relative, and a path outside has none (it would be passed off as one).
fn refuse_outside_root(options: &Options, config: &Config, cwd: &Path) -> Result<(), Error> {
    let root = &config.rootdir;
    let inside = |p: &Path| config::normalize(p).starts_with(root);
    let mut outside: Vec<String> = Vec::new();
    if options.paths.is_empty() {
        if config::normalize(cwd) == *root {
            for entry in &config.testpaths {
                if expand_testpath(root, entry).iter().any(|p| !inside(p)) {
                    outside.push(format!("testpaths entry {entry:?}"));
                }
            }
        }
    } else {
        for p in &options.paths {
            if !inside(&cwd.join(p)) {
                outside.push(format!("argument {}", p.display()));
            }
        }
    }
    if outside.is_empty() {
        return Ok(());
    }
    Err(Error::usage(format!(
        "{}: outside the rootdir; test ids are rootdir-relative, so only paths inside it are \
         scanned (give --rootdir a folder that holds them)",
        outside.join(", ")
    )))
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
                        (!n.starts_with('.') || part.starts_with('.')) && fnmatch::fnmatch(part, n)
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
struct ParsedFile {
    abs: PathBuf,
    rel: String,
    result: Result<lane_python::Module, rules::Unreadable>,
    imported: Vec<Vec<PathBuf>>,
}

/// For each module a file's imports load, the candidate files that exist, nearest first.
fn imported_files(
    abs: &Path,
    module: &lane_python::Module,
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
    // `pytest_plugins = [...]`: modules pytest imports as plugins.
    if let Some(Some(names)) = module.pytest_plugins.as_ref().map(|p| &p.value) {
        for name in names {
            existing(name, 0);
        }
    }
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

/// The source bytes being parsed at once, across all parser threads, at most
/// [`SOURCE_MAX_BYTES`]: the parser's memory grows with its input (up to ~170 bytes per byte
/// of source that does not parse), so this bounds the peak whatever the number of cores.
struct ParseBudget {
    in_flight: std::sync::Mutex<InFlight>,
    freed: std::sync::Condvar,
}

/// The bytes being parsed, and how many parses wait for some to be freed (only then is a
/// release worth a wake-up call).
struct InFlight {
    used: u64,
    waiting: u32,
}

static PARSE_BUDGET: ParseBudget = ParseBudget {
    in_flight: std::sync::Mutex::new(InFlight {
        used: 0,
        waiting: 0,
    }),
    freed: std::sync::Condvar::new(),
};

/// A share of [`PARSE_BUDGET`], returned when dropped.
struct BudgetShare(u64);

impl ParseBudget {
    /// Waits until `bytes` (at most the whole budget) fit beside the parses under way.
    fn take(&'static self, bytes: u64) -> BudgetShare {
        let bytes = bytes.min(SOURCE_MAX_BYTES);
        let mut state = self
            .in_flight
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        while state.used > 0 && state.used + bytes > SOURCE_MAX_BYTES {
            state.waiting += 1;
            state = self
                .freed
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            state.waiting -= 1;
        }
        state.used += bytes;
        BudgetShare(bytes)
    }
}

impl Drop for BudgetShare {
    fn drop(&mut self) {
        let mut state = PARSE_BUDGET
            .in_flight
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        state.used -= self.0;
        // Waiters count themselves under the lock before they sleep, so none is missed.
        if state.waiting > 0 {
            PARSE_BUDGET.freed.notify_all();
        }
    }
}

fn parse_file(abs: &Path, rel: &str) -> Result<lane_python::Module, rules::Unreadable> {
    let unreadable = |why| rules::Unreadable {
        file: rel.to_string(),
        why,
    };
    let too_large = |size: Option<u64>| unreadable(rules::Why::TooLarge(size));
    let cannot_read = |why: String| unreadable(rules::Why::CannotRead(why));
    // One open and one `fstat` per file (the size decides the parse budget and the limit):
    // 5,000 test modules cost no path lookup more than they need. Every path parsed was seen
    // to be a regular file (discovery's listing, or a `stat` of a conftest or an import).
    let (file, size) = match lane_core::io::open_seen_regular(abs) {
        Ok(opened) => opened,
        Err(e) => {
            // A file over the limit is refused as such, readable or not.
            if let Ok(meta) = std::fs::metadata(abs)
                && meta.len() > SOURCE_MAX_BYTES
            {
                return Err(too_large(Some(meta.len())));
            }
            return Err(cannot_read(e.to_string()));
        }
    };
    if size > SOURCE_MAX_BYTES {
        return Err(too_large(Some(size)));
    }
    // Held until the parse is done (the end of this function).
    let _share = PARSE_BUDGET.take(size);
    // The source is read into this thread's buffer, kept from file to file (taken out while in
    // use): no allocation per file, and none of it zeroed again.
    let mut buffer = SOURCE_BUFFER.take();
    let summary = lane_core::io::read_opened_into(file, size, SOURCE_MAX_BYTES, &mut buffer)
        .map_err(|e| cannot_read(e.to_string()))
        .and_then(|read| read.ok_or_else(|| too_large(None)))
        .and_then(|len| summarize_source(&buffer[..len], rel));
    SOURCE_BUFFER.set(buffer);
    summary
}

thread_local! {
    /// Each parser thread's buffer for the file it reads (see [`parse_file`]); it keeps the
    /// size of the largest file the thread read, at most [`SOURCE_MAX_BYTES`].
    static SOURCE_BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The summary of a Python file's bytes, or why it has none (not UTF-8, a syntax error).
fn summarize_source(bytes: &[u8], rel: &str) -> Result<lane_python::Module, rules::Unreadable> {
    let unreadable = |why| rules::Unreadable {
        file: rel.to_string(),
        why,
    };
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let offset = e.valid_up_to();
        let before = &bytes[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        unreadable(rules::Why::NotUtf8 { line, offset })
    })?;
    lane_python::summarize(text).map_err(|e| unreadable(rules::Why::Syntax(e)))
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

/// This tool's detectors, as the rule registry lists them (lane-gate's `rule_registry` test).
pub fn registry() -> Vec<lane_core::detector::Registered> {
    rules::registry()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(ids: &[&str]) -> Vec<ScanTest> {
        ids.iter()
            .map(|id| ScanTest {
                attachments: Default::default(),
                defined_in: None,
                empty_params: None,
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
    fn test_flags_mark_exactly_the_test_files() {
        let module = |abs: &str| ModuleFile {
            abs: PathBuf::from(abs),
            rel: abs.trim_start_matches('/').to_string(),
            module: Default::default(),
        };
        // Sorted by path as parse_tree sorts them (component-wise: `a/b.py` before `a0.py`);
        // the test files leave out the helpers and name one file that was not parsed.
        let modules = [
            module("/r/a/b.py"),
            module("/r/a/conftest.py"),
            module("/r/a0.py"),
            module("/r/helper.py"),
            module("/r/z.py"),
        ];
        let test_files: Vec<PathBuf> = ["/r/a/b.py", "/r/a0.py", "/r/missing.py", "/r/z.py"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(
            test_flags(&modules, &test_files),
            [true, false, true, false, true]
        );
        assert_eq!(test_flags(&modules, &[]), [false; 5]);
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
