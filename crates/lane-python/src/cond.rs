//! `if` conditions as far as they can be decided without running code, and the interpreter
//! they are decided for.

use compact_str::CompactString;
use ruff_python_ast::{self as ast, CmpOp, Expr, Number};
use ruff_text_size::Ranged;

use crate::parse::Lines;
use crate::summary::{MAX_DEPTH, const_truth, literal};

/// A comparison operator of a version condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    Eq,
    NotEq,
    Lt,
    LtE,
    Gt,
    GtE,
    /// `in`, `is` and the like: never decided.
    Other,
}

impl Compare {
    fn of(op: CmpOp) -> Compare {
        match op {
            CmpOp::Eq => Compare::Eq,
            CmpOp::NotEq => Compare::NotEq,
            CmpOp::Lt => Compare::Lt,
            CmpOp::LtE => Compare::LtE,
            CmpOp::Gt => Compare::Gt,
            CmpOp::GtE => Compare::GtE,
            _ => Compare::Other,
        }
    }

    /// The same comparison with its operands swapped (`a < b` is `b > a`).
    fn flipped(self) -> Compare {
        match self {
            Compare::Lt => Compare::Gt,
            Compare::LtE => Compare::GtE,
            Compare::Gt => Compare::Lt,
            Compare::GtE => Compare::LtE,
            other => other,
        }
    }
}

/// An `if` condition, as far as it can be decided without running code: constants,
/// `sys.version_info` and `sys.platform` comparisons, the implementation's name and
/// `sys.builtin_module_names` (decided for a target interpreter), `TYPE_CHECKING`, and `not` /
/// `and` / `or` of those. A string compared `in` / `not in` a tuple (or list) of string
/// literals is the `or` of `==` (the `and` of `!=`).
#[derive(Debug, Clone, PartialEq)]
pub enum Cond {
    Const(bool),
    /// `sys.version_info[:len] OP (values)`; `len` is `None` for the whole 5-tuple.
    Version {
        op: Compare,
        len: Option<usize>,
        values: Vec<u64>,
    },
    /// `sys.platform == / != value`.
    Platform {
        eq: bool,
        value: CompactString,
    },
    /// `sys.platform.startswith(prefixes)`.
    PlatformStarts(Vec<CompactString>),
    /// `os.name == / != value`.
    OsName {
        eq: bool,
        value: CompactString,
    },
    /// `platform.python_implementation()`, `sys.implementation.name` or `platform.system()`
    /// `== / !=` a string.
    Implementation {
        eq: bool,
        how: Implementation,
        value: CompactString,
    },
    /// `name in sys.builtin_module_names` (`present`), or `not in` (`'__pypy__' not in
    /// sys.builtin_module_names`, PyPy's test).
    BuiltinModule {
        present: bool,
        name: CompactString,
    },
    /// A name or attribute chain (`PY3`, `compat.PY3`) read at `line`: its truth is the value
    /// the name is bound to there, followed into the module it comes from by the caller's
    /// resolver.
    Ref {
        path: Vec<CompactString>,
        line: u64,
    },
    Not(Box<Cond>),
    And(Vec<Cond>),
    Or(Vec<Cond>),
    Unknown,
}

/// Which of the interpreter's names a [`Cond::Implementation`] compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implementation {
    /// `platform.python_implementation()`: `CPython`, `PyPy` ...
    Platform,
    /// `sys.implementation.name`: `cpython`, `pypy` ...
    Sys,
    /// `platform.system()`: `Linux`, `Darwin`, `Windows` (from `sys.platform`).
    System,
}

/// The interpreter that will run the code: what version and platform conditions are decided
/// for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub version: (u64, u64, u64),
    /// `sys.platform`: `linux`, `darwin`, `win32` ...
    pub platform: String,
    /// `sys.implementation.name`: `cpython`, `pypy` ... (empty: not known).
    pub implementation: String,
    /// `sys.builtin_module_names`, as the interpreter reports them (empty: not known; every
    /// interpreter has some).
    pub builtin_modules: Vec<String>,
}

