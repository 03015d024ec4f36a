//! The doctest items of one Python module, read statically.
//!
//! pytest's `DoctestModule` imports the module and hands it to the standard library's
//! `doctest.DocTestFinder`, which walks, depth first and skipping an object it has met before:
//! the module (its docstring, named `module.__name__`), then every routine or class in the
//! module's namespace (in insertion order) that is defined in that module, then the entries of
//! the module's `__test__` dict (`name.__test__.KEY`); in a class, its own namespace's routines,
//! nested classes and properties (a staticmethod or classmethod is its function), again only
//! those defined in the module. An object whose docstring holds at least one example becomes
//! one item, `path::module.Class.name`; the finder sorts them by name.
//!
//! This module reads the same namespaces from the source: definitions, aliases (`g = f` is the
//! object `f`, met already), imports (objects of other modules, never items), decorators that
//! keep the object (`staticmethod`, `classmethod`, `property` and its `setter`, `functools`
//! caches, `abc.abstractmethod`, `dataclasses.dataclass`, marks, ...). What it cannot know
//! statically is returned as [`Unsure`], naming the line: a decorator it does not know on an
//! object whose docstrings hold examples, a docstring set at run time (`__doc__ = ...`,
//! `setattr(x, "__doc__", ...)`), an object with examples bound under `if`/`try`/a loop, a
//! function or class made by a call from one with examples, a `__test__` entry it cannot
//! read, and a string with examples that is no docstring it can place (a nested function's,
//! a class made by `type(...)`).

use std::collections::{HashMap, HashSet};

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::{Ranged, TextSize};

use crate::parse::{Lines, SyntaxError, parse};

/// Whose docstring a docstring that may name an item's owner is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocOf {
    /// The item's own object.
    Item,
    /// A class around it.
    Class,
    /// The module.
    Module,
}

/// One doctest item of a module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocItem {
    /// The item's name: the module's name, then the dotted path of the object.
    pub name: String,
    /// The 1-based line of its docstring (of the `class` statement for a class, as pytest
    /// reports it; 1 for the module docstring).
    pub line: u64,
    /// The docstrings that may name the owner, innermost first: the object's own, those of
    /// the classes around it, the module's (with where each came from).
    pub owner_docs: Vec<(String, DocOf)>,
    /// Every example of the docstring carries `+SKIP`: pytest reports the item skipped.
    pub all_skipped: bool,
    /// The first and last line of the docstring (the test's text).
    pub doc_lines: (u64, u64),
}

/// Something that makes the module's items uncertain, at a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsure {
    pub line: u64,
    pub why: String,
}

/// What a module's source says about its doctest items.
#[derive(Debug, Default)]
pub struct Finding {
    /// Sorted by name, as DocTestFinder returns them.
    pub items: Vec<DocItem>,
    pub unsure: Vec<Unsure>,
}

/// What the examples of a docstring are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Examples {
    pub count: usize,
    pub skipped: usize,
}

/// The examples doctest's parser finds in `doc`: a `>>>` line (after tab expansion and
/// spaces) with its `...` continuation lines, whose source is not blank or a lone comment;
/// `skipped` counts those whose `doctest:` directive enables `+SKIP`.
pub fn examples(doc: &str) -> Examples {
    let mut out = Examples::default();
    if !doc.contains(">>>") {
        return out;
    }
    let expanded = expand_tabs(doc);
    let lines: Vec<&str> = expanded.split('\n').collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let indent = line.len() - line.trim_start_matches(' ').len();
        if !line[indent..].starts_with(">>>") {
            i += 1;
            continue;
        }
        let mut source: Vec<&str> = vec![tail(line, indent + 4)];
        i += 1;
        while i < lines.len() {
            let next = lines[i];
            let t = next.trim_start_matches(' ');
            if !t.starts_with("...") {
                break;
            }
            source.push(tail(next, indent + 4));
            i += 1;
        }
        let joined = source.join("\n");
        let blank_or_comment = !joined.contains('\n') && {
            let t = joined.trim_start_matches(' ');
            t.is_empty() || t.starts_with('#')
        };
        if blank_or_comment {
            continue;
        }
        out.count += 1;
        if skips(&joined) {
            out.skipped += 1;
        }
    }
    out
}

/// `line[from..]`, empty when the line is shorter (doctest's `sl[indent+4:]`).
fn tail(line: &str, from: usize) -> &str {
    line.get(from..).unwrap_or("")
}

