//! A module's summary: one source file turned into a plain [`Module`] of imports, module-level
//! assignments, classes, functions, decorators as small expression trees ([`Ex`]), docstrings,
//! `if` conditions and what the assertions in a test body can do. Nothing here knows about
//! lanes.

use std::collections::{HashMap, HashSet};

use compact_str::CompactString;
use ruff_python_ast::comparable::ComparableExpr;
use ruff_python_ast::visitor::Visitor;
use ruff_python_ast::{self as ast, CmpOp, Expr, Number, Stmt};
use ruff_text_size::{Ranged, TextSize};

use crate::cond::Cond;
use crate::parse::{Lines, SyntaxError, parse};

mod asserts;
mod bindings;
mod dynamic;
mod function;
mod ignore;
mod module;

use self::asserts::*;
use self::bindings::*;
use self::dynamic::*;
use self::module::*;

/// Expressions deeper than this are summarized as [`Ex::Other`]: marks are shallow, and the
/// walk must never overflow the stack on hostile input.
pub(crate) const MAX_DEPTH: usize = 64;

/// A small, owned expression tree: just enough to resolve marks. Its text is
/// [`CompactString`]: names and short strings (up to 24 bytes, nearly all of them) are kept
/// inline rather than each in an allocation of its own.
#[derive(Debug, Clone, PartialEq)]
pub enum Ex {
    Name(CompactString),
    /// A name and the attributes read from it, as written (`pytest.mark.parametrize`): one
    /// string rather than a chain of boxed [`Ex::Attr`] nodes over an [`Ex::Name`], which it
    /// stands for (most of the nodes of the decorators are such names).
    Dotted(CompactString),
    /// An attribute of anything but a name or dotted name (`make().x`).
    Attr(Box<Ex>, CompactString),
    Call(Box<Call>),
    List(Vec<Ex>),
    Tuple(Vec<Ex>),
    /// `left + right` (list concatenation when both sides are lists).
    Add(Box<Ex>, Box<Ex>),
    Str(CompactString),
    /// A literal constant and its truth value (True, 0, None, 1.5 ...).
    Const(bool),
    Other,
}

/// A call as written. Its lists are boxed slices (no spare capacity, one word less each) and
/// its keyword values' text is kept as ranges of `args_src`: a module's summary holds one of
/// these for every call in every decorator, so their size is much of the summary's.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub func: Ex,
    pub args: Box<[Ex]>,
    pub kwargs: Box<[(CompactString, Ex)]>,
    /// Where each keyword argument's value is written in `args_src` (byte range), in the order
    /// of `kwargs`.
    kwargs_at: Box<[(u32, u32)]>,
    /// Source text between the call's parentheses.
    pub args_src: CompactString,
    /// `*args` / `**kwargs` in the call: the arguments are not all visible.
    pub starred: bool,
}

