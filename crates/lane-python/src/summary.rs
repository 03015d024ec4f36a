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

/// Expressions deeper than this are summarized as [`Ex::Other`]: marks are shallow, and the
/// walk must never overflow the stack on hostile input.
pub(crate) const MAX_DEPTH: usize = 64;

/// Up to this many bindings in one body, [`Summarizer::rebound`] compares them pairwise.
const REBOUND_PAIRWISE: usize = 48;

/// A small, owned expression tree: just enough to resolve marks. Its text is
/// [`CompactString`]: names and short strings (up to 24 bytes, nearly all of them) are kept
/// inline rather than each in an allocation of its own.
#[derive(Debug, Clone, PartialEq)]
pub enum Ex {
    Name(CompactString),
    /// A name and the attributes read from it, as written (`pytest.mark.parametrize`): one
    /// string rather than a chain of boxed [`Ex::Attr`] nodes over an [`Ex::Name`], which it
    /// stands for (issue 22: most of the nodes of the decorators are such names).
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
/// these for every call in every decorator, so their size is much of the summary's (issue 22).
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
    /// Calls of `*.raises` / `*.warns` / `*.deprecated_call` / `self.assert*` / `self.fail`.
    pub checks: u32,
    /// The assertions whose failure something may keep from failing the test, and what
    /// would: None for most bodies (no `assert` in a `try` or `with suppress(...)`, none whose
    /// test is an `or` with an operand that cannot be false).
    pub guarded: Option<Box<Guarded>>,
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
    /// such a test xfail and never runs it; issue 18 (fid5)).
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
    /// folder override, issue 19): NAME, and VALUE when it is a string literal.
    pub snapshot_dirs: Vec<Located<(CompactString, Option<CompactString>)>>,
    /// A method defined under `if` in a class body, or a function under `if` at module level:
    /// each condition must have the given truth value for the definition to run (empty:
    /// unconditional; issue 18).
    pub guards: Vec<(Cond, bool)>,
    /// Every `return` of the body returns `F(PARAM)`: the call's function and which positional
    /// parameter it passes (a helper such as `def import_or_skip(name): return
    /// importlib.import_module(name)`; issue 18).
    pub returns_call_of_param: Option<(Ex, usize)>,
    /// `NAME.check(...)` calls anywhere in the body (pytest-regressions' `*_regression`
    /// fixtures, issue 19), with the file-naming arguments they pass.
    pub regression_checks: Vec<Located<RegressionCheck>>,
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
    pub pytestmark: Option<Located<Ex>>,
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
    /// value for the definition to run (empty: unconditional; issue 18 (fid3)).
    pub guards: Vec<(Cond, bool)>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Module {
    /// The module's docstring (an `owner:` line there covers its tests).
    pub docstring: Option<CompactString>,
    pub imports: Vec<Import>,
    /// Module-level `NAME = expr` (last one wins, as at run time).
    pub assigns: Vec<(CompactString, Located<Ex>)>,
    pub pytestmark: Option<Located<Ex>>,
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
    /// Statements that may bind test classes or functions only at run time (issue 18).
    pub runtime_defs: Vec<Located<RuntimeDef>>,
    /// `setattr(NAME, ...)` at module level (outside any `def`), by NAME: may add tests to a
    /// class of that name.
    pub setattr_on: Vec<Located<CompactString>>,
    /// `pytest_plugins = [...]` / `"name"`: the plugin modules named, when literal; None when
    /// the module assigns it something else (computed).
    pub pytest_plugins: Option<Located<Option<Vec<CompactString>>>>,
    /// What the module does to `collect_ignore` / `collect_ignore_glob`, in order (conftest
    /// files; issue 18).
    pub collect_ignore: Vec<IgnoreOp>,
    /// Module-level assignments to a name and `def`s (the last binding of each name), for a
    /// property's domain.
    pub definitions: Vec<Definition>,
    /// Module-level bindings of names other than by `def` and `class`, in source order, for
    /// following a name a condition reads (issue 18 (fid4)).
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

/// A module-level name's definition, as a property's domain records it (issue 16): a strategy
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

/// Source text longer than this is recorded as its size and fingerprint.
const DEFINITION_TEXT_MAX: usize = 512;

/// A fixed 64-bit fingerprint of `text` (FNV-1a): the same on every run and platform.
pub fn fingerprint(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The names an expression or body reads, sorted and unique.
#[derive(Default)]
struct ReadNames(Vec<CompactString>);

impl<'a> Visitor<'a> for ReadNames {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Name(n) = expr {
            self.0.push(CompactString::new(n.id.as_str()));
        }
        ruff_python_ast::visitor::walk_expr(self, expr);
    }
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

impl RuntimeDef {
    /// What the construct is, in words, for a problem's message.
    pub fn describe(&self) -> String {
        match self {
            RuntimeDef::TypeCall => {
                "type(name, bases, namespace) creates a class at run time".into()
            }
            RuntimeDef::NamespaceWrite(how) => {
                format!("{how} writes names into a namespace at run time")
            }
            RuntimeDef::ModuleSetattr => {
                "setattr on sys.modules[...] binds names into a module at run time".into()
            }
            RuntimeDef::InLoop(name) => {
                format!("{name} is defined in a loop, once per iteration, at run time")
            }
        }
    }
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
    /// Visits the body of each branch of `i` with `guards` extended by what must hold for that
    /// branch to run: its own condition true (none for `else`) and every earlier one false.
    fn if_branches<'s>(
        &self,
        i: &'s ast::StmtIf,
        shadow: &[CompactString],
        guards: &mut Vec<(Cond, bool)>,
        mut visit: impl FnMut(&'s [Stmt], &mut Vec<(Cond, bool)>),
    ) {
        let first = self.cond(&i.test, shadow);
        let n = guards.len();
        guards.push((first.clone(), true));
        visit(&i.body, guards);
        guards.truncate(n);
        let mut before = vec![(first, false)];
        for clause in &i.elif_else_clauses {
            guards.extend(before.iter().cloned());
            let c = clause.test.as_ref().map(|t| self.cond(t, shadow));
            if let Some(c) = &c {
                guards.push((c.clone(), true));
            }
            visit(&clause.body, guards);
            guards.truncate(n);
            if let Some(c) = c {
                before.push((c, false));
            }
        }
    }

    /// An `if` condition (see [`cond`]).
    fn cond(&self, expr: &Expr, shadow: &[CompactString]) -> Cond {
        crate::cond::cond(expr, 0, self.lines, shadow)
    }

    /// The module-level name bindings of `body` (see [`Module::names`]), under `guards`;
    /// `maybe` inside a `try` or a loop.
    fn names(
        &self,
        body: &[Stmt],
        guards: &mut Vec<(Cond, bool)>,
        maybe: bool,
        out: &mut Vec<NameBinding>,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        let push =
            |out: &mut Vec<NameBinding>, guards: &[(Cond, bool)], name: &str, line, value| {
                out.push(NameBinding {
                    name: CompactString::new(name),
                    line,
                    guards: guards.to_vec(),
                    maybe,
                    value,
                })
            };
        for stmt in body {
            let line = self.line_of(stmt);
            match stmt {
                Stmt::Import(i) => {
                    for a in &i.names {
                        let name = match &a.asname {
                            Some(n) => n.as_str(),
                            None => a.name.as_str().split('.').next().unwrap_or(""),
                        };
                        push(out, guards, name, line, Bound::Import);
                    }
                }
                Stmt::ImportFrom(i) => {
                    for a in &i.names {
                        let name = a.asname.as_ref().unwrap_or(&a.name).as_str();
                        push(out, guards, name, line, Bound::Import);
                    }
                }
                Stmt::Assign(a) => {
                    for t in &a.targets {
                        self.name_assign(t, Some(&a.value), &mut |n, v| {
                            push(out, guards, n, line, v)
                        });
                    }
                }
                Stmt::AnnAssign(a) if a.value.is_some() => {
                    self.name_assign(&a.target, a.value.as_deref(), &mut |n, v| {
                        push(out, guards, n, line, v)
                    });
                }
                Stmt::AugAssign(a) => {
                    self.name_assign(&a.target, None, &mut |n, v| push(out, guards, n, line, v));
                }
                Stmt::Delete(d) => {
                    for t in &d.targets {
                        self.name_assign(t, None, &mut |n, v| push(out, guards, n, line, v));
                    }
                }
                Stmt::For(_) | Stmt::While(_) | Stmt::With(_) | Stmt::Match(_) => {
                    // Whatever a loop, `with` or `match` binds may or may not be bound after it
                    // (a `with` may swallow an exception): every binding in it is unknown.
                    let mut all = Vec::new();
                    self.bindings(std::slice::from_ref(stmt), &mut Vec::new(), &mut all, depth);
                    for b in all {
                        out.push(NameBinding {
                            name: b.name,
                            line: b.line,
                            guards: guards.clone(),
                            maybe: true,
                            value: Bound::Other,
                        });
                    }
                }
                Stmt::If(i) => {
                    self.if_branches(i, &[], guards, |body, g| {
                        self.names(body, g, maybe, out, depth + 1)
                    });
                }
                Stmt::Try(t) => {
                    self.names(&t.body, guards, true, out, depth + 1);
                    for handler in &t.handlers {
                        let ast::ExceptHandler::ExceptHandler(h) = handler;
                        if let Some(name) = &h.name {
                            push(out, guards, name.as_str(), self.line_of(h), Bound::Other);
                        }
                        self.names(&h.body, guards, true, out, depth + 1);
                    }
                    self.names(&t.orelse, guards, true, out, depth + 1);
                    self.names(&t.finalbody, guards, maybe, out, depth + 1);
                }
                _ => {}
            }
        }
    }

    /// The names an assignment target binds, each with what it binds (`value`: the assigned
    /// expression; `None` for `+=`, `del` and the like).
    fn name_assign(&self, target: &Expr, value: Option<&Expr>, bind: &mut dyn FnMut(&str, Bound)) {
        match (target, value) {
            (Expr::Name(n), Some(v)) => {
                let c = self.cond(v, &[]);
                let bound = if matches!(c, Cond::Unknown) {
                    Bound::Other
                } else {
                    Bound::Cond(c)
                };
                bind(n.id.as_str(), bound);
            }
            (Expr::Tuple(t), Some(Expr::Tuple(v))) if t.elts.len() == v.elts.len() => {
                for (t, v) in t.elts.iter().zip(v.elts.iter()) {
                    self.name_assign(t, Some(v), bind);
                }
            }
            _ => {
                let mut names = Vec::new();
                target_names(target, &mut names, 0);
                for n in names {
                    bind(n, Bound::Other);
                }
            }
        }
    }

    /// The source text of `node`.
    fn text(&self, node: &impl Ranged) -> &str {
        self.source
            .get(node.start().to_usize()..node.end().to_usize())
            .unwrap_or("")
    }

    /// Every binding of each name that `body` binds more than once on paths that can run
    /// (a branch whose condition is a constant false is left out).
    fn rebound(&self, body: &[Stmt]) -> Vec<Binding> {
        // About one binding a statement: room made once rather than grown by doubling.
        let mut all = Vec::with_capacity(body.len());
        self.bindings(body, &mut Vec::new(), &mut all, 0);
        rebound_of(all)
    }

    /// The bindings of one body, under `guards`.
    fn bindings(
        &self,
        body: &[Stmt],
        guards: &mut Vec<(Cond, bool)>,
        out: &mut Vec<Binding>,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        fn bind(out: &mut Vec<Binding>, name: &str, line: u64, guards: &[(Cond, bool)]) {
            out.push(Binding {
                name: CompactString::new(name),
                line,
                guards: guards.to_vec(),
            })
        }
        for stmt in body {
            let line = self.line_of(stmt);
            match stmt {
                Stmt::FunctionDef(f) => bind(out, f.name.as_str(), self.line_of(&f.name), guards),
                Stmt::ClassDef(c) => bind(out, c.name.as_str(), self.line_of(&c.name), guards),
                Stmt::Import(i) => {
                    for a in &i.names {
                        let name = match &a.asname {
                            Some(n) => n.as_str(),
                            None => a.name.as_str().split('.').next().unwrap_or(""),
                        };
                        bind(out, name, line, guards);
                    }
                }
                Stmt::ImportFrom(i) => {
                    for a in &i.names {
                        bind(
                            out,
                            a.asname.as_ref().unwrap_or(&a.name).as_str(),
                            line,
                            guards,
                        );
                    }
                }
                Stmt::Assign(a) => {
                    let mut names = Vec::new();
                    for t in &a.targets {
                        target_names(t, &mut names, 0);
                    }
                    for n in names {
                        bind(out, n, line, guards);
                    }
                }
                Stmt::AnnAssign(a) if a.value.is_some() => {
                    let mut names = Vec::new();
                    target_names(&a.target, &mut names, 0);
                    for n in names {
                        bind(out, n, line, guards);
                    }
                }
                Stmt::AugAssign(a) => {
                    let mut names = Vec::new();
                    target_names(&a.target, &mut names, 0);
                    for n in names {
                        bind(out, n, line, guards);
                    }
                }
                Stmt::For(f) => {
                    let mut names = Vec::new();
                    target_names(&f.target, &mut names, 0);
                    for n in names {
                        bind(out, n, line, guards);
                    }
                    self.bindings(&f.body, guards, out, depth + 1);
                    self.bindings(&f.orelse, guards, out, depth + 1);
                }
                Stmt::While(w) => {
                    self.bindings(&w.body, guards, out, depth + 1);
                    self.bindings(&w.orelse, guards, out, depth + 1);
                }
                Stmt::With(w) => {
                    let mut names = Vec::new();
                    for item in &w.items {
                        if let Some(v) = &item.optional_vars {
                            target_names(v, &mut names, 0);
                        }
                    }
                    for n in names {
                        bind(out, n, line, guards);
                    }
                    self.bindings(&w.body, guards, out, depth + 1);
                }
                Stmt::If(i) => {
                    self.if_branches(i, &[], guards, |body, g| {
                        self.bindings(body, g, out, depth + 1)
                    });
                }
                Stmt::Try(t) => {
                    self.bindings(&t.body, guards, out, depth + 1);
                    for handler in &t.handlers {
                        let ast::ExceptHandler::ExceptHandler(h) = handler;
                        if let Some(name) = &h.name {
                            bind(out, name.as_str(), self.line_of(h), guards);
                        }
                        self.bindings(&h.body, guards, out, depth + 1);
                    }
                    self.bindings(&t.orelse, guards, out, depth + 1);
                    self.bindings(&t.finalbody, guards, out, depth + 1);
                }
                _ => {}
            }
        }
    }

    fn module(&self, body: &[Stmt]) -> Module {
        let mut m = Module::default();
        // The lists are made at the size the top level needs (definitions under `if` / `try`
        // grow them), not grown by doubling: fewer copies, and no half-empty capacity kept.
        let (mut functions, mut classes, mut imports) = (0, 0, 0);
        for stmt in body {
            match stmt {
                Stmt::FunctionDef(_) => functions += 1,
                Stmt::ClassDef(_) => classes += 1,
                Stmt::Import(i) => imports += i.names.len(),
                Stmt::ImportFrom(i) => imports += i.names.len(),
                _ => {}
            }
        }
        m.functions.reserve_exact(functions);
        m.classes.reserve_exact(classes);
        m.imports.reserve_exact(imports);
        m.docstring = docstring(body);
        self.module_stmts(body, &mut m, &mut Vec::new(), 0);
        // The last binding of a name wins: one pass over each list, not a search per binding.
        keep_last_of_each(&mut m.assigns, |(n, _)| n, |_| true);
        keep_last_of_each(&mut m.definitions, |d| &d.name, |_| true);
        self.names(body, &mut Vec::new(), false, &mut m.names, 0);
        let mut dynamic = Dynamic::at_module(self.lines, true);
        match run_time_words(self.source, self.tokens) {
            RunTimeWords::None => {}
            // Only loops around definitions can be found: the module's own statements are
            // walked, not the bodies of its functions and classes or any expression.
            RunTimeWords::Loops => {
                dynamic.calls = false;
                dynamic.visit_body(body);
            }
            RunTimeWords::Any => dynamic.visit_body(body),
        }
        m.runtime_defs = dynamic.out;
        m.setattr_on = dynamic.setattr_on;
        if self.source.contains("collect_ignore") {
            self.ignore_ops(body, &mut Vec::new(), &mut m.collect_ignore, 0);
        }
        m.index_names();
        m
    }

    /// The statements of `body` (module level, under `if`) about `collect_ignore` and
    /// `collect_ignore_glob`: literal lists, `+` of them, `+=`, `.append`, `.extend`; any
    /// other statement that mentions one is [`IgnoreKind::Computed`].
    fn ignore_ops(
        &self,
        body: &[Stmt],
        guards: &mut Vec<(Cond, bool)>,
        out: &mut Vec<IgnoreOp>,
        depth: usize,
    ) {
        for stmt in body {
            let line = self.line_of(stmt);
            let mut push = |list, kind| {
                out.push(IgnoreOp {
                    list,
                    line,
                    guards: guards.clone(),
                    kind,
                })
            };
            let named = |e: &Expr| match e {
                Expr::Name(n) => IgnoreList::from_name(n.id.as_str()),
                _ => None,
            };
            match stmt {
                Stmt::Assign(a) if a.targets.len() == 1 && named(&a.targets[0]).is_some() => {
                    let list = named(&a.targets[0]).unwrap_or(IgnoreList::Paths);
                    push(list, self.ignore_value(&a.value, IgnoreKind::Set));
                    continue;
                }
                Stmt::AnnAssign(a) if named(&a.target).is_some() && a.value.is_some() => {
                    let list = named(&a.target).unwrap_or(IgnoreList::Paths);
                    let value = a.value.as_deref().map_or(
                        IgnoreKind::Computed("an annotation without a value".into()),
                        |v| self.ignore_value(v, IgnoreKind::Set),
                    );
                    push(list, value);
                    continue;
                }
                Stmt::AugAssign(a) if a.op == ast::Operator::Add && named(&a.target).is_some() => {
                    let list = named(&a.target).unwrap_or(IgnoreList::Paths);
                    push(list, self.ignore_value(&a.value, IgnoreKind::Extend));
                    continue;
                }
                Stmt::Expr(e) => {
                    if let Expr::Call(call) = &*e.value
                        && let Expr::Attribute(attr) = &*call.func
                        && let Some(list) = named(&attr.value)
                        && call.arguments.keywords.is_empty()
                        && call.arguments.args.len() == 1
                    {
                        let arg = &call.arguments.args[0];
                        match attr.attr.as_str() {
                            "append" => {
                                let kind = match arg {
                                    Expr::StringLiteral(v) => {
                                        IgnoreKind::Extend(vec![IgnorePiece::Str(literal(
                                            &v.value,
                                        ))])
                                    }
                                    other => IgnoreKind::Computed(format!(
                                        "{}.append({})",
                                        list.name(),
                                        self.text(other)
                                    )),
                                };
                                push(list, kind);
                                continue;
                            }
                            "extend" => {
                                push(list, self.ignore_value(arg, IgnoreKind::Extend));
                                continue;
                            }
                            _ => {}
                        }
                    }
                }
                Stmt::If(i) if depth < MAX_DEPTH && !mentions_ignore_lists_expr(&i.test) => {
                    self.if_branches(i, &[], guards, |body, g| {
                        self.ignore_ops(body, g, out, depth + 1)
                    });
                    continue;
                }
                _ => {}
            }
            if let Some(list) = mentions_ignore_lists(stmt) {
                let first = self.text(stmt).lines().next().unwrap_or("").trim();
                push(list, IgnoreKind::Computed(format!("`{first}`")));
            }
        }
    }

    /// A literal ignore list (strings in a list or tuple, `+` of such lists and of the lists
    /// themselves) as `kind`; anything else is computed.
    fn ignore_value(&self, value: &Expr, kind: fn(Vec<IgnorePiece>) -> IgnoreKind) -> IgnoreKind {
        fn pieces(e: &Expr, out: &mut Vec<IgnorePiece>, depth: usize) -> bool {
            if depth > MAX_DEPTH {
                return false;
            }
            match e {
                Expr::List(l) => l.elts.iter().all(|e| match e {
                    Expr::StringLiteral(s) => {
                        out.push(IgnorePiece::Str(literal(&s.value)));
                        true
                    }
                    _ => false,
                }),
                Expr::Tuple(t) => t.elts.iter().all(|e| match e {
                    Expr::StringLiteral(s) => {
                        out.push(IgnorePiece::Str(literal(&s.value)));
                        true
                    }
                    _ => false,
                }),
                Expr::Name(n) => match IgnoreList::from_name(n.id.as_str()) {
                    Some(list) => {
                        out.push(IgnorePiece::List(list));
                        true
                    }
                    None => false,
                },
                Expr::BinOp(b) if b.op == ast::Operator::Add => {
                    pieces(&b.left, out, depth + 1) && pieces(&b.right, out, depth + 1)
                }
                _ => false,
            }
        }
        let mut out = Vec::new();
        if pieces(value, &mut out, 0) {
            kind(out)
        } else {
            let text = self.text(value);
            let short: String = text.chars().take(60).collect();
            let more = if short.len() < text.len() { "..." } else { "" };
            IgnoreKind::Computed(format!("a value computed at run time (`{short}{more}`)"))
        }
    }

    /// Module-level statements, including those inside `if` / `try` blocks at module level
    /// (pytest collects a test defined under `if sys.version_info >= ...`). Functions and
    /// classes under `if` keep the conditions (`guards`) they are defined under: the collector
    /// decides them for the target interpreter (issue 18 (fid3)). Long for a reason: one
    /// `match` arm per kind of statement, each a few lines, read best side by side.
    fn module_stmts(
        &self,
        body: &[Stmt],
        m: &mut Module,
        guards: &mut Vec<(Cond, bool)>,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        for stmt in body {
            match stmt {
                Stmt::Import(imp) => {
                    for alias in &imp.names {
                        let full = alias.name.as_str();
                        let (module, binds, dotted) = match &alias.asname {
                            Some(a) => (full.into(), a.as_str().into(), None),
                            // `import a.b` binds `a`, which reaches `a.b` as an attribute.
                            None => match full.split_once('.') {
                                Some((first, _)) => {
                                    let first = CompactString::new(first);
                                    (first.clone(), first, Some(full.into()))
                                }
                                None => {
                                    let full = CompactString::new(full);
                                    (full.clone(), full, None)
                                }
                            },
                        };
                        m.imports.push(Import {
                            module,
                            name: None,
                            dotted,
                            binds,
                            level: 0,
                            line: self.line_of(stmt),
                        });
                    }
                }
                Stmt::ImportFrom(imp) => {
                    let module = imp
                        .module
                        .as_ref()
                        .map(|i| CompactString::new(i.as_str()))
                        .unwrap_or_default();
                    let line = self.line_of(stmt);
                    for alias in &imp.names {
                        let name = CompactString::new(alias.name.as_str());
                        let binds = match &alias.asname {
                            Some(a) => CompactString::new(a.as_str()),
                            None => name.clone(),
                        };
                        m.imports.push(Import {
                            module: module.clone(),
                            name: Some(name),
                            dotted: None,
                            binds,
                            level: imp.level,
                            line,
                        });
                    }
                }
                Stmt::Assign(assign) => {
                    for target in &assign.targets {
                        self.module_assign(m, target, &assign.value);
                    }
                }
                Stmt::AnnAssign(assign) => {
                    if let Some(value) = &assign.value {
                        self.module_assign(m, &assign.target, value);
                    }
                }
                // A test function is never a strategy: no definition kept for it.
                Stmt::FunctionDef(f) if f.name.as_str().starts_with("test") => {
                    let mut function = self.function(f);
                    function.guards = guards.clone();
                    m.functions.push(function);
                }
                Stmt::FunctionDef(f) => {
                    let mut function = self.function(f);
                    function.guards = guards.clone();
                    m.functions.push(function);
                    let mut read = ReadNames::default();
                    for d in &f.decorator_list {
                        read.visit_decorator(d);
                    }
                    read.visit_body(&f.body);
                    let text = self.text(stmt);
                    let text = format!(
                        "def {}: {} bytes, fingerprint {:016x}",
                        f.name.as_str(),
                        text.len(),
                        fingerprint(text)
                    );
                    self.define(m, f.name.as_str(), &text, read.0);
                }
                Stmt::ClassDef(c) => {
                    let mut class = self.class(c);
                    class.guards = guards.clone();
                    m.classes.push(class);
                }
                Stmt::Expr(e) => {
                    if let Expr::Call(_) = &*e.value {
                        m.calls.push(Located {
                            value: self.ex(&e.value, 0),
                            line: self.line_of(stmt),
                        });
                    }
                }
                Stmt::If(i) => {
                    self.if_branches(i, &[], guards, |body, g| {
                        self.module_stmts(body, m, g, depth + 1)
                    });
                }
                Stmt::Try(t) => {
                    self.module_stmts(&t.body, m, guards, depth + 1);
                    for handler in &t.handlers {
                        let ast::ExceptHandler::ExceptHandler(h) = handler;
                        self.module_stmts(&h.body, m, guards, depth + 1);
                    }
                    self.module_stmts(&t.orelse, m, guards, depth + 1);
                    self.module_stmts(&t.finalbody, m, guards, depth + 1);
                }
                _ => {}
            }
        }
    }

    /// Records `name`'s definition (replacing an earlier one: the last binding wins).
    fn define(&self, m: &mut Module, name: &str, text: &str, mut names: Vec<CompactString>) {
        names.sort_unstable();
        names.dedup();
        names.retain(|n| n != name);
        let text = if text.len() > DEFINITION_TEXT_MAX {
            CompactString::new(format!(
                "{} bytes, fingerprint {:016x}",
                text.len(),
                fingerprint(text)
            ))
        } else {
            CompactString::new(text)
        };
        m.definitions.push(Definition {
            name: CompactString::new(name),
            text,
            names,
        });
    }

    fn module_assign(&self, m: &mut Module, target: &Expr, value: &Expr) {
        match target {
            Expr::Name(n) => {
                let name = n.id.as_str();
                let located = Located {
                    value: self.ex(value, 0),
                    line: self.line_of(target),
                };
                match name {
                    "pytestmark" => m.pytestmark = Some(located),
                    "pytest_plugins" => {
                        let names = match &located.value {
                            Ex::Str(one) => Some(vec![one.clone()]),
                            Ex::List(items) | Ex::Tuple(items) => items
                                .iter()
                                .map(|i| match i {
                                    Ex::Str(s) => Some(s.clone()),
                                    _ => None,
                                })
                                .collect(),
                            _ => None,
                        };
                        m.pytest_plugins = Some(Located {
                            value: names,
                            line: located.line,
                        });
                    }
                    "__test__" => m.dunder_test = const_truth(value),
                    _ => {
                        m.assigns.push((CompactString::new(name), located));
                        let mut read = ReadNames::default();
                        read.visit_expr(value);
                        self.define(m, name, self.text(value), read.0);
                    }
                }
            }
            Expr::Attribute(a) if a.attr.as_str() == "__test__" => {
                if let (Expr::Name(n), Some(truth)) = (&*a.value, const_truth(value)) {
                    m.function_dunder_test
                        .push((CompactString::new(n.id.as_str()), truth));
                }
            }
            Expr::Tuple(t) => {
                // `a, b = x, y`: pair up literal tuples; anything else is not a mark alias.
                if let Expr::Tuple(v) = value
                    && t.elts.len() == v.elts.len()
                {
                    for (t, v) in t.elts.iter().zip(v.elts.iter()) {
                        self.module_assign(m, t, v);
                    }
                }
            }
            _ => {}
        }
    }

    fn class(&self, c: &ast::StmtClassDef) -> Class {
        let mut class = Class {
            name: CompactString::new(c.name.as_str()),
            line: self.line_of(c),
            docstring: docstring(&c.body),
            bases: c
                .arguments
                .as_ref()
                .map(|a| a.args.iter().map(|b| self.ex(b, 0)).collect())
                .unwrap_or_default(),
            metaclass: c.arguments.as_ref().and_then(|a| {
                a.keywords
                    .iter()
                    .find(|k| k.arg.as_ref().is_some_and(|n| n.as_str() == "metaclass"))
                    .map(|k| self.ex(&k.value, 0))
            }),
            decorators: self.decorators(&c.decorator_list),
            pytestmark: None,
            dunder_test: None,
            has_init: false,
            methods: Vec::with_capacity(
                c.body
                    .iter()
                    .filter(|s| matches!(s, Stmt::FunctionDef(_)))
                    .count(),
            ),
            classes: Vec::new(),
            rebound: Vec::new(),
            guards: Vec::new(),
        };
        // Names the class body binds shadow the module's in its `if` conditions: such a
        // condition is not followed to the module's binding (issue 18 (fid4)).
        let mut bound = Vec::with_capacity(c.body.len());
        self.bindings(&c.body, &mut Vec::new(), &mut bound, 0);
        // Only an `if` reads them (one under a `try` included): most class bodies have none.
        let shadow: Vec<CompactString> = if c
            .body
            .iter()
            .any(|s| matches!(s, Stmt::If(_) | Stmt::Try(_)))
        {
            bound.iter().map(|b| b.name.clone()).collect()
        } else {
            Vec::new()
        };
        class.rebound = rebound_of(bound);
        self.class_stmts(&c.body, &mut class, &mut Vec::new(), &shadow, 0);
        // A `def` outside any `if` replaces every earlier method of its name; a class
        // statement replaces every earlier class of its name, under `if` or not.
        keep_last_of_each(&mut class.methods, |f| &f.name, |f| f.guards.is_empty());
        keep_last_of_each(&mut class.classes, |k| &k.name, |_| true);
        class
    }

    /// A class body's statements, including those under `if` / `try` in it (methods defined
    /// under `if sys.version_info ...` are the class's as much as at module level; issue 18).
    /// Methods under `if` keep the conditions (`guards`) they are defined under: the collector
    /// decides them for the target interpreter.
    fn class_stmts(
        &self,
        body: &[Stmt],
        class: &mut Class,
        guards: &mut Vec<(Cond, bool)>,
        shadow: &[CompactString],
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        for stmt in body {
            match stmt {
                Stmt::FunctionDef(f) => {
                    if matches!(f.name.as_str(), "__init__" | "__new__") {
                        class.has_init = true;
                    }
                    let mut method = self.function(f);
                    method.guards = guards.clone();
                    class.methods.push(method);
                }
                Stmt::ClassDef(inner) => {
                    class.classes.push(self.class(inner));
                }
                Stmt::Assign(assign) => {
                    for target in &assign.targets {
                        self.class_assign(class, target, &assign.value);
                    }
                }
                Stmt::AnnAssign(assign) => {
                    if let Some(value) = &assign.value {
                        self.class_assign(class, &assign.target, value);
                    }
                }
                Stmt::If(i) => {
                    self.if_branches(i, shadow, guards, |body, g| {
                        self.class_stmts(body, class, g, shadow, depth + 1)
                    });
                }
                Stmt::Try(t) => {
                    self.class_stmts(&t.body, class, guards, shadow, depth + 1);
                    for handler in &t.handlers {
                        let ast::ExceptHandler::ExceptHandler(h) = handler;
                        self.class_stmts(&h.body, class, guards, shadow, depth + 1);
                    }
                    self.class_stmts(&t.orelse, class, guards, shadow, depth + 1);
                    self.class_stmts(&t.finalbody, class, guards, shadow, depth + 1);
                }
                _ => {}
            }
        }
    }

    fn class_assign(&self, class: &mut Class, target: &Expr, value: &Expr) {
        if let Expr::Name(n) = target {
            match n.id.as_str() {
                "pytestmark" => {
                    class.pytestmark = Some(Located {
                        value: self.ex(value, 0),
                        line: self.line_of(target),
                    })
                }
                "__test__" => class.dunder_test = const_truth(value),
                "__init__" | "__new__" => class.has_init = true,
                _ => {}
            }
        }
    }

    fn decorators(&self, list: &[ast::Decorator]) -> Vec<Located<Ex>> {
        list.iter()
            .map(|d| Located {
                value: self.ex(&d.expression, 0),
                line: self.line_of(d),
            })
            .collect()
    }

    fn function(&self, f: &ast::StmtFunctionDef) -> Function {
        let mut walk = Walk {
            locals: Locals::of(&f.body),
            ..Walk::default()
        };
        self.scan_asserts(&f.body, &mut walk, 0);
        let Walk {
            asserts, assumes, ..
        } = walk;
        fn call(s: &Stmt) -> Option<(&Stmt, &Expr)> {
            match s {
                Stmt::Expr(e) if matches!(&*e.value, Expr::Call(_)) => Some((s, &*e.value)),
                _ => None,
            }
        }
        // Counted first: a list collected from a filter is made for at least four.
        let mut body_calls = Vec::with_capacity(f.body.iter().filter_map(call).count());
        body_calls.extend(f.body.iter().filter_map(call).map(|(s, e)| Located {
            value: self.ex(e, 0),
            line: self.line_of(s),
        }));
        // A body whose text (all ASCII) lacks a word cannot name it: the walks that look for
        // `mark` and `.check(...)` are skipped there.
        let body_text = match (f.body.first(), f.body.last()) {
            (Some(first), Some(last)) => self
                .source
                .get(first.start().to_usize()..last.end().to_usize())
                .filter(|t| t.is_ascii()),
            _ => None,
        };
        // Built once: `memmem::find` sets a searcher up on every call.
        static MARK: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new("mark"));
        static CHECK: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new("check"));
        let lacks = |word: &memchr::memmem::Finder| {
            body_text.is_some_and(|t| word.find(t.as_bytes()).is_none())
        };
        let mut marks = MentionsMark(false);
        if !lacks(&MARK) {
            marks.visit_body(&f.body);
        }
        // A statement nested past MAX_DEPTH is recorded whatever it says, and takes more lines
        // than that (each nested body starts a line): the line index already knows how many
        // the body spans, without a count of its bytes.
        let shallow = || match (f.body.first(), f.body.last()) {
            (Some(first), Some(last)) => {
                self.lines.line(last.end()) - self.lines.line(first.start()) < MAX_DEPTH as u64
            }
            _ => false,
        };
        let regression_checks = if lacks(&CHECK) && shallow() {
            Vec::new()
        } else {
            self.regression_checks(&f.body)
        };
        let p = &f.parameters;
        let params: Vec<CompactString> = (p.posonlyargs.iter().chain(&p.args).chain(&p.kwonlyargs))
            .map(|a| CompactString::new(a.parameter.name.as_str()))
            .collect();
        Function {
            returns_call_of_param: returns_call_of_param(&f.body, &params, |e| self.ex(e, 0)),
            guards: Vec::new(),
            mentions_mark: marks.0,
            params,
            snapshot_dirs: self.snapshot_dirs(&f.body),
            regression_checks,
            name: CompactString::new(f.name.as_str()),
            line: self.line_of(&f.name),
            decorators: self.decorators(&f.decorator_list),
            docstring: docstring(&f.body),
            is_async: f.is_async,
            async_generator: f.is_async && yields(&f.body),
            asserts,
            body_calls,
            assumes,
        }
    }

    /// `NAME.check(...)` calls anywhere in a test's body (nested functions included: a
    /// helper defined in the test that calls the fixture names its files too).
    fn regression_checks(&self, body: &[Stmt]) -> Vec<Located<RegressionCheck>> {
        let mut v = RegressionChecks::default();
        v.visit_body(body);
        v.found
            .into_iter()
            .map(|(at, value)| Located {
                value,
                line: self.lines.line(at),
            })
            .collect()
    }

    /// `NAME.snapshot_dir = VALUE` statements at the top level of a test's body.
    fn snapshot_dirs(&self, body: &[Stmt]) -> Vec<Located<(CompactString, Option<CompactString>)>> {
        let mut out = Vec::new();
        for stmt in body {
            let (targets, value) = match stmt {
                Stmt::Assign(a) => (&a.targets[..], &*a.value),
                Stmt::AnnAssign(a) => match &a.value {
                    Some(v) => (std::slice::from_ref(&*a.target), &**v),
                    None => continue,
                },
                _ => continue,
            };
            for t in targets {
                if let Expr::Attribute(at) = t
                    && at.attr.as_str() == "snapshot_dir"
                    && let Expr::Name(n) = &*at.value
                {
                    let literal = match value {
                        Expr::StringLiteral(s) => Some(CompactString::new(s.value.to_str())),
                        _ => None,
                    };
                    out.push(Located {
                        value: (CompactString::new(n.id.as_str()), literal),
                        line: self.line_of(stmt),
                    });
                }
            }
        }
        out
    }

    /// Counts the assertions of `body` into `walk`, with the facts of what may keep their
    /// failure from failing the test ([`Guarded`]).
    fn scan_asserts(&self, body: &[Stmt], walk: &mut Walk<'_>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for stmt in body {
            match stmt {
                Stmt::Assert(a) => self.assertion(stmt, &a.test, walk),
                Stmt::Expr(e) => {
                    self.count_check_call(&e.value, &mut walk.asserts);
                    if let Expr::Call(c) = &*e.value
                        && call_name(c) == Some("assume")
                    {
                        walk.assumes.push(Located {
                            value: self.ex(&e.value, 0),
                            line: self.line_of(stmt),
                        });
                    }
                }
                Stmt::Assign(a) => self.count_check_call(&a.value, &mut walk.asserts),
                Stmt::With(w) => {
                    let mut suppressed: Option<Vec<CompactString>> = None;
                    for item in &w.items {
                        self.count_check_call(&item.context_expr, &mut walk.asserts);
                        if let Expr::Call(c) = &item.context_expr
                            && call_name(c) == Some("suppress")
                        {
                            let types = suppressed.get_or_insert_with(Vec::new);
                            c.arguments
                                .args
                                .iter()
                                .for_each(|a| exception_names(a, types, 0));
                        }
                    }
                    match suppressed {
                        None => self.scan_asserts(&w.body, walk, depth + 1),
                        Some(types) => walk.catching(
                            |walk| self.scan_asserts(&w.body, walk, depth + 1),
                            || CatchBy::Suppress(types),
                        ),
                    }
                }
                Stmt::If(i) => {
                    self.scan_asserts(&i.body, walk, depth + 1);
                    for clause in &i.elif_else_clauses {
                        self.scan_asserts(&clause.body, walk, depth + 1);
                    }
                }
                Stmt::For(f) => {
                    self.scan_asserts(&f.body, walk, depth + 1);
                    self.scan_asserts(&f.orelse, walk, depth + 1);
                }
                Stmt::While(w) => {
                    self.scan_asserts(&w.body, walk, depth + 1);
                    self.scan_asserts(&w.orelse, walk, depth + 1);
                }
                Stmt::Try(t) => {
                    walk.catching(
                        |walk| self.scan_asserts(&t.body, walk, depth + 1),
                        || CatchBy::Handlers(t.handlers.iter().map(handler).collect()),
                    );
                    for h in &t.handlers {
                        let ast::ExceptHandler::ExceptHandler(h) = h;
                        self.scan_asserts(&h.body, walk, depth + 1);
                    }
                    self.scan_asserts(&t.orelse, walk, depth + 1);
                    self.scan_asserts(&t.finalbody, walk, depth + 1);
                }
                Stmt::Match(m) => {
                    for case in &m.cases {
                        self.scan_asserts(&case.body, walk, depth + 1);
                    }
                }
                // Helpers defined inside the test count: they are usually called by it.
                Stmt::FunctionDef(f) => self.scan_asserts(&f.body, walk, depth + 1),
                _ => {}
            }
        }
    }