/// A `# doctest: +SKIP` directive on the example's source (the last one given wins).
fn skips(source: &str) -> bool {
    let mut skip = false;
    for line in source.lines() {
        let Some(hash) = line.rfind('#') else {
            continue;
        };
        let comment = line[hash + 1..].trim_start();
        let Some(options) = comment.strip_prefix("doctest:") else {
            continue;
        };
        for option in options.split([',', ' ', '\t']).filter(|o| !o.is_empty()) {
            match option {
                "+SKIP" => skip = true,
                "-SKIP" => skip = false,
                _ => {}
            }
        }
    }
    skip
}

/// Python's `str.expandtabs()` (tab stops every 8 columns).
fn expand_tabs(text: &str) -> String {
    if !text.contains('\t') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut column = 0;
    for c in text.chars() {
        match c {
            '\t' => {
                let n = 8 - column % 8;
                out.extend(std::iter::repeat_n(' ', n));
                column += n;
            }
            '\n' | '\r' => {
                out.push(c);
                column = 0;
            }
            _ => {
                out.push(c);
                column += 1;
            }
        }
    }
    out
}

/// The docstring of a body: its first statement when that is a plain string literal.
fn docstring(body: &[Stmt]) -> Option<&ast::ExprStringLiteral> {
    match body.first() {
        Some(Stmt::Expr(e)) => match &*e.value {
            Expr::StringLiteral(s) => Some(s),
            _ => None,
        },
        _ => None,
    }
}

/// An object of a namespace, as far as DocTestFinder cares.
#[derive(Debug, Clone, Copy)]
enum Obj<'a> {
    /// A function defined here (a method, a staticmethod's or classmethod's function, or one
    /// behind a decorator that keeps it).
    Routine(&'a ast::StmtFunctionDef),
    /// A class defined here.
    Class(&'a ast::StmtClassDef),
    /// A property made here: its identity, and its docstring (the getter's, or `doc=`).
    Property {
        at: TextSize,
        doc: Option<&'a ast::ExprStringLiteral>,
    },
    /// Anything else: imported, a value, made at run time. Never an item.
    Other,
}

impl Obj<'_> {
    fn key(&self) -> Option<(u8, TextSize)> {
        match self {
            Obj::Routine(f) => Some((0, f.range.start())),
            Obj::Class(c) => Some((1, c.range.start())),
            Obj::Property { at, .. } => Some((2, *at)),
            Obj::Other => None,
        }
    }
}

/// A namespace in insertion order (a rebinding keeps the place, `del` gives it up).
#[derive(Debug, Default, Clone)]
struct Ns<'a> {
    entries: Vec<(String, Obj<'a>)>,
}

impl<'a> Ns<'a> {
    fn get(&self, name: &str) -> Option<Obj<'a>> {
        self.entries
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, o)| *o)
    }

    fn set(&mut self, name: &str, obj: Obj<'a>) {
        match self.entries.iter_mut().find(|(n, _)| n == name) {
            Some(entry) => entry.1 = obj,
            None => self.entries.push((name.to_string(), obj)),
        }
    }

    fn remove(&mut self, name: &str) {
        self.entries.retain(|(n, _)| n != name);
    }
}

/// A class's namespace and `__doc__`.
#[derive(Debug, Default)]
struct ClassInfo<'a> {
    ns: Ns<'a>,
    /// A `__doc__ = "..."` in the class body replaces the docstring.
    doc: Option<Option<&'a ast::ExprStringLiteral>>,
}

/// Decorators that return the object they are given, or one with the same docstring and
/// module (`functools.wraps` inside): the item stays under the same name.
const KEEPING: &[&str] = &[
    "abc.abstractmethod",
    "contextlib.asynccontextmanager",
    "contextlib.contextmanager",
    "dataclasses.dataclass",
    "enum.unique",
    "functools.cache",
    "functools.lru_cache",
    "functools.singledispatch",
    "functools.total_ordering",
    "typing.final",
    "typing.no_type_check",
    "typing.runtime_checkable",
    "typing_extensions.final",
    "typing_extensions.runtime_checkable",
];

/// Where the body being read sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Module,
    Class,
}

struct Reader<'a> {
    lines: lane_core::position::LineIndex,
    module_name: String,
    module_ns: Ns<'a>,
    /// Local name -> the dotted name it imports (`import functools as ft` -> `functools`).
    imports: HashMap<String, String>,
    classes: HashMap<TextSize, ClassInfo<'a>>,
    /// Start offsets of the string literals placed as docstrings (or `__test__` values).
    placed: HashSet<TextSize>,
    module_doc: Option<&'a ast::ExprStringLiteral>,
    /// `__test__` entries: key, value, line.
    test_dict: Vec<(String, Obj<'a>, Option<&'a ast::ExprStringLiteral>)>,
    /// `__test__` entries that name an object: their index, the name, the line.
    test_names: Vec<(usize, String, u64)>,
    /// The module's namespace while a class body at module level is read (class bodies see
    /// module names, not those of enclosing classes).
    module_ns_view: Ns<'a>,
    /// The `__doc__ = "..."` of the class body being read.
    class_doc_slot: Option<Option<&'a ast::ExprStringLiteral>>,
    unsure: Vec<Unsure>,
}

