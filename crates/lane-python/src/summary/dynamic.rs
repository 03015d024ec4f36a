//! Statements that bind names at run time ([`RuntimeDef`]): `type(...)`, writes to
//! `globals()`, definitions in a loop, `setattr` on a module or a class.

use super::*;

/// Where a statement runs: a module's, a class's or a function's body.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Scope {
    Module,
    Class,
    Function,
}

/// Every name and keyword [`Dynamic`] reacts to: a loop around a definition (`for`, `while`),
/// the namespace calls (`globals`, `locals`, `vars`), `type(...)` and `setattr(...)`. Keep it
/// in step with the visitor below: a module whose source holds none of them is not walked.
pub(super) const DYNAMIC_WORDS: [&str; 7] = [
    "for", "while", "globals", "locals", "vars", "type", "setattr",
];

/// Whether [`Dynamic`] can find anything in `source`: one of [`DYNAMIC_WORDS`] is one of its
/// tokens, or it is not all ASCII (an identifier may then normalize to one of them).
#[cfg(test)]
pub(super) fn may_bind_at_run_time(source: &str) -> bool {
    let parsed = ruff_python_parser::parse_module(source).expect("test source parses");
    run_time_words(source, parsed.tokens()) != RunTimeWords::None
}

/// Which of [`DYNAMIC_WORDS`] a module's tokens hold, as far as [`Dynamic`] cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RunTimeWords {
    None,
    /// Only the loop keywords (`for`, `while`): only a definition in a loop can be found.
    Loops,
    /// A call's name (or the source is not all ASCII: an identifier may then normalize to one).
    Any,
}

/// How many of [`DYNAMIC_WORDS`], from the start, are loop keywords.
pub(super) const LOOP_WORDS: usize = 2;

/// What [`Dynamic`] may find in `source`, from its `tokens`: every name in the syntax tree is
/// a name token or a soft keyword (`type`), every loop a `for` or `while` keyword. One pass
/// over the tokens rather than a search of the text for each word.
pub(super) fn run_time_words(source: &str, tokens: &[ast::token::Token]) -> RunTimeWords {
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
pub(super) struct Dynamic<'l> {
    pub(super) lines: &'l Lines,
    pub(super) scope: Scope,
    /// Loops around the statement at module level.
    pub(super) loops: usize,
    /// Inside the body of a function named `test*`: what it makes exists while the test
    /// runs, after collection (a class from `type(...)` there is a local value).
    pub(super) in_test: bool,
    pub(super) depth: usize,
    pub(super) out: Vec<Located<RuntimeDef>>,
    pub(super) setattr_on: Vec<Located<CompactString>>,
    /// Whether the source may hold the calls looked for (see [`RunTimeWords`]): when not, only
    /// loops around definitions can be found, and neither expressions nor the bodies of
    /// functions and classes (where nothing is a module-level loop's) are walked.
    pub(super) calls: bool,
}

impl<'l> Dynamic<'l> {
    /// A walk starting at a module's top level, nothing found yet.
    pub(super) fn at_module(lines: &'l Lines, calls: bool) -> Self {
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

    pub(super) fn push(&mut self, node: &impl Ranged, what: RuntimeDef) {
        let line = self.lines.line(node.start());
        self.out.push(Located { value: what, line });
    }

    /// `globals()` anywhere; `locals()` / `vars()` where they are a module's or class's
    /// namespace (in a function they are a copy).
    pub(super) fn namespace_call(&self, expr: &Expr) -> Option<&'static str> {
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

    pub(super) fn in_scope(&mut self, scope: Scope, f: impl FnOnce(&mut Self)) {
        let (outer, loops) = (self.scope, self.loops);
        self.scope = scope;
        self.loops = 0;
        f(self);
        self.scope = outer;
        self.loops = loops;
    }
}

/// Whether `expr` mentions `sys.modules`.
pub(super) fn mentions_sys_modules(expr: &Expr) -> bool {
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
