//! What a product module does beyond plain computation, as facts for lane-scan's
//! `capability-added`: each use of something the table of plain uses ([`table`]) does not
//! list, with its class, the function it sits in and the lines it spans. Plain is defined
//! positively: calls of what the module or project defines or of a callable the function
//! received, the listed standard library, operations on values, attribute writes on `self`,
//! `cls` and objects the function created, and definitions with `__init__`, `__new__`,
//! `__repr__`, `__str__` and `__post_init__`. Names are followed through imports, aliases at
//! module level and inside functions, star imports and assignments. Which uses matter (the
//! lines a patch changed, third-party modules the base already imports) is the rule's to say.

mod table;

use std::collections::HashMap;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};
use ruff_text_size::{Ranged, TextSize};

use table::Verdict;

/// Expressions nest at most this deep in what the walk reads.
const MAX_DEPTH: usize = 200;

/// How many aliases deep a name is followed to the dotted name it stands for.
const ALIAS_DEPTH: usize = 8;

/// The classes of capability, each a row of the catalogue's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Frames, code, tracebacks, generators, imports, class internals, private attributes of
    /// objects the module does not define.
    Introspection,
    /// exec, eval, compile, imports by name, classes built at run time, computed attribute
    /// names, metaclasses, redefined attribute access.
    DynamicCode,
    /// Writes to objects the function did not create and the module does not define
    /// (monkeypatching, import caches, process-wide settings), imports of test machinery.
    ReachingOut,
    /// global/nonlocal rebinding, module-level objects changed from a function, function
    /// attributes, class-level mutable state.
    State,
    /// Environment variables, the interpreter's state, the working directory, the file system
    /// as a source, the hash of strings, high-resolution clocks, thread introspection.
    Environment,
    /// Processes, threads, signals, exit, descriptors, file writes and reads.
    Effects,
    /// A class that defines (or assigns) equality, ordering, truthiness, hashing, length,
    /// operators, exception suppression: what a test's own checks call.
    Protocol,
    /// ctypes, cffi, mmap.
    Native,
    /// A standard-library name the table of plain uses does not list.
    Unlisted,
    /// A name bound nowhere the scan can see.
    Unresolved,
}

impl Class {
    /// The class as the catalogue and the verdict name it.
    pub fn name(self) -> &'static str {
        match self {
            Class::Introspection => "introspection",
            Class::DynamicCode => "dynamic code",
            Class::ReachingOut => "reaching out",
            Class::State => "state that outlives a call",
            Class::Environment => "the environment",
            Class::Effects => "processes, threads, exit, descriptors, files",
            Class::Protocol => "comparison protocol",
            Class::Native => "native code",
            Class::Unlisted => "not on the plain list",
            Class::Unresolved => "unresolved name",
        }
    }
}

/// What a use is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    Capability(Class),
    /// A use of a third-party module (its top-level name): plain only when the base's product
    /// code already imports it.
    ThirdParty(String),
}

/// One use that is not plain computation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Use {
    pub first: u64,
    pub last: u64,
    /// The function or class it sits in, dotted (`Cls.method`); empty at module level.
    pub scope: String,
    pub found: Found,
    /// What it uses, as written or resolved (`os.environ`, `eval`, `defines __eq__`).
    pub what: String,
}

/// The uses in `source` that are not plain computation, in the order they are met.
/// `is_project`: whether a top-level module name is the project's own. `Err(line)` when it
/// does not parse.
pub fn uses(source: &str, is_project: &dyn Fn(&str) -> bool) -> Result<Vec<Use>, u64> {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    let lines = crate::parse::Lines::new(source);
    let line_of = |at: TextSize| lines.line(at);
    if let Some(offset) = crate::parse::too_deep(source) {
        return Err(line_of(TextSize::try_from(offset).unwrap_or_default()));
    }
    let parsed =
        ruff_python_parser::parse_module(source).map_err(|e| line_of(e.location.start()))?;
    let body = &parsed.syntax().body;
    let mut module = Frame::new(Kind::Module, String::new());
    Collect { frame: &mut module }.visit_body(body);
    let mut walk = Walk {
        frames: vec![module],
        is_project,
        line_of: &line_of,
        found: Vec::new(),
        depth: 0,
    };
    walk.visit_body(body);
    Ok(walk.found)
}