/// Parses `source` (BOM stripped) behind the nesting guard and reads the doctest items of the
/// module, whose `__name__` is `module_name`.
pub fn find(source: &str, module_name: &str) -> Result<Finding, SyntaxError> {
    let parsed = parse(source, &Lines::new(source))?;
    Ok(read(source, &parsed.syntax().body, module_name))
}

/// Reads `body` (a parsed module) whose `__name__` is `module_name`.
fn read(source: &str, body: &[Stmt], module_name: &str) -> Finding {
    let mut reader = Reader {
        lines: lane_core::position::LineIndex::universal(source.as_bytes()),
        module_name: module_name.to_string(),
        module_ns: Ns::default(),
        imports: HashMap::new(),
        classes: HashMap::new(),
        placed: HashSet::new(),
        module_doc: docstring(body),
        test_dict: Vec::new(),
        test_names: Vec::new(),
        module_ns_view: Ns::default(),
        class_doc_slot: None,
        unsure: Vec::new(),
    };
    if let Some(doc) = reader.module_doc {
        reader.placed.insert(doc.range.start());
    }
    let mut ns = Ns::default();
    reader.body(body, &mut ns, Scope::Module, None);
    reader.module_ns = ns;
    let mut items = reader.walk();
    reader.unplaced_examples(body);
    items.sort_by(|a, b| a.name.cmp(&b.name));
    let mut unsure = reader.unsure;
    unsure.sort_by(|a, b| (a.line, &a.why).cmp(&(b.line, &b.why)));
    unsure.dedup();
    Finding { items, unsure }
}

impl<'a> Reader<'a> {
    fn line(&self, node: &impl Ranged) -> u64 {
        self.lines.line(node.range().start().to_usize()) as u64
    }

    /// The first and last line of a string literal.
    fn span(&self, s: &ast::ExprStringLiteral) -> (u64, u64) {
        let end = s.range.end().to_usize().saturating_sub(1);
        (self.line(s), self.lines.line(end) as u64)
    }

    fn unsure(&mut self, line: u64, why: String) {
        self.unsure.push(Unsure { line, why });
    }

    /// Reads a body's bindings into `ns`. `cond`: the line of the `if`/`try`/loop the body
    /// sits under, when it may not run (or run more than once).
    fn body(&mut self, body: &'a [Stmt], ns: &mut Ns<'a>, scope: Scope, cond: Option<u64>) {
        for stmt in body {
            self.stmt(stmt, ns, scope, cond);
        }
    }

    fn stmt(&mut self, stmt: &'a Stmt, ns: &mut Ns<'a>, scope: Scope, cond: Option<u64>) {
        let line = self.line(stmt);
        match stmt {
            Stmt::FunctionDef(f) => {
                if let Some(doc) = docstring(&f.body) {
                    self.placed.insert(doc.range.start());
                }
                let obj = self.decorated_def(f, ns);
                self.bind(ns, f.name.as_str(), obj, line, cond);
            }
            Stmt::ClassDef(c) => self.class_def(c, ns, scope, cond, line),
            Stmt::Assign(a) => {
                for target in &a.targets {
                    self.assign(target, Some(&a.value), ns, scope, cond, line);
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(value) = &a.value {
                    self.assign(&a.target, Some(value), ns, scope, cond, line);
                }
            }
            Stmt::AugAssign(a) => self.assign(&a.target, None, ns, scope, cond, line),
            Stmt::TypeAlias(t) => self.assign(&t.name, None, ns, scope, cond, line),
            Stmt::Import(i) => self.import(i, ns, cond, line),
            Stmt::ImportFrom(i) => self.import_from(i, ns, cond, line),
            Stmt::Delete(d) => {
                for target in &d.targets {
                    if let Expr::Name(n) = target {
                        ns.remove(n.id.as_str());
                    }
                }
            }
            Stmt::If(s) => {
                let under = Some(line);
                self.body(&s.body, ns, scope, under);
                for clause in &s.elif_else_clauses {
                    self.body(&clause.body, ns, scope, under);
                }
            }
            Stmt::Try(t) => {
                let under = Some(line);
                self.body(&t.body, ns, scope, under);
                for handler in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = handler;
                    self.body(&h.body, ns, scope, under);
                }
                self.body(&t.orelse, ns, scope, under);
                self.body(&t.finalbody, ns, scope, under);
            }
            Stmt::For(f) => {
                self.assign(&f.target, None, ns, scope, Some(line), line);
                self.body(&f.body, ns, scope, Some(line));
                self.body(&f.orelse, ns, scope, Some(line));
            }
            Stmt::While(w) => {
                self.body(&w.body, ns, scope, Some(line));
                self.body(&w.orelse, ns, scope, Some(line));
            }
            Stmt::With(w) => {
                for item in &w.items {
                    if let Some(var) = &item.optional_vars {
                        self.assign(var, None, ns, scope, cond, line);
                    }
                }
                self.body(&w.body, ns, scope, cond);
            }
            Stmt::Match(m) => {
                for case in &m.cases {
                    self.body(&case.body, ns, scope, Some(line));
                }
            }
            _ => {}
        }
    }