    /// One `assert` statement with test `test`.
    fn assertion(&self, stmt: &Stmt, test: &Expr, walk: &mut Walk<'_>) {
        let place = walk.asserts.asserts;
        walk.asserts.asserts += 1;
        if cannot_fail(test, &walk.locals) {
            walk.asserts.tautologies += 1;
            walk.asserts
                .first_tautology
                .get_or_insert(self.line_of(stmt));
        }
        let or_always_true = or_cannot_fail(test, &walk.locals);
        if walk.catchers > 0 || or_always_true {
            walk.guarded().asserts.push(GuardedAssert {
                place,
                line: self.line_of(stmt),
                or_always_true,
            });
        }
    }

    fn count_check_call(&self, expr: &Expr, out: &mut Asserts) {
        let Expr::Call(call) = expr else { return };
        let name = match &*call.func {
            Expr::Attribute(a) => a.attr.as_str(),
            Expr::Name(n) => n.id.as_str(),
            _ => return,
        };
        if matches!(name, "raises" | "warns" | "deprecated_call" | "fail")
            || name.starts_with("assert")
        {
            out.checks += 1;
        }
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

/// Where a statement runs: a module's, a class's or a function's body.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    Module,
    Class,
    Function,
}

/// Every name and keyword [`Dynamic`] reacts to: a loop around a definition (`for`, `while`),
/// the namespace calls (`globals`, `locals`, `vars`), `type(...)` and `setattr(...)`. Keep it
/// in step with the visitor below: a module whose source holds none of them is not walked.
const DYNAMIC_WORDS: [&str; 7] = [
    "for", "while", "globals", "locals", "vars", "type", "setattr",
];

/// Whether [`Dynamic`] can find anything in `source`: one of [`DYNAMIC_WORDS`] is one of its
/// tokens, or it is not all ASCII (an identifier may then normalize to one of them).
#[cfg(test)]
fn may_bind_at_run_time(source: &str) -> bool {
    let parsed = ruff_python_parser::parse_module(source).expect("test source parses");
    run_time_words(source, parsed.tokens()) != RunTimeWords::None
}

/// Which of [`DYNAMIC_WORDS`] a module's tokens hold, as far as [`Dynamic`] cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RunTimeWords {
    None,
    /// Only the loop keywords (`for`, `while`): only a definition in a loop can be found.
    Loops,
    /// A call's name (or the source is not all ASCII: an identifier may then normalize to one).
    Any,
}

