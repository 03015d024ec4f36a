//! The one error type a tool's library returns when it cannot do its job (exit 2).

use std::path::PathBuf;

/// A failure that stops a tool: bad arguments, unreadable or malformed input, I/O errors.
/// Findings about the suite are never errors: they are [`crate::Problem`]s.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file (or stdin) is not what the tool expected; `line`/`column` are 1-based, 0 when
    /// unknown.
    #[error("{}", format_location(source_name, *line, *column, message))]
    Parse {
        source_name: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// The evidence document has a major version this build does not read.
    #[error(
        "{source_name}: evidence document version {found} is not supported (this build reads version {})",
        crate::document::DOCUMENT_VERSION
    )]
    Version { source_name: String, found: String },
    /// Arguments or environment the user must fix (a missing `--today`, a bad flag value).
    #[error("{0}")]
    Usage(String),
    /// A terminating signal arrived while a file was being replaced: the temporary file was
    /// removed; the tool exits with 128 + `signal` (`Error::exit_code`).
    #[error("{}: interrupted by {}; {}", path.display(), crate::signals::name(*signal), if *replaced { "the new file was already in place" } else { "the temporary file was removed and the file is unchanged" })]
    Interrupted {
        path: PathBuf,
        signal: i32,
        replaced: bool,
    },
}

fn format_location(source_name: &str, line: usize, column: usize, message: &str) -> String {
    match (line, column) {
        (0, _) => format!("{source_name}: {message}"),
        (l, 0) => format!("{source_name}:{l}: {message}"),
        (l, c) => format!("{source_name}:{l}:{c}: {message}"),
    }
}

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub fn parse(
        source_name: impl Into<String>,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Self {
        Error::Parse {
            source_name: source_name.into(),
            line,
            column,
            message: message.into(),
        }
    }

    /// A serde_json error as a located parse error.
    pub fn json(source_name: impl Into<String>, err: &serde_json::Error) -> Self {
        let full = err.to_string();
        // serde_json appends " at line L column C"; keep only the description.
        let message = match full.rfind(" at line ") {
            Some(i) => full[..i].to_string(),
            None => full,
        };
        Error::parse(source_name, err.line(), err.column(), message)
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Error::Usage(message.into())
    }

    /// The exit status this error ends a tool with: 128 + the signal's number for
    /// [`Error::Interrupted`] (the shell's convention), 2 for every other error.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            Error::Interrupted { signal, .. } => {
                u8::try_from(128 + signal).unwrap_or(crate::Status::Failure.code())
            }
            _ => crate::Status::Failure.code(),
        }
    }

    /// Renames the file an I/O or interruption error names (to its root-relative name), so a
    /// message never shows a joined or absolute path.
    pub fn renamed(self, name: impl Into<PathBuf>) -> Self {
        match self {
            Error::Io { source, .. } => Error::Io {
                path: name.into(),
                source,
            },
            Error::Interrupted {
                signal, replaced, ..
            } => Error::Interrupted {
                path: name.into(),
                signal,
                replaced,
            },
            other => other,
        }
    }
}