    /// A class statement: its body read into a namespace of its own (its methods and nested
    /// classes), the class bound in `ns`.
    fn class_def(
        &mut self,
        c: &'a ast::StmtClassDef,
        ns: &mut Ns<'a>,
        scope: Scope,
        cond: Option<u64>,
        line: u64,
    ) {
        if let Some(doc) = docstring(&c.body) {
            self.placed.insert(doc.range.start());
        }
        let mut class_ns = Ns::default();
        let saved_doc = std::mem::take(&mut self.class_doc_slot);
        if scope == Scope::Module {
            self.module_ns_view = std::mem::take(ns);
        }
        self.body(&c.body, &mut class_ns, Scope::Class, cond);
        if scope == Scope::Module {
            *ns = std::mem::take(&mut self.module_ns_view);
        }
        let doc = std::mem::replace(&mut self.class_doc_slot, saved_doc);
        self.classes
            .insert(c.range.start(), ClassInfo { ns: class_ns, doc });
        let obj = self.decorated_class(c);
        self.bind(ns, c.name.as_str(), obj, line, cond);
    }

    /// `import a.b.c` / `import a.b as c`: an object of another module, never an item.
    fn import(&mut self, i: &ast::StmtImport, ns: &mut Ns<'a>, cond: Option<u64>, line: u64) {
        for alias in &i.names {
            let dotted = alias.name.as_str();
            let (local, target) = match &alias.asname {
                Some(asname) => (asname.as_str().to_string(), dotted.to_string()),
                None => {
                    let first = dotted.split('.').next().unwrap_or(dotted);
                    (first.to_string(), first.to_string())
                }
            };
            self.imports.insert(local.clone(), target);
            self.bind(ns, &local, Obj::Other, line, cond);
        }
    }

    /// `from m import x as y` (a star import binds nothing the finder can name).
    fn import_from(
        &mut self,
        i: &ast::StmtImportFrom,
        ns: &mut Ns<'a>,
        cond: Option<u64>,
        line: u64,
    ) {
        let module = i.module.as_ref().map_or("", |m| m.as_str());
        let prefix = ".".repeat(i.level as usize);
        for alias in &i.names {
            let name = alias.name.as_str();
            if name == "*" {
                continue;
            }
            let local = alias.asname.as_ref().map_or(name, |a| a.as_str());
            self.imports
                .insert(local.to_string(), format!("{prefix}{module}.{name}"));
            self.bind(ns, local, Obj::Other, line, cond);
        }
    }

    /// Binds `name` to `obj`; under a condition, says so when an object with examples is
    /// bound or replaced.
    fn bind(&mut self, ns: &mut Ns<'a>, name: &str, obj: Obj<'a>, line: u64, cond: Option<u64>) {
        if let Some(at) = cond {
            let before = ns.get(name);
            if self.has_examples(obj) || before.is_some_and(|b| self.has_examples(b)) {
                self.unsure(
                    line,
                    format!(
                        "`{name}` is bound under the statement at line {at} (if, try, a loop): \
                         whether pytest collects the docstring examples of what it names \
                         depends on run time"
                    ),
                );
            }
        }
        ns.set(name, obj);
    }

    /// An assignment to `target` (`value` when it is a plain `=`).
    fn assign(
        &mut self,
        target: &'a Expr,
        value: Option<&'a Expr>,
        ns: &mut Ns<'a>,
        scope: Scope,
        cond: Option<u64>,
        line: u64,
    ) {
        match target {
            Expr::Name(n) => {
                let name = n.id.as_str();
                if name == "__doc__" {
                    self.doc_assignment(value, scope, line);
                    return;
                }
                if name == "__test__" && scope == Scope::Module {
                    // Its entries are read (and their names resolved) as `__test__`'s.
                    self.test_dict(value, line);
                    self.bind(ns, name, Obj::Other, line, cond);
                    return;
                }
                let obj = match value {
                    Some(v) => self.value_of(v, ns, scope, name, line),
                    None => Obj::Other,
                };
                self.bind(ns, name, obj, line, cond);
            }
            Expr::Tuple(t) => {
                for e in &t.elts {
                    self.assign(e, None, ns, scope, cond, line);
                }
                if let Some(v) = value {
                    self.made_from(v, ns, "a tuple of names", line);
                }
            }
            Expr::List(l) => {
                for e in &l.elts {
                    self.assign(e, None, ns, scope, cond, line);
                }
            }
            Expr::Starred(s) => self.assign(&s.value, None, ns, scope, cond, line),
            // `x.__doc__ = ...` is reported by the walk over every statement.
            _ => {}
        }
    }