/// How many of [`DYNAMIC_WORDS`], from the start, are loop keywords.
const LOOP_WORDS: usize = 2;

/// What [`Dynamic`] may find in `source`, from its `tokens`: every name in the syntax tree is
/// a name token or a soft keyword (`type`), every loop a `for` or `while` keyword. One pass
/// over the tokens rather than a search of the text for each word.
fn run_time_words(source: &str, tokens: &[ast::token::Token]) -> RunTimeWords {
    use ast::token::TokenKind;
    if !source.is_ascii() {
        return RunTimeWords::Any;
    }
    let shortest = DYNAMIC_WORDS[LOOP_WORDS..]
        .iter()
        .map(|w| w.len())
        .min()
        .unwrap_or(0);
    let longest = DYNAMIC_WORDS[LOOP_WORDS..]
        .iter()
        .map(|w| w.len())
        .max()
        .unwrap_or(0);
    let mut loops = false;
    for token in tokens {
        match token.kind() {
            TokenKind::For | TokenKind::While => loops = true,
            TokenKind::Type => return RunTimeWords::Any,
            TokenKind::Name => {
                let range = token.range();
                let len = range.len().to_usize();
                if (shortest..=longest).contains(&len)
                    && let Some(name) = source.get(range.start().to_usize()..range.end().to_usize())
                    && DYNAMIC_WORDS[LOOP_WORDS..].contains(&name)
                {
                    return RunTimeWords::Any;
                }
            }
            _ => {}
        }
    }
    if loops {
        RunTimeWords::Loops
    } else {
        RunTimeWords::None
    }
}

