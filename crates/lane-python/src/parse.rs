//! The parse: ruff's parser behind a guard on bracket nesting (the parser and the tree's drop
//! recurse, and hostile input can nest deeply), with lines and columns as Python counts them.

use ruff_python_ast as ast;
use ruff_text_size::TextSize;

/// CPython refuses more than 200 nested brackets ("too many nested parentheses"); deeper
/// nesting is reported as a syntax error without handing it to the recursive parser.
const MAX_BRACKETS: usize = 200;

/// A syntax error with a 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: u64,
    pub column: u64,
    pub message: String,
}

/// Maps byte offsets to 1-based lines and columns (lane-core's line index, with Python's line
/// ends).
pub(crate) struct Lines(lane_core::position::LineIndex);

impl Lines {
    pub(crate) fn new(source: &str) -> Lines {
        Lines(lane_core::position::LineIndex::universal(source.as_bytes()))
    }

    pub(crate) fn line(&self, offset: TextSize) -> u64 {
        self.0.line(offset.to_usize()) as u64
    }

    pub(crate) fn column(&self, source: &str, offset: TextSize) -> u64 {
        self.0.position(source.as_bytes(), offset.to_usize()).column as u64
    }
}

/// The syntax error of a source nested past [`MAX_BRACKETS`].
pub(crate) fn too_deep_message() -> String {
    format!("too many nested parentheses (Python allows {MAX_BRACKETS})")
}

/// Parses `source` (BOM stripped) behind the nesting guard; errors are placed by `lines`,
/// the line index of `source`.
pub(crate) fn parse(
    source: &str,
    lines: &Lines,
) -> Result<ruff_python_parser::Parsed<ast::ModModule>, SyntaxError> {
    if let Some(offset) = too_deep(source) {
        let at = TextSize::try_from(offset).unwrap_or_default();
        return Err(SyntaxError {
            line: lines.line(at),
            column: lines.column(source, at),
            message: too_deep_message(),
        });
    }
    ruff_python_parser::parse_module(source).map_err(|e| SyntaxError {
        line: lines.line(e.location.start()),
        column: lines.column(source, e.location.start()),
        message: e.error.to_string(),
    })
}

/// The offset where bracket nesting first exceeds [`MAX_BRACKETS`], skipping strings and
/// comments; a guard in front of the recursive parser, not a parser.
pub(crate) fn too_deep(source: &str) -> Option<usize> {
    let bytes = source.as_bytes();
    // Fewer opening brackets than the limit cannot nest past it (most files). Counted 64
    // bytes at a time (a count the compiler vectorizes), stopping once past the limit: a
    // search call per bracket cost more than the walk below.
    // (`[` and `{` differ by one bit; a chunk holds at most 64 of them, a byte's worth.)
    let opens = |chunk: &[u8]| {
        chunk
            .iter()
            .fold(0u8, |n, &b| n + u8::from((b | 0x20 == b'{') | (b == b'(')))
    };
    let (chunks, rest) = bytes.as_chunks::<64>();
    let mut seen = usize::from(opens(rest));
    if seen <= MAX_BRACKETS
        && chunks.iter().all(|c| {
            seen += usize::from(opens(c));
            seen <= MAX_BRACKETS
        })
    {
        return None;
    }
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            q @ (b'"' | b'\'') => {
                let triple = bytes.get(i + 1) == Some(&q) && bytes.get(i + 2) == Some(&q);
                let step = if triple { 3 } else { 1 };
                i += step;
                while i < bytes.len() {
                    if bytes[i] == b'\\' {
                        i += 2;
                        continue;
                    }
                    if bytes[i] == q
                        && (!triple
                            || (bytes.get(i + 1) == Some(&q) && bytes.get(i + 2) == Some(&q)))
                    {
                        i += step - 1;
                        break;
                    }
                    if !triple && bytes[i] == b'\n' {
                        break;
                    }
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_BRACKETS {
                    return Some(i);
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::summarize;

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let src = format!("x = {}1{}\n", "(".repeat(50_000), ")".repeat(50_000));
        let err = summarize(&src).unwrap_err();
        assert!(err.message.contains("nested"), "{}", err.message);
        // Every reader of the crate stands behind the same guard.
        assert!(crate::layout::read(&src).is_err());
        assert!(crate::docfinder::find(&src, "m").is_err());
        assert_eq!(crate::product::reaches(&src), Err(1));
        assert!(!crate::product::names_entry_point_group(&src, "pytest11"));
        // Brackets inside strings and comments do not count.
        let ok = format!("x = '{}'  # {}\n", "(".repeat(500), "[".repeat(500));
        assert!(summarize(&ok).is_ok());
        // The limit itself: 200 levels parse, 201 do not; 1,000 brackets side by side do.
        let at = |n: usize| format!("x = {}1{}\n", "(".repeat(n), ")".repeat(n));
        assert!(summarize(&at(MAX_BRACKETS)).is_ok());
        assert!(summarize(&at(MAX_BRACKETS + 1)).is_err());
        assert!(summarize(&format!("x = [{}]\n", "(1), ".repeat(1000))).is_ok());
        // The same after lines of other text (the brackets are counted 64 bytes at a time).
        let after = |n: usize| format!("{}{}", "y = 1  # ()\n".repeat(30), at(n));
        assert!(summarize(&after(MAX_BRACKETS)).is_ok());
        assert!(summarize(&after(MAX_BRACKETS + 1)).is_err());
    }

    #[test]
    fn lines_end_at_lf_crlf_and_lone_cr() {
        let src = "a\r\nb\rc\n\nd";
        let lines = Lines::new(src);
        let line_of = |c: char| lines.line(TextSize::try_from(src.find(c).unwrap()).unwrap());
        assert_eq!(
            ['a', 'b', 'c', 'd'].map(line_of),
            [1, 2, 3, 5],
            "{:?}",
            lines.0
        );
    }
}