impl Target {
    /// What `how` reads on this interpreter, when it can be known.
    fn implementation(&self, how: Implementation) -> Option<&str> {
        match how {
            Implementation::Sys if !self.implementation.is_empty() => Some(&self.implementation),
            Implementation::Sys => None,
            Implementation::Platform => match self.implementation.as_str() {
                "cpython" => Some("CPython"),
                "pypy" => Some("PyPy"),
                "ironpython" => Some("IronPython"),
                "jython" => Some("Jython"),
                _ => None,
            },
            Implementation::System => match self.platform.as_str() {
                "linux" => Some("Linux"),
                "darwin" => Some("Darwin"),
                "win32" => Some("Windows"),
                _ => None,
            },
        }
    }
}

impl Cond {
    /// The condition's truth for `target` (`None`: undecidable, or no target known); a
    /// [`Cond::Ref`] is undecided.
    pub fn eval(&self, target: Option<&Target>) -> Option<bool> {
        self.eval_with(target, &mut |_, _| None)
    }

    /// The condition's truth for `target`, `refs` giving the truth of a name or attribute
    /// chain read at a line (`None`: unknown).
    pub fn eval_with(
        &self,
        target: Option<&Target>,
        refs: &mut dyn FnMut(&[CompactString], u64) -> Option<bool>,
    ) -> Option<bool> {
        match self {
            Cond::Const(b) => Some(*b),
            Cond::Unknown => None,
            Cond::Ref { path, line } => refs(path, *line),
            Cond::Not(c) => c.eval_with(target, refs).map(|b| !b),
            Cond::And(cs) => {
                let mut all = Some(true);
                for c in cs {
                    match c.eval_with(target, refs) {
                        Some(false) => return Some(false),
                        None => all = None,
                        Some(true) => {}
                    }
                }
                all
            }
            Cond::Or(cs) => {
                let mut any = Some(false);
                for c in cs {
                    match c.eval_with(target, refs) {
                        Some(true) => return Some(true),
                        None => any = None,
                        Some(false) => {}
                    }
                }
                any
            }
            Cond::Version { op, len, values } => {
                let t = target?;
                let (a, b, c) = t.version;
                let full = [a, b, c];
                // version_info is (major, minor, micro, releaselevel, serial): five items.
                let left_len = len.unwrap_or(5).min(5);
                let shared = left_len.min(values.len());
                if shared > 3 {
                    return None;
                }
                let ord = full[..shared]
                    .cmp(&values[..shared])
                    .then(left_len.cmp(&values.len()));
                Some(match op {
                    Compare::Eq => ord.is_eq(),
                    Compare::NotEq => !ord.is_eq(),
                    Compare::Lt => ord.is_lt(),
                    Compare::LtE => ord.is_le(),
                    Compare::Gt => ord.is_gt(),
                    Compare::GtE => ord.is_ge(),
                    Compare::Other => return None,
                })
            }
            Cond::Platform { eq, value } => Some((target?.platform == value.as_str()) == *eq),
            Cond::PlatformStarts(prefixes) => {
                let t = target?;
                Some(prefixes.iter().any(|p| t.platform.starts_with(p.as_str())))
            }
            Cond::Implementation { eq, how, value } => {
                Some((target?.implementation(*how)? == value.as_str()) == *eq)
            }
            Cond::BuiltinModule { present, name } => {
                let known = &target?.builtin_modules;
                if known.is_empty() {
                    return None;
                }
                Some(known.iter().any(|m| m == name.as_str()) == *present)
            }
            Cond::OsName { eq, value } => {
                let name = if target?.platform == "win32" {
                    "nt"
                } else {
                    "posix"
                };
                Some((name == value.as_str()) == *eq)
            }
        }
    }
}