/// What a name is bound to in one scope.
#[derive(Debug, Clone)]
enum Binding<'a> {
    /// An import, as the dotted name it imports (`.x` for relative imports).
    Import(String),
    /// A function or lambda the module defines.
    Def,
    /// A class the module defines.
    Class,
    /// A parameter (a callable received as an argument is plain to call).
    Param,
    /// The first parameter of a method (`self`, `cls`).
    SelfParam,
    /// A value the scope created (a call's result, a literal, a comprehension).
    Created,
    /// Another name or attribute, followed as an alias.
    Alias(&'a Expr),
    /// Any other binding (loop variables, `with ... as`, `except ... as`, captures).
    Local,
    /// `global`/`nonlocal`: the name lives in an enclosing scope.
    Outer,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Module,
    Class,
    Function,
    Comprehension,
}

struct Frame<'a> {
    kind: Kind,
    /// Dotted: `Cls.method`.
    name: String,
    names: HashMap<String, Binding<'a>>,
    /// The modules of `from M import *` (`.x` for relative ones).
    stars: Vec<String>,
}

impl<'a> Frame<'a> {
    fn new(kind: Kind, name: String) -> Self {
        Frame {
            kind,
            name,
            names: HashMap::new(),
            stars: Vec::new(),
        }
    }

    fn bind(&mut self, name: &str, binding: Binding<'a>) {
        use std::collections::hash_map::Entry;
        match self.names.entry(name.to_string()) {
            Entry::Vacant(v) => {
                v.insert(binding);
            }
            Entry::Occupied(mut o) => {
                // Bound twice in different ways: the weakest reading.
                let same = matches!(
                    (o.get(), &binding),
                    (Binding::Created, Binding::Created)
                        | (Binding::Def, Binding::Def)
                        | (Binding::Class, Binding::Class)
                );
                if !same && !matches!(o.get(), Binding::Outer | Binding::Param) {
                    o.insert(match binding {
                        Binding::Import(_) => binding,
                        _ => Binding::Local,
                    });
                }
            }
        }
    }
}

/// The value a name assigned `value` is bound to.
fn binding_of(value: &Expr) -> Binding<'_> {
    match value {
        Expr::Name(_) | Expr::Attribute(_) => Binding::Alias(value),
        Expr::Lambda(_) => Binding::Def,
        _ => Binding::Created,
    }
}

/// Binds a function's parameters in its frame: each a [`Binding::Param`], the first
/// positional one of a method (`method`) its `self`/`cls`.
fn bind_params(frame: &mut Frame<'_>, p: &ast::Parameters, method: bool) {
    for (i, a) in p.posonlyargs.iter().chain(&p.args).enumerate() {
        let b = if i == 0 && method {
            Binding::SelfParam
        } else {
            Binding::Param
        };
        frame.names.insert(a.parameter.name.to_string(), b);
    }
    for a in p
        .kwonlyargs
        .iter()
        .map(|a| &a.parameter)
        .chain(p.vararg.as_deref())
        .chain(p.kwarg.as_deref())
    {
        frame.names.insert(a.name.to_string(), Binding::Param);
    }
}

/// Collects the names one scope binds (not descending into nested scopes).
struct Collect<'f, 'a> {
    frame: &'f mut Frame<'a>,
}

impl<'f, 'a> Collect<'f, 'a> {
    fn target(&mut self, target: &'a Expr, binding: Binding<'a>) {
        match target {
            Expr::Name(n) => self.frame.bind(n.id.as_str(), binding),
            Expr::Tuple(t) => {
                for e in &t.elts {
                    self.target(e, Binding::Local);
                }
            }
            Expr::List(l) => {
                for e in &l.elts {
                    self.target(e, Binding::Local);
                }
            }
            Expr::Starred(s) => self.target(&s.value, Binding::Local),
            _ => {}
        }
    }
}

