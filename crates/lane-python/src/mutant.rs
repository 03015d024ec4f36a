//! Mutants of the product statements a patch changed (DESIGN §12): each a valid module that
//! differs from the source in one place, made from the syntax tree, in source order, the same
//! every time.
//!
//! The operators: a condition negated; a comparison's boundary moved or the comparison turned
//! round; an arithmetic, bitwise or boolean operator swapped; a unary minus or `not` dropped; an
//! integer constant moved by one and a boolean flipped; the value returned replaced by one of the
//! function's arguments; and the kinds that take something away ([`Kind::takes_away`]): a
//! statement replaced by `pass`, one operand of a binary operation dropped, one half of a
//! conditional expression kept.
//!
//! Equivalent mutants are kept low by construction: nothing in a docstring, a logging call
//! (`logger.info(...)` and its like), a type annotation, a decorator, a default argument, a
//! `__repr__` or a package's metadata given a literal (`__version__ = "1.2"`); only the statements asked for are touched (the gate asks for those the voters
//! executed), and a compound statement's header is its own statement, its body's statements
//! are theirs.

use std::collections::BTreeSet;

use ruff_python_ast::token::{TokenKind, Tokens};
use ruff_python_ast::{self as ast, BoolOp, CmpOp, Expr, Number, Operator, Stmt, UnaryOp};
use ruff_text_size::{Ranged, TextRange};

use crate::parse::{self, Lines};

/// What a mutant changes. The kinds that take something away come first: a budget takes each
/// kind in turn, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// The statement replaced by `pass`.
    RemoveStatement,
    /// `a + b` -> `a`, or -> `b`.
    DropOperand,
    /// `a if c else b` -> `a`, or -> `b`.
    OneBranch,
    /// `if c` -> `if not (c)` (also `elif`, `while`, a conditional expression).
    NegateCondition,
    /// `return expr` -> `return arg`, for an argument of the function.
    ReturnArgument,
    /// `<` -> `<=` and the other comparison boundaries.
    Boundary,
    /// `==` -> `!=`, `<` -> `>=`, `in` -> `not in` ...
    Comparison,
    /// `+` -> `-`, `*` -> `/` ...
    Arithmetic,
    /// `and` -> `or`.
    Logic,
    /// `-x` -> `x`, `not x` -> `x`.
    Unary,
    /// An integer `n` -> `n + 1` or `n - 1`, `True` <-> `False`.
    Constant,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::RemoveStatement => "statement removed",
            Kind::DropOperand => "operand dropped",
            Kind::OneBranch => "one branch kept",
            Kind::NegateCondition => "condition negated",
            Kind::ReturnArgument => "argument returned",
            Kind::Boundary => "comparison boundary",
            Kind::Comparison => "comparison",
            Kind::Arithmetic => "operator",
            Kind::Logic => "boolean operator",
            Kind::Unary => "unary operator dropped",
            Kind::Constant => "constant",
        }
    }

    /// Whether the mutant takes a part of the statement away (the statement, an operand, a
    /// branch, the condition's sense, the computed value): when one survives, the voters do not
    /// need that part at all. The other kinds perturb it.
    pub fn takes_away(self) -> bool {
        matches!(
            self,
            Kind::RemoveStatement
                | Kind::DropOperand
                | Kind::OneBranch
                | Kind::NegateCondition
                | Kind::ReturnArgument
        )
    }
}

/// One mutant: `replacement` in place of the source's bytes `start..end`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutant {
    /// The first line (1-based) of the statement it belongs to.
    pub line: u64,
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
    pub replacement: String,
}

impl Mutant {
    /// The mutated module.
    pub fn apply(&self, source: &str) -> String {
        let mut out = String::with_capacity(source.len() + self.replacement.len());
        out.push_str(&source[..self.start]);
        out.push_str(&self.replacement);
        out.push_str(&source[self.end..]);
        out
    }

    /// The source lines the change spans, before and after (the verdict's one-line diff; a
    /// change across lines gives each side's lines joined by a newline).
    pub fn line_diff(&self, source: &str) -> (String, String) {
        let begin = source[..self.start].rfind('\n').map_or(0, |i| i + 1);
        let stop =
            |text: &str, from: usize| text[from..].find('\n').map_or(text.len(), |i| from + i);
        let old = &source[begin..stop(source, self.end.max(begin))];
        let mutated = self.apply(source);
        let new_end = self.start + self.replacement.len();
        let new = &mutated[begin..stop(&mutated, new_end.max(begin))];
        (old.to_string(), new.to_string())
    }
}

