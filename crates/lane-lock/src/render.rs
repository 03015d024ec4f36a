//! The bytes `lane-lock lock` writes, rendered on every core: `lanes.lock` and the
//! `lock_update` section.
//!
//! Both are the exact bytes serde_json's pretty printer gives for [`crate::lock::LockFile`]
//! and for [`crate::update::UpdateSection`] in the evidence document (the unit tests below
//! compare them on awkward paths), but written straight from borrowed entries, a chunk of
//! entries per task, without building a tree of values or cloning an entry. Strings are
//! escaped by serde_json itself.

use lane_core::document::{json_str, push_u64};
use rayon::prelude::*;

/// Entries rendered per task: large enough to keep a core busy, small enough that a few
/// hundred thousand entries still spread over every core.
const CHUNK: usize = 1024;

/// One lock entry, borrowed from the old lock or from a file just hashed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EntryRef<'a> {
    pub path: &'a str,
    pub sha256: &'a str,
    pub bytes: u64,
    pub locked_on: &'a str,
}

impl<'a> From<&'a crate::lock::Entry> for EntryRef<'a> {
    fn from(e: &'a crate::lock::Entry) -> Self {
        EntryRef {
            path: &e.path,
            sha256: &e.sha256,
            bytes: e.bytes,
            locked_on: &e.locked_on,
        }
    }
}

/// A changed entry of the report: the new entry and the digest and size it replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ChangedRef<'a> {
    pub new: EntryRef<'a>,
    pub previous_sha256: &'a str,
    pub previous_bytes: u64,
}

/// The `lock_update` section's parts (see [`crate::update::UpdateSection`]).
pub(crate) struct SectionRef<'a> {
    pub tool: &'a str,
    pub lock: &'a str,
    pub added: &'a [EntryRef<'a>],
    pub changed: &'a [ChangedRef<'a>],
    pub unchanged: &'a [EntryRef<'a>],
    pub sidecars: &'a [String],
}