impl<'a> Visitor<'a> for Collect<'_, 'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => {
                self.frame.bind(f.name.as_str(), Binding::Def);
                return;
            }
            Stmt::ClassDef(c) => {
                self.frame.bind(c.name.as_str(), Binding::Class);
                return;
            }
            Stmt::Import(i) => {
                for a in &i.names {
                    let full = a.name.as_str();
                    match &a.asname {
                        Some(local) => self
                            .frame
                            .bind(local.as_str(), Binding::Import(full.to_string())),
                        None => {
                            let top = full.split('.').next().unwrap_or(full);
                            self.frame.bind(top, Binding::Import(top.to_string()));
                        }
                    }
                }
            }
            Stmt::ImportFrom(i) => {
                let dots = ".".repeat(i.level as usize);
                let module = format!(
                    "{dots}{}",
                    i.module.as_ref().map(|m| m.as_str()).unwrap_or_default()
                );
                for a in &i.names {
                    if a.name.as_str() == "*" {
                        self.frame.stars.push(module.clone());
                        continue;
                    }
                    let local = a.asname.as_ref().unwrap_or(&a.name);
                    let sep = if module.ends_with('.') { "" } else { "." };
                    let dotted = format!("{module}{sep}{}", a.name.as_str());
                    self.frame.bind(local.as_str(), Binding::Import(dotted));
                }
            }
            Stmt::Assign(a) => {
                for t in &a.targets {
                    self.target(t, binding_of(&a.value));
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    self.target(&a.target, binding_of(v));
                }
            }
            Stmt::AugAssign(a) => {
                if let Expr::Name(n) = &*a.target
                    && !self.frame.names.contains_key(n.id.as_str())
                {
                    self.frame.bind(n.id.as_str(), Binding::Local);
                }
            }
            Stmt::For(f) => self.target(&f.target, Binding::Local),
            Stmt::With(w) => {
                for item in &w.items {
                    if let Some(v) = &item.optional_vars {
                        self.target(v, Binding::Local);
                    }
                }
            }
            Stmt::Global(g) => {
                for n in &g.names {
                    self.frame.names.insert(n.to_string(), Binding::Outer);
                }
            }
            Stmt::Nonlocal(g) => {
                for n in &g.names {
                    self.frame.names.insert(n.to_string(), Binding::Outer);
                }
            }
            Stmt::Try(t) => {
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    if let Some(n) = &h.name {
                        self.frame.bind(n.as_str(), Binding::Local);
                    }
                }
            }
            _ => {}
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            // A comprehension's own names are its own (the walk binds them); an assignment
            // expression in it binds in this scope.
            Expr::Lambda(_) => {}
            Expr::Named(n) => {
                self.target(&n.target, Binding::Local);
                visitor::walk_expr(self, expr);
            }
            _ => visitor::walk_expr(self, expr),
        }
    }

    fn visit_pattern(&mut self, pattern: &'a ast::Pattern) {
        match pattern {
            ast::Pattern::MatchAs(p) => {
                if let Some(n) = &p.name {
                    self.frame.bind(n.as_str(), Binding::Local);
                }
            }
            ast::Pattern::MatchStar(p) => {
                if let Some(n) = &p.name {
                    self.frame.bind(n.as_str(), Binding::Local);
                }
            }
            ast::Pattern::MatchMapping(p) => {
                if let Some(n) = &p.rest {
                    self.frame.bind(n.as_str(), Binding::Local);
                }
            }
            _ => {}
        }
        visitor::walk_pattern(self, pattern);
    }
}

/// A name as found: its binding and whether it lives at module level.
struct Resolved<'a> {
    binding: Binding<'a>,
    module_level: bool,
}

/// The walk that records the uses.
struct Walk<'p, 'l, 'a> {
    frames: Vec<Frame<'a>>,
    is_project: &'p dyn Fn(&str) -> bool,
    line_of: &'l dyn Fn(TextSize) -> u64,
    found: Vec<Use>,
    depth: usize,
}

/// The leftmost name of an attribute, subscript or call chain (`a.b[c].d`: a).
fn root_name(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Name(n) => Some(n.id.as_str()),
        Expr::Attribute(a) => root_name(&a.value),
        Expr::Subscript(s) => root_name(&s.value),
        _ => None,
    }
}

fn is_dunder(name: &str) -> bool {
    name.len() > 4 && name.starts_with("__") && name.ends_with("__")
}

fn literal(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::StringLiteral(s) => Some(s.value.to_str()),
        _ => None,
    }
}