/// `sys.X` or a bare `X` (imported from sys).
fn is_sys(expr: &Expr, attr: &str) -> bool {
    match expr {
        Expr::Attribute(a) => {
            a.attr.as_str() == attr && matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "sys")
        }
        Expr::Name(n) => n.id.as_str() == attr,
        _ => false,
    }
}

/// `sys.version_info`, `sys.version_info[:n]`, `sys.version_info[0]` or
/// `sys.version_info.major`: how many leading items it keeps (`None`: all five).
fn version_prefix(expr: &Expr) -> Option<Option<usize>> {
    if is_sys(expr, "version_info") {
        return Some(None);
    }
    match expr {
        Expr::Subscript(s) if is_sys(&s.value, "version_info") => match &*s.slice {
            Expr::Slice(sl) if sl.lower.is_none() && sl.step.is_none() => {
                small_int(sl.upper.as_deref()?).map(|n| Some(n as usize))
            }
            Expr::NumberLiteral(_) if small_int(&s.slice) == Some(0) => Some(Some(1)),
            _ => None,
        },
        Expr::Attribute(a) if a.attr.as_str() == "major" && is_sys(&a.value, "version_info") => {
            Some(Some(1))
        }
        _ => None,
    }
}

fn small_int(expr: &Expr) -> Option<u64> {
    match expr {
        Expr::NumberLiteral(n) => match &n.value {
            Number::Int(i) => i.as_u64(),
            _ => None,
        },
        _ => None,
    }
}

/// A tuple of integer literals, or one integer literal.
fn int_tuple(expr: &Expr) -> Option<Vec<u64>> {
    match expr {
        Expr::Tuple(t) => t.elts.iter().map(small_int).collect(),
        other => small_int(other).map(|i| vec![i]),
    }
}

/// An `if` condition as a [`Cond`]. A name or attribute chain of names (`PY3`,
/// `compat.PY3`) is a [`Cond::Ref`] at its line, unless its first name is in `shadow` (bound
/// in the class body the condition is written in).
pub(crate) fn cond(expr: &Expr, depth: usize, lines: &Lines, shadow: &[CompactString]) -> Cond {
    if depth > MAX_DEPTH {
        return Cond::Unknown;
    }
    if let Some(t) = const_truth(expr) {
        return Cond::Const(t);
    }
    match expr {
        Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not => {
            Cond::Not(Box::new(cond(&u.operand, depth + 1, lines, shadow)))
        }
        Expr::BoolOp(b) => {
            let parts = b
                .values
                .iter()
                .map(|v| cond(v, depth + 1, lines, shadow))
                .collect();
            match b.op {
                ast::BoolOp::And => Cond::And(parts),
                ast::BoolOp::Or => Cond::Or(parts),
            }
        }
        // six.PY2 / six.PY3: `sys.version_info[0] == 2 / 3`, decided like it.
        Expr::Attribute(a)
            if matches!(a.attr.as_str(), "PY2" | "PY3")
                && matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "six") =>
        {
            Cond::Version {
                op: Compare::Eq,
                len: Some(1),
                values: vec![if a.attr.as_str() == "PY2" { 2 } else { 3 }],
            }
        }
        Expr::Name(n) if n.id.as_str() == "TYPE_CHECKING" => Cond::Const(false),
        Expr::Attribute(a) if a.attr.as_str() == "TYPE_CHECKING" => Cond::Const(false),
        Expr::Compare(c) if c.ops.len() == 1 && c.comparators.len() == 1 => {
            let (left, op, right) = (&*c.left, Compare::of(c.ops[0]), &c.comparators[0]);
            let version = |prefix: Option<usize>, other: &Expr, op: Compare| match int_tuple(other)
            {
                Some(values) => Cond::Version {
                    op,
                    len: prefix,
                    values,
                },
                None => Cond::Unknown,
            };
            if let Some(p) = version_prefix(left) {
                return version(p, right, op);
            }
            if let Some(p) = version_prefix(right) {
                return version(p, left, op.flipped());
            }
            string_compare(left, c.ops[0], right)
        }
        Expr::Call(c)
            if c.arguments.keywords.is_empty()
                && c.arguments.args.len() == 1
                && matches!(&*c.func, Expr::Attribute(a) if a.attr.as_str() == "startswith"
                    && is_sys(&a.value, "platform")) =>
        {
            let prefixes: Option<Vec<CompactString>> = match &c.arguments.args[0] {
                Expr::StringLiteral(s) => Some(vec![literal(&s.value)]),
                Expr::Tuple(t) => t
                    .elts
                    .iter()
                    .map(|e| match e {
                        Expr::StringLiteral(s) => Some(literal(&s.value)),
                        _ => None,
                    })
                    .collect(),
                _ => None,
            };
            prefixes.map_or(Cond::Unknown, Cond::PlatformStarts)
        }
        Expr::Name(_) | Expr::Attribute(_) => match name_path(expr, 0) {
            Some(path) if !shadow.contains(&path[0]) => Cond::Ref {
                path,
                line: lines.line(expr.start()),
            },
            _ => Cond::Unknown,
        },
        _ => Cond::Unknown,
    }
}