/// Walks a whole module for the statements that bind names at run time ([`RuntimeDef`]).
struct Dynamic<'l> {
    lines: &'l Lines,
    scope: Scope,
    /// Loops around the statement at module level.
    loops: usize,
    /// Inside the body of a function named `test*`: what it makes exists while the test
    /// runs, after collection (a class from `type(...)` there is a local value; issue 18).
    in_test: bool,
    depth: usize,
    out: Vec<Located<RuntimeDef>>,
    setattr_on: Vec<Located<CompactString>>,
    /// Whether the source may hold the calls looked for (see [`RunTimeWords`]): when not, only
    /// loops around definitions can be found, and neither expressions nor the bodies of
    /// functions and classes (where nothing is a module-level loop's) are walked.
    calls: bool,
}

impl<'l> Dynamic<'l> {
    /// A walk starting at a module's top level, nothing found yet.
    fn at_module(lines: &'l Lines, calls: bool) -> Self {
        Dynamic {
            lines,
            scope: Scope::Module,
            loops: 0,
            in_test: false,
            depth: 0,
            out: Vec::new(),
            setattr_on: Vec::new(),
            calls,
        }
    }

    fn push(&mut self, node: &impl Ranged, what: RuntimeDef) {
        let line = self.lines.line(node.start());
        self.out.push(Located { value: what, line });
    }

    /// `globals()` anywhere; `locals()` / `vars()` where they are a module's or class's
    /// namespace (in a function they are a copy).
    fn namespace_call(&self, expr: &Expr) -> Option<&'static str> {
        let Expr::Call(call) = expr else { return None };
        let Expr::Name(n) = &*call.func else {
            return None;
        };
        if !call.arguments.args.is_empty() {
            return None;
        }
        match n.id.as_str() {
            "globals" => Some("globals()"),
            "locals" if self.scope != Scope::Function => Some("locals()"),
            "vars" if self.scope != Scope::Function => Some("vars()"),
            _ => None,
        }
    }

    fn in_scope(&mut self, scope: Scope, f: impl FnOnce(&mut Self)) {
        let (outer, loops) = (self.scope, self.loops);
        self.scope = scope;
        self.loops = 0;
        f(self);
        self.scope = outer;
        self.loops = loops;
    }
}

/// Finds `X.mark` or a bare `mark` anywhere in a body.
struct MentionsMark(bool);

/// A function body yields (`yield`, `yield from`) in its own scope: nested functions, lambdas
/// and classes are theirs (issue 18 (fid5)).
fn yields(body: &[Stmt]) -> bool {
    let mut v = Yields(false);
    v.visit_body(body);
    v.0
}

struct Yields(bool);

impl<'a> Visitor<'a> for Yields {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.0 || matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
            return;
        }
        ruff_python_ast::visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            _ if self.0 => {}
            Expr::Yield(_) | Expr::YieldFrom(_) => self.0 = true,
            Expr::Lambda(_) => {}
            _ => ruff_python_ast::visitor::walk_expr(self, expr),
        }
    }
}

/// Collects `NAME.check(...)` calls (see [`RegressionCheck`]) with their start offsets.
/// Statements nested deeper than [`MAX_DEPTH`] are not read: one such is recorded as a check
/// of [`ANY_FIXTURE`] whose arguments cannot be known (fail closed).
#[derive(Default)]
struct RegressionChecks {
    found: Vec<(TextSize, RegressionCheck)>,
    depth: usize,
}

/// The fixture of a [`RegressionCheck`] recorded for code too deep to read: any.
pub const ANY_FIXTURE: &str = "*";