    /// `__doc__ = ...` in a module or class body: a string literal replaces the docstring,
    /// anything else is a docstring made at run time.
    fn doc_assignment(&mut self, value: Option<&'a Expr>, scope: Scope, line: u64) {
        match value {
            Some(Expr::StringLiteral(s)) => {
                self.placed.insert(s.range.start());
                match scope {
                    Scope::Module => self.module_doc = Some(s),
                    Scope::Class => self.class_doc_slot = Some(Some(s)),
                }
            }
            _ => self.unsure(
                line,
                "`__doc__` is assigned a value computed at run time: pytest collects the \
                 examples of the docstring it makes, which lane-scan cannot read"
                    .to_string(),
            ),
        }
    }

    /// The module's `__test__` dict: string keys, values that are strings or names.
    fn test_dict(&mut self, value: Option<&'a Expr>, line: u64) {
        let Some(Expr::Dict(dict)) = value else {
            self.unsure(
                line,
                "`__test__` is not a dict literal: pytest collects the examples of its \
                 entries, which lane-scan cannot read"
                    .to_string(),
            );
            return;
        };
        self.test_dict.clear();
        for item in &dict.items {
            let Some(Expr::StringLiteral(key)) = &item.key else {
                self.unsure(line, "a `__test__` key is not a string literal".to_string());
                continue;
            };
            let key = key.value.to_str().to_string();
            match &item.value {
                Expr::StringLiteral(s) => {
                    self.placed.insert(s.range.start());
                    self.test_dict.push((key, Obj::Other, Some(s)));
                }
                Expr::Name(n) => {
                    // Resolved when the walk reaches `__test__`, against the final bindings.
                    self.test_dict.push((key, Obj::Other, None));
                    self.test_names
                        .push((self.test_dict.len() - 1, n.id.to_string(), line));
                }
                _ => self.unsure(
                    line,
                    format!(
                        "`__test__[{key:?}]` is not a string literal or a name: lane-scan \
                         cannot read the examples pytest collects from it"
                    ),
                ),
            }
        }
    }