/// The mutants of the statements starting on `lines` (1-based), in source order and, within a
/// statement, in [`Kind`]'s order, then by place; each parses. A source that does not parse
/// has none: its syntax error.
pub fn mutants(source: &str, lines: &BTreeSet<u64>) -> Result<Vec<Mutant>, parse::SyntaxError> {
    let index = Lines::new(source);
    let parsed = parse::parse(source, &index)?;
    let mut maker = Maker {
        source,
        tokens: parsed.tokens(),
        lines,
        index: &index,
        out: Vec::new(),
        params: Vec::new(),
    };
    maker.suite(&parsed.syntax().body, false);
    let mut out = maker.out;
    // Within a kind, the widest place first (the outermost operation: dropping the term a
    // change added outranks dropping a part of it); a stable sort, so mutants of one place keep
    // the order they were made in.
    out.sort_by_key(|m| (m.line, m.kind, m.start, std::cmp::Reverse(m.end)));
    // Two mutants that give the same module are one; one that gives the source back is none.
    let mut seen = BTreeSet::new();
    out.retain(|m| {
        let module = m.apply(source);
        module != source
            && seen.insert(module.clone())
            && ruff_python_parser::parse_module(&module).is_ok()
    });
    Ok(out)
}

struct Maker<'s> {
    source: &'s str,
    tokens: &'s Tokens,
    lines: &'s BTreeSet<u64>,
    index: &'s Lines,
    out: Vec<Mutant>,
    /// The arguments of the functions around the statement, innermost last.
    params: Vec<Vec<String>>,
}

const LOGGERS: &[&str] = &[
    "log", "logger", "logging", "_log", "_logger", "LOG", "LOGGER",
];
const LOG_METHODS: &[&str] = &[
    "debug",
    "info",
    "warning",
    "warn",
    "error",
    "exception",
    "critical",
    "log",
];