impl Call {
    /// Source text of each keyword argument's value, in the order of `kwargs`.
    pub fn kwargs_src(&self) -> impl Iterator<Item = &str> {
        self.kwargs_at.iter().map(|&(start, end)| {
            self.args_src
                .get(start as usize..end as usize)
                .unwrap_or("")
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Located<T> {
    pub value: T,
    pub line: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    /// The module as written (`pytest`, `tests.lanes`, `lanes` for `from . import lanes`).
    pub module: CompactString,
    /// For `from M import X`: `X`; for `import M`: None.
    pub name: Option<CompactString>,
    /// The local name bound.
    pub binds: CompactString,
    /// Leading dots of a relative import.
    pub level: u32,
    /// For `import a.b.c`: the whole dotted module (`a.b.c`), which Python loads too.
    pub dotted: Option<CompactString>,
    pub line: u64,
}

impl Import {
    /// For `from M import X`: `M.X` (just `X` for `from . import X`), which may name a
    /// submodule rather than a name defined in `M`.
    pub fn submodule(&self) -> Option<CompactString> {
        let item = self.name.as_ref()?;
        if self.module.is_empty() {
            return Some(item.clone());
        }
        let mut path = CompactString::with_capacity(self.module.len() + 1 + item.len());
        path.push_str(&self.module);
        path.push('.');
        path.push_str(item);
        Some(path)
    }
}

/// What the assertions of a body can do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Asserts {
    /// `assert` statements.
    pub asserts: u32,
    /// `assert` statements that cannot fail (`assert True`, `assert x == x`).
    pub tautologies: u32,
    /// Line of the first tautology.
    pub first_tautology: Option<u64>,
    /// Calls of `*.raises` / `*.warns` / `*.deprecated_call` / `self.assert*` / `*.fail`
    /// (`pytest.fail`, `self.fail`), and `raise AssertionError`.
    pub checks: u32,
    /// The tautologies that compare a name with itself where every binding of the name in the
    /// body is a call of one name or dotted name (`u = URL(...)`; `assert u == u`): each
    /// tests that callable's `__eq__` when it is a class defining one, which only a reader of
    /// the project can tell. In the order the body is read.
    pub self_compared: Vec<SelfCompared>,
    /// The assertions whose failure something may keep from failing the test, and what
    /// would: None for most bodies (no `assert` in a `try` or `with suppress(...)`, none whose
    /// test is an `or` with an operand that cannot be false).
    pub guarded: Option<Box<Guarded>>,
}

/// One tautology of [`Asserts::self_compared`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelfCompared {
    pub line: u64,
    /// The name or dotted name called to build the value, as written (`URL`, `yarl.URL`).
    pub built_by: CompactString,
}

/// The assertions of a body that sit in a `try` or a `with suppress(...)`, or whose test is an
/// `or` with an operand that cannot be false, and the statements around them that catch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Guarded {
    /// In the order the body is read.
    pub asserts: Vec<GuardedAssert>,
    /// Innermost first where they nest.
    pub catchers: Vec<Catcher>,
}

/// One `assert` of [`Guarded`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuardedAssert {
    /// Its place among the body's `assert` statements, from 0, in the order they are read.
    pub place: u32,
    pub line: u64,
    /// Its test is an `or` with an operand that cannot be false (`assert f() or True`).
    pub or_always_true: bool,
}

/// A `try` or `with suppress(...)` with `assert` statements in its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catcher {
    /// The places ([`GuardedAssert::place`]) of the assertions in its body.
    pub asserts: std::ops::Range<u32>,
    pub by: CatchBy,
}

/// What catches an exception raised in a [`Catcher`]'s body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatchBy {
    /// A `try`'s `except` clauses, in order.
    Handlers(Vec<Handler>),
    /// `with suppress(...)` (`contextlib.suppress`, by the name called): the exception types
    /// its arguments name.
    Suppress(Vec<CompactString>),
}

/// One `except` clause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handler {
    /// The exception types it names, by their last name (`AssertionError`,
    /// `builtins.Exception` as `Exception`, each of a tuple); None for a bare `except:`.
    pub types: Option<Vec<CompactString>>,
    pub body: HandlerBody,
}

/// What the statements of an `except` clause do, in the blocks nested in them too (`if`,
/// `with`, loops, `try`; not the bodies of definitions).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HandlerBody {
    /// A `raise` statement.
    pub raises: bool,
    /// An `assert` statement.
    pub asserts: bool,
    /// An assignment (`=`, an augmented or annotated one).
    pub assigns: bool,
    /// Calls that are statements, in order.
    pub calls: Vec<Called>,
    /// Blocks nested too deep to be read.
    pub too_deep: bool,
}

/// A call that is a statement, by the name called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Called {
    /// `name(...)`.
    Function(CompactString),
    /// `anything.name(...)`.
    Method(CompactString),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub name: CompactString,
    /// Line of the `def`.
    pub line: u64,
    pub decorators: Vec<Located<Ex>>,
    pub docstring: Option<CompactString>,
    pub is_async: bool,
    /// An `async def` whose own body yields: an asynchronous generator (pytest-asyncio marks
    /// such a test xfail and never runs it).
    pub async_generator: bool,
    pub asserts: Asserts,
    /// Calls that are statements at the top level of the body (e.g. `pytest.skip(...)`).
    pub body_calls: Vec<Located<Ex>>,
    /// Calls named `assume` anywhere in the body (`assume(x)`, `hypothesis.assume(x)`), as
    /// statements.
    pub assumes: Vec<Located<Ex>>,
    /// The body reads an attribute or name `mark` (`pytest.mark.X`): used as a decorator,
    /// the function may apply marks only known at run time.
    pub mentions_mark: bool,
    /// The names of its parameters, in order (those pytest fills with fixtures among them).
    pub params: Vec<CompactString>,
    /// `NAME.snapshot_dir = VALUE` statements at the top level of the body (pytest-snapshot's
    /// folder override): NAME, and VALUE when it is a string literal.
    pub snapshot_dirs: Vec<Located<(CompactString, Option<CompactString>)>>,
    /// A method defined under `if` in a class body, or a function under `if` at module level:
    /// each condition must have the given truth value for the definition to run (empty:
    /// unconditional).
    pub guards: Vec<(Cond, bool)>,
    /// Every `return` of the body returns `F(PARAM)`: the call's function and which positional
    /// parameter it passes (a helper such as `def import_or_skip(name): return
    /// importlib.import_module(name)`).
    pub returns_call_of_param: Option<(Ex, usize)>,
    /// `NAME.check(...)` calls anywhere in the body (pytest-regressions' `*_regression`
    /// fixtures), with the file-naming arguments they pass.
    pub regression_checks: Vec<Located<RegressionCheck>>,
    /// For a body with no assertion and no check (see [`Asserts`]): the names and dotted names
    /// it calls anywhere ([`Ex::Name`] / [`Ex::Dotted`], each once, in the order first called),
    /// so that a helper that asserts for it can be found; empty otherwise.
    pub calls: Vec<Ex>,
}

