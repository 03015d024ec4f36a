//! What a conftest does to `collect_ignore` and `collect_ignore_glob` at module level.

use super::*;

/// The first ignore list a statement mentions anywhere (a name `collect_ignore` or
/// `collect_ignore_glob`, read or written, in any nested body).
pub(super) fn mentions_ignore_lists(stmt: &Stmt) -> Option<IgnoreList> {
    let mut v = MentionsIgnore(None);
    v.visit_stmt(stmt);
    v.0
}

pub(super) fn mentions_ignore_lists_expr(expr: &Expr) -> bool {
    let mut v = MentionsIgnore(None);
    v.visit_expr(expr);
    v.0.is_some()
}

pub(super) struct MentionsIgnore(pub(super) Option<IgnoreList>);

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

impl Summarizer<'_> {
    /// The statements of `body` (module level, under `if`) about `collect_ignore` and
    /// `collect_ignore_glob`: literal lists, `+` of them, `+=`, `.append`, `.extend`; any
    /// other statement that mentions one is [`IgnoreKind::Computed`].
    pub(super) fn ignore_ops(
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
    pub(super) fn ignore_value(
        &self,
        value: &Expr,
        kind: fn(Vec<IgnorePiece>) -> IgnoreKind,
    ) -> IgnoreKind {
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
}