/// A value that is a new mutable container (a class-level one is shared by every instance).
fn is_mutable_container(expr: &Expr) -> bool {
    match expr {
        Expr::List(_)
        | Expr::Dict(_)
        | Expr::Set(_)
        | Expr::ListComp(_)
        | Expr::DictComp(_)
        | Expr::SetComp(_) => true,
        Expr::Call(c) => match &*c.func {
            Expr::Name(n) => matches!(
                n.id.as_str(),
                "list"
                    | "dict"
                    | "set"
                    | "bytearray"
                    | "defaultdict"
                    | "Counter"
                    | "deque"
                    | "OrderedDict"
            ),
            Expr::Attribute(a) => matches!(
                a.attr.as_str(),
                "defaultdict" | "Counter" | "deque" | "OrderedDict"
            ),
            _ => false,
        },
        _ => false,
    }
}

impl<'a> Walk<'_, '_, 'a> {
    fn push(&mut self, node: &impl Ranged, found: Found, what: impl Into<String>) {
        let scope = self
            .frames
            .iter()
            .filter(|f| matches!(f.kind, Kind::Function | Kind::Class))
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(".");
        self.found.push(Use {
            first: (self.line_of)(node.start()),
            last: (self.line_of)(node.end()),
            scope,
            found,
            what: what.into(),
        });
    }

    fn cap(&mut self, node: &impl Ranged, class: Class, what: impl Into<String>) {
        self.push(node, Found::Capability(class), what);
    }

    fn in_function(&self) -> bool {
        self.frames.iter().any(|f| matches!(f.kind, Kind::Function))
    }

    fn current(&self) -> Kind {
        self.frames.last().map_or(Kind::Module, |f| f.kind)
    }

