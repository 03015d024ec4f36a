//! The evidence document: `{"version": 1, "scan": {...}, "lock": {...}, ...}`.
//!
//! Each tool reads the whole document, replaces its own section and writes the whole document
//! back. Sections it does not own travel untouched; unknown top-level fields are kept. The
//! canonical form (keys sorted, two-space indent, trailing newline) makes output byte-stable.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::Error;
use crate::problem::{Problem, Severity};

/// The document's major version. Within it, changes only add fields or values.
pub const DOCUMENT_VERSION: u64 = 1;

/// The sections tools write, in pipeline order.
pub const SECTIONS: &[&str] = &[
    "scan",
    "lock",
    "lock_diff",
    "ledger",
    "ledger_diff",
    "tally",
];

#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    root: Map<String, Value>,
}

impl Default for Document {
    fn default() -> Self {
        Self::empty()
    }
}

impl Document {
    /// `{"version": 1}`.
    pub fn empty() -> Self {
        let mut root = Map::new();
        root.insert("version".into(), Value::from(DOCUMENT_VERSION));
        Document { root }
    }

    /// Parses a document. Empty (or all-whitespace) input is an empty document. Anything that
    /// is not a JSON object with `"version": 1` is an error naming `source_name`.
    pub fn parse(bytes: &[u8], source_name: &str) -> Result<Self, Error> {
        if bytes.iter().all(|b| b.is_ascii_whitespace()) {
            return Ok(Self::empty());
        }
        let value: Value =
            serde_json::from_slice(bytes).map_err(|e| Error::json(source_name, &e))?;
        let Value::Object(root) = value else {
            return Err(Error::parse(
                source_name,
                1,
                1,
                "expected an evidence document (a JSON object with \"version\": 1)",
            ));
        };
        match root.get("version") {
            Some(Value::Number(n)) if n.as_u64() == Some(DOCUMENT_VERSION) => {}
            Some(other) => {
                return Err(Error::Version {
                    source_name: source_name.to_string(),
                    found: other.to_string(),
                });
            }
            None => {
                return Err(Error::parse(
                    source_name,
                    0,
                    0,
                    "the evidence document has no \"version\" field",
                ));
            }
        }
        for (name, section) in &root {
            if SECTIONS.contains(&name.as_str()) && !section.is_object() {
                return Err(Error::parse(
                    source_name,
                    0,
                    0,
                    format!("section \"{name}\" must be a JSON object"),
                ));
            }
        }
        Ok(Document { root })
    }

    pub fn section(&self, name: &str) -> Option<&Value> {
        self.root.get(name)
    }

    pub fn has_section(&self, name: &str) -> bool {
        self.root.contains_key(name)
    }

    /// Deserializes a section into a tool's own type; a section of the wrong shape is an error.
    pub fn section_as<T: DeserializeOwned>(
        &self,
        name: &str,
        source_name: &str,
    ) -> Result<Option<T>, Error> {
        match self.root.get(name) {
            None => Ok(None),
            Some(v) => T::deserialize(v).map(Some).map_err(|e| {
                Error::parse(
                    source_name,
                    0,
                    0,
                    format!("section \"{name}\" is malformed: {e}"),
                )
            }),
        }
    }

    /// Adds or replaces a section.
    pub fn set_section<T: Serialize>(&mut self, name: &str, section: &T) {
        let value = serde_json::to_value(section).unwrap_or_else(|e| {
            // Our section types always serialize; a failure is a bug, not bad input.
            panic!("section {name} failed to serialize: {e}")
        });
        self.root.insert(name.to_string(), value);
    }

    pub fn remove_section(&mut self, name: &str) -> Option<Value> {
        self.root.remove(name)
    }

    /// The problems of one section; a missing or malformed `problems` list gives an error
    /// (fail closed: a section whose problems cannot be read is not a clean section).
    pub fn problems_of(&self, name: &str, source_name: &str) -> Result<Vec<Problem>, Error> {
        let Some(section) = self.root.get(name) else {
            return Ok(Vec::new());
        };
        match section.get("problems") {
            None => Err(Error::parse(
                source_name,
                0,
                0,
                format!("section \"{name}\" has no \"problems\" list"),
            )),
            Some(p) => Vec::<Problem>::deserialize(p).map_err(|e| {
                Error::parse(
                    source_name,
                    0,
                    0,
                    format!("section \"{name}\" has malformed problems: {e}"),
                )
            }),
        }
    }

