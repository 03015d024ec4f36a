//! A function's summary: its decorators, docstring, parameters, the calls its body makes that
//! matter to a test (`assume`, `check`, `snapshot_dir`), and what its assertions can do.

use super::*;

/// Finds `X.mark` or a bare `mark` anywhere in a body.
pub(super) struct MentionsMark(pub(super) bool);

/// A function body yields (`yield`, `yield from`) in its own scope: nested functions, lambdas
/// and classes are theirs.
pub(super) fn yields(body: &[Stmt]) -> bool {
    let mut v = Yields(false);
    v.visit_body(body);
    v.0
}

pub(super) struct Yields(pub(super) bool);

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
pub(super) struct RegressionChecks {
    pub(super) found: Vec<(TextSize, RegressionCheck)>,
    pub(super) depth: usize,
}

/// Where pytest-regressions' `check` methods take `basename` and `fullpath` positionally.
pub(super) fn regression_positions(fixture: &str) -> (usize, usize) {
    match fixture {
        "file_regression" => (4, 5),
        "image_regression" => (3, 4),
        // data_, num_, dataframe_ and ndarrays_regression.
        _ => (1, 2),
    }
}

pub(super) fn file_arg(e: &Expr) -> Option<FileArg> {
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

/// The calls of names and dotted names anywhere in a body, each once (see
/// [`Function::calls`]). Statements nested deeper than [`MAX_DEPTH`] are not read: their
/// calls are missed, and a test that counts on them is judged as if it made none.
pub(super) struct CallsMade<'s, 'src> {
    pub(super) summarizer: &'s Summarizer<'src>,
    pub(super) found: Vec<Ex>,
    pub(super) depth: usize,
}

impl<'a> Visitor<'a> for CallsMade<'_, '_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.depth > MAX_DEPTH {
            return;
        }
        self.depth += 1;
        ruff_python_ast::visitor::walk_stmt(self, stmt);
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(call) = expr
            && matches!(&*call.func, Expr::Name(_) | Expr::Attribute(_))
        {
            let func = self.summarizer.ex(&call.func, 0);
            if matches!(func, Ex::Name(_) | Ex::Dotted(_)) && !self.found.contains(&func) {
                self.found.push(func);
            }
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

/// The last name of a call's function (`assume` for `hypothesis.assume(...)`).
/// `Some((F, k))` when every `return` of `body` (outside nested definitions) is `return
/// F(p)` with `p` the function's parameter `k` and one `F` for all of them.
pub(super) fn returns_call_of_param(
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

impl Summarizer<'_> {
    pub(super) fn function(&self, f: &ast::StmtFunctionDef) -> Function {
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
        // Only a body that asserts nothing needs them: a helper it calls may.
        let calls = if asserts.asserts == 0 && asserts.checks == 0 {
            let mut made = CallsMade {
                summarizer: self,
                found: Vec::new(),
                depth: 0,
            };
            made.visit_body(&f.body);
            made.found
        } else {
            Vec::new()
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
            calls,
        }
    }

    /// `NAME.check(...)` calls anywhere in a test's body (nested functions included: a
    /// helper defined in the test that calls the fixture names its files too).
    pub(super) fn regression_checks(&self, body: &[Stmt]) -> Vec<Located<RegressionCheck>> {
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
    pub(super) fn snapshot_dirs(
        &self,
        body: &[Stmt],
    ) -> Vec<Located<(CompactString, Option<CompactString>)>> {
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
}