    /// The binding of `name` as Python resolves it from the current scope: the innermost scope
    /// that binds it (class bodies only when they are the current scope), `global`/`nonlocal`
    /// outward; `None` when no scope binds it (a builtin, or a star import's).
    fn resolve(&self, name: &str) -> Option<Resolved<'a>> {
        let last = self.frames.len() - 1;
        let mut outer = false;
        for (i, frame) in self.frames.iter().enumerate().rev() {
            if frame.kind == Kind::Class && i != last {
                continue;
            }
            match frame.names.get(name) {
                Some(Binding::Outer) => outer = true,
                Some(b) if !outer || i < last => {
                    return Some(Resolved {
                        binding: b.clone(),
                        module_level: frame.kind == Kind::Module,
                    });
                }
                _ => {}
            }
        }
        None
    }

    /// The dotted name `expr` stands for, through imports and aliases, when it is rooted in
    /// an import.
    fn qualify(&self, expr: &Expr, depth: usize) -> Option<String> {
        if depth == 0 {
            return None;
        }
        match expr {
            Expr::Name(n) => match self.resolve(n.id.as_str())?.binding {
                Binding::Import(d) => Some(d),
                Binding::Alias(e) => self.qualify(e, depth - 1),
                _ => None,
            },
            Expr::Attribute(a) => Some(format!(
                "{}.{}",
                self.qualify(&a.value, depth)?,
                a.attr.as_str()
            )),
            _ => None,
        }
    }

    fn is_project_module(&self, dotted: &str) -> bool {
        dotted.starts_with('.') || (self.is_project)(dotted.split('.').next().unwrap_or(dotted))
    }

    /// Judges a use of the dotted name `dotted` (an import's, resolved).
    fn dotted(&mut self, node: &impl Ranged, dotted: &str) {
        if self.is_project_module(dotted) {
            return;
        }
        let top = dotted.split('.').next().unwrap_or(dotted);
        match table::lookup(dotted) {
            Some(Verdict::Plain) => {}
            Some(Verdict::Capability(c)) => self.cap(node, c, dotted),
            None if table::is_stdlib(top) => self.cap(node, Class::Unlisted, dotted),
            None => self.push(node, Found::ThirdParty(top.to_string()), dotted),
        }
    }

    /// Judges a name read that no scope binds: a builtin, a star import's, or unresolved.
    fn unbound(&mut self, node: &impl Ranged, name: &str) {
        match table::builtin(name) {
            Some(Verdict::Plain) => return,
            Some(Verdict::Capability(c)) => return self.cap(node, c, name),
            None => {}
        }
        if matches!(name, "getattr" | "setattr" | "delattr" | "hasattr" | "type") {
            // Used as a value (a call is judged with its arguments).
            return self.cap(node, Class::DynamicCode, format!("{name} as a value"));
        }
        let stars: Vec<String> = self
            .frames
            .iter()
            .flat_map(|f| f.stars.iter().cloned())
            .collect();
        if stars.iter().any(|m| self.is_project_module(m)) {
            return;
        }
        if let Some(m) = stars.first() {
            return self.dotted(node, &format!("{m}.{name}"));
        }
        self.cap(node, Class::Unresolved, name);
    }

    /// Whether the object `expr` roots in is one whose private attributes the module may use:
    /// `self`/`cls`, or something the module or project defines.
    /// The binding the root name of `expr` comes to, through aliases (`m = self._m`: self's).
    fn root_binding(&self, expr: &Expr) -> Option<Resolved<'a>> {
        let mut expr = expr;
        for _ in 0..ALIAS_DEPTH {
            let r = self.resolve(root_name(expr)?)?;
            match r.binding {
                Binding::Alias(e) => expr = e,
                _ => return Some(r),
            }
        }
        None
    }

    fn owns(&self, expr: &Expr) -> bool {
        match self.root_binding(expr) {
            Some(Resolved {
                binding: Binding::SelfParam | Binding::Def | Binding::Class,
                ..
            }) => true,
            Some(Resolved {
                binding: Binding::Import(d),
                ..
            }) => self.is_project_module(&d),
            Some(Resolved {
                module_level: true, ..
            }) => true,
            _ => false,
        }
    }

    /// Judges a write (assignment, augmented assignment, `del`, setattr) to `target`.
    fn write(&mut self, target: &Expr) {
        match target {
            Expr::Tuple(t) => t.elts.iter().for_each(|e| self.write(e)),
            Expr::List(l) => l.elts.iter().for_each(|e| self.write(e)),
            Expr::Starred(s) => self.write(&s.value),
            Expr::Attribute(_) | Expr::Subscript(_) => self.write_into(target),
            _ => {}
        }
    }

    fn write_into(&mut self, target: &Expr) {
        let resolved = root_name(target).map(|r| (r, self.root_binding(target)));
        let in_function = self.in_function();
        let root = root_name(target).unwrap_or("an expression").to_string();
        match resolved {
            Some((_, Some(r))) => match (r.binding, r.module_level) {
                (Binding::SelfParam, _) => {}
                (Binding::Created, false) => {}
                (Binding::Import(d), _) if !self.is_project_module(&d) => self.cap(
                    target,
                    Class::ReachingOut,
                    format!("writes into {d} (monkeypatching)"),
                ),
                (Binding::Def, true) => self.cap(
                    target,
                    Class::State,
                    format!("sets an attribute of the function {root}"),
                ),
                (_, true) if in_function => self.cap(
                    target,
                    Class::State,
                    format!("changes the module-level {root} from a function"),
                ),
                (Binding::Import(_), _) | (_, true) => {}
                _ => self.cap(
                    target,
                    Class::ReachingOut,
                    format!("writes into {root}, an object the function did not create"),
                ),
            },
            _ => self.cap(
                target,
                Class::ReachingOut,
                format!("writes into {root}, an object the function did not create"),
            ),
        }
    }

    /// getattr/hasattr/setattr/delattr/type/print and operator's getters, judged with their
    /// arguments; true when the call was judged here (its function is not visited again).
    fn special_call(&mut self, call: &'a ast::ExprCall) -> bool {
        let args = &call.arguments;
        if let Expr::Name(n) = &*call.func
            && self.resolve(n.id.as_str()).is_none()
        {
            let name = n.id.as_str();
            match name {
                "getattr" | "hasattr" | "setattr" | "delattr" => {
                    match args.args.get(1).map(|a| (a, literal(a))) {
                        Some((_, Some(attr))) => {
                            let attr = attr.to_string();
                            let foreign = args.args.first().is_none_or(|o| !self.owns(o));
                            if attr.starts_with('_') && !is_dunder(&attr) && foreign {
                                self.cap(
                                    call,
                                    Class::Introspection,
                                    format!("{name}(..., {attr:?}): a private attribute"),
                                );
                            }
                        }
                        _ => self.cap(
                            call,
                            Class::DynamicCode,
                            format!("{name}() with a computed attribute name"),
                        ),
                    }
                    if matches!(name, "setattr" | "delattr")
                        && let Some(obj) = args.args.first()
                    {
                        match obj {
                            Expr::Name(_) | Expr::Attribute(_) | Expr::Subscript(_) => {
                                self.write_into(obj);
                            }
                            _ => self.cap(
                                call,
                                Class::ReachingOut,
                                format!("{name}() on an object the function did not create"),
                            ),
                        }
                    }
                    return true;
                }
                "type" if args.args.len() == 3 => {
                    self.cap(call, Class::DynamicCode, "type() with three arguments");
                    return true;
                }
                "type" => return true,
                "print"
                    if args
                        .keywords
                        .iter()
                        .any(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "file")) =>
                {
                    self.cap(call, Class::Effects, "print(file=...)");
                    return true;
                }
                _ => return false,
            }
        }
        if let Some(q) = self.qualify(&call.func, ALIAS_DEPTH)
            && matches!(q.as_str(), "operator.attrgetter" | "operator.methodcaller")
            && args.args.first().is_some_and(|a| literal(a).is_none())
        {
            self.cap(
                call,
                Class::DynamicCode,
                format!("{q}() with a computed attribute name"),
            );
        }
        self.method_call(call);
        false
    }

    /// A method called on a value: one that touches files or descriptors, or one that changes
    /// a module-level container from a function.
    fn method_call(&mut self, call: &ast::ExprCall) {
        if let Expr::Attribute(a) = &*call.func
            && self.qualify(&call.func, ALIAS_DEPTH).is_none()
        {
            let attr = a.attr.as_str();
            let on_self = matches!(&*a.value, Expr::Name(n) if matches!(
                self.resolve(n.id.as_str()).map(|r| r.binding),
                Some(Binding::SelfParam)
            ));
            let created = root_name(&a.value).is_some_and(|r| {
                matches!(
                    self.resolve(r),
                    Some(Resolved {
                        binding: Binding::Created | Binding::SelfParam,
                        module_level: false
                    })
                )
            });
            let outside = (table::OUTSIDE_METHODS.contains(&attr) && !on_self)
                || (matches!(attr, "write" | "writelines" | "open" | "flush") && !created);
            if outside {
                self.cap(call, Class::Effects, format!(".{attr}()"));
            } else if table::MUTATORS.contains(&attr)
                && self.in_function()
                && self
                    .root_binding(&a.value)
                    .is_some_and(|r| r.module_level && !matches!(r.binding, Binding::Import(_)))
            {
                let root = root_name(&a.value).unwrap_or_default().to_string();
                self.cap(
                    call,
                    Class::State,
                    format!("{root}.{attr}(): changes a module-level object from a function"),
                );
            }
        }
    }

    /// The parameters' default values, read in the enclosing scope.
    fn defaults(&mut self, p: &'a ast::Parameters) {
        for d in p
            .posonlyargs
            .iter()
            .chain(&p.args)
            .chain(&p.kwonlyargs)
            .filter_map(|a| a.default.as_deref())
        {
            self.visit_expr(d);
        }
    }

    /// `global`/`nonlocal` NAMES: state that outlives a call.
    fn rebinds(&mut self, stmt: &Stmt, keyword: &str, names: &[ast::Identifier]) {
        let names: Vec<&str> = names.iter().map(ast::Identifier::as_str).collect();
        self.cap(
            stmt,
            Class::State,
            format!("{keyword} {}", names.join(", ")),
        );
    }

    fn function(&mut self, f: &'a ast::StmtFunctionDef) {
        for d in &f.decorator_list {
            self.visit_expr(&d.expression);
        }
        let p = &f.parameters;
        self.defaults(p);
        let name = f.name.as_str();
        match self.current() {
            Kind::Class if is_dunder(name) => {
                let class = if table::PROTOCOL_DUNDERS.contains(&name) {
                    Some(Class::Protocol)
                } else if table::DYNAMIC_DUNDERS.contains(&name) {
                    Some(Class::DynamicCode)
                } else if name == "__del__" {
                    Some(Class::Effects)
                } else {
                    None
                };
                if let Some(class) = class {
                    self.cap(&f.name, class, format!("defines {name}"));
                }
            }
            Kind::Module if matches!(name, "__getattr__" | "__dir__") => {
                self.cap(
                    &f.name,
                    Class::DynamicCode,
                    format!("a module-level {name}"),
                );
            }
            _ => {}
        }
        let method = self.current() == Kind::Class
            && !f
                .decorator_list
                .iter()
                .any(|d| matches!(&d.expression, Expr::Name(n) if n.id.as_str() == "staticmethod"));
        let mut frame = Frame::new(Kind::Function, name.to_string());
        bind_params(&mut frame, p, method);
        Collect { frame: &mut frame }.visit_body(&f.body);
        self.frames.push(frame);
        self.visit_body(&f.body);
        self.frames.pop();
    }

    fn class(&mut self, c: &'a ast::StmtClassDef) {
        for d in &c.decorator_list {
            self.visit_expr(&d.expression);
        }
        if let Some(arguments) = &c.arguments {
            for b in &arguments.args {
                self.visit_expr(b);
            }
            for k in &arguments.keywords {
                let is_meta = k.arg.as_ref().is_some_and(|a| a.as_str() == "metaclass");
                if !is_meta {
                    self.visit_expr(&k.value);
                    continue;
                }
                let q = self.qualify(&k.value, ALIAS_DEPTH);
                let own = root_name(&k.value).is_some_and(|r| {
                    matches!(
                        self.resolve(r).map(|r| r.binding),
                        Some(Binding::Class | Binding::Def)
                    )
                });
                let plain = own
                    || q.as_deref().is_some_and(|q| {
                        table::PLAIN_METACLASSES.contains(&q) || self.is_project_module(q)
                    });
                if !plain {
                    self.cap(&k.value, Class::DynamicCode, "a metaclass");
                }
            }
        }
        let mut frame = Frame::new(Kind::Class, c.name.to_string());
        Collect { frame: &mut frame }.visit_body(&c.body);
        self.frames.push(frame);
        for stmt in &c.body {
            let (targets, value): (Vec<&Expr>, Option<&Expr>) = match stmt {
                Stmt::Assign(a) => (a.targets.iter().collect(), Some(&a.value)),
                Stmt::AnnAssign(a) => (vec![&a.target], a.value.as_deref()),
                _ => (Vec::new(), None),
            };
            for t in targets {
                let Expr::Name(n) = t else { continue };
                let name = n.id.as_str();
                if table::PROTOCOL_DUNDERS.contains(&name) || table::DYNAMIC_DUNDERS.contains(&name)
                {
                    self.cap(t, Class::Protocol, format!("assigns {name}"));
                } else if !is_dunder(name) && value.is_some_and(is_mutable_container) {
                    self.cap(t, Class::State, format!("class-level mutable {name}"));
                }
            }
        }
        self.visit_body(&c.body);
        self.frames.pop();
    }

    fn lambda(&mut self, l: &'a ast::ExprLambda) {
        let mut frame = Frame::new(Kind::Function, "<lambda>".to_string());
        if let Some(p) = l.parameters.as_deref() {
            self.defaults(p);
            bind_params(&mut frame, p, false);
        }
        self.frames.push(frame);
        self.visit_expr(&l.body);
        self.frames.pop();
    }

    fn comprehension(&mut self, generators: &'a [ast::Comprehension], elts: &[&'a Expr]) {
        // A comprehension's names are its own; the scope stays the enclosing function's.
        let mut frame = Frame::new(Kind::Comprehension, String::new());
        let mut c = Collect { frame: &mut frame };
        for g in generators {
            c.target(&g.target, Binding::Local);
        }
        self.frames.push(frame);
        for g in generators {
            self.visit_expr(&g.iter);
            for i in &g.ifs {
                self.visit_expr(i);
            }
        }
        for e in elts {
            self.visit_expr(e);
        }
        self.frames.pop();
    }

    fn import(&mut self, stmt: &'a Stmt) {
        let modules: Vec<String> = match stmt {
            Stmt::Import(i) => i.names.iter().map(|a| a.name.to_string()).collect(),
            Stmt::ImportFrom(i) if i.level == 0 => i.module.iter().map(|m| m.to_string()).collect(),
            _ => Vec::new(),
        };
        for m in modules {
            if self.is_project_module(&m) {
                continue;
            }
            let top = m.split('.').next().unwrap_or(&m).to_string();
            if let Some(class) = table::import_verdict(&m) {
                self.cap(stmt, class, format!("import {m}"));
            } else if !table::is_stdlib(&top) {
                self.push(stmt, Found::ThirdParty(top), format!("import {m}"));
            }
        }
    }
}