/// Where pytest-regressions' `check` methods take `basename` and `fullpath` positionally.
fn regression_positions(fixture: &str) -> (usize, usize) {
    match fixture {
        "file_regression" => (4, 5),
        "image_regression" => (3, 4),
        // data_, num_, dataframe_ and ndarrays_regression.
        _ => (1, 2),
    }
}

fn file_arg(e: &Expr) -> Option<FileArg> {
    match e {
        Expr::NoneLiteral(_) => None,
        Expr::StringLiteral(s) => Some(FileArg::Literal(CompactString::new(s.value.to_str()))),
        _ => Some(FileArg::Computed),
    }
}

impl<'a> Visitor<'a> for RegressionChecks {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.depth > MAX_DEPTH {
            let check = RegressionCheck {
                fixture: CompactString::new(ANY_FIXTURE),
                basename: Some(FileArg::Computed),
                fullpath: Some(FileArg::Computed),
            };
            self.found.push((stmt.start(), check));
            return;
        }
        self.depth += 1;
        ruff_python_ast::visitor::walk_stmt(self, stmt);
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(call) = expr
            && let Expr::Attribute(at) = &*call.func
            && at.attr.as_str() == "check"
            && let Expr::Name(n) = &*at.value
        {
            let fixture = n.id.as_str();
            let (basename_at, fullpath_at) = regression_positions(fixture);
            let args = &call.arguments;
            let starred = args.args.iter().any(|a| matches!(a, Expr::Starred(_)))
                || args.keywords.iter().any(|k| k.arg.is_none());
            let named = |name: &str, at: usize| {
                if starred {
                    return Some(FileArg::Computed);
                }
                let keyword = args
                    .keywords
                    .iter()
                    .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == name))
                    .map(|k| &k.value);
                keyword.or(args.args.get(at)).and_then(file_arg)
            };
            let check = RegressionCheck {
                fixture: CompactString::new(fixture),
                basename: named("basename", basename_at),
                fullpath: named("fullpath", fullpath_at),
            };
            self.found.push((expr.start(), check));
        }
        // Expression nesting is bounded by the parser's bracket limit.
        ruff_python_ast::visitor::walk_expr(self, expr);
    }
}

impl<'a> Visitor<'a> for MentionsMark {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.0 {
            return;
        }
        match expr {
            Expr::Attribute(a) if a.attr.as_str() == "mark" => self.0 = true,
            Expr::Name(n) if n.id.as_str() == "mark" => self.0 = true,
            // Attribute chains and calls are shallow; other nesting is bounded by the parser's
            // bracket limit.
            _ => ruff_python_ast::visitor::walk_expr(self, expr),
        }
    }
}

/// The first ignore list a statement mentions anywhere (a name `collect_ignore` or
/// `collect_ignore_glob`, read or written, in any nested body).
fn mentions_ignore_lists(stmt: &Stmt) -> Option<IgnoreList> {
    let mut v = MentionsIgnore(None);
    v.visit_stmt(stmt);
    v.0
}

fn mentions_ignore_lists_expr(expr: &Expr) -> bool {
    let mut v = MentionsIgnore(None);
    v.visit_expr(expr);
    v.0.is_some()
}

struct MentionsIgnore(Option<IgnoreList>);

impl<'a> Visitor<'a> for MentionsIgnore {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.0.is_none() {
            ruff_python_ast::visitor::walk_stmt(self, stmt);
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.0.is_some() {
            return;
        }
        match expr {
            Expr::Name(n) => self.0 = IgnoreList::from_name(n.id.as_str()),
            // `global collect_ignore` is a statement, seen by walk_stmt's names below.
            _ => ruff_python_ast::visitor::walk_expr(self, expr),
        }
    }
}

/// Whether `expr` mentions `sys.modules`.
fn mentions_sys_modules(expr: &Expr) -> bool {
    match expr {
        Expr::Attribute(a) => {
            (a.attr.as_str() == "modules"
                && matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "sys"))
                || mentions_sys_modules(&a.value)
        }
        Expr::Subscript(s) => mentions_sys_modules(&s.value),
        Expr::Call(c) => mentions_sys_modules(&c.func),
        _ => false,
    }
}

impl<'a> ruff_python_ast::visitor::Visitor<'a> for Dynamic<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.depth > MAX_DEPTH {
            return;
        }
        self.depth += 1;
        match stmt {
            Stmt::FunctionDef(f) => {
                if self.scope == Scope::Module && self.loops > 0 {
                    self.push(
                        &f.name,
                        RuntimeDef::InLoop(CompactString::new(f.name.as_str())),
                    );
                }
                if !self.calls {
                    self.depth -= 1;
                    return;
                }
                for d in &f.decorator_list {
                    self.visit_expr(&d.expression);
                }
                let outer = self.in_test;
                self.in_test |= f.name.as_str().starts_with("test");
                self.in_scope(Scope::Function, |v| v.visit_body(&f.body));
                self.in_test = outer;
            }
            Stmt::ClassDef(c) => {
                if self.scope == Scope::Module && self.loops > 0 {
                    self.push(
                        stmt,
                        RuntimeDef::InLoop(CompactString::new(c.name.as_str())),
                    );
                }
                if !self.calls {
                    self.depth -= 1;
                    return;
                }
                for d in &c.decorator_list {
                    self.visit_expr(&d.expression);
                }
                if let Some(arguments) = &c.arguments {
                    for a in &arguments.args {
                        self.visit_expr(a);
                    }
                }
                self.in_scope(Scope::Class, |v| v.visit_body(&c.body));
            }
            Stmt::For(_) | Stmt::While(_) => {
                self.loops += 1;
                ruff_python_ast::visitor::walk_stmt(self, stmt);
                self.loops -= 1;
            }
            Stmt::Assign(a) => {
                for target in &a.targets {
                    if let Expr::Subscript(sub) = target
                        && let Some(how) = self.namespace_call(&sub.value)
                    {
                        self.push(stmt, RuntimeDef::NamespaceWrite(how));
                    }
                }
                ruff_python_ast::visitor::walk_stmt(self, stmt);
            }
            _ => ruff_python_ast::visitor::walk_stmt(self, stmt),
        }
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth > MAX_DEPTH || !self.calls {
            return;
        }
        if let Expr::Call(call) = expr {
            match &*call.func {
                Expr::Name(n)
                    if n.id.as_str() == "type"
                        && call.arguments.args.len() == 3
                        && !self.in_test =>
                {
                    self.push(expr, RuntimeDef::TypeCall);
                }
                Expr::Name(n) if n.id.as_str() == "setattr" => match call.arguments.args.first() {
                    Some(first) if mentions_sys_modules(first) => {
                        self.push(expr, RuntimeDef::ModuleSetattr);
                    }
                    Some(Expr::Name(target)) if self.scope != Scope::Function => {
                        let line = self.lines.line(expr.start());
                        self.setattr_on.push(Located {
                            value: CompactString::new(target.id.as_str()),
                            line,
                        });
                    }
                    _ => {}
                },
                Expr::Attribute(a)
                    if matches!(a.attr.as_str(), "update" | "setdefault" | "__setitem__") =>
                {
                    if let Some(how) = self.namespace_call(&a.value) {
                        self.push(expr, RuntimeDef::NamespaceWrite(how));
                    }
                }
                _ => {}
            }
        }
        self.depth += 1;
        ruff_python_ast::visitor::walk_expr(self, expr);
        self.depth -= 1;
    }
}

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

/// What a walk over a test body gathers.
#[derive(Default)]
struct Walk<'a> {
    asserts: Asserts,
    assumes: Vec<Located<Ex>>,
    /// Names the function body binds (assignments, loop and `with` targets): a reflexive
    /// comparison of one of these is a tautology; of a parameter or a module-level name it
    /// tests that object's `__eq__`.
    locals: Locals<'a>,
    /// How many `try` and `with suppress(...)` bodies the walk is in.
    catchers: u32,
}

impl Walk<'_> {
    fn guarded(&mut self) -> &mut Guarded {
        self.asserts.guarded.get_or_insert_with(Box::default)
    }

    /// Walks the body of a `try` or `with suppress(...)` (`body`); when it holds assertions,
    /// records it as a [`Catcher`] made `by` what catches.
    fn catching(&mut self, body: impl FnOnce(&mut Self), by: impl FnOnce() -> CatchBy) {
        let start = self.asserts.asserts;
        self.catchers += 1;
        body(self);
        self.catchers -= 1;
        let end = self.asserts.asserts;
        if end > start {
            let by = by();
            self.guarded().catchers.push(Catcher {
                asserts: start..end,
                by,
            });
        }
    }
}

/// The names a function body binds, found the first time one is asked for: only a reflexive
/// comparison of two names asks (rare), and finding them walks every expression of the body.
#[derive(Default)]
struct Locals<'a> {
    body: &'a [Stmt],
    names: std::cell::OnceCell<Vec<CompactString>>,
}

impl<'a> Locals<'a> {
    fn of(body: &'a [Stmt]) -> Self {
        Locals {
            body,
            names: std::cell::OnceCell::new(),
        }
    }

    fn contains(&self, name: &str) -> bool {
        let names = self.names.get_or_init(|| {
            let mut stored = StoredNames::default();
            stored.visit_body(self.body);
            stored.0
        });
        names.iter().any(|l| l == name)
    }
}

/// The names a body binds in Store context.
#[derive(Default)]
struct StoredNames(Vec<CompactString>);

impl<'a> Visitor<'a> for StoredNames {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Name(n) = expr
            && n.ctx == ast::ExprContext::Store
        {
            self.0.push(CompactString::new(n.id.as_str()));
        }
        ruff_python_ast::visitor::walk_expr(self, expr);
    }
}

/// The last name of a call's function (`assume` for `hypothesis.assume(...)`).
/// `Some((F, k))` when every `return` of `body` (outside nested definitions) is `return
/// F(p)` with `p` the function's parameter `k` and one `F` for all of them.
fn returns_call_of_param(
    body: &[Stmt],
    params: &[CompactString],
    ex: impl Fn(&Expr) -> Ex,
) -> Option<(Ex, usize)> {
    #[derive(Default)]
    struct Returns<'a>(Vec<Option<&'a Expr>>);
    impl<'a> Visitor<'a> for Returns<'a> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            match stmt {
                Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
                Stmt::Return(r) => self.0.push(r.value.as_deref()),
                _ => ruff_python_ast::visitor::walk_stmt(self, stmt),
            }
        }

        // No expression holds a statement: the walk need not enter them.
        fn visit_expr(&mut self, _: &'a Expr) {}
    }
    let mut returns = Returns::default();
    returns.visit_body(body);
    let mut found: Option<(Ex, usize)> = None;
    for r in returns.0 {
        let Some(Expr::Call(call)) = r else {
            return None;
        };
        let [Expr::Name(arg)] = &call.arguments.args[..] else {
            return None;
        };
        if !call.arguments.keywords.is_empty() {
            return None;
        }
        let k = params.iter().position(|p| p == arg.id.as_str())?;
        let func = ex(&call.func);
        match &found {
            Some((f, j)) if *f != func || *j != k => return None,
            _ => found = Some((func, k)),
        }
    }
    found
}

fn call_name(call: &ast::ExprCall) -> Option<&str> {
    match &*call.func {
        Expr::Name(n) => Some(n.id.as_str()),
        Expr::Attribute(a) => Some(a.attr.as_str()),
        _ => None,
    }
}

/// The last names of the exception types `expr` names (`AssertionError`,
/// `builtins.Exception` as `Exception`, each of a tuple) into `out`.
fn exception_names(expr: &Expr, out: &mut Vec<CompactString>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match expr {
        Expr::Name(n) => out.push(CompactString::new(n.id.as_str())),
        Expr::Attribute(a) => out.push(CompactString::new(a.attr.as_str())),
        Expr::Tuple(t) => t
            .elts
            .iter()
            .for_each(|e| exception_names(e, out, depth + 1)),
        _ => {}
    }
}