    /// What `value`, bound to `name`, is.
    fn value_of(
        &mut self,
        value: &'a Expr,
        ns: &Ns<'a>,
        scope: Scope,
        name: &str,
        line: u64,
    ) -> Obj<'a> {
        match value {
            Expr::Name(n) => self.lookup(n.id.as_str(), ns, scope),
            Expr::Call(call) => {
                let callee = self.qualified(&call.func);
                let first = call.arguments.args.first();
                match callee.as_deref() {
                    Some("staticmethod" | "classmethod") if scope == Scope::Class => {
                        if let Some(Expr::Name(n)) = first {
                            return self.lookup(n.id.as_str(), ns, scope);
                        }
                    }
                    Some("property") if scope == Scope::Class => {
                        return self.property_call(call, ns, scope, name, line);
                    }
                    _ => {}
                }
                self.made_from(value, ns, name, line);
                Obj::Other
            }
            _ => {
                self.made_from(value, ns, name, line);
                Obj::Other
            }
        }
    }

    /// `name = property(fget, ..., doc=...)` in a class body.
    fn property_call(
        &mut self,
        call: &'a ast::ExprCall,
        ns: &Ns<'a>,
        scope: Scope,
        name: &str,
        line: u64,
    ) -> Obj<'a> {
        let doc_kw = call
            .arguments
            .keywords
            .iter()
            .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "doc"));
        let doc = match (doc_kw.map(|k| &k.value), call.arguments.args.get(3)) {
            (Some(Expr::StringLiteral(s)), _) | (None, Some(Expr::StringLiteral(s))) => {
                self.placed.insert(s.range.start());
                Some(s)
            }
            (Some(Expr::NoneLiteral(_)), _) | (None, None | Some(Expr::NoneLiteral(_))) => {
                let getter = call.arguments.args.first().or_else(|| {
                    call.arguments
                        .keywords
                        .iter()
                        .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "fget"))
                        .map(|k| &k.value)
                });
                match getter {
                    None | Some(Expr::NoneLiteral(_)) => None,
                    Some(Expr::Name(n)) => match self.lookup(n.id.as_str(), ns, scope) {
                        Obj::Routine(f) => docstring(&f.body),
                        _ => return self.unknown_property(name, line),
                    },
                    Some(_) => return self.unknown_property(name, line),
                }
            }
            _ => return self.unknown_property(name, line),
        };
        Obj::Property {
            at: call.range().start(),
            doc,
        }
    }

    fn unknown_property(&mut self, name: &str, line: u64) -> Obj<'a> {
        self.unsure(
            line,
            format!(
                "property `{name}` takes its docstring from a getter or value lane-scan does not \
                 read: pytest collects its examples as an item"
            ),
        );
        Obj::Other
    }

    /// A name as a body sees it: its own namespace, then (in a class body) the module's.
    fn lookup(&self, name: &str, ns: &Ns<'a>, scope: Scope) -> Obj<'a> {
        ns.get(name)
            .or_else(|| match scope {
                Scope::Class => self.module_ns_view.get(name),
                Scope::Module => None,
            })
            .unwrap_or(Obj::Other)
    }

    /// An expression that may make a function or class at run time from objects with
    /// examples (`f2 = wrap(f)`): the result may be an item lane-scan cannot name.
    fn made_from(&mut self, value: &'a Expr, ns: &Ns<'a>, name: &str, line: u64) {
        let mut names = NameLoads::default();
        names.visit_expr(value);
        for used in names.found {
            let obj = ns
                .get(&used)
                .or_else(|| self.module_ns_view.get(&used))
                .unwrap_or(Obj::Other);
            if self.has_examples(obj) {
                self.unsure(
                    line,
                    format!(
                        "`{name}` is made at run time from `{used}`, whose docstrings hold \
                         examples: pytest may collect them again under `{name}`"
                    ),
                );
                return;
            }
        }
    }

    /// The dotted name an expression (a decorator, a callee) refers to, through imports.
    fn qualified(&self, expr: &Expr) -> Option<String> {
        match expr {
            Expr::Call(c) => self.qualified(&c.func),
            Expr::Name(n) => {
                let id = n.id.as_str();
                Some(
                    self.imports
                        .get(id)
                        .cloned()
                        .unwrap_or_else(|| id.to_string()),
                )
            }
            Expr::Attribute(a) => {
                let base = self.qualified(&a.value)?;
                Some(format!("{base}.{}", a.attr.as_str()))
            }
            _ => None,
        }
    }

    /// A `def` with its decorators applied.
    fn decorated_def(&mut self, f: &'a ast::StmtFunctionDef, ns: &Ns<'a>) -> Obj<'a> {
        let mut obj = Obj::Routine(f);
        for decorator in f.decorator_list.iter().rev() {
            let expr = &decorator.expression;
            let name = self.qualified(expr);
            let bare = name.as_deref().unwrap_or("");
            let builtin =
                |b: &str| bare == b && ns.get(b).is_none() && !self.imports.contains_key(b);
            if builtin("staticmethod") || builtin("classmethod") {
                continue;
            }
            if builtin("property") {
                obj = Obj::Property {
                    at: f.range.start(),
                    doc: docstring(&f.body),
                };
                continue;
            }
            // `@x.setter` / `.getter` / `.deleter` of a property of this body: a copy that
            // keeps the getter's docstring (a new getter brings its own).
            if let Expr::Attribute(a) = expr
                && let Expr::Name(base) = &*a.value
                && let Some(Obj::Property { doc, .. }) = ns.get(base.id.as_str())
                && matches!(a.attr.as_str(), "setter" | "getter" | "deleter")
            {
                let doc = if a.attr.as_str() == "getter" {
                    docstring(&f.body)
                } else {
                    doc
                };
                obj = Obj::Property {
                    at: f.range.start(),
                    doc,
                };
                continue;
            }
            if self.keeps(bare) {
                continue;
            }
            if self.has_examples(obj) {
                let what = format!("`{}`", f.name.as_str());
                self.unsure_decorator(decorator, name, &what, "it", "its");
            }
        }
        obj
    }

    /// A `class` with its decorators applied.
    fn decorated_class(&mut self, c: &'a ast::StmtClassDef) -> Obj<'a> {
        let obj = Obj::Class(c);
        for decorator in &c.decorator_list {
            let name = self.qualified(&decorator.expression);
            if self.keeps(name.as_deref().unwrap_or("")) {
                continue;
            }
            if self.has_examples(obj) {
                let what = format!("class `{}`", c.name.as_str());
                self.unsure_decorator(decorator, name, &what, "it or its methods", "their");
            }
        }
        obj
    }

    /// A decorator that may replace the object whose docstrings hold examples: unsure at its
    /// line (`name`: the decorator's qualified name, when it has one).
    fn unsure_decorator(
        &mut self,
        decorator: &ast::Decorator,
        name: Option<String>,
        what: &str,
        replaced: &str,
        whose: &str,
    ) {
        let shown = name.unwrap_or_else(|| "a decorator expression".to_string());
        let line = self.line(decorator);
        self.unsure(
            line,
            format!(
                "{what} is decorated with `{shown}`, which may replace {replaced}: pytest \
                 collects {whose} docstring examples only if what the decorator returns keeps \
                 them"
            ),
        );
    }

    /// Decorators known to keep the object (and its docstring and module).
    fn keeps(&self, qualified: &str) -> bool {
        KEEPING.contains(&qualified)
            || qualified.starts_with("pytest.mark.")
            || qualified.starts_with("_pytest.mark.")
    }

    /// The docstring DocTestFinder reads for `obj`.
    fn doc_of(&self, obj: Obj<'a>) -> Option<&'a ast::ExprStringLiteral> {
        match obj {
            Obj::Routine(f) => docstring(&f.body),
            Obj::Class(c) => match self.classes.get(&c.range.start()).and_then(|i| i.doc) {
                Some(over) => over,
                None => docstring(&c.body),
            },
            Obj::Property { doc, .. } => doc,
            Obj::Other => None,
        }
    }

    /// Whether `obj` or anything DocTestFinder would reach from it has examples.
    fn has_examples(&self, obj: Obj<'a>) -> bool {
        if self
            .doc_of(obj)
            .is_some_and(|d| examples(d.value.to_str()).count > 0)
        {
            return true;
        }
        if let Obj::Class(c) = obj
            && let Some(info) = self.classes.get(&c.range.start())
        {
            return info.ns.entries.iter().any(|(_, o)| self.has_examples(*o));
        }
        false
    }

    /// DocTestFinder's walk over the final namespaces.
    fn walk(&mut self) -> Vec<DocItem> {
        let mut items = Vec::new();
        let mut seen: HashSet<(u8, TextSize)> = HashSet::new();
        let module_name = self.module_name.clone();
        let module_docs: Vec<(String, DocOf)> = self
            .module_doc
            .map(|d| (d.value.to_str().to_string(), DocOf::Module))
            .into_iter()
            .collect();
        if let Some(doc) = self.module_doc {
            let ex = examples(doc.value.to_str());
            if ex.count > 0 {
                items.push(DocItem {
                    name: module_name.clone(),
                    line: 1,
                    owner_docs: module_docs.clone(),
                    all_skipped: ex.skipped == ex.count,
                    doc_lines: self.span(doc),
                });
            }
        }
        let entries = self.module_ns.entries.clone();
        for (name, obj) in entries {
            if matches!(obj, Obj::Routine(_) | Obj::Class(_)) {
                self.visit(
                    obj,
                    &format!("{module_name}.{name}"),
                    &module_docs,
                    &mut seen,
                    &mut items,
                );
            }
        }
        let names = std::mem::take(&mut self.test_names);
        for (index, name, line) in names {
            match self.module_ns.get(&name) {
                Some(obj @ (Obj::Routine(_) | Obj::Class(_))) => self.test_dict[index].1 = obj,
                _ => self.unsure(
                    line,
                    format!(
                        "`__test__` names `{name}`, which is not a function or class defined \
                         in this module: lane-scan cannot read the examples pytest collects \
                         from it"
                    ),
                ),
            }
        }
        let test_dict = self.test_dict.clone();
        for (key, obj, text) in test_dict {
            let name = format!("{module_name}.__test__.{key}");
            match text {
                Some(s) => {
                    let ex = examples(s.value.to_str());
                    if ex.count > 0 {
                        let mut docs = vec![(s.value.to_str().to_string(), DocOf::Item)];
                        docs.extend(module_docs.iter().cloned());
                        items.push(DocItem {
                            name,
                            line: self.line(s),
                            owner_docs: docs,
                            all_skipped: ex.skipped == ex.count,
                            doc_lines: self.span(s),
                        });
                    }
                }
                None => self.visit(obj, &name, &module_docs, &mut seen, &mut items),
            }
        }
        items
    }

    fn visit(
        &self,
        obj: Obj<'a>,
        name: &str,
        outer: &[(String, DocOf)],
        seen: &mut HashSet<(u8, TextSize)>,
        items: &mut Vec<DocItem>,
    ) {
        let Some(key) = obj.key() else { return };
        if !seen.insert(key) {
            return;
        }
        let doc = self.doc_of(obj);
        let mut docs: Vec<(String, DocOf)> = Vec::new();
        if let Some(d) = doc {
            let from = match obj {
                Obj::Class(_) => DocOf::Class,
                _ => DocOf::Item,
            };
            docs.push((d.value.to_str().to_string(), from));
        }
        docs.extend(outer.iter().cloned());
        if let Some(d) = doc {
            let ex = examples(d.value.to_str());
            if ex.count > 0 {
                let line = match obj {
                    Obj::Class(c) => self.line(&c.name),
                    _ => self.line(d),
                };
                items.push(DocItem {
                    name: name.to_string(),
                    line,
                    owner_docs: docs.clone(),
                    all_skipped: ex.skipped == ex.count,
                    doc_lines: self.span(d),
                });
            }
        }
        if let Obj::Class(c) = obj
            && let Some(info) = self.classes.get(&c.range.start())
        {
            for (member, value) in &info.ns.entries {
                if !matches!(value, Obj::Other) {
                    self.visit(*value, &format!("{name}.{member}"), &docs, seen, items);
                }
            }
        }
    }

    /// Every string literal with examples that is no placed docstring, and every docstring
    /// set at run time (`x.__doc__ = ...`, `setattr(x, "__doc__", ...)`, a `__doc__` key).
    fn unplaced_examples(&mut self, body: &'a [Stmt]) {
        let mut walk = Everything {
            placed: &self.placed,
            lines: &self.lines,
            found: Vec::new(),
        };
        for stmt in body {
            walk.visit_stmt(stmt);
        }
        let found = walk.found;
        self.unsure.extend(found);
    }
}

/// Names loaded in an expression, not counting those only used for an attribute
/// (`f.__name__`).
#[derive(Default)]
struct NameLoads {
    found: Vec<String>,
}

impl<'b> Visitor<'b> for NameLoads {
    fn visit_expr(&mut self, expr: &'b Expr) {
        match expr {
            Expr::Name(n) => self.found.push(n.id.to_string()),
            Expr::Attribute(_) => {}
            // A lambda's body runs later, and its own docstring is none.
            Expr::Lambda(_) => {}
            _ => visitor::walk_expr(self, expr),
        }
    }
}

/// The walk over every statement for [`Reader::unplaced_examples`].
struct Everything<'r> {
    placed: &'r HashSet<TextSize>,
    lines: &'r lane_core::position::LineIndex,
    found: Vec<Unsure>,
}