/// A file-naming argument of a pytest-regressions `check` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileArg {
    /// A string literal.
    Literal(CompactString),
    /// Anything else (a name, an f-string, `*args` / `**kwargs` that may carry it): the file
    /// cannot be known statically.
    Computed,
}

/// `NAME.check(..., basename=..., fullpath=...)`: NAME, and the arguments when given (a
/// literal `None` counts as not given).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegressionCheck {
    pub fixture: CompactString,
    pub basename: Option<FileArg>,
    pub fullpath: Option<FileArg>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Class {
    pub name: CompactString,
    pub line: u64,
    /// The class's docstring (an `owner:` line there covers its tests).
    pub docstring: Option<CompactString>,
    pub bases: Vec<Ex>,
    /// `metaclass=...` in the class statement.
    pub metaclass: Option<Ex>,
    pub decorators: Vec<Located<Ex>>,
    /// The last `pytestmark = ...` in the class body, whatever `if` it is under.
    pub pytestmark: Option<Located<Ex>>,
    /// Every `pytestmark = ...` of the class body in order, with the `if` conditions it runs
    /// under (empty: unconditional).
    pub pytestmark_bindings: Vec<(Located<Ex>, Guards)>,
    /// `__test__ = <const>` in the class body.
    pub dunder_test: Option<bool>,
    /// The class defines `__init__` or `__new__` (pytest does not collect it).
    pub has_init: bool,
    /// Its methods in order; an unconditional definition replaces earlier ones of its name,
    /// one under `if` (see [`Function::guards`]) is kept beside them.
    pub methods: Vec<Function>,
    pub classes: Vec<Class>,
    /// Every binding of a name the class body binds more than once (see [`Binding`]).
    pub rebound: Vec<Binding>,
    /// A class defined under `if` at module level: each condition must have the given truth
    /// value for the definition to run (empty: unconditional).
    pub guards: Vec<(Cond, bool)>,
}

