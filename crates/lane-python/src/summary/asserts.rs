//! What the assertions of a test body can do: how many there are, which cannot fail, which
//! checks stand in for them (`pytest.raises`, `self.assert*`), and the facts of what may catch
//! a failed one ([`Guarded`]): the `try` and `with suppress(...)` around it, an `or` operand
//! that is always true.

use super::*;

/// What a walk over a test body gathers.
#[derive(Default)]
pub(super) struct Walk<'a> {
    pub(super) asserts: Asserts,
    pub(super) assumes: Vec<Located<Ex>>,
    /// Names the function body binds (assignments, loop and `with` targets): a reflexive
    /// comparison of one of these is a tautology; of a parameter or a module-level name it
    /// tests that object's `__eq__`.
    pub(super) locals: Locals<'a>,
    /// How many `try` and `with suppress(...)` bodies the walk is in.
    pub(super) catchers: u32,
}

impl Walk<'_> {
    pub(super) fn guarded(&mut self) -> &mut Guarded {
        self.asserts.guarded.get_or_insert_with(Box::default)
    }

    /// Walks the body of a `try` or `with suppress(...)` (`body`); when it holds assertions,
    /// records it as a [`Catcher`] made `by` what catches.
    pub(super) fn catching(&mut self, body: impl FnOnce(&mut Self), by: impl FnOnce() -> CatchBy) {
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
pub(super) struct Locals<'a> {
    pub(super) body: &'a [Stmt],
    pub(super) names: std::cell::OnceCell<Vec<CompactString>>,
}

impl<'a> Locals<'a> {
    pub(super) fn of(body: &'a [Stmt]) -> Self {
        Locals {
            body,
            names: std::cell::OnceCell::new(),
        }
    }

    pub(super) fn contains(&self, name: &str) -> bool {
        let names = self.names.get_or_init(|| {
            let mut stored = StoredNames::default();
            stored.visit_body(self.body);
            stored.0
        });
        names.iter().any(|l| l == name)
    }

    /// The name or dotted name every binding of `name` in the body calls (`u = URL(...)`,
    /// `u: URL = yarl.URL(...)`), when there is one and only such bindings; None when any
    /// binding is something else (a loop target, a walrus, an unpacking, another call).
    pub(super) fn built_by(&self, name: &str) -> Option<CompactString> {
        let mut walk = BuiltBy {
            name,
            stores: 0,
            calls: Vec::new(),
            depth: 0,
            too_deep: false,
        };
        walk.visit_body(self.body);
        let first = walk.calls.first()?.as_ref()?;
        let same = walk.calls.iter().all(|c| c.as_ref() == Some(first));
        (same && walk.calls.len() == walk.stores && !walk.too_deep).then(|| first.clone())
    }
}

/// What [`Locals::built_by`] counts: every binding of `name` in Store context, and for each
/// plain assignment to it alone, the name called (None: not a call of a name).
struct BuiltBy<'n> {
    name: &'n str,
    stores: usize,
    calls: Vec<Option<CompactString>>,
    /// How deep the statements walked nest; past [`MAX_DEPTH`] the walk stops (`too_deep`)
    /// and answers nothing.
    depth: usize,
    too_deep: bool,
}

impl<'a> Visitor<'a> for BuiltBy<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.depth > MAX_DEPTH {
            self.too_deep = true;
            return;
        }
        let assigned = match stmt {
            Stmt::Assign(a) => match &a.targets[..] {
                [target] => Some((target, Some(&*a.value))),
                _ => None,
            },
            Stmt::AnnAssign(a) => Some((&*a.target, a.value.as_deref())),
            _ => None,
        };
        if let Some((Expr::Name(n), value)) = assigned
            && n.id.as_str() == self.name
        {
            let called = match value {
                Some(Expr::Call(c)) => name_called(&c.func, 0),
                _ => None,
            };
            self.calls.push(called);
        }
        self.depth += 1;
        ruff_python_ast::visitor::walk_stmt(self, stmt);
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Name(n) = expr
            && n.ctx == ast::ExprContext::Store
            && n.id.as_str() == self.name
        {
            self.stores += 1;
        }
        // Expression nesting is bounded by the parser's bracket limit.
        ruff_python_ast::visitor::walk_expr(self, expr);
    }
}

