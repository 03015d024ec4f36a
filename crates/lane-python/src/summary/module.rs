//! A module's and a class's statements: imports, assignments, classes and functions with the
//! `if` conditions they are defined under, module-level calls, definitions for a property's
//! domain, and the PEP 263 coding cookie.

use super::*;

/// Source text longer than this is recorded as its size and fingerprint.
pub(super) const DEFINITION_TEXT_MAX: usize = 512;

/// The names an expression or body reads, sorted and unique.
#[derive(Default)]
pub(super) struct ReadNames(pub(super) Vec<CompactString>);

impl<'a> Visitor<'a> for ReadNames {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Name(n) = expr {
            self.0.push(CompactString::new(n.id.as_str()));
        }
        ruff_python_ast::visitor::walk_expr(self, expr);
    }
}

/// The encoding a PEP 263 cookie declares on line 1, or on line 2 after a comment or blank
/// line 1: `# -*- coding: NAME -*-`, `# vim: set fileencoding=NAME :`.
pub(super) fn coding_cookie(source: &str) -> Option<Located<CompactString>> {
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
pub(super) fn cookie_name(comment: &str) -> Option<&str> {
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

impl Summarizer<'_> {
    /// Visits the body of each branch of `i` with `guards` extended by what must hold for that
    /// branch to run: its own condition true (none for `else`) and every earlier one false.
    pub(super) fn if_branches<'s>(
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
    pub(super) fn cond(&self, expr: &Expr, shadow: &[CompactString]) -> Cond {
        crate::cond::cond(expr, 0, self.lines, shadow)
    }

    pub(super) fn module(&self, body: &[Stmt]) -> Module {
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

    /// Module-level statements, including those inside `if` / `try` blocks at module level
    /// (pytest collects a test defined under `if sys.version_info >= ...`). Functions and
    /// classes under `if` keep the conditions (`guards`) they are defined under: the collector
    /// decides them for the target interpreter.
    pub(super) fn module_stmts(
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
                Stmt::Import(imp) => self.import(imp, self.line_of(stmt), m),
                Stmt::ImportFrom(imp) => self.import_from(imp, self.line_of(stmt), m),
                Stmt::Assign(assign) => {
                    for target in &assign.targets {
                        self.module_assign(m, target, &assign.value);
                        self.pytestmark_bound(
                            &mut m.pytestmark_bindings,
                            target,
                            &assign.value,
                            guards,
                        );
                    }
                }
                Stmt::AnnAssign(assign) => {
                    if let Some(value) = &assign.value {
                        self.module_assign(m, &assign.target, value);
                        self.pytestmark_bound(
                            &mut m.pytestmark_bindings,
                            &assign.target,
                            value,
                            guards,
                        );
                    }
                }
                Stmt::FunctionDef(f) => {
                    let mut function = self.function(f);
                    function.guards = guards.clone();
                    m.functions.push(function);
                    // A test function is never a strategy: no definition kept for it.
                    if !f.name.as_str().starts_with("test") {
                        self.define_function(m, stmt, f);
                    }
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

    /// `import a.b.c` / `import a.b as c` at `line`.
    fn import(&self, imp: &ast::StmtImport, line: u64, m: &mut Module) {
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
                line,
            });
        }
    }

    /// `from m import x` / `from . import x as y` at `line`.
    fn import_from(&self, imp: &ast::StmtImportFrom, line: u64, m: &mut Module) {
        let module = imp
            .module
            .as_ref()
            .map(|i| CompactString::new(i.as_str()))
            .unwrap_or_default();
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

    /// The definition of function `f` (statement `stmt`) for a property's domain: its size
    /// and a fingerprint of its source, and the names it reads.
    fn define_function(&self, m: &mut Module, stmt: &Stmt, f: &ast::StmtFunctionDef) {
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

    /// Records `name`'s definition (replacing an earlier one: the last binding wins).
    pub(super) fn define(
        &self,
        m: &mut Module,
        name: &str,
        text: &str,
        mut names: Vec<CompactString>,
    ) {
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

    /// Adds `pytestmark = value` under `guards` to `bindings` (a module's or a class body's),
    /// in order, beside the last binding (`pytestmark`), so that the collector can decide
    /// which one holds for the target interpreter.
    fn pytestmark_bound(
        &self,
        bindings: &mut Vec<(Located<Ex>, Guards)>,
        target: &Expr,
        value: &Expr,
        guards: &[(Cond, bool)],
    ) {
        if let Expr::Name(n) = target
            && n.id.as_str() == "pytestmark"
        {
            bindings.push((
                Located {
                    value: self.ex(value, 0),
                    line: self.line_of(target),
                },
                guards.to_vec(),
            ));
        }
    }

    pub(super) fn module_assign(&self, m: &mut Module, target: &Expr, value: &Expr) {
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

    pub(super) fn class(&self, c: &ast::StmtClassDef) -> Class {
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
            pytestmark_bindings: Vec::new(),
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
        // condition is not followed to the module's binding.
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
    /// under `if sys.version_info ...` are the class's as much as at module level).
    /// Methods under `if` keep the conditions (`guards`) they are defined under: the collector
    /// decides them for the target interpreter.
    pub(super) fn class_stmts(
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
                        self.pytestmark_bound(
                            &mut class.pytestmark_bindings,
                            target,
                            &assign.value,
                            guards,
                        );
                    }
                }
                Stmt::AnnAssign(assign) => {
                    if let Some(value) = &assign.value {
                        self.class_assign(class, &assign.target, value);
                        self.pytestmark_bound(
                            &mut class.pytestmark_bindings,
                            &assign.target,
                            value,
                            guards,
                        );
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

    pub(super) fn class_assign(&self, class: &mut Class, target: &Expr, value: &Expr) {
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
}