impl Maker<'_> {
    fn line_of(&self, offset: ruff_text_size::TextSize) -> u64 {
        self.index.line(offset)
    }

    fn text(&self, range: TextRange) -> &str {
        &self.source[range.start().to_usize()..range.end().to_usize()]
    }

    fn push(&mut self, line: u64, kind: Kind, range: TextRange, replacement: String) {
        self.out.push(Mutant {
            line,
            kind,
            start: range.start().to_usize(),
            end: range.end().to_usize(),
            replacement,
        });
    }

    /// A suite of statements; `repr`: inside a `__repr__`, where nothing is mutated.
    fn suite(&mut self, body: &[Stmt], repr: bool) {
        for (i, stmt) in body.iter().enumerate() {
            let docstring = i == 0 && is_docstring(stmt);
            self.statement(stmt, repr, docstring);
        }
    }

    fn statement(&mut self, stmt: &Stmt, repr: bool, docstring: bool) {
        let line = self.line_of(stmt.start());
        let wanted = !repr && !docstring && self.lines.contains(&line);
        match stmt {
            Stmt::FunctionDef(def) => {
                let names = def
                    .parameters
                    .posonlyargs
                    .iter()
                    .chain(&def.parameters.args)
                    .chain(&def.parameters.kwonlyargs)
                    .map(|p| p.parameter.name.id.to_string())
                    .filter(|n| n != "self" && n != "cls")
                    .collect();
                self.params.push(names);
                self.suite(&def.body, repr || def.name.id.as_str() == "__repr__");
                self.params.pop();
            }
            Stmt::ClassDef(class) => self.suite(&class.body, repr),
            Stmt::If(s) => {
                // `if TYPE_CHECKING:` and `if __name__ == "__main__":` choose how the module is
                // used, not what it computes: negating them only says no test imports it so.
                if wanted && !is_usage_guard(&s.test) {
                    self.condition(line, &s.test);
                }
                self.suite(&s.body, repr);
                for clause in &s.elif_else_clauses {
                    if let Some(test) = &clause.test {
                        let clause_line = self.line_of(clause.start());
                        if !repr && self.lines.contains(&clause_line) {
                            self.condition(clause_line, test);
                        }
                    }
                    self.suite(&clause.body, repr);
                }
            }
            Stmt::While(s) => {
                if wanted {
                    self.condition(line, &s.test);
                }
                self.suite(&s.body, repr);
                self.suite(&s.orelse, repr);
            }
            Stmt::For(s) => {
                if wanted {
                    self.expr(line, &s.iter);
                }
                self.suite(&s.body, repr);
                self.suite(&s.orelse, repr);
            }
            Stmt::With(s) => self.suite(&s.body, repr),
            Stmt::Try(s) => {
                self.suite(&s.body, repr);
                for handler in &s.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = handler;
                    self.suite(&h.body, repr);
                }
                self.suite(&s.orelse, repr);
                self.suite(&s.finalbody, repr);
            }
            Stmt::Match(s) => {
                for case in &s.cases {
                    self.suite(&case.body, repr);
                }
            }
            Stmt::Return(s) if wanted => match &s.value {
                Some(value) => {
                    self.expr(line, value);
                    self.returned_argument(line, value);
                }
                None => self.remove(line, stmt),
            },
            Stmt::Break(_) | Stmt::Continue(_) if wanted => self.remove(line, stmt),
            Stmt::Assign(s) if wanted && !is_metadata(s) => {
                self.expr(line, &s.value);
                self.remove(line, stmt);
            }
            Stmt::AnnAssign(s) if wanted => {
                if let Some(value) = &s.value {
                    self.expr(line, value);
                }
            }
            Stmt::AugAssign(s) if wanted => {
                self.augmented(line, s);
                self.expr(line, &s.value);
                self.remove(line, stmt);
            }
            Stmt::Expr(s) if wanted && !is_logging(&s.value) => {
                self.expr(line, &s.value);
                self.remove(line, stmt);
            }
            Stmt::Raise(_) if wanted => self.remove(line, stmt),
            _ => {}
        }
    }

    fn remove(&mut self, line: u64, stmt: &Stmt) {
        self.push(line, Kind::RemoveStatement, stmt.range(), "pass".into());
    }

    fn condition(&mut self, line: u64, test: &Expr) {
        let text = self.text(test.range());
        self.push(
            line,
            Kind::NegateCondition,
            test.range(),
            format!("not ({text})"),
        );
        self.expr(line, test);
    }

    /// `whole` replaced by each of its `operands` in turn.
    fn drop_operands(&mut self, line: u64, whole: TextRange, operands: &[&Expr]) {
        for kept in operands {
            let text = self.operand(kept);
            self.push(line, Kind::DropOperand, whole, text);
        }
    }

    /// An operand's text, parenthesized unless it is atomic (it takes the place of a larger
    /// expression, whose neighbours must not bind into it).
    fn operand(&self, e: &Expr) -> String {
        let text = self.text(e.range());
        let atomic = matches!(
            e,
            Expr::Name(_)
                | Expr::Attribute(_)
                | Expr::Call(_)
                | Expr::Subscript(_)
                | Expr::NumberLiteral(_)
                | Expr::StringLiteral(_)
                | Expr::BytesLiteral(_)
                | Expr::BooleanLiteral(_)
                | Expr::NoneLiteral(_)
                | Expr::List(_)
                | Expr::Dict(_)
                | Expr::Set(_)
        );
        if atomic {
            text.to_string()
        } else {
            format!("({text})")
        }
    }

    fn returned_argument(&mut self, line: u64, value: &Expr) {
        let Some(params) = self.params.last() else {
            return;
        };
        let current = self.text(value.range()).to_string();
        let params = params.clone();
        for name in params {
            if name != current {
                self.push(line, Kind::ReturnArgument, value.range(), name);
            }
        }
    }

    fn augmented(&mut self, line: u64, s: &ast::StmtAugAssign) {
        let Some(with) = swap(s.op) else { return };
        let between = TextRange::new(s.target.end(), s.value.start());
        if let Some(range) = self.operator_tokens(between) {
            self.push(line, Kind::Arithmetic, range, format!("{}=", with.as_str()));
        }
    }

    /// The range of the operator tokens between two operands (parentheses, comments and line
    /// continuations around them left out).
    fn operator_tokens(&self, between: TextRange) -> Option<TextRange> {
        let mut found: Option<TextRange> = None;
        for token in self.tokens.in_range(between) {
            match token.kind() {
                TokenKind::Lpar
                | TokenKind::Rpar
                | TokenKind::Comment
                | TokenKind::NonLogicalNewline
                | TokenKind::Newline => {}
                _ => {
                    found = Some(match found {
                        Some(r) => r.cover(token.range()),
                        None => token.range(),
                    });
                }
            }
        }
        found
    }

    /// The mutants of `expr` itself, then of the expressions inside it.
    fn expr(&mut self, line: u64, expr: &Expr) {
        self.here(line, expr);
        match expr {
            Expr::BinOp(b) => {
                self.expr(line, &b.left);
                self.expr(line, &b.right);
            }
            Expr::BoolOp(b) => b.values.iter().for_each(|v| self.expr(line, v)),
            Expr::UnaryOp(u) => self.expr(line, &u.operand),
            Expr::Compare(c) => {
                self.expr(line, &c.left);
                c.comparators.iter().for_each(|r| self.expr(line, r));
            }
            Expr::If(e) => {
                self.expr(line, &e.test);
                self.expr(line, &e.body);
                self.expr(line, &e.orelse);
            }
            Expr::Call(call) => {
                self.expr(line, &call.func);
                call.arguments.args.iter().for_each(|a| self.expr(line, a));
                for kw in &call.arguments.keywords {
                    self.expr(line, &kw.value);
                }
            }
            Expr::Attribute(a) => self.expr(line, &a.value),
            Expr::Subscript(s) => {
                self.expr(line, &s.value);
                self.expr(line, &s.slice);
            }
            Expr::Tuple(t) => t.elts.iter().for_each(|e| self.expr(line, e)),
            Expr::List(l) => l.elts.iter().for_each(|e| self.expr(line, e)),
            Expr::Set(s) => s.elts.iter().for_each(|e| self.expr(line, e)),
            Expr::Dict(d) => {
                for item in &d.items {
                    if let Some(key) = &item.key {
                        self.expr(line, key);
                    }
                    self.expr(line, &item.value);
                }
            }
            Expr::Slice(s) => {
                for part in [&s.lower, &s.upper, &s.step].into_iter().flatten() {
                    self.expr(line, part);
                }
            }
            Expr::Starred(s) => self.expr(line, &s.value),
            Expr::Named(n) => self.expr(line, &n.value),
            Expr::Await(a) => self.expr(line, &a.value),
            // Lambdas, comprehensions, f-strings and the rest: no mutant (a comprehension's
            // parts run per element; left for a later operator set).
            _ => {}
        }
    }

    /// The mutants of `expr`'s own operator, condition or constant.
    fn here(&mut self, line: u64, expr: &Expr) {
        match expr {
            Expr::BinOp(b) => {
                if let Some(with) = swap(b.op)
                    && let Some(range) =
                        self.operator_tokens(TextRange::new(b.left.end(), b.right.start()))
                {
                    self.push(line, Kind::Arithmetic, range, with.as_str().to_string());
                }
                self.drop_operands(line, expr.range(), &[&*b.left, &*b.right]);
            }
            Expr::BoolOp(b) => {
                let with = match b.op {
                    BoolOp::And => "or",
                    BoolOp::Or => "and",
                };
                if let [first, second, ..] = &b.values[..]
                    && let Some(range) =
                        self.operator_tokens(TextRange::new(first.end(), second.start()))
                {
                    self.push(line, Kind::Logic, range, with.to_string());
                }
                if let [first, second] = &b.values[..] {
                    self.drop_operands(line, expr.range(), &[first, second]);
                }
            }
            Expr::UnaryOp(u) if matches!(u.op, UnaryOp::USub | UnaryOp::Not) => {
                let text = self.text(u.operand.range()).to_string();
                self.push(line, Kind::Unary, u.range(), text);
            }
            Expr::Compare(c) => {
                let mut left = c.left.end();
                for (op, right) in c.ops.iter().zip(&c.comparators) {
                    if let Some(range) = self.operator_tokens(TextRange::new(left, right.start())) {
                        for (kind, with) in compare_swaps(*op) {
                            self.push(line, *kind, range, with.as_str().to_string());
                        }
                    }
                    left = right.end();
                }
            }
            Expr::If(e) => {
                let text = self.text(e.test.range());
                let negated = format!("not ({text})");
                self.push(line, Kind::NegateCondition, e.test.range(), negated);
                for half in [&*e.body, &*e.orelse] {
                    let kept = self.operand(half);
                    self.push(line, Kind::OneBranch, expr.range(), kept);
                }
            }
            Expr::NumberLiteral(n) => {
                if let Number::Int(value) = &n.value
                    && let Some(v) = value.as_u64()
                {
                    self.push(line, Kind::Constant, n.range(), format!("{}", v + 1));
                    if v > 0 {
                        self.push(line, Kind::Constant, n.range(), format!("{}", v - 1));
                    }
                }
            }
            Expr::BooleanLiteral(b) => {
                let with = if b.value { "False" } else { "True" };
                self.push(line, Kind::Constant, b.range(), with.to_string());
            }
            _ => {}
        }
    }
}