/// The `if` conditions a statement runs under: each must have the given truth value.
pub type Guards = Vec<(Cond, bool)>;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Module {
    /// The module's docstring (an `owner:` line there covers its tests).
    pub docstring: Option<CompactString>,
    pub imports: Vec<Import>,
    /// Module-level `NAME = expr` (last one wins, as at run time).
    pub assigns: Vec<(CompactString, Located<Ex>)>,
    /// The last `pytestmark = ...` at module level, whatever `if` it is under.
    pub pytestmark: Option<Located<Ex>>,
    /// Every module-level `pytestmark = ...` in order, with the `if` conditions it runs under
    /// (each must have the given truth value; empty: unconditional).
    pub pytestmark_bindings: Vec<(Located<Ex>, Guards)>,
    pub dunder_test: Option<bool>,
    pub classes: Vec<Class>,
    pub functions: Vec<Function>,
    /// Calls that are statements at module level.
    pub calls: Vec<Located<Ex>>,
    /// `name.__test__ = <const>` at module level.
    pub function_dunder_test: Vec<(CompactString, bool)>,
    /// The encoding a PEP 263 coding cookie declares (as written), and its line.
    pub coding: Option<Located<CompactString>>,
    /// Every binding of a name the module body binds more than once (see [`Binding`]).
    pub rebound: Vec<Binding>,
    /// Statements that may bind test classes or functions only at run time.
    pub runtime_defs: Vec<Located<RuntimeDef>>,
    /// `setattr(NAME, ...)` at module level (outside any `def`), by NAME: may add tests to a
    /// class of that name.
    pub setattr_on: Vec<Located<CompactString>>,
    /// `pytest_plugins = [...]` / `"name"`: the plugin modules named, when literal; None when
    /// the module assigns it something else (computed).
    pub pytest_plugins: Option<Located<Option<Vec<CompactString>>>>,
    /// What the module does to `collect_ignore` / `collect_ignore_glob`, in order (conftest
    /// files).
    pub collect_ignore: Vec<IgnoreOp>,
    /// Module-level assignments to a name and `def`s (the last binding of each name), for a
    /// property's domain.
    pub definitions: Vec<Definition>,
    /// Module-level bindings of names other than by `def` and `class`, in source order, for
    /// following a name a condition reads.
    pub names: Vec<NameBinding>,
    /// Where each name is last bound, for a module of many bindings (see
    /// [`Module::class_named`]); None for a usual module, whose lists are searched.
    by_name: Option<HashMap<CompactString, LastBound>>,
    /// The strings of a long literal `__all__` (see [`Module::dunder_all_lists`]).
    dunder_all: Option<HashSet<CompactString>>,
}

/// The last class, function, assignment and import of one name in a module's lists.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct LastBound {
    class: Option<u32>,
    function: Option<u32>,
    assign: Option<u32>,
    import: Option<u32>,
}

impl Module {
    /// Past this many classes, functions, assignments and imports, a module's names are
    /// looked up in a map built once, not searched per lookup (a module of thousands of
    /// classes that name each other as bases stays linear).
    const SEARCH_MAX: usize = 64;

    /// Builds the name map, and the set of a long literal `__all__`, where the module is large
    /// enough to need them. Called once the lists are final (at the end of [`summarize`]).
    fn index_names(&mut self) {
        if let Some(Ex::List(items) | Ex::Tuple(items)) =
            self.assign_named("__all__").map(|v| &v.value)
            && items.len() > Self::SEARCH_MAX
        {
            let strings = items
                .iter()
                .filter_map(|e| match e {
                    Ex::Str(s) => Some(s.clone()),
                    _ => None,
                })
                .collect();
            self.dunder_all = Some(strings);
        }
        let count =
            self.classes.len() + self.functions.len() + self.assigns.len() + self.imports.len();
        if count <= Self::SEARCH_MAX {
            return;
        }
        let mut map: HashMap<CompactString, LastBound> = HashMap::with_capacity(count);
        let at = |i: usize| u32::try_from(i).ok();
        for (i, c) in self.classes.iter().enumerate() {
            map.entry(c.name.clone()).or_default().class = at(i);
        }
        for (i, f) in self.functions.iter().enumerate() {
            map.entry(f.name.clone()).or_default().function = at(i);
        }
        for (i, (n, _)) in self.assigns.iter().enumerate() {
            map.entry(n.clone()).or_default().assign = at(i);
        }
        for (i, imp) in self.imports.iter().enumerate() {
            map.entry(imp.binds.clone()).or_default().import = at(i);
        }
        self.by_name = Some(map);
    }

    /// Whether the literal list or tuple `__all__` is last bound to holds the string `name`;
    /// None when `__all__` is not bound to a literal list or tuple. A long one is looked up in
    /// a set built once (`from m import *` reads it for every name the importer looks up).
    pub fn dunder_all_lists(&self, name: &str) -> Option<bool> {
        match &self.assign_named("__all__")?.value {
            Ex::List(items) | Ex::Tuple(items) => Some(match &self.dunder_all {
                Some(set) => set.contains(name),
                None => items.iter().any(|e| matches!(e, Ex::Str(s) if s == name)),
            }),
            _ => None,
        }
    }

    fn last_bound(&self, name: &str) -> Option<LastBound> {
        self.by_name
            .as_ref()
            .map(|map| map.get(name).copied().unwrap_or_default())
    }

    /// The last class statement at module level that binds `name`.
    pub fn class_named(&self, name: &str) -> Option<&Class> {
        match self.last_bound(name) {
            Some(at) => at.class.map(|i| &self.classes[i as usize]),
            None => self.classes.iter().rev().find(|c| c.name == name),
        }
    }

