//! parse-error and file-too-large: a file whose tests the scan cannot read (it cannot be read,
//! is not UTF-8, does not parse, or is over the size limit). The other files are still
//! scanned; the gate fails closed on the error.

use lane_core::detector::Detector;
use lane_core::rule::SOURCE_MAX_BYTES;
use lane_core::{Problem, Rule};
use lane_python::SyntaxError;

use super::{Scan, ScanFacts};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::ParseError, Rule::FileTooLarge],
    check,
};

/// A file the scan could not read, root-relative, and why.
#[derive(Debug)]
pub(crate) struct Unreadable {
    pub file: String,
    pub why: Why,
}

/// Why a file could not be read.
#[derive(Debug)]
pub(crate) enum Why {
    /// A Python file over [`SOURCE_MAX_BYTES`] (its size, when known).
    TooLarge(Option<u64>),
    /// The I/O error's own text.
    CannotRead(String),
    /// A doctest text file that cannot be read: the error's text.
    CannotReadDoctestFile(String),
    /// Not UTF-8: the line and byte offset of the first byte that is not.
    NotUtf8 {
        line: u64,
        offset: usize,
    },
    /// A module read for its doctests alone that is not UTF-8.
    NotUtf8ForDoctests,
    Syntax(SyntaxError),
}

/// Whether `p` names a file that does not parse (`lane-scan --fix` leaves those alone).
pub(crate) fn is_parse_error(p: &Problem) -> bool {
    p.rule == Rule::ParseError.id()
}

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Unreadable(u) = facts else {
        return;
    };
    let rel = u.file.as_str();
    let parse_error = |msg: String| Problem::new(Rule::ParseError, msg);
    problems.push(match &u.why {
        Why::TooLarge(size) => {
            let size = size.map_or_else(|| "more than".to_string(), |n| format!("{n} bytes,"));
            Problem::new(
                Rule::FileTooLarge,
                format!(
                    "{rel}: {size} over the {SOURCE_MAX_BYTES}-byte limit for a Python file; \
                     not read"
                ),
            )
            .file(rel)
        }
        // The I/O error's own text, under the root-relative name: an absolute path would make
        // the document depend on where the tree was checked out.
        Why::CannotRead(why) => parse_error(format!("cannot read {rel}: {why}")).file(rel),
        Why::CannotReadDoctestFile(why) => {
            parse_error(format!("cannot read doctest file {rel}: {why}")).file(rel)
        }
        Why::NotUtf8 { line, offset } => parse_error(format!(
            "{rel}:{line}: not valid UTF-8 (byte offset {offset})"
        ))
        .at(rel, *line),
        Why::NotUtf8ForDoctests => parse_error(format!(
            "{rel}: not valid UTF-8; pytest cannot import it for its doctests"
        ))
        .file(rel),
        Why::Syntax(e) => {
            parse_error(format!("{rel}:{}:{}: {}", e.line, e.column, e.message)).at(rel, e.line)
        }
    });
}
