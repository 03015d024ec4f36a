//! What a product module's code reaches for, as facts for lane-scan's `test-aware-code`: the
//! modules it imports (by statement or by call), the keys it looks up in a `modules` mapping,
//! the strings it tests membership of, its string literals, the attributes and imported names
//! it reads, and the files it writes, each with the lines it spans; and what the code in a
//! string literal it hands to `exec`, `eval` or `compile` reaches for, read the same way. Which
//! of these mean that code knows it is under test is the rule's to say; nothing here judges.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, CmpOp, Expr, Stmt};
use ruff_text_size::{Ranged, TextSize};

/// Expressions nest at most this deep in what the walk reads (the parser bounds brackets; this
/// bounds the rest, e.g. long operator chains).
const MAX_DEPTH: usize = 200;

/// How many names deep the literals a written path is built from are followed.
const LITERAL_NAMES_DEPTH: usize = 4;

/// How many strings deep code run by `exec`, `eval` or `compile` is read (code in a string that
/// itself runs a string, and so on): a bound on work, not a place a reader could hide past
/// (every such call is a `capability-added` use for a maintainer to read).
const EXEC_DEPTH: usize = 4;

/// How many assignments a name is followed through to the code runner it is bound to
/// (`a = exec; b = a; b(...)` is two).
const ALIAS_DEPTH: usize = 4;

/// The builtins that run a string as code.
const CODE_RUNNERS: [&str; 3] = ["exec", "eval", "compile"];

/// A name handed to `exec`, `eval` or `compile` is followed to the string literals it is bound
/// to when it has at most this many bindings (each literal is read once however many calls run
/// it; the bound keeps calls times bindings small).
const EXEC_NAME_BINDINGS: usize = 16;

/// One thing the code reaches for, and where: the first and last line of the construct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reach {
    pub first: u64,
    pub last: u64,
    pub what: Reached,
}

/// What a construct reaches for. Dotted names are as the module's import aliases expand them
/// (`a.register` with `import atexit as a`: `atexit.register`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reached {
    /// `import M`, `from M import ...` (absolute), or a call that imports by name:
    /// `__import__("M")`, `importlib.import_module("M")`, `importlib.util.find_spec("M")`,
    /// `pkgutil.find_loader("M")`, `importlib.find_loader("M")`.
    Import(String),
    /// `X.modules["K"]`, or `X.modules.get("K")` (`pop`, `setdefault`, `__contains__`,
    /// `__getitem__`): a string key looked up in something whose dotted name ends in `modules`.
    ModulesLookup(String),
    /// `"S" in X` or `"S" not in X`: the string, and X's dotted name when it has one.
    Membership {
        needle: String,
        container: Option<String>,
    },
    /// A string literal (a bare string statement, such as a docstring, is none).
    Str(String),
    /// An attribute read: its name, and the dotted name of the whole when it has one.
    Attribute {
        name: String,
        qualified: Option<String>,
    },
    /// A bare name bound by an import, as the dotted name it imports.
    ImportedName(String),
    /// A call that writes a file: how (`open for writing`, `os.open for writing`, the
    /// function's dotted name, `.write_text()` ...), and the string literals the written path
    /// is built from (through the module's names, a few deep), each with its line.
    Write {
        how: String,
        literals: Vec<(String, u64)>,
    },
    /// Code in a string that `exec`, `eval` or `compile` runs, the string a literal written in
    /// the call or one a name handed to it is bound to (`src = "..."; exec(src)`): what that
    /// code reaches for, on the string's own lines. One per literal and way of reading it (a
    /// statement, or `eval`'s expression); the Reach's lines are the first call's.
    Exec {
        /// The function that runs it, builtin: `exec`, `eval` or `compile`.
        func: String,
        /// The literal's first and last line.
        literal: (u64, u64),
        /// The first and last line of every call that runs it.
        calls: Vec<(u64, u64)>,
        reached: Vec<Reach>,
    },
}

