//! Where `lane-scan --fix` may insert lines in one Python file: the byte offsets of each class
//! and function definition (its first decorator's line), the module docstring, the import
//! block. Read with ruff's parser, like the summary; nothing here edits.

use ruff_python_ast::{Expr, Stmt, StringFlags};
use ruff_text_size::Ranged;

use crate::parse::SyntaxError;

/// A class or function definition at module level or inside classes.
#[derive(Debug, Clone)]
pub struct Def {
    /// 1-based line of the name (the line lane-scan reports for a test).
    pub line: u64,
    /// Offset of the start of the line of its first decorator (or of `def` / `class`).
    pub start: usize,
    /// The indentation of that line.
    pub indent: String,
    pub is_class: bool,
    /// Enclosing class names, then its own name.
    pub qual: Vec<String>,
    /// Parameter names (functions).
    pub params: Vec<String>,
}

/// The module docstring's string literal.
#[derive(Debug, Clone)]
pub struct Docstring {
    /// Offset of the end of the last literal part (after its closing quotes).
    pub end: usize,
    /// The closing quotes are three characters (`"""` / `'''`).
    pub triple: bool,
}

#[derive(Debug, Clone)]
pub struct Layout {
    pub defs: Vec<Def>,
    pub docstring: Option<Docstring>,
    /// Offset where the first statement's line starts (a new docstring goes here).
    pub first_stmt: Option<usize>,
    /// Where `import pytest` goes: the line start of the first statement after the docstring
    /// and `from __future__` imports (None: at the end of the file), and whether that
    /// statement is an import.
    pub import_at: Option<(usize, ImportNext)>,
    /// `import pytest` at module level (bound as `pytest`).
    pub imports_pytest: bool,
    /// A module-level `pytestmark` is assigned.
    pub has_pytestmark: bool,
    /// Offset of the line after the last module-level import before the first definition (a
    /// module's `pytestmark` goes here), if any.
    pub after_imports: Option<usize>,
}

impl Layout {
    /// The function whose name is on `line`. `defs` are in source order, so in order of line:
    /// found by halving, not by a pass per test (a file of many tests stays linear).
    pub fn function_at(&self, line: u64) -> Option<&Def> {
        let from = self.defs.partition_point(|d| d.line < line);
        self.defs[from..]
            .iter()
            .take_while(|d| d.line == line)
            .find(|d| !d.is_class)
    }
}

/// What follows the place where `import pytest` goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportNext {
    Import,
    Definition,
    Other,
}

/// Reads the layout of `source`.
pub fn read(source: &str) -> Result<Layout, SyntaxError> {
    let error = |offset: usize, message: String| {
        let at = lane_core::Position::of(source.as_bytes(), offset);
        SyntaxError {
            line: at.line as u64,
            column: at.column as u64,
            message,
        }
    };
    // The scan has already refused files nested past the parser's limits; the guard keeps a
    // file changed since from reaching the recursive parser.
    if let Some(offset) = crate::parse::too_deep(source) {
        return Err(error(offset, crate::parse::too_deep_message()));
    }
    let parsed = ruff_python_parser::parse_module(source)
        .map_err(|e| error(e.location.start().to_usize(), e.error.to_string()))?;
    let body = &parsed.syntax().body;
    let line_start = |offset: usize| source[..offset].rfind('\n').map_or(0, |i| i + 1);
    let next_line = |offset: usize| {
        source[offset..]
            .find('\n')
            .map_or(source.len(), |i| offset + i + 1)
    };
    let mut layout = Layout {
        defs: Vec::new(),
        docstring: None,
        first_stmt: body.first().map(|s| line_start(s.start().to_usize())),
        import_at: None,
        imports_pytest: false,
        has_pytestmark: false,
        after_imports: None,
    };
    let mut rest = &body[..];
    if let Some(Stmt::Expr(e)) = rest.first()
        && let Expr::StringLiteral(s) = &*e.value
    {
        let last = s.value.as_slice().last();
        layout.docstring = last.map(|part| Docstring {
            end: part.end().to_usize(),
            triple: part.flags.is_triple_quoted(),
        });
        rest = &rest[1..];
    }
    while let Some(Stmt::ImportFrom(i)) = rest.first()
        && i.module
            .as_ref()
            .is_some_and(|m| m.as_str() == "__future__")
    {
        rest = &rest[1..];
    }
    layout.import_at = rest.first().map(|s| {
        let next = match s {
            Stmt::Import(_) | Stmt::ImportFrom(_) => ImportNext::Import,
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => ImportNext::Definition,
            _ => ImportNext::Other,
        };
        (line_start(s.start().to_usize()), next)
    });
    for stmt in body {
        let pytestmark = match stmt {
            Stmt::Import(i) => {
                layout.imports_pytest |= i.names.iter().any(|a| {
                    a.name.as_str() == "pytest"
                        && a.asname.as_ref().is_none_or(|n| n.as_str() == "pytest")
                });
                false
            }
            Stmt::Assign(a) => a.targets.iter().any(|t| is_name(t, "pytestmark")),
            Stmt::AnnAssign(a) => is_name(&a.target, "pytestmark"),
            Stmt::AugAssign(a) => is_name(&a.target, "pytestmark"),
            _ => false,
        };
        layout.has_pytestmark |= pytestmark;
    }
    for stmt in body {
        match stmt {
            Stmt::Import(_) | Stmt::ImportFrom(_) => {
                layout.after_imports = Some(next_line(stmt.end().to_usize()));
            }
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => break,
            _ => {}
        }
    }
    let newlines: Vec<usize> = memchr::memchr_iter(b'\n', source.as_bytes()).collect();
    defs(source, &newlines, body, &mut Vec::new(), &mut layout.defs);
    Ok(layout)
}