impl<'a> Visitor<'a> for Walk<'_, '_, 'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            // A docstring (or any bare string statement) only documents.
            Stmt::Expr(e) if matches!(&*e.value, Expr::StringLiteral(_)) => {}
            Stmt::FunctionDef(f) => self.function(f),
            Stmt::ClassDef(c) => self.class(c),
            Stmt::Import(_) | Stmt::ImportFrom(_) => self.import(stmt),
            Stmt::Global(g) => self.rebinds(stmt, "global", &g.names),
            Stmt::Nonlocal(g) => self.rebinds(stmt, "nonlocal", &g.names),
            Stmt::Assign(a) => {
                for t in &a.targets {
                    self.write(t);
                    self.visit_expr(t);
                }
                self.visit_expr(&a.value);
            }
            Stmt::AugAssign(a) => {
                self.write(&a.target);
                self.visit_expr(&a.target);
                self.visit_expr(&a.value);
            }
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    self.write(&a.target);
                    self.visit_expr(&a.target);
                    self.visit_expr(v);
                }
            }
            Stmt::Delete(d) => {
                for t in &d.targets {
                    self.write(t);
                    self.visit_expr(t);
                }
            }
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth > MAX_DEPTH {
            return;
        }
        self.depth += 1;
        self.expr(expr);
        self.depth -= 1;
    }
}

