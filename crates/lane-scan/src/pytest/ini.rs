//! pytest's ini values, and ini files read the way pytest's iniconfig reads them.

use std::path::Path;

use lane_core::Error;

use crate::shell_split::{SplitError, shell_split};

/// One ini value: a plain string (ini files, TOML strings) or a list (TOML arrays).
#[derive(Debug, Clone)]
pub enum Value {
    Text(String),
    List(Vec<String>),
}

impl Value {
    /// pytest's "args" type: a string split as Python's `shlex.split` does (an error where
    /// it refuses the string, as pytest then cannot start), or the list as it is.
    pub fn args(&self) -> Result<Vec<String>, SplitError> {
        match self {
            Value::Text(s) => shell_split(s),
            Value::List(l) => Ok(l.clone()),
        }
    }

    /// pytest's "string" type: the value as written (a list's items joined by a space).
    pub fn text(&self) -> String {
        match self {
            Value::Text(s) => s.trim().to_string(),
            Value::List(l) => l.join(" "),
        }
    }

    /// pytest's "linelist" type: non-empty stripped lines.
    pub fn lines(&self) -> Vec<String> {
        match self {
            Value::Text(s) => s
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect(),
            Value::List(l) => l.iter().map(|s| s.trim().to_string()).collect(),
        }
    }
}

/// Key, value and the 1-based line of the key.
pub type Entries = Vec<(String, Value, u64)>;

/// Where the reading of an ini file stands.
struct Reader<'s> {
    section: &'s str,
    /// The section of the line being read.
    current: Option<String>,
    /// The entries of `section`, once its header is seen.
    result: Option<Entries>,
}

/// Parses an ini file the way pytest's iniconfig does and returns the entries of `section`
/// (None when the file has no such section). Malformed lines are an error with their line.
pub fn section(path: &Path, text: &str, section: &str) -> Result<Option<Entries>, Error> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut reader = Reader {
        section,
        current: None,
        result: None,
    };
    for (i, raw) in text.lines().enumerate() {
        let lineno = i as u64 + 1;
        reader
            .line(raw.trim_end_matches('\r'), lineno)
            .map_err(|why| Error::parse(path.display().to_string(), lineno as usize, 1, why))?;
    }
    Ok(reader.result)
}

impl Reader<'_> {
    /// Reads one line (its `\r` removed); the error says what was expected.
    fn line(&mut self, line: &str, lineno: u64) -> Result<(), String> {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            return Ok(());
        }
        if line.starts_with([' ', '\t']) {
            return self.continuation(trimmed);
        }
        if let Some(rest) = trimmed.strip_prefix('[') {
            let Some(header) = rest.strip_suffix(']') else {
                return Err("expected a section header like [pytest]".into());
            };
            let header = header.trim().to_string();
            if header == self.section {
                if self.result.is_some() {
                    return Err(format!("duplicate section [{}]", self.section));
                }
                self.result = Some(Vec::new());
            }
            self.current = Some(header);
            return Ok(());
        }
        let Some(pos) = line.find(['=', ':']) else {
            return Err("expected 'name = value', a [section] header or a comment".into());
        };
        let Some(current) = &self.current else {
            return Err("a value before any [section] header".into());
        };
        if current == self.section
            && let Some(entries) = self.result.as_mut()
        {
            let key = line[..pos].trim().to_string();
            let value = line[pos + 1..].trim().to_string();
            entries.push((key, Value::Text(value), lineno));
        }
        Ok(())
    }

    /// An indented line: the continuation of the previous value.
    fn continuation(&mut self, trimmed: &str) -> Result<(), String> {
        let Some(current) = &self.current else {
            return Err(
                "unexpected indented line: expected a section header or 'name = value'".into(),
            );
        };
        if current != self.section {
            return Ok(());
        }
        let Some(entries) = self.result.as_mut() else {
            return Ok(());
        };
        if let Some((_, Value::Text(v), _)) = entries.last_mut() {
            v.push('\n');
            v.push_str(trimmed);
        } else if entries.is_empty() {
            return Err("unexpected indented line: expected 'name = value'".into());
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ini_errors_are_located() {
        let p = Path::new("tox.ini");
        let err = section(
            p,
            "[pytest]\nmarkers =\n  merge\nthis is not ini\n",
            "pytest",
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("tox.ini:4:"), "{err}");
        let ok = section(
            p,
            "[other]\nx=1\n[pytest]\nmarkers =\n  merge: votes\n  witness\n",
            "pytest",
        )
        .unwrap()
        .unwrap();
        assert_eq!(ok[0].0, "markers");
        assert_eq!(ok[0].1.lines(), vec!["merge: votes", "witness"]);
        assert_eq!(ok[0].2, 4);
    }

    #[test]
    fn ini_refusals_name_what_was_expected() {
        let p = Path::new("setup.cfg");
        let err = |text: &str| section(p, text, "tool:pytest").unwrap_err().to_string();
        assert!(err("  indented\n").contains("setup.cfg:1:"));
        assert!(err("x = 1\n").contains("a value before any [section] header"));
        assert!(err("[tool:pytest\n").contains("expected a section header"));
        assert!(err("[tool:pytest]\n[tool:pytest]\n").contains("duplicate section [tool:pytest]"));
        assert!(err("[tool:pytest]\n  x\n").contains("expected 'name = value'"));
        assert!(err("[a]\nnot ini\n").contains("setup.cfg:2:"));
        // Continuations of another section, and a value kept as text, are read.
        let ok = section(
            p,
            "[a]\nk=1\n  more\n[tool:pytest]\naddopts = -ra\n  -q\n",
            "tool:pytest",
        )
        .unwrap()
        .unwrap();
        assert_eq!(ok[0].1.args().unwrap(), vec!["-ra", "-q"]);
    }
}