/// `SUBJECT == / != 'value'` (either way round) with SUBJECT `sys.platform`, the
/// implementation's name (see [`implementation_subject`]) or `os.name`; `SUBJECT in / not in
/// ('a', 'b')` as the `or` of `==` / the `and` of `!=`; `'name' in / not in
/// sys.builtin_module_names`.
fn string_compare(left: &Expr, op: CmpOp, right: &Expr) -> Cond {
    let one = |subject: &Expr, eq: bool, value: CompactString| {
        if is_sys(subject, "platform") {
            Cond::Platform { eq, value }
        } else if let Some(how) = implementation_subject(subject) {
            Cond::Implementation { eq, how, value }
        } else if matches!(subject, Expr::Attribute(a) if a.attr.as_str() == "name"
            && matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "os"))
        {
            Cond::OsName { eq, value }
        } else {
            Cond::Unknown
        }
    };
    match (op, left, right) {
        (CmpOp::Eq | CmpOp::NotEq, s, Expr::StringLiteral(v))
        | (CmpOp::Eq | CmpOp::NotEq, Expr::StringLiteral(v), s) => {
            one(s, op == CmpOp::Eq, literal(&v.value))
        }
        (CmpOp::In | CmpOp::NotIn, Expr::StringLiteral(v), names)
            if is_sys(names, "builtin_module_names") =>
        {
            Cond::BuiltinModule {
                present: op == CmpOp::In,
                name: literal(&v.value),
            }
        }
        (CmpOp::In | CmpOp::NotIn, subject, Expr::Tuple(ast::ExprTuple { elts, .. }))
        | (CmpOp::In | CmpOp::NotIn, subject, Expr::List(ast::ExprList { elts, .. })) => {
            let eq = op == CmpOp::In;
            let parts: Option<Vec<Cond>> = elts
                .iter()
                .map(|e| match e {
                    Expr::StringLiteral(v) => match one(subject, eq, literal(&v.value)) {
                        Cond::Unknown => None,
                        known => Some(known),
                    },
                    _ => None,
                })
                .collect();
            match parts {
                // `x in ()` is false, `x not in ()` true: the empty `or` and `and` agree.
                Some(parts) if eq => Cond::Or(parts),
                Some(parts) => Cond::And(parts),
                None => Cond::Unknown,
            }
        }
        _ => Cond::Unknown,
    }
}