    /// The last `def` at module level that binds `name`.
    pub fn function_named(&self, name: &str) -> Option<&Function> {
        match self.last_bound(name) {
            Some(at) => at.function.map(|i| &self.functions[i as usize]),
            None => self.functions.iter().rev().find(|f| f.name == name),
        }
    }

    /// The value of the last module-level `name = ...`.
    pub fn assign_named(&self, name: &str) -> Option<&Located<Ex>> {
        match self.last_bound(name) {
            Some(at) => at.assign.map(|i| &self.assigns[i as usize].1),
            None => self
                .assigns
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v),
        }
    }

    /// The last import that binds `name`, with its place in [`Module::imports`].
    pub fn import_named(&self, name: &str) -> Option<(usize, &Import)> {
        match self.last_bound(name) {
            Some(at) => at.import.map(|i| (i as usize, &self.imports[i as usize])),
            None => self
                .imports
                .iter()
                .enumerate()
                .rev()
                .find(|(_, i)| i.binds == name),
        }
    }
}

/// One module-level binding of a name (assignment, import, loop or `with` target ...), under
/// the `if` conditions around it.
#[derive(Debug, Clone, PartialEq)]
pub struct NameBinding {
    pub name: CompactString,
    pub line: u64,
    pub guards: Vec<(Cond, bool)>,
    /// Inside a `try` (body, handler, `else`) or a loop: it may or may not run.
    pub maybe: bool,
    pub value: Bound,
}

/// What a [`NameBinding`] binds its name to, as far as a condition needs it.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    /// A value whose truth is this condition (`PY3 = sys.version_info[0] == 3`, `X = True`,
    /// `Y = X`).
    Cond(Cond),
    /// An import of the module's [`Module::imports`] on the same line binding the name.
    Import,
    /// Anything else: its truth is unknown.
    Other,
}

/// The two conftest lists pytest's `pytest_ignore_collect` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IgnoreList {
    /// `collect_ignore`: paths relative to the conftest's folder.
    Paths,
    /// `collect_ignore_glob`: fnmatch patterns relative to the conftest's folder.
    Globs,
}

impl IgnoreList {
    pub fn name(self) -> &'static str {
        match self {
            IgnoreList::Paths => "collect_ignore",
            IgnoreList::Globs => "collect_ignore_glob",
        }
    }

    fn from_name(name: &str) -> Option<IgnoreList> {
        match name {
            "collect_ignore" => Some(IgnoreList::Paths),
            "collect_ignore_glob" => Some(IgnoreList::Globs),
            _ => None,
        }
    }
}

/// One statement of a module about an ignore list, under the `if` conditions around it.
#[derive(Debug, Clone, PartialEq)]
pub struct IgnoreOp {
    pub list: IgnoreList,
    pub line: u64,
    pub guards: Vec<(Cond, bool)>,
    pub kind: IgnoreKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum IgnoreKind {
    /// `L = [...]`: the list becomes these entries.
    Set(Vec<IgnorePiece>),
    /// `L += [...]`, `L.append(x)`, `L.extend([...])`: these entries are added.
    Extend(Vec<IgnorePiece>),
    /// Anything else that touches the list (a computed value, a loop, a function), described.
    Computed(String),
}

/// An entry of a literal ignore list: a string, or the current entries of a list
/// (`collect_ignore_glob = collect_ignore + [...]`).
#[derive(Debug, Clone, PartialEq)]
pub enum IgnorePiece {
    Str(CompactString),
    List(IgnoreList),
}

/// A module-level name's definition, as a property's domain records it: a strategy
/// narrowed in `amounts = st.decimals(...)` changes the domain of `@given(amounts)`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Definition {
    pub name: CompactString,
    /// The assigned value's source text, or for a `def` (and a long value) its size and a
    /// fingerprint of its source: any change to it changes this text.
    pub text: CompactString,
    /// The names it reads (sorted, unique), for following definitions transitively.
    pub names: Vec<CompactString>,
}

/// A fixed 64-bit fingerprint of `text` (FNV-1a): the same on every run and platform.
pub(crate) fn fingerprint(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// One binding of a name in a module or class body (`def`, `class`, assignment, import, `for`
/// or `with` target), under the conditions of the `if` statements around it.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    pub name: CompactString,
    pub line: u64,
    /// Each condition must have the given truth value for the binding to run.
    pub guards: Vec<(Cond, bool)>,
}