/// An `except` clause's types and what its body does.
fn handler(h: &ast::ExceptHandler) -> Handler {
    let ast::ExceptHandler::ExceptHandler(h) = h;
    let types = h.type_.as_deref().map(|t| {
        let mut names = Vec::new();
        exception_names(t, &mut names, 0);
        names
    });
    let mut body = HandlerBody::default();
    handler_body(&h.body, &mut body, 0);
    Handler { types, body }
}

/// What the statements of `body` do (see [`HandlerBody`]), into `out`.
fn handler_body(body: &[Stmt], out: &mut HandlerBody, depth: usize) {
    if depth > MAX_DEPTH {
        out.too_deep = true;
        return;
    }
    for stmt in body {
        match stmt {
            Stmt::Raise(_) => out.raises = true,
            Stmt::Assert(_) => out.asserts = true,
            Stmt::Assign(_) | Stmt::AugAssign(_) | Stmt::AnnAssign(_) => out.assigns = true,
            Stmt::Expr(e) => {
                if let Expr::Call(c) = &*e.value {
                    match &*c.func {
                        Expr::Attribute(a) => out
                            .calls
                            .push(Called::Method(CompactString::new(a.attr.as_str()))),
                        Expr::Name(n) => out
                            .calls
                            .push(Called::Function(CompactString::new(n.id.as_str()))),
                        _ => {}
                    }
                }
            }
            Stmt::If(i) => {
                handler_body(&i.body, out, depth + 1);
                for c in &i.elif_else_clauses {
                    handler_body(&c.body, out, depth + 1);
                }
            }
            Stmt::With(w) => handler_body(&w.body, out, depth + 1),
            Stmt::For(f) => {
                handler_body(&f.body, out, depth + 1);
                handler_body(&f.orelse, out, depth + 1);
            }
            Stmt::While(w) => {
                handler_body(&w.body, out, depth + 1);
                handler_body(&w.orelse, out, depth + 1);
            }
            Stmt::Try(t) => {
                handler_body(&t.body, out, depth + 1);
                handler_body(&t.orelse, out, depth + 1);
                handler_body(&t.finalbody, out, depth + 1);
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    handler_body(&h.body, out, depth + 1);
                }
            }
            _ => {}
        }
    }
}

/// `assert a or True`: an `or` with an operand that cannot be false.
fn or_cannot_fail(test: &Expr, locals: &Locals) -> bool {
    match test {
        Expr::BoolOp(b) if b.op == ast::BoolOp::Or => {
            b.values.iter().any(|v| cannot_fail(v, locals))
        }
        _ => false,
    }
}

/// The names an assignment target binds (`a`, `a, (b, c)`, `*rest`); attributes and
/// subscripts bind none.
fn target_names<'e>(target: &'e Expr, out: &mut Vec<&'e str>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match target {
        Expr::Name(n) => out.push(n.id.as_str()),
        Expr::Tuple(t) => t.elts.iter().for_each(|e| target_names(e, out, depth + 1)),
        Expr::List(l) => l.elts.iter().for_each(|e| target_names(e, out, depth + 1)),
        Expr::Starred(s) => target_names(&s.value, out, depth + 1),
        _ => {}
    }
}

/// Drops every item that a later item of the same name replaces (`replaces` says which items
/// do), keeping the order of the rest: what a search-and-remove before each push leaves, in
/// one pass from the end. A module or class body of many thousands of definitions stays
/// linear; the few items of a usual body are compared pairwise, with no set built.
fn keep_last_of_each<T>(
    items: &mut Vec<T>,
    name: impl Fn(&T) -> &CompactString,
    replaces: impl Fn(&T) -> bool,
) {
    const PAIRWISE_MAX: usize = 16;
    let count = items.len();
    // Whether each item stays: on the stack for a usual body, each item judged once.
    let mut small = [true; PAIRWISE_MAX];
    let large: Vec<bool>;
    let keep: &[bool] = if count <= PAIRWISE_MAX {
        for (i, item) in items.iter().enumerate() {
            small[i] = !items[i + 1..]
                .iter()
                .any(|later| replaces(later) && name(later) == name(item));
        }
        &small[..count]
    } else {
        let mut replaced: HashSet<&CompactString> = HashSet::with_capacity(count);
        let mut kept = vec![true; count];
        for (stays, item) in kept.iter_mut().zip(items.iter()).rev() {
            *stays = !replaced.contains(name(item));
            if replaces(item) {
                replaced.insert(name(item));
            }
        }
        large = kept;
        &large
    };
    if keep.iter().all(|k| *k) {
        return;
    }
    let mut keep = keep.iter();
    items.retain(|_| keep.next().copied().unwrap_or(true));
}

/// Every binding (of `all`, one body's) of each name bound more than once on paths that can
/// run (a branch whose condition is a constant false is left out).
fn rebound_of(mut all: Vec<Binding>) -> Vec<Binding> {
    all.retain(|b: &Binding| {
        b.guards
            .iter()
            .all(|(c, want)| c.eval(None).is_none_or(|v| v == *want))
    });
    // Most bodies bind a few names: compared pairwise, without hashing or copying them.
    if all.len() <= REBOUND_PAIRWISE {
        // Most bind each name once: each pair compared once to say so, and nothing kept.
        let any_twice = all
            .iter()
            .enumerate()
            .any(|(i, b)| all[i + 1..].iter().any(|o| o.name == b.name));
        if !any_twice {
            return Vec::new();
        }
        let twice: Vec<bool> = all
            .iter()
            .enumerate()
            .map(|(i, b)| {
                all.iter()
                    .enumerate()
                    .any(|(j, o)| j != i && o.name == b.name)
            })
            .collect();
        let mut twice = twice.into_iter();
        all.retain(|_| twice.next().unwrap_or(false));
        // Kept with the module for the whole scan: without the room of the bindings left
        // out (usually all of them).
        all.shrink_to_fit();
        return all;
    }
    let mut counts: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    for b in &all {
        *counts.entry(b.name.as_str()).or_default() += 1;
    }
    let twice: std::collections::HashSet<CompactString> = counts
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(name, _)| CompactString::new(name))
        .collect();
    all.retain(|b| twice.contains(&b.name));
    all.shrink_to_fit();
    all
}

/// The encoding a PEP 263 cookie declares on line 1, or on line 2 after a comment or blank
/// line 1: `# -*- coding: NAME -*-`, `# vim: set fileencoding=NAME :`.
fn coding_cookie(source: &str) -> Option<Located<CompactString>> {
    let mut real = Vec::with_capacity(2);
    let mut rest = source;
    for _ in 0..2 {
        let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
        real.push(&rest[..end]);
        let skip = if rest[end..].starts_with("\r\n") {
            2
        } else {
            1
        };
        rest = rest.get(end + skip..).unwrap_or("");
    }
    for (i, line) in real.iter().enumerate() {
        let trimmed = line.trim_start_matches([' ', '\t', '\x0c']);
        if !trimmed.starts_with('#') {
            if i == 0 && !trimmed.is_empty() {
                return None;
            }
            continue;
        }
        if let Some(name) = cookie_name(trimmed) {
            return Some(Located {
                value: CompactString::new(name),
                line: i as u64 + 1,
            });
        }
    }
    None
}