/// `platform.python_implementation()`, `sys.implementation.name` or `platform.system()`.
fn implementation_subject(expr: &Expr) -> Option<Implementation> {
    match expr {
        Expr::Call(c) if c.arguments.args.is_empty() && c.arguments.keywords.is_empty() => {
            match &*c.func {
                Expr::Attribute(a) if matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "platform") => {
                    match a.attr.as_str() {
                        "python_implementation" => Some(Implementation::Platform),
                        "system" => Some(Implementation::System),
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        Expr::Attribute(a) if a.attr.as_str() == "name" && is_sys(&a.value, "implementation") => {
            Some(Implementation::Sys)
        }
        _ => None,
    }
}

/// `a`, `a.b.c` as its names, when every part is a plain name.
fn name_path(expr: &Expr, depth: usize) -> Option<Vec<CompactString>> {
    if depth > MAX_DEPTH {
        return None;
    }
    match expr {
        Expr::Name(n) => Some(vec![CompactString::new(n.id.as_str())]),
        Expr::Attribute(a) => {
            let mut path = name_path(&a.value, depth + 1)?;
            path.push(CompactString::new(a.attr.as_str()));
            Some(path)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The condition guarding the only function of `if COND:`, decided for `target`.
    fn decided(condition: &str, target: Option<&Target>) -> Option<bool> {
        let src = format!("import sys, platform\nif {condition}:\n    def test_a(): pass\n");
        let module = crate::summarize(&src).expect("parses");
        let [(guard, true)] = &module.functions[0].guards[..] else {
            panic!("{condition}: {:?}", module.functions[0].guards);
        };
        guard.eval(target)
    }

    fn target(implementation: &str, builtins: &[&str]) -> Target {
        Target {
            version: (3, 12, 1),
            platform: "linux".into(),
            implementation: implementation.into(),
            builtin_modules: builtins.iter().map(|b| (*b).to_string()).collect(),
        }
    }

    #[test]
    fn the_interpreter_s_own_names_are_decided_for_the_target() {
        let cpython = target("cpython", &["_abc", "builtins", "sys"]);
        let pypy = target("pypy", &["__pypy__", "builtins", "sys"]);
        // (condition, on CPython, on PyPy)
        let cases = [
            ("'__pypy__' in sys.builtin_module_names", false, true),
            ("'__pypy__' not in sys.builtin_module_names", true, false),
            ("\"_abc\" in sys.builtin_module_names", true, false),
            ("sys.implementation.name == 'pypy'", false, true),
            ("sys.implementation.name != 'cpython'", false, true),
            (
                "sys.implementation.name in ('pypy', 'graalpy')",
                false,
                true,
            ),
            ("sys.implementation.name not in ['pypy']", true, false),
            (
                "platform.python_implementation() in ('CPython',)",
                true,
                false,
            ),
            ("sys.platform in ('linux', 'darwin')", true, true),
            ("sys.platform not in ('win32', 'cygwin')", true, true),
            ("os.name in ()", false, false),
        ];
        for (condition, on_cpython, on_pypy) in cases {
            assert_eq!(
                decided(condition, Some(&cpython)),
                Some(on_cpython),
                "{condition}"
            );
            assert_eq!(
                decided(condition, Some(&pypy)),
                Some(on_pypy),
                "{condition}"
            );
        }
    }

    #[test]
    fn what_the_target_does_not_say_stays_undecided() {
        let unknown = target("", &[]);
        for condition in [
            "'__pypy__' in sys.builtin_module_names",
            "'__pypy__' not in sys.builtin_module_names",
            "sys.implementation.name in ('pypy',)",
        ] {
            assert_eq!(decided(condition, Some(&unknown)), None, "{condition}");
            assert_eq!(decided(condition, None), None, "{condition}");
        }
        let cpython = target("cpython", &["sys"]);
        for condition in [
            // Not literals, or not a name the scan decides.
            "NAME in sys.builtin_module_names",
            "'x' in sys.modules",
            "sys.implementation.name in ('pypy', NAME)",
            "sys.implementation.name in NAMES",
            "sys.builtin_module_names",
        ] {
            assert_eq!(decided(condition, Some(&cpython)), None, "{condition}");
        }
    }
}