/// The arithmetic operator a mutant puts in place of `op`.
fn swap(op: Operator) -> Option<Operator> {
    Some(match op {
        Operator::Add => Operator::Sub,
        Operator::Sub => Operator::Add,
        Operator::Mult => Operator::Div,
        Operator::Div => Operator::Mult,
        Operator::FloorDiv => Operator::Div,
        Operator::Mod => Operator::FloorDiv,
        Operator::Pow => Operator::Mult,
        Operator::LShift => Operator::RShift,
        Operator::RShift => Operator::LShift,
        Operator::BitAnd => Operator::BitOr,
        Operator::BitOr => Operator::BitAnd,
        Operator::BitXor => Operator::BitOr,
        Operator::MatMult => return None,
    })
}

fn compare_swaps(op: CmpOp) -> &'static [(Kind, CmpOp)] {
    match op {
        CmpOp::Lt => &[(Kind::Boundary, CmpOp::LtE), (Kind::Comparison, CmpOp::GtE)],
        CmpOp::LtE => &[(Kind::Boundary, CmpOp::Lt), (Kind::Comparison, CmpOp::Gt)],
        CmpOp::Gt => &[(Kind::Boundary, CmpOp::GtE), (Kind::Comparison, CmpOp::LtE)],
        CmpOp::GtE => &[(Kind::Boundary, CmpOp::Gt), (Kind::Comparison, CmpOp::Lt)],
        CmpOp::Eq => &[(Kind::Comparison, CmpOp::NotEq)],
        CmpOp::NotEq => &[(Kind::Comparison, CmpOp::Eq)],
        CmpOp::In => &[(Kind::Comparison, CmpOp::NotIn)],
        CmpOp::NotIn => &[(Kind::Comparison, CmpOp::In)],
        CmpOp::Is => &[(Kind::Comparison, CmpOp::IsNot)],
        CmpOp::IsNot => &[(Kind::Comparison, CmpOp::Is)],
    }
}