impl<'a> Walk<'_, '_, 'a> {
    fn expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) => {
                if n.ctx != ExprContext::Load {
                    return;
                }
                match self.resolve(n.id.as_str()).map(|r| r.binding) {
                    Some(Binding::Import(d)) => self.dotted(expr, &d),
                    Some(_) => {}
                    None => self.unbound(expr, n.id.as_str()),
                }
            }
            Expr::Attribute(a) => {
                let attr = a.attr.as_str();
                if table::is_introspective(attr) {
                    self.cap(expr, Class::Introspection, format!(".{attr}"));
                } else if attr.starts_with('_') && !is_dunder(attr) && !self.owns(&a.value) {
                    self.cap(
                        expr,
                        Class::Introspection,
                        format!(
                            ".{attr}: a private attribute of an object the module does not define"
                        ),
                    );
                }
                if let Some(d) = self.qualify(expr, ALIAS_DEPTH) {
                    // The whole dotted name is judged once (not its module again).
                    self.dotted(expr, &d);
                    return;
                }
                self.visit_expr(&a.value);
            }
            Expr::StringLiteral(s) => {
                let v = s.value.to_str();
                if v.split('.').any(table::is_introspective) {
                    self.cap(expr, Class::Introspection, format!("names {v:?}"));
                } else if v.starts_with("/proc") {
                    self.cap(expr, Class::Environment, format!("names {v:?}"));
                }
            }
            Expr::Call(c) => {
                let judged = self.special_call(c);
                if !judged {
                    self.visit_expr(&c.func);
                }
                for a in &c.arguments.args {
                    self.visit_expr(a);
                }
                for k in &c.arguments.keywords {
                    self.visit_expr(&k.value);
                }
            }
            Expr::Lambda(l) => self.lambda(l),
            Expr::ListComp(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::SetComp(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::Generator(c) => self.comprehension(&c.generators, &[&c.elt]),
            Expr::DictComp(c) => {
                let elts: Vec<&Expr> = c
                    .key
                    .as_deref()
                    .into_iter()
                    .chain(std::iter::once(&*c.value))
                    .collect();
                self.comprehension(&c.generators, &elts);
            }
            _ => visitor::walk_expr(self, expr),
        }
    }
}

#[cfg(test)]
mod tests;