/// What `source` reaches for, in the order the constructs are met; `Err(line)` when it does
/// not parse.
pub fn reaches(source: &str) -> Result<Vec<Reach>, u64> {
    reaches_in(source, false, EXEC_DEPTH, None)
}

/// What `source` reaches for: a module, or with `expression` one expression (what `eval`
/// reads); strings it runs are read `exec_depth` deep. `outer`: the names of the code that runs
/// `source` with `exec`, when it does.
fn reaches_in<'o>(
    source: &str,
    expression: bool,
    exec_depth: usize,
    outer: Option<&'o Names<'o>>,
) -> Result<Vec<Reach>, u64> {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    // eval drops the spaces and tabs its string starts with (no line goes with them).
    let source = if expression {
        source.trim_start_matches([' ', '\t'])
    } else {
        source
    };
    let starts: Vec<usize> = std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', source.as_bytes()).map(|i| i + 1))
        .collect();
    let line_of = |at: usize| -> u64 { (starts.partition_point(|&s| s <= at)) as u64 };
    if let Some(offset) = crate::parse::too_deep(source) {
        return Err(line_of(offset));
    }
    let not_parsed = |e: ruff_python_parser::ParseError| line_of(e.location.start().to_usize());
    let line_of = |at: TextSize| line_of(at.to_usize());
    let mut names = Names {
        outer,
        ..Names::default()
    };
    if expression {
        let parsed = ruff_python_parser::parse_expression(source).map_err(not_parsed)?;
        let body = &*parsed.syntax().body;
        names.visit_expr(body);
        let mut walk = Walk::new(&names, &line_of, exec_depth);
        walk.visit_expr(body);
        Ok(walk.found)
    } else {
        let parsed = ruff_python_parser::parse_module(source).map_err(not_parsed)?;
        let body = &parsed.syntax().body;
        names.visit_body(body);
        let mut walk = Walk::new(&names, &line_of, exec_depth);
        walk.visit_body(body);
        Ok(walk.found)
    }
}

/// Whether a setup.py's source holds a string literal starting (after spaces) with `group`:
/// the entry point group its `setup(entry_points=...)` declares, in any spelling. False when
/// it does not parse.
pub fn names_entry_point_group(setup_py: &str, group: &str) -> bool {
    let source = setup_py.strip_prefix('\u{feff}').unwrap_or(setup_py);
    let Ok(parsed) = crate::parse::parse(source, &crate::parse::Lines::new(source)) else {
        return false;
    };
    let mut finder = StartsWith {
        prefix: group,
        found: false,
    };
    finder.visit_body(&parsed.syntax().body);
    finder.found
}

/// Finds a string literal starting with `prefix`.
struct StartsWith<'p> {
    prefix: &'p str,
    found: bool,
}

impl<'a> Visitor<'a> for StartsWith<'_> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::StringLiteral(s) = expr
            && s.value.to_str().trim_start().starts_with(self.prefix)
        {
            self.found = true;
        }
        visitor::walk_expr(self, expr);
    }
}

/// Import aliases and simple assignments anywhere in a module (a name bound in several places
/// keeps every value: a reader takes any of them).
#[derive(Default)]
struct Names<'a> {
    /// Local name to the dotted name it imports (`import atexit as a`: a -> atexit;
    /// `from atexit import register`: register -> atexit.register).
    imports: HashMap<String, String>,
    values: HashMap<String, Vec<&'a Expr>>,
    /// Every name bound other than by an import, anywhere in the module (functions, classes,
    /// parameters, assignment and loop targets): such a name is not the builtin it may shadow.
    bound: HashSet<String>,
    /// For code in a string that `exec` runs: the names of the code that runs it, whose
    /// namespace it runs in (a name the string does not bind is that code's import or binding).
    /// Values stay the string's own: the outer code's literals lie on the outer code's lines.
    outer: Option<&'a Names<'a>>,
}