/// `TYPE_CHECKING` (bare or as `typing.TYPE_CHECKING`) and `__name__ == "__main__"` (either
/// way round).
fn is_usage_guard(test: &Expr) -> bool {
    match test {
        Expr::Name(n) => n.id.as_str() == "TYPE_CHECKING",
        Expr::Attribute(a) => a.attr.id.as_str() == "TYPE_CHECKING",
        Expr::Compare(c) if c.ops.len() == 1 && matches!(c.ops[0], CmpOp::Eq) => {
            let sides = [&*c.left, &c.comparators[0]];
            let name = sides
                .iter()
                .any(|e| matches!(e, Expr::Name(n) if n.id.as_str() == "__name__"));
            let main = sides
                .iter()
                .any(|e| matches!(e, Expr::StringLiteral(s) if s.value.to_str() == "__main__"));
            name && main
        }
        _ => false,
    }
}

fn is_docstring(stmt: &Stmt) -> bool {
    matches!(stmt, Stmt::Expr(e) if e.value.is_string_literal_expr())
}

/// The names a package's metadata is written to (`__version__ = "1.2"`): no test pins them,
/// and a release bumps them in a commit of its own.
const METADATA: &[&str] = &[
    "__version__",
    "__version_info__",
    "__author__",
    "__author_email__",
    "__email__",
    "__maintainer__",
    "__license__",
    "__copyright__",
    "__credits__",
    "__status__",
    "__date__",
    "__url__",
    "__uri__",
    "__title__",
    "__summary__",
    "__description__",
    "__docformat__",
];