impl Everything<'_> {
    fn line(&self, node: &impl Ranged) -> u64 {
        self.lines.line(node.range().start().to_usize()) as u64
    }

    fn doc_store(&mut self, target: &Expr) {
        if let Expr::Attribute(a) = target
            && a.attr.as_str() == "__doc__"
        {
            self.found.push(Unsure {
                line: self.line(target),
                why: "a `__doc__` is assigned at run time: pytest collects the examples of the \
                      docstring it makes, which lane-scan cannot read"
                    .to_string(),
            });
        }
    }
}

impl<'b> Visitor<'b> for Everything<'_> {
    fn visit_stmt(&mut self, stmt: &'b Stmt) {
        match stmt {
            Stmt::Assign(a) => a.targets.iter().for_each(|t| self.doc_store(t)),
            Stmt::AugAssign(a) => self.doc_store(&a.target),
            Stmt::AnnAssign(a) => self.doc_store(&a.target),
            _ => {}
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'b Expr) {
        match expr {
            Expr::StringLiteral(s)
                if !self.placed.contains(&s.range.start())
                    && examples(s.value.to_str()).count > 0 =>
            {
                self.found.push(Unsure {
                    line: self.line(s),
                    why: "a string with doctest examples is not a docstring lane-scan can \
                          place (a nested function's, or one set at run time): pytest may \
                          collect its examples as an item"
                        .to_string(),
                });
            }
            Expr::Call(c) => {
                let is_setattr = matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "setattr");
                if is_setattr
                    && let Some(Expr::StringLiteral(attr)) = c.arguments.args.get(1)
                    && attr.value.to_str() == "__doc__"
                {
                    self.found.push(Unsure {
                        line: self.line(c),
                        why: "`setattr(..., \"__doc__\", ...)` sets a docstring at run time: \
                              pytest collects its examples, which lane-scan cannot read"
                            .to_string(),
                    });
                }
            }
            Expr::Dict(d) => {
                for item in &d.items {
                    if let Some(Expr::StringLiteral(k)) = &item.key
                        && k.value.to_str() == "__doc__"
                    {
                        self.found.push(Unsure {
                            line: self.line(k),
                            why: "a `__doc__` key makes a docstring at run time (a class made \
                                  by `type(...)`): pytest collects its examples, which \
                                  lane-scan cannot read"
                                .to_string(),
                        });
                    }
                }
            }
            _ => {}
        }
        visitor::walk_expr(self, expr);
    }
}
