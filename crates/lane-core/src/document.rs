//! The evidence document: `{"version": 1, "scan": {...}, "lock": {...}, ...}`.
//!
//! Each tool reads the whole document, replaces its own section and writes the whole document
//! back. Sections it does not own travel untouched; unknown top-level fields are kept. The
//! canonical form (keys sorted, two-space indent, trailing newline) makes output byte-stable.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::error::Error;
use crate::problem::{Problem, Severity};

/// The document's major version. Within it, changes only add fields or values.
pub(crate) const DOCUMENT_VERSION: u64 = 1;

/// The sections tools write, in pipeline order.
pub(crate) const SECTIONS: &[&str] = &[
    "scan",
    "lock",
    "lock_diff",
    "ledger",
    "ledger_diff",
    "tally",
];

/// The document as top-level fields, each kept as its JSON text: a tool parses only the
/// sections it reads (straight into its own types), and passes the others through as they
/// came, byte for byte, without holding a tree of them in memory.
#[derive(Debug, Clone)]
pub struct Document {
    /// Each value's JSON text: checked by the parser when read, written by us otherwise.
    root: BTreeMap<String, String>,
}

impl PartialEq for Document {
    fn eq(&self, other: &Self) -> bool {
        self.root.len() == other.root.len()
            && self
                .root
                .iter()
                .zip(other.root.iter())
                .all(|((ka, va), (kb, vb))| ka == kb && va == vb)
    }
}

impl Default for Document {
    fn default() -> Self {
        Self::empty()
    }
}

/// Only the `problems` of a section; everything else in it is skipped while reading.
#[derive(Deserialize)]
struct ProblemsOnly {
    problems: Option<Vec<Problem>>,
}

impl Document {
    /// `{"version": 1}`.
    pub fn empty() -> Self {
        let mut root = BTreeMap::new();
        root.insert("version".into(), DOCUMENT_VERSION.to_string());
        Document { root }
    }

