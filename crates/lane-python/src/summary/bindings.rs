//! The names a module or class body binds: every binding of a name bound more than once
//! (under the `if` conditions around it), and the module-level bindings a condition may read.

use super::*;

/// Up to this many bindings in one body, [`Summarizer::rebound`] compares them pairwise.
pub(super) const REBOUND_PAIRWISE: usize = 48;

/// The names an assignment target binds (`a`, `a, (b, c)`, `*rest`); attributes and
/// subscripts bind none.
pub(super) fn target_names<'e>(target: &'e Expr, out: &mut Vec<&'e str>, depth: usize) {
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
pub(super) fn keep_last_of_each<T>(
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
pub(super) fn rebound_of(mut all: Vec<Binding>) -> Vec<Binding> {
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

impl Summarizer<'_> {
    /// The module-level name bindings of `body` (see [`Module::names`]), under `guards`;
    /// `maybe` inside a `try` or a loop.
    pub(super) fn names(
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
                        push(out, guards, import_binds(a), line, Bound::Import);
                    }
                }
                Stmt::ImportFrom(i) => {
                    for a in &i.names {
                        push(out, guards, from_import_binds(a), line, Bound::Import);
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
    pub(super) fn name_assign(
        &self,
        target: &Expr,
        value: Option<&Expr>,
        bind: &mut dyn FnMut(&str, Bound),
    ) {
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

    /// Every binding of each name that `body` binds more than once on paths that can run
    /// (a branch whose condition is a constant false is left out).
    pub(super) fn rebound(&self, body: &[Stmt]) -> Vec<Binding> {
        // About one binding a statement: room made once rather than grown by doubling.
        let mut all = Vec::with_capacity(body.len());
        self.bindings(body, &mut Vec::new(), &mut all, 0);
        rebound_of(all)
    }

    /// The bindings of one body, under `guards`.
    pub(super) fn bindings(
        &self,
        body: &[Stmt],
        guards: &mut Vec<(Cond, bool)>,
        out: &mut Vec<Binding>,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        for stmt in body {
            let line = self.line_of(stmt);
            match stmt {
                Stmt::FunctionDef(f) => bind(out, f.name.as_str(), self.line_of(&f.name), guards),
                Stmt::ClassDef(c) => bind(out, c.name.as_str(), self.line_of(&c.name), guards),
                Stmt::Import(i) => {
                    for a in &i.names {
                        bind(out, import_binds(a), line, guards);
                    }
                }
                Stmt::ImportFrom(i) => {
                    for a in &i.names {
                        bind(out, from_import_binds(a), line, guards);
                    }
                }
                Stmt::Assign(a) => bind_targets(out, &a.targets, line, guards),
                Stmt::AnnAssign(a) if a.value.is_some() => {
                    bind_targets(out, [&*a.target], line, guards);
                }
                Stmt::AugAssign(a) => bind_targets(out, [&*a.target], line, guards),
                Stmt::For(f) => {
                    bind_targets(out, [&*f.target], line, guards);
                    self.bindings(&f.body, guards, out, depth + 1);
                    self.bindings(&f.orelse, guards, out, depth + 1);
                }
                Stmt::While(w) => {
                    self.bindings(&w.body, guards, out, depth + 1);
                    self.bindings(&w.orelse, guards, out, depth + 1);
                }
                Stmt::With(w) => {
                    let targets = w.items.iter().filter_map(|i| i.optional_vars.as_deref());
                    bind_targets(out, targets, line, guards);
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
}

fn bind(out: &mut Vec<Binding>, name: &str, line: u64, guards: &[(Cond, bool)]) {
    out.push(Binding {
        name: CompactString::new(name),
        line,
        guards: guards.to_vec(),
    })
}

/// Binds every name the assignment targets `targets` bind (see [`target_names`]).
fn bind_targets<'e>(
    out: &mut Vec<Binding>,
    targets: impl IntoIterator<Item = &'e Expr>,
    line: u64,
    guards: &[(Cond, bool)],
) {
    let mut names = Vec::new();
    for t in targets {
        target_names(t, &mut names, 0);
    }
    for n in names {
        bind(out, n, line, guards);
    }
}

/// The name `import a.b.c` (`a`) or `import a.b as c` (`c`) binds.
pub(super) fn import_binds(alias: &ast::Alias) -> &str {
    match &alias.asname {
        Some(n) => n.as_str(),
        None => alias.name.as_str().split('.').next().unwrap_or(""),
    }
}

/// The name `from m import x` (`x`) or `from m import x as y` (`y`) binds.
pub(super) fn from_import_binds(alias: &ast::Alias) -> &str {
    alias.asname.as_ref().unwrap_or(&alias.name).as_str()
}