fn is_name(e: &Expr, name: &str) -> bool {
    matches!(e, Expr::Name(n) if n.id.as_str() == name)
}

/// The definitions of `body` and of the classes in it, with their enclosing names.
fn defs(
    source: &str,
    newlines: &[usize],
    body: &[Stmt],
    outer: &mut Vec<String>,
    out: &mut Vec<Def>,
) {
    for stmt in body {
        let (name, decorators, is_class) = match stmt {
            Stmt::FunctionDef(f) => (f.name.as_str(), &f.decorator_list, false),
            Stmt::ClassDef(c) => (c.name.as_str(), &c.decorator_list, true),
            _ => continue,
        };
        let first = decorators
            .first()
            .map_or(stmt.start(), |d| d.start())
            .to_usize();
        let start = source[..first].rfind('\n').map_or(0, |i| i + 1);
        let indent: String = source[start..first]
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect();
        let name_at = match stmt {
            Stmt::FunctionDef(f) => f.name.start(),
            Stmt::ClassDef(c) => c.name.start(),
            _ => continue,
        };
        let line = newlines.partition_point(|&nl| nl < name_at.to_usize()) as u64 + 1;
        let mut qual = outer.clone();
        qual.push(name.to_string());
        let params = match stmt {
            Stmt::FunctionDef(f) => f
                .parameters
                .iter()
                .map(|p| p.name().as_str().to_string())
                .collect(),
            _ => Vec::new(),
        };
        out.push(Def {
            line,
            start,
            indent,
            is_class,
            qual,
            params,
        });
        if let Stmt::ClassDef(c) = stmt {
            outer.push(name.to_string());
            defs(source, newlines, &c.body, outer, out);
            outer.pop();
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_function_on_a_line_is_found_among_classes_and_nested_defs() {
        let source = "import pytest\n\nclass TestA:\n    @pytest.mark.x\n    def test_a(self):\n        pass\n\n    class TestB:\n        def test_b(self):\n            pass\n\ndef test_c():\n    pass\n";
        let layout = read(source).unwrap();
        assert!(layout.defs.windows(2).all(|w| w[0].line < w[1].line));
        let name = |line: u64| layout.function_at(line).map(|d| d.qual.join("::"));
        assert_eq!(name(5).as_deref(), Some("TestA::test_a"));
        assert_eq!(name(9).as_deref(), Some("TestA::TestB::test_b"));
        assert_eq!(name(12).as_deref(), Some("test_c"));
        // A class's line, a decorator's line, a line past the end: no function.
        assert_eq!(name(3), None);
        assert_eq!(name(4), None);
        assert_eq!(name(99), None);
    }
}