    /// Parses a document. Empty (or all-whitespace) input is an empty document. Anything that
    /// is not a JSON object with `"version": 1` is an error naming `source_name`.
    pub fn parse(bytes: &[u8], source_name: &str) -> Result<Self, Error> {
        if bytes.iter().all(|b| b.is_ascii_whitespace()) {
            return Ok(Self::empty());
        }
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
        if first != Some(&b'{') {
            // Still report a syntax error where there is one.
            serde_json::from_slice::<serde::de::IgnoredAny>(bytes)
                .map_err(|e| Error::json(source_name, &e))?;
            return Err(Error::parse(
                source_name,
                1,
                1,
                "expected an evidence document (a JSON object with \"version\": 1)",
            ));
        }
        let root: BTreeMap<String, Box<RawValue>> =
            serde_json::from_slice(bytes).map_err(|e| Error::json(source_name, &e))?;
        let root: BTreeMap<String, String> = root
            .into_iter()
            .map(|(k, v)| (k, Box::<str>::from(v).into_string()))
            .collect();
        match root.get("version").map(|v| &**v) {
            Some(v) if v.parse::<u64>() == Ok(DOCUMENT_VERSION) => {}
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
            if SECTIONS.contains(&name.as_str()) && !section.starts_with('{') {
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

    /// A top-level field, parsed.
    pub fn section(&self, name: &str) -> Option<Value> {
        self.root
            .get(name)
            .and_then(|raw| serde_json::from_str(raw).ok())
    }

    /// Every top-level field as its JSON text, sorted by name (what [`crate::manifest`]
    /// digests).
    pub(crate) fn raw_fields(&self) -> impl Iterator<Item = (&str, &str)> {
        self.root.iter().map(|(k, v)| (k.as_str(), v.as_str()))
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
            Some(raw) => serde_json::from_str(raw).map(Some).map_err(|e| {
                Error::parse(
                    source_name,
                    0,
                    0,
                    format!("section \"{name}\" is malformed: {e}"),
                )
            }),
        }
    }

    /// Adds or replaces a section, in canonical form (keys sorted, indented for its depth).
    pub fn set_section<T: Serialize>(&mut self, name: &str, section: &T) {
        let value = serde_json::to_value(section).unwrap_or_else(|e| {
            // Our section types always serialize; a failure is a bug, not bad input.
            panic!("section {name} failed to serialize: {e}")
        });
        self.set_section_presorted(name, &value);
    }

    /// [`Document::set_section`] without the detour through a `serde_json::Value`, for large
    /// sections whose types already serialize in canonical key order: struct fields declared
    /// in sorted order, maps sorted (`BTreeMap`). A type that breaks that rule produces a
    /// section in the wrong key order; `presorted_sections_match_canonical_form` tests the
    /// types that use this.
    ///
    pub(crate) fn set_section_presorted<T: Serialize>(&mut self, name: &str, section: &T) {
        let mut out = Vec::new();
        serialize_at_depth_1(&mut out, section).unwrap_or_else(|e| {
            // Our section types always serialize; a failure is a bug, not bad input.
            panic!("section {name} failed to serialize: {e}")
        });
        let text = String::from_utf8(out).unwrap_or_else(|e| panic!("not UTF-8: {e}"));
        self.root.insert(name.to_string(), text);
    }

    /// Sets a section from its JSON text, already in the canonical form that
    /// `Document::set_section_presorted` writes (one level down, keys sorted): for a tool
    /// that renders a large section on every core itself. The text is not checked here; the
    /// tool's tests compare its text with [`Document::set_section`]'s for the same value
    /// (lane-lock's `lock_update`).
    pub fn set_section_text(&mut self, name: &str, text: String) {
        self.root.insert(name.to_string(), text);
    }

    /// The problems of one section; a missing or malformed `problems` list gives an error
    /// (fail closed: a section whose problems cannot be read is not a clean section).
    pub fn problems_of(&self, name: &str, source_name: &str) -> Result<Vec<Problem>, Error> {
        let Some(section) = self.root.get(name) else {
            return Ok(Vec::new());
        };
        let malformed = |detail: String| {
            Error::parse(
                source_name,
                0,
                0,
                format!("section \"{name}\" has malformed problems: {detail}"),
            )
        };
        let only: ProblemsOnly =
            serde_json::from_str(section).map_err(|e| malformed(e.to_string()))?;
        only.problems.ok_or_else(|| {
            Error::parse(
                source_name,
                0,
                0,
                format!("section \"{name}\" has no \"problems\" list"),
            )
        })
    }

    /// Every section that carries `problems`, with its problems, sorted by section name.
    pub fn all_problems(&self, source_name: &str) -> Result<Vec<(String, Vec<Problem>)>, Error> {
        let mut out = Vec::new();
        for (name, section) in &self.root {
            let is_object = section.starts_with('{');
            if SECTIONS.contains(&name.as_str()) || (is_object && has_problems(section)) {
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

    /// The canonical bytes: sorted keys, two-space indent, trailing newline. Sections written
    /// by a lanes tool are already canonical and are copied as they are.
    pub fn to_bytes(&self) -> Vec<u8> {
        let size: usize = self.root.iter().map(|(k, v)| k.len() + v.len() + 8).sum();
        let mut out = Vec::with_capacity(size + 4);
        self.write_to(&mut out)
            .unwrap_or_else(|e| panic!("writing to memory failed: {e}"));
        out
    }

    /// [`Document::to_bytes`] written piece by piece, without a copy of the whole document.
    pub(crate) fn write_to<W: std::io::Write + ?Sized>(&self, out: &mut W) -> std::io::Result<()> {
        self.write_fields(out, None::<(&str, fn(&mut W) -> std::io::Result<()>)>)
    }

    /// Writes the document with a large section `name` (replacing one of that name) that has
    /// one large list: `head` is the section with the list `field` empty, `runs` the list's
    /// items in order, as consecutive runs. The items are serialized on every core, a batch
    /// at a time, and written in order: the same bytes as `Document::set_section_presorted`
    /// with the whole section followed by [`Document::write_to`], without the section ever
    /// existing as text. The same key-order rule applies to `H` and `I`.
    pub(crate) fn write_with_split_section<W, H, I>(
        &self,
        out: &mut W,
        name: &str,
        head: &H,
        field: &str,
        runs: &[Vec<I>],
    ) -> std::io::Result<()>
    where
        W: std::io::Write + ?Sized,
        H: Serialize + ?Sized,
        I: SplitItem,
    {
        self.write_fields(
            out,
            Some((name, |out: &mut W| write_split(out, head, field, runs))),
        )
    }

    fn write_fields<W: std::io::Write + ?Sized>(
        &self,
        out: &mut W,
        mut extra: Option<(&str, impl FnOnce(&mut W) -> std::io::Result<()>)>,
    ) -> std::io::Result<()> {
        fn key_to<W: std::io::Write + ?Sized>(
            out: &mut W,
            first: &mut bool,
            key: &str,
        ) -> std::io::Result<()> {
            out.write_all(if *first { b"{\n  " } else { b",\n  " })?;
            *first = false;
            serde_json::to_writer(&mut *out, key)?;
            out.write_all(b": ")
        }
        let mut first = true;
        for (key, value) in &self.root {
            if extra
                .as_ref()
                .is_some_and(|(name, _)| *name <= key.as_str())
                && let Some((name, write)) = extra.take()
            {
                key_to(out, &mut first, name)?;
                write(out)?;
                if name == key {
                    continue;
                }
            }
            key_to(out, &mut first, key)?;
            out.write_all(value.as_bytes())?;
        }
        if let Some((name, write)) = extra {
            key_to(out, &mut first, name)?;
            write(out)?;
        }
        out.write_all(if first { b"{\n}\n" } else { b"\n}\n" })
    }
}

/// Items serialized per batch in `Document::write_with_split_section`: large enough to
/// keep every core busy, small enough that the batches in flight stay a few megabytes.
const SPLIT_BATCH: usize = 1024;

/// The section `head` at depth 1 with its empty list `field` filled with `runs`' items.
fn write_split<W, H, I>(out: &mut W, head: &H, field: &str, runs: &[Vec<I>]) -> std::io::Result<()>
where
    W: std::io::Write + ?Sized,
    H: Serialize + ?Sized,
    I: SplitItem,
{
    let mut text = Vec::new();
    serialize_at_depth_1(&mut text, head)?;
    // The section's own keys sit on lines of their own, four spaces in (depth 2); a raw
    // newline cannot occur inside a JSON string, so the empty list's line is unambiguous.
    let marker = format!("\n    {}: []", serde_json::to_string(field)?);
    let at = text
        .windows(marker.len())
        .position(|w| w == marker.as_bytes())
        .unwrap_or_else(|| panic!("the section has no empty list {field:?} at its top level"));
    let open = at + marker.len() - 1;
    let items: Vec<&I> = runs.iter().flatten().collect();
    out.write_all(&text[..open])?;
    if !items.is_empty() {
        write_batches(out, &items)?;
        out.write_all(b"\n    ")?;
    }
    out.write_all(&text[open..])
}

/// Writes `items` as the lines of a list at depth 2 (each from its own line, comma-separated),
/// rendering them on every core a batch at a time, a few batches ahead of the writing: the
/// output is written, in order, while the next batches are rendered.
fn write_batches<W, I>(out: &mut W, items: &[&I]) -> std::io::Result<()>
where
    W: std::io::Write + ?Sized,
    I: SplitItem,
{
    let batches: Vec<&[&I]> = items.chunks(SPLIT_BATCH).collect();
    let ahead = rayon::current_num_threads().max(1) * 2;
    let render = |i: usize| -> std::io::Result<Vec<u8>> {
        let batch = batches[i];
        let mut buf = Vec::with_capacity(batch.len() * 512);
        for (j, item) in batch.iter().enumerate() {
            buf.extend_from_slice(if i == 0 && j == 0 { b"\n" } else { b",\n" });
            buf.extend_from_slice(b"      ");
            item.render_at_depth_3(&mut buf)?;
        }
        Ok(buf)
    };
    if rayon::current_thread_index().is_some() {
        // On a pool thread, waiting for jobs queued behind this one could wait forever (a
        // pool of one, or every worker waiting so): render and write in turn.
        for i in 0..batches.len() {
            out.write_all(&render(i)?)?;
        }
        return Ok(());
    }
    rayon::in_place_scope(|scope| {
        // Each batch as the receiving end of its rendering, started as the iterator reaches
        // it: `ahead` of them in flight, oldest first.
        let mut started = (0..batches.len()).map(|i| {
            let (tx, rx) = std::sync::mpsc::sync_channel(1);
            scope.spawn(move |_| {
                // The receiver is gone only when writing already failed.
                let _ = tx.send(render(i));
            });
            rx
        });
        let mut in_flight: std::collections::VecDeque<_> = started.by_ref().take(ahead).collect();
        while let Some(rx) = in_flight.pop_front() {
            // A rendering job that panicked drops its sender; the scope then re-raises its
            // panic once this returns.
            let buf = rx
                .recv()
                .map_err(|_| std::io::Error::other("a batch could not be rendered"))??;
            in_flight.extend(started.next());
            out.write_all(&buf)?;
        }
        Ok(())
    })
}

/// An item of the large list of `Document::write_with_split_section`.
pub trait SplitItem: Serialize + Sync {
    /// Appends the item's JSON as the list holds it, three levels down in the document (the
    /// line's indent is already written): serde's pretty layout by default. A type that
    /// renders itself instead (a fast path for a hot list) must write the same bytes; its
    /// tests compare the two (`pretty_at`).
    fn render_at_depth_3(&self, buf: &mut Vec<u8>) -> std::io::Result<()> {
        pretty_at(buf, 3, self)
    }
}

impl SplitItem for Value {}

/// Appends `value` in serde's pretty layout `depth` levels down in the document (the first
/// line's indent is already written).
pub(crate) fn pretty_at<T: Serialize + ?Sized>(
    buf: &mut Vec<u8>,
    depth: usize,
    value: &T,
) -> std::io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(buf, Pretty::at(depth));
    Ok(value.serialize(&mut ser)?)
}

/// Appends `n` in decimal (as serde_json writes an unsigned number, with the same `itoa`).
pub fn push_u64(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Appends `s` as a JSON string, the bytes serde_json writes: a string with nothing to
/// escape (no quote, backslash or control character: the usual case) is copied in one go,
/// checked 16 bytes at a time.
pub fn json_str(buf: &mut Vec<u8>, s: &str) {
    /// Whether a 16-byte chunk has a byte to escape: every byte checked (no early exit),
    /// which the compiler turns into a few vector instructions.
    fn dirty(chunk: &[u8; 16]) -> bool {
        chunk.iter().fold(false, |bad, &b| {
            bad | (b < 0x20) | (b == b'"') | (b == b'\\')
        })
    }
    let bytes = s.as_bytes();
    let (whole, rest) = bytes.as_chunks::<16>();
    let clean = !whole.iter().any(dirty)
        && match bytes.last_chunk::<16>() {
            // The tail as the last 16 bytes (overlapping the chunks checked already).
            Some(last) => rest.is_empty() || !dirty(last),
            // A short string, padded with a byte that needs no escaping.
            None => {
                let mut tail = [b' '; 16];
                tail[..rest.len()].copy_from_slice(rest);
                !dirty(&tail)
            }
        };
    if clean {
        buf.reserve(bytes.len() + 2);
        buf.push(b'"');
        buf.extend_from_slice(bytes);
        buf.push(b'"');
    } else {
        serde_json::to_writer(&mut *buf, s)
            .unwrap_or_else(|e| panic!("writing to memory failed: {e}"));
    }
}

/// Appends a newline and the indent of `depth` levels (two spaces each), after a comma when
/// `comma`: where serde's pretty layout starts each key or list item.
pub(crate) fn json_newline(buf: &mut Vec<u8>, depth: usize, comma: bool) {
    /// A comma, a newline and the indent of the deepest level written in one go.
    const LINE: &[u8; 2 + 2 * 16] = b",\n                                ";
    let end = 2 + depth * 2;
    match LINE.get(usize::from(!comma)..end) {
        Some(line) => buf.extend_from_slice(line),
        None => {
            if comma {
                buf.push(b',');
            }
            buf.push(b'\n');
            buf.resize(buf.len() + depth * 2, b' ');
        }
    }
}

/// A section's value, indented for its place one level down in the document.
fn serialize_at_depth_1<W: std::io::Write + ?Sized, T: Serialize + ?Sized>(
    out: &mut W,
    section: &T,
) -> std::io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(out, Pretty::at(1));
    Ok(section.serialize(&mut ser)?)
}

/// serde_json's pretty layout (two spaces a level) starting `depth` levels down, so a
/// section is written once, already indented for its place in the document.
struct Pretty {
    depth: usize,
    has_value: bool,
}

impl Pretty {
    fn at(depth: usize) -> Self {
        Pretty {
            depth,
            has_value: false,
        }
    }

    fn newline<W: ?Sized + std::io::Write>(&self, w: &mut W, comma: bool) -> std::io::Result<()> {
        const SPACES: &[u8; 64] = &[b' '; 64];
        w.write_all(if comma { b",\n" } else { b"\n" })?;
        let mut left = self.depth * 2;
        while left > 0 {
            let n = left.min(SPACES.len());
            w.write_all(&SPACES[..n])?;
            left -= n;
        }
        Ok(())
    }

    fn open<W: ?Sized + std::io::Write>(&mut self, w: &mut W, c: &[u8]) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(c)
    }

    fn close<W: ?Sized + std::io::Write>(&mut self, w: &mut W, c: &[u8]) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.newline(w, false)?;
        }
        w.write_all(c)
    }
}

impl serde_json::ser::Formatter for Pretty {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.newline(w, !first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.newline(w, !first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// Whether an object has a top-level `problems` key (without building it).
fn has_problems(section: &str) -> bool {
    #[derive(Deserialize)]
    struct Probe {
        problems: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_str::<Probe>(section)
        .map(|p| p.problems.is_some())
        .unwrap_or(false)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
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

    #[test]
    fn presorted_sections_match_canonical_form() {
        use crate::scan::{Attachments, Counts, Lane, ScanSection, ScanTest};
        let full = Problem {
            file: Some("tests/test_a.py".into()),
            line: Some(3),
            message: "two\nlines \"quoted\"".into(),
            rule: "unmarked-test".into(),
            severity: crate::Severity::Error,
            test: Some("tests/test_a.py::test_x".into()),
        };
        let bare = Problem {
            file: None,
            line: None,
            test: None,
            ..full.clone()
        };
        let test = |attachments: Attachments, lane: Option<Lane>| ScanTest {
            attachments,
            defined_in: None,
            empty_params: None,
            file: "tests/test_a.py".into(),
            id: "tests/test_a.py::TestX::test_y".into(),
            lane,
            lanes: vec![Lane::Merge, Lane::Witness],
            line: 7,
            marks: vec!["merge".into(), "witness".into()],
            parametrized: true,
        };
        let section = ScanSection {
            counts: Counts {
                freeze: 1,
                merge: 2,
                unmarked: 3,
                witness: 4,
            },
            files: vec!["tests/test_a.py".into()],
            problems: vec![full, bare],
            snapshots: vec!["tests/__snapshots__/test_a.ambr".into()],
            tests: vec![
                test(crate::scan::every_attachment(), None),
                test(Attachments::default(), Some(Lane::Freeze)),
            ],
            tool: "lane-scan".into(),
        };
        let mut slow = Document::empty();
        slow.set_section("scan", &section);
        slow.set_section("after", &serde_json::json!({"problems": []}));
        let mut fast = Document::empty();
        fast.set_section_presorted("scan", &section);
        fast.set_section("after", &serde_json::json!({"problems": []}));
        assert_eq!(
            String::from_utf8(fast.to_bytes()).unwrap(),
            String::from_utf8(slow.to_bytes()).unwrap()
        );
        // And the bytes read back as the same section.
        let back: ScanSection = fast.section_as("scan", "<test>").unwrap().expect("scan");
        assert_eq!(back, section);
    }

    fn arb_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            ".{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(5, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::btree_map("[a-z\n\"]{0,4}", inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// The section `s` = `head` with `list` holding `items`, stored and written at once, and
    /// streamed with the list split into `runs`: the same bytes.
    fn assert_split_matches(
        head: &serde_json::Map<String, Value>,
        items: &[Value],
        cuts: &[usize],
    ) {
        let mut full = head.clone();
        full.insert("list".into(), Value::Array(items.to_vec()));
        let mut empty = head.clone();
        empty.insert("list".into(), Value::Array(Vec::new()));
        let mut runs: Vec<Vec<Value>> = Vec::new();
        let mut start = 0;
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (items.len() + 1)).collect();
        cuts.sort_unstable();
        for cut in cuts.into_iter().chain([items.len()]) {
            runs.push(items[start..cut].to_vec());
            start = cut;
        }
        let mut other = Document::empty();
        other.set_section("m", &serde_json::json!({"problems": []}));
        let mut stored = other.clone();
        stored.set_section("s", &full);
        let mut streamed = Vec::new();
        other
            .write_with_split_section(&mut streamed, "s", &empty, "list", &runs)
            .unwrap();
        assert_eq!(
            String::from_utf8(streamed).unwrap(),
            String::from_utf8(stored.to_bytes()).unwrap()
        );
    }

    #[test]
    fn split_section_over_many_batches_matches_the_whole() {
        let items: Vec<Value> = (0..SPLIT_BATCH * 9 + 7)
            .map(|i| serde_json::json!({"id": format!("t{i:05}"), "marks": ["a", i], "n": {}}))
            .collect();
        let mut head = serde_json::Map::new();
        head.insert("counts".into(), serde_json::json!({"a": 1}));
        head.insert("tool".into(), "x".into());
        assert_split_matches(&head, &items, &[0, 5, 5, 3000, 9000]);
        assert_split_matches(&head, &[], &[]);
    }

    #[test]
    fn split_section_on_a_pool_thread_does_not_wait_for_itself() {
        let items: Vec<Value> = (0..SPLIT_BATCH * 3 + 1)
            .map(|i| serde_json::json!({"id": format!("t{i:05}")}))
            .collect();
        let mut head = serde_json::Map::new();
        head.insert("tool".into(), "x".into());
        // A pool of one thread, written from that thread: jobs queued behind the writer
        // would never run. On a thread of its own, so that a hang fails instead of blocking.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .unwrap();
            pool.install(|| assert_split_matches(&head, &items, &[2000]));
            let _ = tx.send(());
        });
        rx.recv_timeout(std::time::Duration::from_secs(20))
            .expect("writing the split section from a pool thread hung");
    }

    /// Fails the `n`th write.
    struct FailingWriter {
        writes: usize,
        fail_at: usize,
    }

    impl std::io::Write for FailingWriter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.writes += 1;
            if self.writes == self.fail_at {
                return Err(std::io::ErrorKind::BrokenPipe.into());
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn split_section_stops_at_a_failing_write() {
        let items: Vec<Value> = (0..SPLIT_BATCH * 12)
            .map(|i| serde_json::json!({"id": i}))
            .collect();
        let head = serde_json::json!({"list": [], "tool": "x"});
        for fail_at in [1, 3, 6, 10] {
            let mut out = FailingWriter { writes: 0, fail_at };
            let err = Document::empty()
                .write_with_split_section(
                    &mut out,
                    "s",
                    &head,
                    "list",
                    std::slice::from_ref(&items),
                )
                .unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
            assert_eq!(out.writes, fail_at, "nothing is written after the failure");
        }
    }

    #[test]
    #[should_panic(expected = "no empty list")]
    fn split_section_without_its_empty_list_is_a_bug() {
        let mut out = Vec::new();
        let head = serde_json::json!({"list": [1]});
        let _ = Document::empty().write_with_split_section(
            &mut out,
            "s",
            &head,
            "list",
            &[vec![Value::from(2)]],
        );
    }

    proptest::proptest! {
        /// Any head, any items, any cut into runs (empty runs included).
        #[test]
        fn split_sections_match_the_whole(
            head in proptest::collection::btree_map("[a-z]{0,5}", arb_json(), 0..4),
            items in proptest::collection::vec(arb_json(), 0..12),
            cuts in proptest::collection::vec(0usize..13, 0..4),
        ) {
            let head: serde_json::Map<String, Value> = head.into_iter().collect();
            assert_split_matches(&head, &items, &cuts);
        }

        /// A section's text is serde_json's pretty form with every line after the first
        /// indented by two spaces (its depth in the document), for any JSON value: empty
        /// containers, nesting, and newlines or quotes inside strings.
        #[test]
        fn sections_are_pretty_json_one_level_down(value in arb_json()) {
            let mut doc = Document::empty();
            doc.set_section("extra", &value);
            let expected = serde_json::to_string_pretty(&value).unwrap().replace('\n', "\n  ");
            proptest::prop_assert_eq!(doc.root.get("extra").map(String::as_str), Some(&*expected));
            let mut presorted = Document::empty();
            presorted.set_section_presorted("extra", &value);
            proptest::prop_assert_eq!(presorted.to_bytes(), doc.to_bytes());
            // Streamed in place of a stored section, or as a new one before, between or after
            // the others: the same bytes as stored and written.
            let mut other = Document::empty();
            other.set_section("m", &serde_json::json!({"problems": []}));
            let whole = serde_json::json!({"list": [value.clone()], "v": value});
            let head = serde_json::json!({"list": [], "v": whole["v"]});
            let runs = [vec![whole["v"].clone()]];
            for name in ["a", "extra", "n", "zz"] {
                let mut stored = other.clone();
                stored.set_section(name, &whole);
                let mut streamed = Vec::new();
                other.write_with_split_section(&mut streamed, name, &head, "list", &runs).unwrap();
                proptest::prop_assert_eq!(&streamed, &stored.to_bytes(), "{}", name);
                // Replacing a section already there.
                let mut streamed = Vec::new();
                stored.write_with_split_section(&mut streamed, name, &head, "list", &runs).unwrap();
                proptest::prop_assert_eq!(&streamed, &stored.to_bytes(), "{}", name);
            }
            let again = Document::parse(&doc.to_bytes(), "-").unwrap();
            proptest::prop_assert_eq!(again.section("extra"), Some(value));
        }
    }
}