/// `coding[:=][ \t]*NAME` in a comment line (the first such place), NAME of `[-\w.]`.
fn cookie_name(comment: &str) -> Option<&str> {
    let mut from = 0;
    while let Some(at) = comment[from..].find("coding") {
        let after = &comment[from + at + "coding".len()..];
        if let Some(rest) = after.strip_prefix([':', '=']) {
            let rest = rest.trim_start_matches([' ', '\t']);
            let len = rest
                .find(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')))
                .unwrap_or(rest.len());
            if len > 0 {
                return Some(&rest[..len]);
            }
        }
        from += at + 1;
    }
    None
}

/// An assertion that passes whatever the code does: a truthy constant, or a comparison of an
/// expression with itself by `==`, `is`, `<=` or `>=`.
fn cannot_fail(test: &Expr, locals: &Locals) -> bool {
    if const_truth(test) == Some(true) {
        return true;
    }
    match test {
        // A non-empty display is true whatever it holds; so is an f-string with literal text.
        Expr::List(l) if !l.elts.is_empty() => return true,
        Expr::Set(s) if !s.elts.is_empty() => return true,
        Expr::Dict(d) if !d.items.is_empty() => return true,
        Expr::FString(f) => {
            return f.value.iter().any(|part| match part {
                ast::FStringPart::Literal(l) => !l.value.is_empty(),
                ast::FStringPart::FString(f) => f.elements.iter().any(|e| match e {
                    ast::InterpolatedStringElement::Literal(l) => !l.value.is_empty(),
                    _ => false,
                }),
            });
        }
        // `isinstance(x, object)`: everything is an object.
        Expr::Call(c)
            if matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "isinstance")
                && c.arguments.args.len() == 2
                && c.arguments.keywords.is_empty() =>
        {
            let is_object = |e: &Expr| matches!(e, Expr::Name(n) if n.id.as_str() == "object");
            return match &c.arguments.args[1] {
                Expr::Tuple(t) => t.elts.iter().any(is_object),
                other => is_object(other),
            };
        }
        _ => {}
    }
    if let Expr::Compare(c) = test
        && c.ops.len() == 1
        && c.comparators.len() == 1
    {
        let reflexive = matches!(c.ops[0], CmpOp::Eq | CmpOp::Is | CmpOp::LtE | CmpOp::GtE);
        // Each kind of expression has a comparable form of its own kind: two of different
        // kinds (`f(x) == 2`, most assertions) differ without building those forms, which
        // allocates.
        let (left, right) = (&*c.left, &c.comparators[0]);
        if !reflexive || std::mem::discriminant(left) != std::mem::discriminant(right) {
            return false;
        }
        // A literal or a plain name compared with itself. Two evaluations of a call, an
        // attribute or a subscript (`f() is f()`, `hash(f(x)) == hash(f(x))`, `C() == C()`)
        // test what the code returns each time, which real suites check on purpose.
        // A name only when the body bound it (`applied = f(x)`; `assert applied == applied`
        // checks nothing about it): a parameter (a @given value, a fixture) or a module-level
        // object (packaging's `assert Infinity == Infinity`) compared with itself tests that
        // object's `__eq__`, which real suites do on purpose.
        let decidable = const_truth(left).is_some()
            || matches!(left, Expr::Name(n) if locals.contains(n.id.as_str()));
        return decidable && ComparableExpr::from(left) == ComparableExpr::from(right);
    }
    false
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
mod tests {
    use super::*;

    fn only_fn(src: &str) -> Function {
        summarize(src).unwrap().functions.remove(0)
    }

    #[test]
    fn tautologies_and_checks() {
        let cases: &[(&str, &str, u32, u32, u32)] = &[
            ("assert true", "def t():\n    assert True\n", 1, 1, 0),
            (
                "x == x",
                "def t():\n    x = f()\n    assert x == x\n",
                1,
                1,
                0,
            ),
            (
                "x is x",
                "def t():\n    x = f()\n    assert x is x\n",
                1,
                1,
                0,
            ),
            ("1 == 1", "def t():\n    assert 1 == 1\n", 1, 1, 0),
            // A parameter (a @given value) or a module-level object compared with itself
            // tests its __eq__ (packaging's `assert Infinity == Infinity`).
            ("param == param", "def t(m):\n    assert m == m\n", 1, 0, 0),
            (
                "constant == constant",
                "def t():\n    assert Infinity == Infinity\n",
                1,
                0,
                0,
            ),
            (
                "loop target",
                "def t():\n    for y in f():\n        assert y == y\n",
                1,
                1,
                0,
            ),
            (
                "attr is attr can differ",
                "def t():\n    assert a.b is a.b\n",
                1,
                0,
                0,
            ),
            (
                "calls can differ",
                "def t():\n    assert f() is f()\n",
                1,
                0,
                0,
            ),
            (
                "hash is deterministic",
                "def t():\n    assert hash(f(1)) == hash(f(1))\n",
                1,
                0,
                0,
            ),
            ("real", "def t():\n    assert f(1) == 2\n", 1, 0, 0),
            ("x != x can fail", "def t():\n    assert x != x\n", 1, 0, 0),
            (
                "raises",
                "def t():\n    with pytest.raises(E):\n        f()\n",
                0,
                0,
                1,
            ),
            (
                "self.assert",
                "def t(self):\n    self.assertEqual(1, f())\n",
                0,
                0,
                1,
            ),
            (
                "nested if",
                "def t():\n    if c:\n        assert f()\n",
                1,
                0,
                0,
            ),
            ("empty string", "def t():\n    assert ''\n", 1, 0, 0),
        ];
        for (name, src, asserts, tautologies, checks) in cases {
            let f = only_fn(src);
            assert_eq!(f.asserts.asserts, *asserts, "{name}");
            assert_eq!(f.asserts.tautologies, *tautologies, "{name}");
            assert_eq!(f.asserts.checks, *checks, "{name}");
        }
    }

    /// (asserts, tautologies, guarded) of the only function in `body` (indented by 4).
    fn counted(body: &str) -> (u32, u32, Option<Box<Guarded>>) {
        let f = only_fn(&format!("def t():\n{body}"));
        (f.asserts.asserts, f.asserts.tautologies, f.asserts.guarded)
    }

    #[test]
    fn what_may_catch_an_assertion_is_recorded() {
        let (_, _, guarded) = counted(
            "    try:\n        assert f()\n        with suppress(ValueError, (os.Error, 1)):\n\
             \x20           assert g() or True\n    except (AssertionError, builtins.Exception):\n\
             \x20       if x:\n            errors.append(1)\n    except:\n        fail()\n\
             \x20   assert h()\n",
        );
        let guarded = guarded.expect("guarded assertions");
        assert_eq!(
            guarded.asserts,
            [
                GuardedAssert {
                    place: 0,
                    line: 3,
                    or_always_true: false
                },
                GuardedAssert {
                    place: 1,
                    line: 5,
                    or_always_true: true
                },
            ]
        );
        assert_eq!(guarded.catchers.len(), 2);
        assert_eq!(guarded.catchers[0].asserts, 1..2);
        assert_eq!(
            guarded.catchers[0].by,
            CatchBy::Suppress(vec!["ValueError".into(), "Error".into()])
        );
        assert_eq!(guarded.catchers[1].asserts, 0..2);
        let CatchBy::Handlers(handlers) = &guarded.catchers[1].by else {
            panic!("a try's handlers");
        };
        assert_eq!(
            handlers[0].types,
            Some(vec!["AssertionError".into(), "Exception".into()])
        );
        assert_eq!(handlers[0].body.calls, [Called::Method("append".into())]);
        assert_eq!(handlers[1].types, None);
        assert_eq!(handlers[1].body.calls, [Called::Function("fail".into())]);
        // Outside any try and with no always-true `or`: nothing guarded.
        assert_eq!(
            counted("    assert f()\n    with open(p):\n        assert g()\n").2,
            None
        );
    }

    #[test]
    fn tautologies_on_literals_and_object() {
        for body in [
            "    assert isinstance(f(), object)\n",
            "    assert isinstance(f(), (int, object))\n",
            "    assert [f()]\n",
            "    assert {'k': f()}\n",
            "    assert {f()}\n",
            "    assert f'result {f()}'\n",
            "    assert (f(), 'message')\n",
        ] {
            assert_eq!(counted(body), (1, 1, None), "{body}");
        }
        for body in [
            "    assert isinstance(f(), int)\n",
            "    assert []\n",
            "    assert f'{f()}'\n",
            "    assert False\n",
            "    assert m == m2\n",
        ] {
            assert_eq!(counted(body).1, 0, "{body}");
        }
    }

    #[test]
    fn coding_cookies() {
        let at = |src: &str| {
            summarize(src)
                .unwrap()
                .coding
                .map(|c| (c.value.to_string(), c.line))
        };
        assert_eq!(
            at("# -*- coding: latin-1 -*-\nx = 1\n"),
            Some(("latin-1".into(), 1))
        );
        assert_eq!(
            at("#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\n"),
            Some(("cp1252".into(), 2))
        );
        assert_eq!(at("\r\n# coding=utf_8\r\n"), Some(("utf_8".into(), 2)));
        // Only the first two lines, and line 2 only after a comment or blank line 1.
        assert_eq!(at("x = 1\n# coding: latin-1\n"), None);
        assert_eq!(at("#\n#\n# coding: latin-1\n"), None);
        assert_eq!(at("x = '# coding: latin-1'\n"), None);
        assert_eq!(at("# no cookie here, just coding\n"), None);
    }

    #[test]
    fn assume_calls_are_kept() {
        let f = only_fn(
            "def t(x):\n    assume(x > 0)\n    if x:\n        hypothesis.assume(x != 3)\n    assert x\n",
        );
        let lines: Vec<u64> = f.assumes.iter().map(|a| a.line).collect();
        assert_eq!(lines, [2, 4]);
    }

    #[test]
    fn lines_with_crlf_and_bom() {
        let src = "\u{feff}import pytest\r\n\r\n@pytest.mark.merge\r\ndef test_a():\r\n    assert 1 == f()\r\n";
        let m = summarize(src).unwrap();
        assert_eq!(m.functions[0].line, 4);
        assert_eq!(m.functions[0].decorators[0].line, 3);
    }

    #[test]
    fn syntax_error_is_located() {
        let err = summarize("x = 1\ndef f(:\n    pass\n").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.column >= 1);
    }

    #[test]
    fn imports_and_joined_strings() {
        let long = "a_package_name_longer_than_24.and_a_module";
        let m = summarize(&format!(
            "import a.b.c\nimport x.y as z\nimport p\nfrom . import q\nfrom m.n import r as s\n\
             from {long} import a_name_longer_than_24_bytes\n\
             X = 'ab' 'cd'\ndef t():\n    'doc' 'string'\n"
        ))
        .unwrap();
        let got: Vec<_> = m
            .imports
            .iter()
            .map(|i| {
                (
                    i.module.as_str(),
                    i.name.as_deref(),
                    i.binds.as_str(),
                    i.dotted.as_deref(),
                    i.submodule(),
                )
            })
            .collect();
        let long_sub = format!("{long}.a_name_longer_than_24_bytes");
        assert_eq!(
            got,
            [
                ("a", None, "a", Some("a.b.c"), None),
                ("x.y", None, "z", None, None),
                ("p", None, "p", None, None),
                ("", Some("q"), "q", None, Some("q".into())),
                ("m.n", Some("r"), "s", None, Some("m.n.r".into())),
                (
                    long,
                    Some("a_name_longer_than_24_bytes"),
                    "a_name_longer_than_24_bytes",
                    None,
                    Some(long_sub.as_str().into())
                ),
            ]
        );
        // Implicitly concatenated parts are joined.
        assert_eq!(m.assigns[0].1.value, Ex::Str("abcd".into()));
        assert_eq!(m.functions[0].docstring.as_deref(), Some("docstring"));
    }

    #[test]
    fn dotted_names_are_one_string_however_written() {
        let deep = format!("x{}", ".a".repeat(MAX_DEPTH + 2));
        let m = summarize(&format!(
            "@pytest.mark.merge\n@pytest . mark.\\\n merge\n@(pytest).mark.merge\n\
             @(pytest.mark  # note\n  .merge)\n@make().mark.merge\n@{deep}\ndef test_a(): pass\n"
        ))
        .unwrap();
        let got: Vec<&Ex> = m.functions[0].decorators.iter().map(|d| &d.value).collect();
        let merge = Ex::Dotted("pytest.mark.merge".into());
        assert_eq!(got[..3], [&merge, &merge, &merge]);
        assert_eq!(got[3], &merge, "a comment between the parts");
        // Over anything but a name, the attributes stay nodes.
        let Ex::Attr(base, merge_attr) = got[4] else {
            panic!("not an attribute: {:?}", got[4])
        };
        assert_eq!(merge_attr, "merge");
        assert!(
            matches!(&**base, Ex::Attr(call, mark) if mark == "mark" && matches!(**call, Ex::Call(_)))
        );
        // Deeper than MAX_DEPTH the name is cut off as before: attributes over `Other`.
        let mut ex = got[5];
        let mut attrs = 0;
        while let Ex::Attr(base, _) = ex {
            ex = base;
            attrs += 1;
        }
        assert_eq!((ex, attrs), (&Ex::Other, MAX_DEPTH + 1));
        assert_eq!(dotted(got[0]), "pytest.mark.merge");
    }

    #[test]
    fn call_arguments_keep_their_source() {
        let m = summarize(
            "@given(total=amounts, credit=st.integers(0, 5))\ndef test_a(total, credit): pass\n",
        )
        .unwrap();
        let Ex::Call(call) = &m.functions[0].decorators[0].value else {
            panic!("not a call")
        };
        assert_eq!(call.args_src, "total=amounts, credit=st.integers(0, 5)");
        assert_eq!(call.kwargs.len(), 2);
        let srcs: Vec<&str> = call.kwargs_src().collect();
        assert_eq!(srcs, ["amounts", "st.integers(0, 5)"]);
    }

    #[test]
    fn keyword_values_keep_their_exact_text() {
        // Leading space and a comment inside the parentheses, a parenthesized value, a value
        // over several lines, a value with non-ASCII text, and a nested call's own keywords.
        let m = summarize(concat!(
            "@settings(  # why\n",
            "    deadline=(None),\n",
            "    max_examples=int(\n        '5'),\n",
            "    note='é', inner=f(a=1, b=[2,\n3]) ,\n",
            ")\n",
            "def test_a(): pass\n",
        ))
        .unwrap();
        let Ex::Call(call) = &m.functions[0].decorators[0].value else {
            panic!("not a call")
        };
        let srcs: Vec<&str> = call.kwargs_src().collect();
        assert_eq!(
            srcs,
            ["None", "int(\n        '5')", "'é'", "f(a=1, b=[2,\n3])"]
        );
        let Ex::Call(inner) = &call.kwargs[3].1 else {
            panic!("not a call")
        };
        assert_eq!(inner.kwargs_src().collect::<Vec<_>>(), ["1", "[2,\n3]"]);
        assert_eq!(inner.args_src, "a=1, b=[2,\n3]");
    }

    #[test]
    fn dynamic_words_cover_what_the_walk_finds() {
        // Each snippet holds one of the words, and the walk finds a run-time binding in it.
        let cases = [
            "for n in range(2):\n    def test_x(): pass\n",
            "while n:\n    class TestX: pass\n",
            "globals()['test_x'] = f\n",
            "locals()['test_x'] = f\n",
            "vars().update(test_x=f)\n",
            "TestX = type('TestX', (), {})\n",
            "setattr(sys.modules[__name__], 'test_x', f)\n",
            "setattr(TestX, 'test_y', f)\n",
        ];
        for src in cases {
            assert!(may_bind_at_run_time(src), "{src}");
            let m = summarize(src).unwrap();
            assert!(
                !m.runtime_defs.is_empty() || !m.setattr_on.is_empty(),
                "nothing found in {src:?}"
            );
        }
        // Without any of the words (and all ASCII) the walk is skipped; with non-ASCII text it
        // is not (an identifier may normalize to one of them).
        assert!(!may_bind_at_run_time("def test_x():\n    assert 1\n"));
        assert!(may_bind_at_run_time("x = 'é'\n"));
    }

    #[test]
    fn mark_and_check_walks_skipped_only_where_they_find_nothing() {
        let f = only_fn("def test_a(file_regression):\n    file_regression.check('x')\n");
        assert_eq!(f.regression_checks.len(), 1);
        assert!(!f.mentions_mark);
        let f = only_fn("def deco(f):\n    return pytest.mark.slow(f)\n");
        assert!(f.mentions_mark);
        assert!(f.regression_checks.is_empty());
        // Nested past MAX_DEPTH: recorded as a check of any fixture, though no `check` is
        // written (fail closed).
        let mut src = String::from("def test_deep():\n");
        for level in 1..=MAX_DEPTH + 2 {
            src.push_str(&" ".repeat(4 * level));
            src.push_str("if x:\n");
        }
        src.push_str(&" ".repeat(4 * (MAX_DEPTH + 3)));
        src.push_str("pass\n");
        let f = only_fn(&src);
        assert_eq!(f.regression_checks.len(), 1);
        assert_eq!(f.regression_checks[0].value.fixture, ANY_FIXTURE);
    }

    #[test]
    fn loops_only_walk_finds_what_the_whole_walk_finds() {
        // Sources with a loop keyword and none of the call words: the walk of the module's
        // statements alone finds what the whole walk finds. Each `(source, found)`: how many
        // definitions in a loop there are.
        let cases = [
            (
                "for n in range(2):\n    def test_x(): pass\n    class TestY: pass\n",
                2,
            ),
            (
                "while n:\n    if x:\n        def test_a(): pass\nelse:\n    pass\n",
                1,
            ),
            (
                "def f():\n    for i in x:\n        def test_inner(): pass\n",
                0,
            ),
            (
                "class C:\n    for i in x:\n        def test_m(self): pass\n",
                0,
            ),
            (
                "with open(p) as f:\n    for line in f:\n        class TestZ: pass\n",
                1,
            ),
            (
                "try:\n    while 1:\n        def test_t(): pass\nexcept E:\n    pass\n",
                1,
            ),
            (
                "async def g():\n    async for i in x:\n        def test_h(): pass\n",
                0,
            ),
            ("x = [i for i in y]\ndef test_ok(): pass\n", 0),
            (
                "for i in x:\n    for j in y:\n        @deco\n        def test_n(): pass\n",
                1,
            ),
        ];
        for (src, found) in cases {
            let parsed = ruff_python_parser::parse_module(src).unwrap();
            assert_eq!(
                run_time_words(src, parsed.tokens()),
                RunTimeWords::Loops,
                "{src}"
            );
            let lines = Lines::new(src);
            let walk = |calls| {
                let mut d = Dynamic::at_module(&lines, calls);
                d.visit_body(&parsed.syntax().body);
                (d.out, d.setattr_on)
            };
            let loops_only = walk(false);
            assert_eq!(loops_only, walk(true), "{src}");
            assert_eq!(loops_only.0.len(), found, "{src}");
            assert_eq!(summarize(src).unwrap().runtime_defs, loops_only.0, "{src}");
        }
        let words = |src: &str| {
            let parsed = ruff_python_parser::parse_module(src).unwrap();
            run_time_words(src, parsed.tokens())
        };
        assert_eq!(words("def test_x(): pass\n"), RunTimeWords::None);
        // The words in comments, strings and longer names are not tokens of their own.
        assert_eq!(
            words("# for type\nx = 'while vars'\nformat = typed = 1\n"),
            RunTimeWords::None
        );
        assert_eq!(words("for x in type(y): pass\n"), RunTimeWords::Any);
        assert_eq!(words("type X = int\n"), RunTimeWords::Any);
        assert_eq!(words("x = [i for i in y]\n"), RunTimeWords::Loops);
        assert_eq!(words("x = f'{globals()}'\n"), RunTimeWords::Any);
        assert_eq!(words("# for\nz = 'ü'\n"), RunTimeWords::Any);
    }

    #[test]
    fn rebound_pairwise_and_hashed_agree() {
        // A few names bound twice among many bound once, below and above the pairwise limit.
        for n in [3, REBOUND_PAIRWISE - 2, REBOUND_PAIRWISE + 10] {
            let mut src = String::new();
            for k in 0..n {
                src.push_str(&format!("v{k} = 1\n"));
            }
            src.push_str("v1 = 2\ndef v2(): pass\n");
            let m = summarize(&src).unwrap();
            let names: Vec<(&str, u64)> = m
                .rebound
                .iter()
                .map(|b| (b.name.as_str(), b.line))
                .collect();
            let n = n as u64;
            assert_eq!(
                names,
                [("v1", 2), ("v2", 3), ("v1", n + 1), ("v2", n + 2)],
                "{n} bindings"
            );
        }
        // Nothing bound twice; only the last two bindings; a class body's.
        let lines =
            |bindings: &[Binding]| -> Vec<u64> { bindings.iter().map(|b| b.line).collect() };
        assert!(summarize("a = 1\nb = 2\n").unwrap().rebound.is_empty());
        assert_eq!(
            lines(&summarize("a = 1\nb = 2\nb = 3\n").unwrap().rebound),
            [2, 3]
        );
        let m = summarize("class C:\n    x = 1\n    y = 2\n    def y(self): pass\n").unwrap();
        assert_eq!(lines(&m.classes[0].rebound), [3, 4]);
    }

    #[test]
    fn a_class_body_binding_shadows_the_module_name_its_conditions_read() {
        let guard = |src: &str| {
            summarize(src).unwrap().classes[0].methods[0].guards[0]
                .0
                .clone()
        };
        let module = "FLAG = True\nclass C:\n    if FLAG:\n        def test_a(self): pass\n";
        assert!(
            matches!(guard(module), Cond::Ref { .. }),
            "{:?}",
            guard(module)
        );
        // Bound in the class body (before or after, plainly or under `try`): not followed.
        for bound in [
            "    FLAG = False\n",
            "    try:\n        FLAG = 1\n    except E:\n        pass\n",
        ] {
            let class = format!("class C:\n{bound}    if FLAG:\n        def test_a(self): pass\n");
            assert!(
                !matches!(guard(&class), Cond::Ref { .. }),
                "{bound}: {:?}",
                guard(&class)
            );
        }
    }

    /// What `keep_last_of_each` replaced: a search-and-remove before each push.
    fn keep_last_by_search(items: &[(CompactString, bool)]) -> Vec<(CompactString, bool)> {
        let mut out: Vec<(CompactString, bool)> = Vec::new();
        for item in items {
            if item.1 {
                out.retain(|earlier| earlier.0 != item.0);
            }
            out.push(item.clone());
        }
        out
    }

    proptest::proptest! {
        /// Both the pairwise path (16 items or fewer) and the set path (more) leave what a
        /// search before each push leaves, order included.
        #[test]
        fn keep_last_of_each_is_search_and_remove(
            items in proptest::collection::vec((0u8..6, proptest::bool::ANY), 0..60)
        ) {
            let mut items: Vec<(CompactString, bool)> = items
                .into_iter()
                .map(|(n, r)| (CompactString::new(format!("n{n}")), r))
                .collect();
            let want = keep_last_by_search(&items);
            keep_last_of_each(&mut items, |i| &i.0, |i| i.1);
            proptest::prop_assert_eq!(items, want);
        }
    }

    #[test]
    fn the_last_definition_of_a_name_wins_in_small_and_large_bodies() {
        for count in [3usize, 40] {
            let mut src = String::from("class C:\n");
            for i in 0..count {
                src.push_str(&format!("    def test_{i}(self): pass\n"));
            }
            // Under `if`, a second `test_0` is kept beside the first; a plain one replaces
            // both, and lands last.
            src.push_str("    if FLAG:\n        def test_1(self): pass\n");
            src.push_str("    def test_0(self): pass\n    class K: pass\n    class K: x = 1\n");
            src.push_str("a = 1\nb = 2\na = 3\n");
            let m = summarize(&src).unwrap();
            let class = &m.classes[0];
            let names: Vec<(&str, bool)> = class
                .methods
                .iter()
                .map(|f| (f.name.as_str(), f.guards.is_empty()))
                .collect();
            let mut want: Vec<(String, bool)> =
                (1..count).map(|i| (format!("test_{i}"), true)).collect();
            want.push(("test_1".into(), false));
            want.push(("test_0".into(), true));
            let want: Vec<(&str, bool)> = want.iter().map(|(n, g)| (n.as_str(), *g)).collect();
            assert_eq!(names, want, "{count} methods");
            assert_eq!(class.classes.len(), 1);
            assert_eq!(class.classes[0].line, u64::try_from(count + 6).unwrap());
            let assigns: Vec<(&str, u64)> = m
                .assigns
                .iter()
                .map(|(n, v)| (n.as_str(), v.line))
                .collect();
            let first = u64::try_from(count + 7).unwrap();
            assert_eq!(assigns, [("b", first + 1), ("a", first + 2)]);
            let defined: Vec<&str> = m.definitions.iter().map(|d| d.name.as_str()).collect();
            assert_eq!(defined, ["b", "a"]);
        }
    }

    proptest::proptest! {
        /// A module's name lookups give what a search of its lists from the end gives, below
        /// the map's threshold (searched) and above it (the map).
        #[test]
        fn name_lookups_find_the_last_binding(
            bindings in proptest::collection::vec((0u8..4, 0u8..9), 0..150)
        ) {
            let mut src = String::new();
            for (i, (kind, name)) in bindings.iter().enumerate() {
                src.push_str(&match kind {
                    0 => format!("class n{name}: pass\n"),
                    1 => format!("def n{name}(): pass\n"),
                    2 => format!("n{name} = {i}\n"),
                    _ => format!("from m{i} import n{name}\n"),
                });
            }
            let m = summarize(&src).unwrap();
            for name in (0..10).map(|n| format!("n{n}")) {
                let name = name.as_str();
                proptest::prop_assert_eq!(
                    m.class_named(name).map(|c| c.line),
                    m.classes.iter().rev().find(|c| c.name == name).map(|c| c.line)
                );
                proptest::prop_assert_eq!(
                    m.function_named(name).map(|f| f.line),
                    m.functions.iter().rev().find(|f| f.name == name).map(|f| f.line)
                );
                proptest::prop_assert_eq!(
                    m.assign_named(name).map(|v| v.line),
                    m.assigns.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.line)
                );
                proptest::prop_assert_eq!(
                    m.import_named(name).map(|(k, i)| (k, i.line)),
                    m.imports.iter().enumerate().rev().find(|(_, i)| i.binds == name).map(|(k, i)| (k, i.line))
                );
            }
        }
    }

    #[test]
    fn a_module_of_many_bindings_is_looked_up_through_its_map() {
        let mut src = String::from("class Base: pass\n");
        for i in 0..Module::SEARCH_MAX {
            src.push_str(&format!("def helper_{i}(): pass\n"));
        }
        src.push_str("class Base: x = 1\n");
        let m = summarize(&src).unwrap();
        assert!(m.by_name.is_some());
        assert_eq!(m.class_named("Base").map(|c| c.line), Some(66));
        assert_eq!(m.function_named("helper_3").map(|f| f.line), Some(5));
        assert!(m.function_named("Base").is_none());
        assert!(m.assign_named("helper_3").is_none());
        assert!(summarize("class Base: pass\n").unwrap().by_name.is_none());
    }

    #[test]
    fn dunder_all_is_read_the_same_short_or_long() {
        for count in [3usize, 100] {
            let names: Vec<String> = (0..count).map(|i| format!("'n{i}'")).collect();
            let m = summarize(&format!("__all__ = [{}, f()]\n", names.join(", "))).unwrap();
            assert_eq!(m.dunder_all.is_some(), count > Module::SEARCH_MAX);
            assert_eq!(m.dunder_all_lists("n0"), Some(true), "{count}");
            assert_eq!(m.dunder_all_lists(&format!("n{}", count - 1)), Some(true));
            assert_eq!(m.dunder_all_lists(&format!("n{count}")), Some(false));
            // The last binding wins: a later non-literal `__all__` is read as unknown.
            let later = summarize(&format!(
                "__all__ = ({},)\n__all__ = names()\n",
                names.join(", ")
            ))
            .unwrap();
            assert_eq!(later.dunder_all_lists("n0"), None);
        }
        assert_eq!(summarize("x = 1\n").unwrap().dunder_all_lists("x"), None);
    }
}