    /// Every section that carries `problems`, with its problems, sorted by section name.
    pub fn all_problems(&self, source_name: &str) -> Result<Vec<(String, Vec<Problem>)>, Error> {
        let mut out = Vec::new();
        for (name, section) in &self.root {
            if section.get("problems").is_some() || SECTIONS.contains(&name.as_str()) {
                out.push((name.clone(), self.problems_of(name, source_name)?));
            }
        }
        Ok(out)
    }

    /// Number of errors in every section except `except`.
    pub fn upstream_errors(&self, except: &str, source_name: &str) -> Result<usize, Error> {
        Ok(self
            .all_problems(source_name)?
            .iter()
            .filter(|(name, _)| name != except)
            .flat_map(|(_, p)| p)
            .filter(|p| p.severity == Severity::Error)
            .count())
    }

    /// The canonical bytes: sorted keys, two-space indent, trailing newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = serde_json::to_vec_pretty(&self.root).unwrap_or_default();
        out.push(b'\n');
        out
    }
}

use serde::Deserialize;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_input_is_an_empty_document() {
        for input in [&b""[..], b"  \n", b"\t"] {
            assert_eq!(Document::parse(input, "-").unwrap(), Document::empty());
        }
    }

    #[test]
    fn refuses_other_versions_and_shapes() {
        let cases: &[(&str, &[u8], &str)] = &[
            (
                "version 2",
                br#"{"version":2}"#,
                "version 2 is not supported",
            ),
            (
                "string version",
                br#"{"version":"1"}"#,
                "version \"1\" is not supported",
            ),
            ("no version", br#"{"scan":{}}"#, "no \"version\" field"),
            ("array", b"[1]", "expected an evidence document"),
            ("truncated", br#"{"version":1,"#, "stdin:1:"),
            (
                "scan not object",
                br#"{"version":1,"scan":[]}"#,
                "must be a JSON object",
            ),
        ];
        for (name, input, expected) in cases {
            let err = Document::parse(input, "stdin").unwrap_err().to_string();
            assert!(err.contains(expected), "{name}: {err}");
        }
    }

    #[test]
    fn unknown_fields_and_sections_travel() {
        let input = br#"{"version":1,"x-extra":{"a":[1,2]},"lock":{"problems":[],"zz":1}}"#;
        let doc = Document::parse(input, "-").unwrap();
        let again = Document::parse(&doc.to_bytes(), "-").unwrap();
        assert_eq!(doc, again);
        assert_eq!(doc.section("x-extra").unwrap()["a"][1], 2);
        assert_eq!(doc.section("lock").unwrap()["zz"], 1);
    }

    #[test]
    fn output_is_canonical() {
        let a = Document::parse(br#"{"b":1,"version":1,"a":2}"#, "-").unwrap();
        let b = Document::parse(br#"{"a":2,"version":1,"b":1}"#, "-").unwrap();
        assert_eq!(a.to_bytes(), b.to_bytes());
        assert!(a.to_bytes().ends_with(b"}\n"));
    }

    #[test]
    fn upstream_errors_count_every_other_section() {
        let input = br#"{"version":1,
            "scan":{"problems":[{"rule":"unmarked","severity":"error","message":"m"}]},
            "lock":{"problems":[{"rule":"orphan-lock","severity":"warning","message":"m"},
                                {"rule":"digest-moved","severity":"error","message":"m"}]}}"#;
        let doc = Document::parse(input, "-").unwrap();
        assert_eq!(doc.upstream_errors("tally", "-").unwrap(), 2);
        assert_eq!(doc.upstream_errors("scan", "-").unwrap(), 1);
    }

    #[test]
    fn section_without_problems_fails_closed() {
        let doc = Document::parse(br#"{"version":1,"lock":{"tool":"lane-lock"}}"#, "-").unwrap();
        assert!(doc.upstream_errors("tally", "-").is_err());
    }
}