/// `__version__ = "1.2"` (or a tuple of literals): a metadata name given a literal value, which
/// nothing computes with.
fn is_metadata(s: &ast::StmtAssign) -> bool {
    fn literal(e: &Expr) -> bool {
        match e {
            Expr::StringLiteral(_) | Expr::NumberLiteral(_) => true,
            Expr::Tuple(t) => t.elts.iter().all(literal),
            _ => false,
        }
    }
    s.targets
        .iter()
        .all(|t| matches!(t, Expr::Name(n) if METADATA.contains(&n.id.as_str())))
        && literal(&s.value)
}

/// `logger.info(...)`, `logging.warning(...)`, `log.debug(...)`, `self.log.error(...)`.
fn is_logging(expr: &Expr) -> bool {
    let Expr::Call(call) = expr else { return false };
    let Expr::Attribute(method) = &*call.func else {
        return false;
    };
    if !LOG_METHODS.contains(&method.attr.id.as_str()) {
        return false;
    }
    match &*method.value {
        Expr::Name(n) => LOGGERS.contains(&n.id.as_str()),
        Expr::Attribute(a) => LOGGERS.contains(&a.attr.id.as_str()),
        _ => false,
    }
}

/// At most `limit` mutants of each statement, taken in turn from each kind it has (so a
/// statement with many constants still gets its condition negated), in a fixed order.
pub fn budget(mutants: Vec<Mutant>, limit: usize) -> Vec<Mutant> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < mutants.len() {
        let line = mutants[i].line;
        let mut j = i;
        while j < mutants.len() && mutants[j].line == line {
            j += 1;
        }
        let group = &mutants[i..j];
        let kinds: BTreeSet<Kind> = group.iter().map(|m| m.kind).collect();
        let mut taken = vec![false; group.len()];
        let mut n = 0;
        'rounds: loop {
            let mut any = false;
            for kind in &kinds {
                if let Some(k) = (0..group.len()).find(|&k| !taken[k] && group[k].kind == *kind) {
                    if n == limit {
                        break 'rounds;
                    }
                    taken[k] = true;
                    n += 1;
                    any = true;
                }
            }
            if !any {
                break;
            }
        }
        out.extend(
            group
                .iter()
                .zip(&taken)
                .filter(|(_, t)| **t)
                .map(|(m, _)| m.clone()),
        );
        i = j;
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Every statement's mutants, each as (line, kind, the changed line after).
    fn all(source: &str) -> Vec<(u64, &'static str, String)> {
        let lines: BTreeSet<u64> = (1..=source.lines().count() as u64 + 1).collect();
        mutants(source, &lines)
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m.line,
                    m.kind.as_str(),
                    m.line_diff(source).1.trim().to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn a_condition_and_its_comparison() {
        let src = "def f(total, limit):\n    if total > limit:\n        return total - limit\n    return 0\n";
        let got = all(src);
        let want: Vec<(u64, &str, &str)> = vec![
            (2, "condition negated", "if not (total > limit):"),
            (2, "comparison boundary", "if total >= limit:"),
            (2, "comparison", "if total <= limit:"),
            (3, "operand dropped", "return total"),
            (3, "operand dropped", "return limit"),
            (3, "operator", "return total + limit"),
            (4, "argument returned", "return total"),
            (4, "argument returned", "return limit"),
            (4, "constant", "return 1"),
        ];
        let want: Vec<(u64, &str, String)> = want
            .into_iter()
            .map(|(l, k, t)| (l, k, t.to_string()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn what_a_line_can_lose_is_taken_away() {
        let src =
            "def f(a, b, c):\n    x = a if c else b\n    y = a + b * c\n    return (x and y)\n";
        let got: Vec<(u64, &str, String)> =
            all(src).into_iter().filter(|m| m.1 != "constant").collect();
        let kinds = |line| -> Vec<String> {
            got.iter()
                .filter(|m| m.0 == line)
                .map(|m| format!("{}: {}", m.1, m.2))
                .collect()
        };
        assert_eq!(
            kinds(2),
            [
                "statement removed: pass",
                "one branch kept: x = a",
                "one branch kept: x = b",
                "condition negated: x = a if not (c) else b",
            ]
        );
        // the dropped operand of a product keeps the sum's precedence
        assert_eq!(
            kinds(3),
            [
                "statement removed: pass",
                "operand dropped: y = a",
                "operand dropped: y = (b * c)",
                "operand dropped: y = a + b",
                "operand dropped: y = a + c",
                "operator: y = a - b * c",
                "operator: y = a + b / c",
            ]
        );
        assert_eq!(
            kinds(4),
            [
                "operand dropped: return (x)",
                "operand dropped: return (y)",
                "argument returned: return (a)",
                "argument returned: return (b)",
                "argument returned: return (c)",
                "boolean operator: return (x or y)",
            ]
        );
    }

    #[test]
    fn docstrings_logging_annotations_and_repr_are_left_alone() {
        let src = "\"\"\"doc\"\"\"\nimport logging\nlogger = logging.getLogger(__name__)\nclass A:\n    def __repr__(self):\n        return 'A' + str(1)\n    def f(self, x: int = 1 + 1) -> int:\n        \"\"\"doc\"\"\"\n        logger.info('x %s', x + 1)\n        return x * 2\n";
        let got = all(src);
        let lines: BTreeSet<u64> = got.iter().map(|m| m.0).collect();
        // the logger's assignment may lose its statement; nothing else but line 10 is touched
        assert_eq!(lines, [3, 10].into(), "{got:?}");
    }

    #[test]
    fn metadata_given_a_literal_is_left_alone() {
        let src = "__version__ = '26.0.1dev'\n__version_info__ = (26, 0, 1)\n\
                   __all__ = ['f']\n__version__ = compute()\nversion = '1'\n";
        let lines: BTreeSet<u64> = all(src).iter().map(|m| m.0).collect();
        // `__all__`, a computed version and a plain name are mutated as ever
        assert_eq!(lines, [3, 4, 5].into(), "{:?}", all(src));
    }

    #[test]
    fn usage_guards_are_left_alone() {
        let src = "import typing\nif typing.TYPE_CHECKING:\n    pass\nif TYPE_CHECKING:\n    pass\n\
                   if '__main__' == __name__:\n    pass\nif __name__ == \"__main__\":\n    pass\n\
                   if __name__ == \"x\":\n    pass\n";
        let got: Vec<u64> = all(src).iter().map(|m| m.0).collect();
        assert_eq!(got, [10, 10], "{:?}", all(src));
    }

    #[test]
    fn only_the_asked_statements_each_mutant_one_change_that_parses() {
        let src = "x = 1 + 2\ny = (3 *\n     4)\nz = not y\n";
        let one: BTreeSet<u64> = [2].into();
        let got = mutants(src, &one).unwrap();
        assert!(got.iter().all(|m| m.line == 2));
        assert_eq!(
            got.iter().map(|m| m.apply(src)).collect::<Vec<_>>(),
            vec![
                "x = 1 + 2\npass\nz = not y\n",
                "x = 1 + 2\ny = (3)\nz = not y\n",
                "x = 1 + 2\ny = (4)\nz = not y\n",
                "x = 1 + 2\ny = (3 /\n     4)\nz = not y\n",
                "x = 1 + 2\ny = (4 *\n     4)\nz = not y\n",
                "x = 1 + 2\ny = (2 *\n     4)\nz = not y\n",
                "x = 1 + 2\ny = (3 *\n     5)\nz = not y\n",
                "x = 1 + 2\ny = (3 *\n     3)\nz = not y\n",
            ]
        );
        // the same source and lines give the same mutants, in the same order
        assert_eq!(mutants(src, &one).unwrap(), got);
        assert!(mutants("def (:\n", &one).is_err());
    }

    #[test]
    fn the_budget_takes_each_kind_in_turn() {
        let src = "def f(a):\n    if a < 10 and a > 2:\n        return 1\n";
        let lines: BTreeSet<u64> = [2].into();
        let got = budget(mutants(src, &lines).unwrap(), 4);
        let kinds: Vec<&str> = got.iter().map(|m| m.kind.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "operand dropped",
                "condition negated",
                "comparison boundary",
                "comparison"
            ]
        );
    }
}