impl<'a> Names<'a> {
    /// The dotted name `name` imports, here or, unbound here, in the code that runs this.
    fn import(&self, name: &str) -> Option<&str> {
        if let Some(imported) = self.imports.get(name) {
            return Some(imported);
        }
        if self.bound.contains(name) {
            return None;
        }
        self.outer?.import(name)
    }

    /// Whether `name` is bound other than by an import, here or, unbound here, in the code
    /// that runs this.
    fn is_bound(&self, name: &str) -> bool {
        self.bound.contains(name)
            || (!self.imports.contains_key(name) && self.outer.is_some_and(|o| o.is_bound(name)))
    }
}

impl<'a> Visitor<'a> for Names<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Import(i) => {
                for a in &i.names {
                    let full = a.name.as_str();
                    match &a.asname {
                        Some(as_) => {
                            self.imports.insert(as_.to_string(), full.to_string());
                        }
                        None => {
                            let top = full.split('.').next().unwrap_or(full);
                            self.imports.insert(top.to_string(), top.to_string());
                        }
                    }
                }
            }
            Stmt::ImportFrom(i) if i.level == 0 => {
                if let Some(m) = &i.module {
                    for a in &i.names {
                        let local = a.asname.as_ref().unwrap_or(&a.name);
                        self.imports
                            .insert(local.to_string(), format!("{m}.{}", a.name.as_str()));
                    }
                }
            }
            Stmt::Assign(a) => {
                for t in &a.targets {
                    if let Expr::Name(n) = t {
                        self.values
                            .entry(n.id.to_string())
                            .or_default()
                            .push(&a.value);
                    }
                }
            }
            Stmt::AnnAssign(a) => {
                if let (Expr::Name(n), Some(v)) = (&*a.target, &a.value) {
                    self.values.entry(n.id.to_string()).or_default().push(v);
                }
            }
            Stmt::FunctionDef(f) => {
                self.bound.insert(f.name.to_string());
            }
            Stmt::ClassDef(c) => {
                self.bound.insert(c.name.to_string());
            }
            _ => {}
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Name(n) = expr
            && n.ctx == ast::ExprContext::Store
        {
            self.bound.insert(n.id.to_string());
        }
        visitor::walk_expr(self, expr);
    }

    fn visit_parameter(&mut self, parameter: &'a ast::Parameter) {
        self.bound.insert(parameter.name.to_string());
        visitor::walk_parameter(self, parameter);
    }
}

/// The walk over a module that records what it reaches for.
struct Walk<'n, 'a, 'l> {
    names: &'n Names<'a>,
    line_of: &'l dyn Fn(TextSize) -> u64,
    found: Vec<Reach>,
    depth: usize,
    /// How many strings deeper code run by `exec`, `eval` or `compile` is read.
    exec_depth: usize,
    /// The string literals already read as run code, by (offset, read as an expression): the
    /// index of their [`Reached::Exec`] in `found`, which a later call running one joins (None:
    /// its code reaches for nothing, or does not parse). Each literal is read once.
    runs: HashMap<(TextSize, bool), Option<usize>>,
}

fn str_value(expr: &Expr) -> Option<String> {
    match expr {
        Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
        _ => None,
    }
}

/// The text of a string or UTF-8 bytes literal (both run as code).
fn code_text(expr: &Expr) -> Option<Cow<'_, str>> {
    match expr {
        Expr::StringLiteral(s) => Some(Cow::Borrowed(s.value.to_str())),
        Expr::BytesLiteral(b) => String::from_utf8(Cow::<[u8]>::from(&b.value).into_owned())
            .ok()
            .map(Cow::Owned),
        _ => None,
    }
}

/// The value of a call's keyword argument `name`.
fn keyword<'c>(call: &'c ast::ExprCall, name: &str) -> Option<&'c Expr> {
    call.arguments
        .keywords
        .iter()
        .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == name))
        .map(|k| &k.value)
}