/// `f` or `a.b.f` as written, when every part is a plain name.
fn name_called(func: &Expr, depth: usize) -> Option<CompactString> {
    if depth > MAX_DEPTH {
        return None;
    }
    match func {
        Expr::Name(n) => Some(CompactString::new(n.id.as_str())),
        Expr::Attribute(a) => {
            let mut base = name_called(&a.value, depth + 1)?;
            base.push('.');
            base.push_str(a.attr.as_str());
            Some(base)
        }
        _ => None,
    }
}

/// `raise AssertionError`, `raise AssertionError(...)` (`builtins.AssertionError` too): a
/// check that fails the test.
fn raises_assertion_error(raise: &ast::StmtRaise) -> bool {
    let exc = match raise.exc.as_deref() {
        Some(Expr::Call(c)) => &*c.func,
        Some(other) => other,
        None => return false,
    };
    match exc {
        Expr::Name(n) => n.id.as_str() == "AssertionError",
        Expr::Attribute(a) => {
            a.attr.as_str() == "AssertionError"
                && matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "builtins")
        }
        _ => false,
    }
}

/// The names a body binds in Store context.
#[derive(Default)]
pub(super) struct StoredNames(pub(super) Vec<CompactString>);

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

pub(super) fn call_name(call: &ast::ExprCall) -> Option<&str> {
    match &*call.func {
        Expr::Name(n) => Some(n.id.as_str()),
        Expr::Attribute(a) => Some(a.attr.as_str()),
        _ => None,
    }
}

/// The last names of the exception types `expr` names (`AssertionError`,
/// `builtins.Exception` as `Exception`, each of a tuple) into `out`.
pub(super) fn exception_names(expr: &Expr, out: &mut Vec<CompactString>, depth: usize) {
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
pub(super) fn handler(h: &ast::ExceptHandler) -> Handler {
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
pub(super) fn handler_body(body: &[Stmt], out: &mut HandlerBody, depth: usize) {
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
pub(super) fn or_cannot_fail(test: &Expr, locals: &Locals) -> bool {
    match test {
        Expr::BoolOp(b) if b.op == ast::BoolOp::Or => {
            b.values.iter().any(|v| cannot_fail(v, locals))
        }
        _ => false,
    }
}

/// An assertion that passes whatever the code does: a truthy constant, or a comparison of an
/// expression with itself by `==`, `is`, `<=` or `>=`.
pub(super) fn cannot_fail(test: &Expr, locals: &Locals) -> bool {
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

impl Summarizer<'_> {
    /// Counts the assertions of `body` into `walk`, with the facts of what may keep their
    /// failure from failing the test ([`Guarded`]).
    pub(super) fn scan_asserts(&self, body: &[Stmt], walk: &mut Walk<'_>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for stmt in body {
            match stmt {
                Stmt::Assert(a) => self.assertion(stmt, &a.test, walk),
                Stmt::Raise(r) if raises_assertion_error(r) => walk.asserts.checks += 1,
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
    pub(super) fn assertion(&self, stmt: &Stmt, test: &Expr, walk: &mut Walk<'_>) {
        let place = walk.asserts.asserts;
        walk.asserts.asserts += 1;
        if cannot_fail(test, &walk.locals) {
            walk.asserts.tautologies += 1;
            walk.asserts
                .first_tautology
                .get_or_insert(self.line_of(stmt));
            // `x == x` of a name the body bound (a literal's comparison is not one).
            if let Expr::Compare(c) = test
                && let Expr::Name(n) = &*c.left
                && let Some(built_by) = walk.locals.built_by(n.id.as_str())
                // A class the body binds itself is not the project's.
                && !built_by
                    .split('.')
                    .next()
                    .is_some_and(|first| walk.locals.contains(first))
            {
                walk.asserts.self_compared.push(SelfCompared {
                    line: self.line_of(stmt),
                    built_by,
                });
            }
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

    pub(super) fn count_check_call(&self, expr: &Expr, out: &mut Asserts) {
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
}