/// A construct that binds names into a module's or class's namespace at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuntimeDef {
    /// `type(name, bases, namespace)`.
    TypeCall,
    /// `globals()[...] = ...`, `globals().update(...)` (and `vars()` / `locals()` where they
    /// are the module's or a class's namespace): the call named.
    NamespaceWrite(&'static str),
    /// `setattr(sys.modules[...], ...)`.
    ModuleSetattr,
    /// A class or function statement inside a loop at module level, named.
    InLoop(CompactString),
}

/// Parses `source` (BOM already stripped or not) into a [`Module`] summary.
pub fn summarize(source: &str) -> Result<Module, SyntaxError> {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    let lines = Lines::new(source);
    let parsed = parse(source, &lines)?;
    let summarizer = Summarizer {
        source,
        lines: &lines,
        tokens: parsed.tokens(),
    };
    let body = &parsed.syntax().body;
    let mut module = summarizer.module(body);
    module.coding = coding_cookie(source);
    module.rebound = summarizer.rebound(body);
    Ok(module)
}

/// Builds a module's summary from its syntax tree: the source and its line starts, for the
/// text and positions it copies.
struct Summarizer<'a> {
    source: &'a str,
    lines: &'a Lines,
    /// The parser's tokens of `source`.
    tokens: &'a [ast::token::Token],
}

impl Summarizer<'_> {
    fn line_of(&self, node: &impl Ranged) -> u64 {
        self.lines.line(node.start())
    }

    /// The source text of `node`.
    fn text(&self, node: &impl Ranged) -> &str {
        self.source
            .get(node.start().to_usize()..node.end().to_usize())
            .unwrap_or("")
    }

    fn decorators(&self, list: &[ast::Decorator]) -> Vec<Located<Ex>> {
        list.iter()
            .map(|d| Located {
                value: self.ex(&d.expression, 0),
                line: self.line_of(d),
            })
            .collect()
    }

    /// The source text of `a`, an attribute chain over a name at `depth`, when it is written
    /// as the plain dotted name [`Ex::Dotted`] holds (ASCII names and dots, nothing between):
    /// taken whole rather than joined part by part. None otherwise (spaces, parentheses,
    /// other names, a chain too deep for [`MAX_DEPTH`]).
    fn dotted_as_written(&self, a: &ast::ExprAttribute, depth: usize) -> Option<&str> {
        let mut inner = &*a.value;
        let mut level = depth + 1;
        let mut len = a.attr.len();
        while let Expr::Attribute(next) = inner {
            len += 1 + next.attr.len();
            inner = &next.value;
            level += 1;
        }
        let Expr::Name(name) = inner else {
            return None;
        };
        if level > MAX_DEPTH {
            return None;
        }
        len += 1 + name.id.len();
        // ASCII names are written as they are named; at this length nothing else (a space, a
        // parenthesis, a comment) is between them.
        let text = self
            .source
            .get(a.range().start().to_usize()..a.range().end().to_usize())?;
        (text.len() == len && text.is_ascii()).then_some(text)
    }

    fn ex(&self, expr: &Expr, depth: usize) -> Ex {
        if depth > MAX_DEPTH {
            return Ex::Other;
        }
        match expr {
            Expr::Name(n) => Ex::Name(CompactString::new(n.id.as_str())),
            Expr::Attribute(a) => {
                if let Some(dotted) = self.dotted_as_written(a, depth) {
                    return Ex::Dotted(CompactString::new(dotted));
                }
                let attr = a.attr.as_str();
                match self.ex(&a.value, depth + 1) {
                    Ex::Name(base) | Ex::Dotted(base) => {
                        let mut dotted = CompactString::with_capacity(base.len() + 1 + attr.len());
                        dotted.push_str(&base);
                        dotted.push('.');
                        dotted.push_str(attr);
                        Ex::Dotted(dotted)
                    }
                    base => Ex::Attr(Box::new(base), CompactString::new(attr)),
                }
            }
            Expr::Call(c) => {
                let args_range = c.arguments.range();
                let text = self
                    .source
                    .get(args_range.start().to_usize()..args_range.end().to_usize())
                    .unwrap_or("");
                let inner = text
                    .strip_prefix('(')
                    .and_then(|t| t.strip_suffix(')'))
                    .unwrap_or(text);
                let args_src = inner.trim();
                // Where `args_src` starts in the source: keyword values are ranges of it.
                let base = args_range.start().to_usize()
                    + (args_src.as_ptr() as usize - text.as_ptr() as usize);
                let mut starred = false;
                let args = c
                    .arguments
                    .args
                    .iter()
                    .map(|a| {
                        if matches!(a, Expr::Starred(_)) {
                            starred = true;
                        }
                        self.ex(a, depth + 1)
                    })
                    .collect();
                let mut kwargs = Vec::with_capacity(c.arguments.keywords.len());
                let mut kwargs_at = Vec::with_capacity(c.arguments.keywords.len());
                for k in &c.arguments.keywords {
                    match &k.arg {
                        Some(name) => {
                            kwargs.push((
                                CompactString::new(name.as_str()),
                                self.ex(&k.value, depth + 1),
                            ));
                            // A keyword's value lies between the parentheses, past any space.
                            let at = |offset: TextSize| {
                                u32::try_from(offset.to_usize().saturating_sub(base))
                                    .unwrap_or(u32::MAX)
                            };
                            kwargs_at.push((at(k.value.start()), at(k.value.end())));
                        }
                        None => starred = true,
                    }
                }
                Ex::Call(Box::new(Call {
                    func: self.ex(&c.func, depth + 1),
                    args,
                    kwargs: kwargs.into_boxed_slice(),
                    kwargs_at: kwargs_at.into_boxed_slice(),
                    args_src: CompactString::new(args_src),
                    starred,
                }))
            }
            Expr::List(l) => Ex::List(l.elts.iter().map(|e| self.ex(e, depth + 1)).collect()),
            Expr::Tuple(t) => Ex::Tuple(t.elts.iter().map(|e| self.ex(e, depth + 1)).collect()),
            Expr::StringLiteral(s) => Ex::Str(literal(&s.value)),
            Expr::BinOp(b) if b.op == ast::Operator::Add => Ex::Add(
                Box::new(self.ex(&b.left, depth + 1)),
                Box::new(self.ex(&b.right, depth + 1)),
            ),
            other => match const_truth(other) {
                Some(t) => Ex::Const(t),
                None => Ex::Other,
            },
        }
    }
}