impl<'n, 'a, 'l> Walk<'n, 'a, 'l> {
    fn new(names: &'n Names<'a>, line_of: &'l dyn Fn(TextSize) -> u64, exec_depth: usize) -> Self {
        Walk {
            names,
            line_of,
            found: Vec::new(),
            depth: 0,
            exec_depth,
            runs: HashMap::new(),
        }
    }

    fn push(&mut self, node: &impl Ranged, what: Reached) {
        self.found.push(Reach {
            first: (self.line_of)(node.start()),
            last: (self.line_of)(node.end()),
            what,
        });
    }

    /// The dotted name `expr` refers to, through import aliases (`a.register` with
    /// `import atexit as a`: atexit.register).
    fn qualified(&self, expr: &Expr) -> Option<String> {
        match expr {
            Expr::Name(n) => Some(
                self.names
                    .import(n.id.as_str())
                    .map_or_else(|| n.id.to_string(), str::to_string),
            ),
            Expr::Attribute(a) => {
                Some(format!("{}.{}", self.qualified(&a.value)?, a.attr.as_str()))
            }
            _ => None,
        }
    }

    /// The string literals `expr` is built from, through names bound in the module (at most
    /// `depth` names deep), with their lines.
    fn literals(
        &self,
        expr: &Expr,
        depth: usize,
        seen: &mut HashSet<String>,
        out: &mut Vec<(String, u64)>,
    ) {
        struct Lits<'j, 'x, 'n, 'a, 'l> {
            walk: &'j Walk<'n, 'a, 'l>,
            depth: usize,
            seen: &'x mut HashSet<String>,
            out: &'x mut Vec<(String, u64)>,
        }
        impl<'e> Visitor<'e> for Lits<'_, '_, '_, '_, '_> {
            fn visit_expr(&mut self, expr: &'e Expr) {
                match expr {
                    Expr::StringLiteral(s) => self
                        .out
                        .push((s.value.to_str().to_string(), (self.walk.line_of)(s.start()))),
                    Expr::Name(n) if self.depth > 0 && self.seen.insert(n.id.to_string()) => {
                        if let Some(values) = self.walk.names.values.get(n.id.as_str()) {
                            for v in values {
                                self.walk.literals(v, self.depth - 1, self.seen, self.out);
                            }
                        }
                    }
                    _ => visitor::walk_expr(self, expr),
                }
            }
            fn visit_interpolated_string_element(
                &mut self,
                element: &'e ast::InterpolatedStringElement,
            ) {
                if let ast::InterpolatedStringElement::Literal(l) = element {
                    self.out
                        .push((l.value.to_string(), (self.walk.line_of)(l.start())));
                }
                visitor::walk_interpolated_string_element(self, element);
            }
        }
        let mut lits = Lits {
            walk: self,
            depth,
            seen,
            out,
        };
        lits.visit_expr(expr);
    }

    /// A write of `call` to `target`, with the literals the target's path is built from.
    fn write(&mut self, call: &ast::ExprCall, target: &Expr, how: &str) {
        let mut literals = Vec::new();
        self.literals(
            target,
            LITERAL_NAMES_DEPTH,
            &mut HashSet::new(),
            &mut literals,
        );
        self.push(
            call,
            Reached::Write {
                how: how.to_string(),
                literals,
            },
        );
    }

    fn call(&mut self, call: &ast::ExprCall) {
        let args = &call.arguments;
        let func = self.qualified(&call.func);
        let func = func.as_deref().unwrap_or("");
        let first = args.args.first();
        // Imports by call.
        if matches!(
            func,
            "__import__"
                | "importlib.import_module"
                | "importlib.util.find_spec"
                | "pkgutil.find_loader"
                | "importlib.find_loader"
        ) && let Some(m) = first.and_then(str_value)
        {
            self.push(call, Reached::Import(m));
        }
        // sys.modules.get("pytest") and the like.
        if let Expr::Attribute(a) = &*call.func
            && matches!(
                a.attr.as_str(),
                "get" | "pop" | "setdefault" | "__contains__" | "__getitem__"
            )
            && self
                .qualified(&a.value)
                .is_some_and(|q| q.ends_with("modules"))
            && let Some(m) = first.and_then(str_value)
        {
            self.push(call, Reached::ModulesLookup(m));
        }
        self.writes(call, func);
        self.runs_code(call);
    }

    /// The builtin `call` runs code with (`exec`, `eval` or `compile`, through the module's
    /// imports as everywhere: `from builtins import exec as run`, `builtins.exec`), and whether
    /// it reads its string as one expression (`eval`, `compile(..., "eval")`). None for any
    /// other call, and for a bare name the module binds itself: its own `exec` is not the
    /// builtin.
    fn code_runner(&self, call: &ast::ExprCall) -> Option<(&'static str, bool)> {
        let name = self.runner_name(&call.func, ALIAS_DEPTH)?;
        match name.as_str() {
            "exec" => Some(("exec", false)),
            "eval" => Some(("eval", true)),
            "compile" => {
                let mode = call.arguments.args.get(2).or_else(|| keyword(call, "mode"));
                Some((
                    "compile",
                    mode.and_then(str_value).as_deref() == Some("eval"),
                ))
            }
            _ => None,
        }
    }

    /// The builtin `func` names when it is one of the code runners: the builtin's own name
    /// unbound, `builtins.NAME`, or a name bound to one of those (`run = exec`), through at most
    /// `depth` such assignments (a name bound in several places: any of its values).
    fn runner_name(&self, func: &Expr, depth: usize) -> Option<String> {
        match func {
            Expr::Name(n) if self.names.import(n.id.as_str()).is_none() => {
                if !self.names.is_bound(n.id.as_str()) {
                    return Some(n.id.to_string());
                }
                if depth == 0 {
                    return None;
                }
                self.names
                    .values
                    .get(n.id.as_str())?
                    .iter()
                    .find_map(|value| {
                        self.runner_name(value, depth - 1)
                            .filter(|name| CODE_RUNNERS.contains(&name.as_str()))
                    })
            }
            func => Some(self.qualified(func)?.strip_prefix("builtins.")?.to_string()),
        }
    }

    /// The code `call` runs from a string literal, written in the call or bound to the name it
    /// hands over (any of its bindings, as for written paths), read as the module is,
    /// [`EXEC_DEPTH`] strings deep. Only literals (implicitly joined ones included): nothing
    /// here folds a string built at run time (`"import " + "pytest"`, an f-string), so such a
    /// string is not read, and stays what every call of `exec` is, a `capability-added` use for
    /// a maintainer to read. A string that does not parse reaches for nothing: running it
    /// fails.
    fn runs_code(&mut self, call: &ast::ExprCall) {
        if self.exec_depth == 0 {
            return;
        }
        let Some((func, expression)) = self.code_runner(call) else {
            return;
        };
        let Some(source) = call
            .arguments
            .args
            .first()
            .or_else(|| keyword(call, "source"))
        else {
            return;
        };
        let names = self.names;
        let literals: Vec<&Expr> = match source {
            Expr::Name(n) if names.import(n.id.as_str()).is_none() => names
                .values
                .get(n.id.as_str())
                .filter(|v| v.len() <= EXEC_NAME_BINDINGS)
                .cloned()
                .unwrap_or_default(),
            other => vec![other],
        };
        let lines = |node: &dyn Ranged| ((self.line_of)(node.start()), (self.line_of)(node.end()));
        let call_lines = lines(call);
        for literal in literals {
            let key = (literal.start(), expression);
            if let Some(known) = self.runs.get(&key) {
                if let Some(Reach {
                    what: Reached::Exec { calls, .. },
                    ..
                }) = known.and_then(|i| self.found.get_mut(i))
                {
                    calls.push(call_lines);
                }
                continue;
            }
            let reached = code_text(literal)
                .and_then(|text| {
                    reaches_in(&text, expression, self.exec_depth - 1, Some(names)).ok()
                })
                .filter(|reached| !reached.is_empty());
            let Some(reached) = reached else {
                self.runs.insert(key, None);
                continue;
            };
            self.runs.insert(key, Some(self.found.len()));
            let what = Reached::Exec {
                func: func.to_string(),
                literal: lines(literal),
                calls: vec![call_lines],
                reached,
            };
            self.push(call, what);
        }
    }

    /// The file writes of `call` (to function `func`, its dotted name or empty).
    fn writes(&mut self, call: &ast::ExprCall, func: &str) {
        let args = &call.arguments;
        let first = args.args.first();
        let kw = |name: &str| {
            args.keywords
                .iter()
                .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == name))
                .map(|k| &k.value)
        };
        let write_mode = |mode: Option<&Expr>| -> bool {
            mode.and_then(str_value)
                .is_some_and(|m| m.contains(['w', 'a', 'x', '+']))
        };
        match func {
            "open" | "io.open" | "codecs.open" | "builtins.open" => {
                if write_mode(args.args.get(1).or_else(|| kw("mode")))
                    && let Some(target) = first.or_else(|| kw("file"))
                {
                    self.write(call, target, "open for writing");
                }
            }
            "os.open" => {
                let mut flags = Vec::new();
                if let Some(f) = args.args.get(1) {
                    literal_attrs(f, &mut flags);
                }
                if flags.iter().any(|f| {
                    matches!(
                        f.as_str(),
                        "O_WRONLY" | "O_RDWR" | "O_CREAT" | "O_TRUNC" | "O_APPEND"
                    )
                }) && let Some(target) = first
                {
                    self.write(call, target, "os.open for writing");
                }
            }
            "shutil.copy" | "shutil.copy2" | "shutil.copyfile" | "shutil.move" | "os.replace"
            | "os.rename" => {
                if let Some(target) = args.args.get(1).or_else(|| kw("dst")) {
                    self.write(call, target, func);
                }
            }
            "os.remove" | "os.unlink" | "shutil.rmtree" | "os.utime" | "os.truncate" => {
                if let Some(target) = first {
                    self.write(call, target, func);
                }
            }
            _ => {}
        }
        if let Expr::Attribute(a) = &*call.func {
            let attr = a.attr.as_str();
            let is_write = matches!(attr, "write_text" | "write_bytes" | "touch" | "unlink")
                || (attr == "open" && write_mode(first.or_else(|| kw("mode"))));
            if is_write && !func.starts_with("os.") {
                self.write(call, &a.value, &format!(".{attr}()"));
            }
        }
    }

    /// `"S" in X` / `"S" not in X` in a comparison (each such operator of a chain).
    fn memberships(&mut self, expr: &Expr, c: &ast::ExprCompare) {
        let operands: Vec<&Expr> = std::iter::once(&*c.left)
            .chain(c.comparators.iter())
            .collect();
        for (i, op) in c.ops.iter().enumerate() {
            if matches!(op, CmpOp::In | CmpOp::NotIn)
                && let Some(needle) = str_value(operands[i])
            {
                let container = self.qualified(operands[i + 1]);
                self.push(expr, Reached::Membership { needle, container });
            }
        }
    }
}