/// The canonical bytes of a lock holding `entries` (sorted by path, paths unique): the same
/// bytes as [`crate::lock::LockFile::to_bytes`].
pub(crate) fn lock_bytes(entries: &[EntryRef<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(b"{\n  \"version\": ");
    push_u64(&mut out, crate::lock::LOCK_VERSION);
    out.extend_from_slice(b",\n  \"files\": ");
    list(&mut out, entries, 1, |buf, e| {
        buf.extend_from_slice(b"{\n      \"path\": ");
        json_str(buf, e.path);
        buf.extend_from_slice(b",\n      \"sha256\": ");
        json_str(buf, e.sha256);
        buf.extend_from_slice(b",\n      \"bytes\": ");
        push_u64(buf, e.bytes);
        buf.extend_from_slice(b",\n      \"locked_on\": ");
        json_str(buf, e.locked_on);
        buf.extend_from_slice(b"\n    }");
    });
    out.extend_from_slice(b"\n}\n");
    out
}

/// The section's text one level down in the document, keys sorted: the same text as
/// `Document::set_section` gives for the [`crate::update::UpdateSection`] it describes.
pub(crate) fn section_text(s: &SectionRef<'_>) -> String {
    let mut out = Vec::new();
    out.extend_from_slice(b"{\n    \"added\": ");
    list(&mut out, s.added, 2, doc_entry);
    out.extend_from_slice(b",\n    \"changed\": ");
    list(&mut out, s.changed, 2, |buf, c| {
        buf.extend_from_slice(b"{\n        \"bytes\": ");
        push_u64(buf, c.new.bytes);
        buf.extend_from_slice(b",\n        \"locked_on\": ");
        json_str(buf, c.new.locked_on);
        buf.extend_from_slice(b",\n        \"path\": ");
        json_str(buf, c.new.path);
        buf.extend_from_slice(b",\n        \"previous_bytes\": ");
        push_u64(buf, c.previous_bytes);
        buf.extend_from_slice(b",\n        \"previous_sha256\": ");
        json_str(buf, c.previous_sha256);
        buf.extend_from_slice(b",\n        \"sha256\": ");
        json_str(buf, c.new.sha256);
        buf.extend_from_slice(b"\n      }");
    });
    out.extend_from_slice(b",\n    \"lock\": ");
    json_str(&mut out, s.lock);
    // Refusals stop the command instead: the list is always empty.
    out.extend_from_slice(b",\n    \"problems\": [],\n    \"sidecars\": ");
    list(&mut out, s.sidecars, 2, |buf, name| json_str(buf, name));
    out.extend_from_slice(b",\n    \"tool\": ");
    json_str(&mut out, s.tool);
    out.extend_from_slice(b",\n    \"unchanged\": ");
    list(&mut out, s.unchanged, 2, doc_entry);
    out.extend_from_slice(b"\n  }");
    // Every piece is ASCII framing or a JSON string escaped from a `&str`.
    String::from_utf8(out).unwrap_or_else(|e| panic!("rendered section is not UTF-8: {e}"))
}

/// An entry in the report: keys in sorted order, as the document writes objects.
fn doc_entry(buf: &mut Vec<u8>, e: &EntryRef<'_>) {
    buf.extend_from_slice(b"{\n        \"bytes\": ");
    push_u64(buf, e.bytes);
    buf.extend_from_slice(b",\n        \"locked_on\": ");
    json_str(buf, e.locked_on);
    buf.extend_from_slice(b",\n        \"path\": ");
    json_str(buf, e.path);
    buf.extend_from_slice(b",\n        \"sha256\": ");
    json_str(buf, e.sha256);
    buf.extend_from_slice(b"\n      }");
}

/// A JSON list whose key sits `depth` levels in: `[]` when empty, otherwise each item on a
/// line of its own one level further in. The items are rendered a chunk per task on every
/// core and joined in order.
fn list<T: Sync>(
    out: &mut Vec<u8>,
    items: &[T],
    depth: usize,
    item: impl Fn(&mut Vec<u8>, &T) + Sync,
) {
    if items.is_empty() {
        out.extend_from_slice(b"[]");
        return;
    }
    let indent = "  ".repeat(depth + 1);
    let render = |(i, chunk): (usize, &[T])| {
        let mut buf = Vec::with_capacity(chunk.len() * 256);
        for (j, it) in chunk.iter().enumerate() {
            buf.extend_from_slice(if i == 0 && j == 0 { b"\n" } else { b",\n" });
            buf.extend_from_slice(indent.as_bytes());
            item(&mut buf, it);
        }
        buf
    };
    out.push(b'[');
    if items.len() <= CHUNK {
        out.extend_from_slice(&render((0, items)));
    } else {
        let parts: Vec<Vec<u8>> = items.par_chunks(CHUNK).enumerate().map(render).collect();
        out.reserve(parts.iter().map(Vec::len).sum());
        for part in &parts {
            out.extend_from_slice(part);
        }
    }
    out.push(b'\n');
    out.extend_from_slice(&indent.as_bytes()[2..]);
    out.push(b']');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::{Entry, LockFile};
    use crate::update::{Changed, SECTION, UpdateSection};

    const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const B: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    /// Paths serde_json escapes in every way it can: quotes, backslashes, every control
    /// character, DEL, non-ASCII letters and symbols, and a path over the chunk boundary.
    fn awkward_paths() -> Vec<String> {
        let mut paths: Vec<String> = vec![
            "plain/file.txt".into(),
            "q\"uote".into(),
            "back\\slash".into(),
            "new\nline\r\ttab".into(),
            "del\u{7f}".into(),
            "ünï cødé ✓ 🦀".into(),
            "/slash/".into(),
            "".into(),
        ];
        paths.extend((0u8..0x20).map(|c| format!("ctl{}x", char::from(c))));
        paths
    }

    fn entries(n: usize) -> Vec<Entry> {
        let awkward = awkward_paths();
        let mut out: Vec<Entry> = (0..n)
            .map(|i| Entry {
                path: format!("{}/{i:06}", awkward[i % awkward.len()]),
                sha256: if i % 2 == 0 { A } else { B }.to_string(),
                bytes: [0, 1, 9, 10, 4096, u64::MAX][i % 6],
                locked_on: "2026-01-02".to_string(),
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn lock_bytes_are_serde_json_bytes() {
        // Empty, one entry, one chunk exactly, and several chunks with a short last one.
        for n in [0, 1, 2, CHUNK, CHUNK + 1, 3 * CHUNK + 17] {
            let files = entries(n);
            let refs: Vec<EntryRef<'_>> = files.iter().map(EntryRef::from).collect();
            let got = lock_bytes(&refs);
            let expected = LockFile {
                files: files.clone(),
            }
            .to_bytes();
            assert_eq!(
                String::from_utf8(got).unwrap(),
                String::from_utf8(expected).unwrap(),
                "{n} entries"
            );
        }
    }

    #[test]
    fn section_text_is_the_document_s_text() {
        let owned = |e: &EntryRef<'_>| Entry {
            path: e.path.into(),
            sha256: e.sha256.into(),
            bytes: e.bytes,
            locked_on: e.locked_on.into(),
        };
        let sidecars: Vec<String> = awkward_paths()
            .iter()
            .map(|p| format!("{p}.sha256"))
            .collect();
        for (n, with_sidecars) in [(0, false), (1, true), (CHUNK * 2 + 5, true)] {
            let files = entries(n);
            let refs: Vec<EntryRef<'_>> = files.iter().map(EntryRef::from).collect();
            let third = refs.len() / 3;
            let changed: Vec<ChangedRef<'_>> = refs[third..2 * third]
                .iter()
                .map(|e| ChangedRef {
                    new: *e,
                    previous_sha256: B,
                    previous_bytes: e.bytes.wrapping_add(1),
                })
                .collect();
            let sidecars = if with_sidecars { &sidecars[..] } else { &[] };
            let lock_name = "sub/\"odd\".lock";
            let text = section_text(&SectionRef {
                tool: crate::TOOL,
                lock: lock_name,
                added: &refs[..third],
                changed: &changed,
                unchanged: &refs[2 * third..],
                sidecars,
            });
            let value = UpdateSection {
                tool: crate::TOOL.into(),
                lock: lock_name.into(),
                added: refs[..third].iter().map(owned).collect(),
                changed: changed
                    .iter()
                    .map(|c| Changed {
                        path: c.new.path.into(),
                        previous_sha256: c.previous_sha256.into(),
                        previous_bytes: c.previous_bytes,
                        sha256: c.new.sha256.into(),
                        bytes: c.new.bytes,
                        locked_on: c.new.locked_on.into(),
                    })
                    .collect(),
                unchanged: refs[2 * third..].iter().map(owned).collect(),
                sidecars: sidecars.to_vec(),
                problems: Vec::new(),
            };
            let mut expected = lane_core::Document::empty();
            expected.set_section(SECTION, &value);
            let mut got = lane_core::Document::empty();
            got.set_section_text(SECTION, text);
            assert_eq!(
                String::from_utf8(got.to_bytes()).unwrap(),
                String::from_utf8(expected.to_bytes()).unwrap(),
                "{n} entries"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn any_path_renders_as_serde_json_does(path in proptest::prelude::any::<String>(), bytes in proptest::prelude::any::<u64>()) {
            let files = vec![Entry { path, sha256: A.into(), bytes, locked_on: "2026-01-02".into() }];
            let refs: Vec<EntryRef<'_>> = files.iter().map(EntryRef::from).collect();
            proptest::prop_assert_eq!(lock_bytes(&refs), LockFile { files: files.clone() }.to_bytes());
        }
    }
}