/// An expression as a short text for messages: dotted names as written, a call as
/// `NAME(...)`, anything else as `an expression`.
pub fn dotted(ex: &Ex) -> String {
    match ex {
        Ex::Name(n) | Ex::Dotted(n) => n.to_string(),
        Ex::Attr(base, attr) => format!("{}.{attr}", dotted(base)),
        Ex::Call(call) => format!("a call of {}", dotted(&call.func)),
        Ex::Str(s) => format!("{s:?}"),
        _ => "an expression".to_string(),
    }
}

/// The fixture of a [`RegressionCheck`] recorded for code too deep to read: any.
pub const ANY_FIXTURE: &str = "*";

/// The truth value of a literal constant, if `expr` is one.
pub(crate) fn const_truth(expr: &Expr) -> Option<bool> {
    match expr {
        Expr::BooleanLiteral(b) => Some(b.value),
        Expr::NoneLiteral(_) => Some(false),
        Expr::NumberLiteral(n) => Some(match &n.value {
            Number::Int(i) => *i != ast::Int::ZERO,
            Number::Float(f) => *f != 0.0,
            Number::Complex { real, imag } => *real != 0.0 || *imag != 0.0,
        }),
        Expr::StringLiteral(s) => Some(!s.value.is_empty()),
        Expr::BytesLiteral(b) => Some(b.value.iter().any(|part| !part.as_slice().is_empty())),
        Expr::EllipsisLiteral(_) => Some(true),
        Expr::Tuple(t) if !t.elts.is_empty() => Some(true),
        _ => None,
    }
}

/// The value of a string literal, implicitly concatenated parts joined (straight into the
/// summary's string: `StringLiteralValue::to_str` would first cache the joined parts in the tree).
pub(crate) fn literal(value: &ast::StringLiteralValue) -> CompactString {
    match value.as_slice() {
        [single] => CompactString::new(&*single.value),
        parts => parts.iter().map(|part| &*part.value).collect(),
    }
}

fn docstring(body: &[Stmt]) -> Option<CompactString> {
    match body.first() {
        Some(Stmt::Expr(e)) => match &*e.value {
            Expr::StringLiteral(s) => Some(literal(&s.value)),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