/// The attribute names in an expression (`os.O_WRONLY | os.O_CREAT`: O_WRONLY, O_CREAT).
fn literal_attrs(expr: &Expr, out: &mut Vec<String>) {
    match expr {
        Expr::Attribute(a) => out.push(a.attr.to_string()),
        Expr::Name(n) => out.push(n.id.to_string()),
        Expr::BinOp(b) => {
            literal_attrs(&b.left, out);
            literal_attrs(&b.right, out);
        }
        _ => {}
    }
}

impl<'a> Visitor<'a> for Walk<'_, '_, '_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            // A docstring (or any bare string statement) only documents.
            Stmt::Expr(e) if matches!(&*e.value, Expr::StringLiteral(_)) => return,
            Stmt::Import(i) => {
                for a in &i.names {
                    self.push(stmt, Reached::Import(a.name.to_string()));
                }
            }
            Stmt::ImportFrom(i) if i.level == 0 => {
                if let Some(m) = &i.module {
                    // `from atexit import register`: its uses are read as atexit.register.
                    self.push(stmt, Reached::Import(m.to_string()));
                }
            }
            _ => {}
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth > MAX_DEPTH {
            return;
        }
        match expr {
            Expr::StringLiteral(s) => {
                self.push(expr, Reached::Str(s.value.to_str().to_string()));
            }
            Expr::Attribute(a) => {
                let what = Reached::Attribute {
                    name: a.attr.to_string(),
                    qualified: self.qualified(expr),
                };
                self.push(expr, what);
            }
            Expr::Name(n) => {
                if let Some(imported) = self.names.import(n.id.as_str()) {
                    let what = Reached::ImportedName(imported.to_string());
                    self.push(expr, what);
                }
            }
            Expr::Compare(c) => self.memberships(expr, c),
            Expr::Subscript(s) => {
                if self
                    .qualified(&s.value)
                    .is_some_and(|q| q.ends_with("modules"))
                    && let Some(key) = str_value(&s.slice)
                {
                    self.push(expr, Reached::ModulesLookup(key));
                }
            }
            Expr::Call(c) => self.call(c),
            _ => {}
        }
        self.depth += 1;
        visitor::walk_expr(self, expr);
        self.depth -= 1;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn reached(source: &str) -> Vec<(u64, Reached)> {
        reaches(source)
            .unwrap()
            .into_iter()
            .map(|r| (r.first, r.what))
            .collect()
    }

    #[test]
    fn imports_by_statement_and_by_call_are_read_with_their_aliases() {
        let found = reached(
            "import os.path as p\nfrom atexit import register\nimportlib.import_module('x')\n\
             register(f)\n",
        );
        assert!(found.contains(&(1, Reached::Import("os.path".into()))));
        assert!(found.contains(&(2, Reached::Import("atexit".into()))));
        assert!(found.contains(&(3, Reached::Import("x".into()))));
        assert!(found.contains(&(4, Reached::ImportedName("atexit.register".into()))));
    }

    #[test]
    fn lookups_memberships_and_writes_carry_what_they_name() {
        let found = reached(
            "import sys\nOUT = 'tests/out'\nsys.modules['k']\n'm' in sys.modules\n\
             open(OUT + '/x', 'w')\n\"\"\"doc\"\"\"\n",
        );
        assert!(found.contains(&(3, Reached::ModulesLookup("k".into()))));
        assert!(found.contains(&(
            4,
            Reached::Membership {
                needle: "m".into(),
                container: Some("sys.modules".into())
            }
        )));
        assert!(found.contains(&(
            5,
            Reached::Write {
                how: "open for writing".into(),
                literals: vec![("tests/out".into(), 2), ("/x".into(), 5)],
            }
        )));
        assert!(!found.contains(&(6, Reached::Str("doc".into()))));
    }

    #[test]
    fn a_source_that_does_not_parse_names_its_line() {
        assert_eq!(reaches("x = 1\ndef (:\n"), Err(2));
        let deep = format!("x = {}1{}\n", "(".repeat(300), ")".repeat(300));
        assert_eq!(reaches(&deep), Err(1));
    }

    #[test]
    fn setup_py_entry_point_groups_are_found_in_any_literal() {
        assert!(names_entry_point_group(
            "setup(entry_points={'pytest11': ['x = y']})",
            "pytest11"
        ));
        assert!(names_entry_point_group(
            "setup(entry_points=['  pytest11 = a'])",
            "pytest11"
        ));
        assert!(!names_entry_point_group(
            "setup(name='pytest-x')",
            "pytest11"
        ));
        assert!(!names_entry_point_group("setup(", "pytest11"));
    }

    /// The lines of a run string literal, of the calls that run it, and what its code reaches
    /// for (at its lines).
    type Run = ((u64, u64), Vec<(u64, u64)>, Vec<(u64, Reached)>);

    /// The one string `source` runs.
    fn run(source: &str) -> Run {
        let runs: Vec<Reach> = reaches(source)
            .unwrap()
            .into_iter()
            .filter(|r| matches!(r.what, Reached::Exec { .. }))
            .collect();
        let [
            Reach {
                what:
                    Reached::Exec {
                        literal,
                        calls,
                        reached,
                        ..
                    },
                ..
            },
        ] = &runs[..]
        else {
            panic!("{source}: {runs:?}");
        };
        let reached = reached.iter().map(|r| (r.first, r.what.clone())).collect();
        (*literal, calls.clone(), reached)
    }

    #[test]
    fn a_string_run_as_code_is_read_once_in_the_namespace_that_runs_it() {
        // The string sees the module's imports (exec runs it in the module's globals).
        let (literal, calls, reached) =
            run("from sys import modules as m\nS = '''\nx = 1\nm['k']\n'''\nexec(S)\nexec(S)\n");
        assert_eq!(literal, (2, 5));
        assert_eq!(calls, [(6, 6), (7, 7)]);
        assert!(reached.contains(&(3, Reached::ModulesLookup("k".into()))));
        // A name the string binds itself is its own.
        let (_, _, reached) = run("import os as p\nexec('p = 1\\np.environ')\n");
        assert!(reached.contains(&(
            2,
            Reached::Attribute {
                name: "environ".into(),
                qualified: Some("p.environ".into())
            }
        )));
    }

    /// `import M` in `levels` strings, each run by the one around it: how many strings deep
    /// the reading went, and whether it found the import.
    fn nested(levels: usize) -> (usize, bool) {
        let mut code = "import m".to_string();
        for _ in 0..levels {
            code = format!("exec({code:?})");
        }
        let mut reached = reaches(&code).unwrap();
        let mut depth = 0;
        while let Some(Reach {
            what: Reached::Exec { reached: inner, .. },
            ..
        }) = reached
            .iter()
            .find(|r| matches!(r.what, Reached::Exec { .. }))
        {
            reached = inner.clone();
            depth += 1;
        }
        let found = reached
            .iter()
            .any(|r| r.what == Reached::Import("m".into()));
        (depth, found)
    }

    #[test]
    fn strings_are_read_a_bounded_number_deep() {
        assert_eq!(nested(1), (1, true));
        assert_eq!(nested(EXEC_DEPTH), (EXEC_DEPTH, true));
        assert_eq!(nested(EXEC_DEPTH + 1), (EXEC_DEPTH, false));
    }

    #[test]
    fn a_name_bound_to_a_code_runner_runs_code_too() {
        for source in [
            "run = exec\nrun('import k')\n",
            "import builtins\nrun = builtins.exec\nrun('import k')\n",
            "a = exec\nb = a\nb('import k')\n",
            "run = print\nrun = exec\nrun('import k')\n",
        ] {
            let reached = reaches(source).unwrap();
            let inner = reached.iter().find_map(|r| match &r.what {
                Reached::Exec { reached, .. } => Some(reached.clone()),
                _ => None,
            });
            assert!(
                inner.is_some_and(|i| i.iter().any(|r| r.what == Reached::Import("k".into()))),
                "{source}: {reached:?}"
            );
        }
    }

    #[test]
    fn only_the_builtins_run_code() {
        for source in [
            "def f(exec):\n    exec('import k')\n",
            "class C:\n    pass\nexec = C\nexec('import k')\n",
            "for eval in []:\n    pass\neval('k')\n",
            "import mylib\nmylib.exec('import k')\n",
            "run = print\nrun('import k')\n",
            "import mylib\nrun = mylib.exec\nrun('import k')\n",
            "exec(f'import k')\n",
            "exec('import ' + 'k')\n",
        ] {
            assert!(
                !reaches(source)
                    .unwrap()
                    .iter()
                    .any(|r| matches!(r.what, Reached::Exec { .. })),
                "{source}"
            );
        }
    }
}
