//! The lock manifest (`lanes.lock`) and `.sha256` sidecars: parsing with positions, writing
//! in canonical form, and finding sidecars under the root.
//!
//! `lanes.lock` is `{"version": 1, "files": [{"path", "sha256", "bytes", "locked_on"}]}`,
//! sorted by path, with root-relative `/` paths. Reading is strict (fail closed): unknown
//! fields, a digest that is not 64 lowercase hex digits, a date that is not `YYYY-MM-DD`, a
//! duplicate path or another version are errors located at the offending value.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use lane_core::Error;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

/// The lock format version this build reads and writes.
pub(crate) const LOCK_VERSION: u64 = 1;

/// The default lock file name, at the rootdir.
pub(crate) const LOCK_FILE_NAME: &str = "lanes.lock";

/// The largest lock (and sidecar, and `--changed` list) lane-lock reads: 64 MiB, about
/// 380,000 entries (a 20,000-entry lock is 3.4 MB). A larger file is refused before it is
/// read whole (docs/robustness.md).
pub const LOCK_MAX_BYTES: u64 = 64 << 20;

/// The file name suffix of a sidecar.
pub const SIDECAR_SUFFIX: &str = ".sha256";

/// One locked file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Root-relative, `/`-separated.
    pub path: String,
    /// 64 lowercase hex digits.
    pub sha256: String,
    pub bytes: u64,
    /// `YYYY-MM-DD`: when these bytes were locked.
    pub locked_on: String,
}

/// A parsed lock: entries sorted by path, paths unique.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LockFile {
    pub files: Vec<Entry>,
}

#[cfg(test)]
#[derive(Serialize)]
struct LockOut<'a> {
    version: u64,
    files: &'a [Entry],
}

impl LockFile {
    /// Parses lock bytes. Empty or all-whitespace input is an error here (callers that accept
    /// "no lock", like `diff`, check for it first).
    pub fn parse(bytes: &[u8], source_name: &str) -> Result<LockFile, Error> {
        match canonical::parse(bytes) {
            Some(files) => Ok(LockFile { files }),
            None => Self::parse_strict(bytes, source_name),
        }
    }

    /// [`LockFile::parse`] of any JSON layout, one value at a time, locating any error.
    fn parse_strict(bytes: &[u8], source_name: &str) -> Result<LockFile, Error> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(Error::parse(
                source_name,
                1,
                1,
                "expected a lock {\"version\": 1, \"files\": [...]}, found an empty file",
            ));
        }
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let raw = RawLock::deserialize(&mut de)
            .and_then(|raw| de.end().map(|()| raw))
            .map_err(|e| locate(bytes, source_name, &e))?;
        let mut files = raw.files;
        files.sort();
        Ok(LockFile { files })
    }

    /// The canonical bytes: version then files, entries sorted by path, two-space indent,
    /// trailing newline (what `render::lock_bytes` writes, the oracle of its tests).
    #[cfg(test)]
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut files = self.files.clone();
        files.sort();
        let out = LockOut {
            version: LOCK_VERSION,
            files: &files,
        };
        let mut bytes = serde_json::to_vec_pretty(&out).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }

    #[cfg(test)]
    fn get(&self, path: &str) -> Option<&Entry> {
        self.files
            .binary_search_by(|e| e.path.as_str().cmp(path))
            .ok()
            .map(|i| &self.files[i])
    }
}

/// Reading a lock in exactly the form [`LockFile::to_bytes`] writes (every lock lane-lock
/// wrote) on every core. Anything else, an error included, is left to the strict reader,
/// which locates it; what this reader accepts, the strict reader accepts with the same
/// entries (the tests compare the two on canonical and damaged locks).
mod canonical {
    use rayon::prelude::*;

    use super::Entry;

    const HEAD: &[u8] = b"{\n  \"version\": 1,\n  \"files\": [";
    const EMPTY_TAIL: &[u8] = b"]\n}\n";
    const TAIL: &[u8] = b"\n  ]\n}\n";
    /// Where one entry ends and the next begins: a raw newline cannot occur inside a JSON
    /// string, so this occurs nowhere else.
    const BETWEEN: &[u8] = b"\n    },\n    {\n";
    /// Bytes per piece read by one task (about 1,000 entries).
    const PIECE: usize = 200 << 10;

    /// The entries, sorted by path and unique; `None` for any text not in canonical form.
    pub(super) fn parse(bytes: &[u8]) -> Option<Vec<Entry>> {
        let rest = bytes.strip_prefix(HEAD)?;
        if rest == EMPTY_TAIL {
            return Some(Vec::new());
        }
        let body = rest.strip_prefix(b"\n")?.strip_suffix(TAIL)?;
        let pieces = split(body);
        let parts: Vec<Option<Vec<Entry>>> = pieces.par_iter().map(|p| entries(p)).collect();
        let mut files = Vec::with_capacity(parts.iter().flatten().map(Vec::len).sum());
        for part in parts {
            files.extend(part?);
        }
        // Sorted and unique, as written; otherwise the strict reader sorts or refuses.
        files
            .par_windows(2)
            .all(|w| w[0].path < w[1].path)
            .then_some(files)
    }

    /// `body` cut into runs of whole entries of about [`PIECE`] bytes, each cut made where
    /// one entry ends (the `,\n` between two entries is dropped).
    fn split(body: &[u8]) -> Vec<&[u8]> {
        let mut pieces = Vec::new();
        let mut start = 0;
        while body.len() - start > PIECE {
            let from = start + PIECE;
            let Some(at) = body[from..]
                .windows(BETWEEN.len())
                .position(|w| w == BETWEEN)
            else {
                break;
            };
            // The piece keeps its entry's closing "\n    }"; the next starts at "    {\n".
            let end = from + at + "\n    }".len();
            pieces.push(&body[start..end]);
            start = end + ",\n".len();
        }
        pieces.push(&body[start..]);
        pieces
    }

    /// Entries separated by `,\n`, each exactly as written.
    fn entries(mut text: &[u8]) -> Option<Vec<Entry>> {
        let mut out = Vec::with_capacity(text.len() / 180 + 1);
        // Most entries share a date: a date equal to the last one checked is not checked again.
        let mut last_date = String::new();
        loop {
            let (entry, rest) = entry(text, &mut last_date)?;
            out.push(entry);
            if rest.is_empty() {
                return Some(out);
            }
            text = rest.strip_prefix(b",\n")?;
        }
    }

    fn entry<'t>(text: &'t [u8], last_date: &mut String) -> Option<(Entry, &'t [u8])> {
        let text = text.strip_prefix(b"    {\n      \"path\": ")?;
        let end = text.iter().position(|&b| b == b'\n')?;
        let path = string(text[..end].strip_suffix(b",")?)?;
        let text = text[end + 1..].strip_prefix(b"      \"sha256\": \"")?;
        let sha256 = std::str::from_utf8(text.get(..64)?).ok()?;
        if !lane_core::hex::is_sha256(sha256) {
            return None;
        }
        let text = text[64..].strip_prefix(b"\",\n      \"bytes\": ")?;
        let end = text.iter().position(|&b| b == b',')?;
        let bytes = number(&text[..end])?;
        let text = text[end..].strip_prefix(b",\n      \"locked_on\": \"")?;
        let date = std::str::from_utf8(text.get(..10)?).ok()?;
        if date != last_date.as_str() {
            lane_core::clock::parse_date(date).ok()?;
            date.clone_into(last_date);
        }
        let rest = text[10..].strip_prefix(b"\"\n    }")?;
        let entry = Entry {
            path,
            sha256: sha256.to_string(),
            bytes,
            locked_on: date.to_string(),
        };
        Some((entry, rest))
    }

    /// A JSON string token: plain text directly, anything escaped through serde_json.
    fn string(token: &[u8]) -> Option<String> {
        let inner = token.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
        if inner.iter().any(|&b| b == b'"' || b == b'\\' || b < 0x20) {
            return serde_json::from_slice(token).ok();
        }
        std::str::from_utf8(inner).ok().map(str::to_string)
    }

    /// A JSON number that is a u64: digits, no leading zero, no overflow.
    fn number(digits: &[u8]) -> Option<u64> {
        if digits.is_empty()
            || !digits.iter().all(u8::is_ascii_digit)
            || (digits.len() > 1 && digits[0] == b'0')
        {
            return None;
        }
        std::str::from_utf8(digits).ok()?.parse().ok()
    }
}

/// Messages of errors found in a value (as opposed to the structure around it); their
/// position is moved back from the end of the value to its start.
const VALUE_ERRORS: &[&str] = &[
    "expected a 64-digit lowercase hex digest",
    "expected a date as YYYY-MM-DD",
    "duplicate path",
    "unsupported lock version",
];

/// Turns a serde_json error into a located parse error, pointing at the start of the value
/// when the value itself was refused.
fn locate(bytes: &[u8], source_name: &str, err: &serde_json::Error) -> Error {
    let located = Error::json(source_name, err);
    let Error::Parse {
        line,
        column,
        message,
        ..
    } = &located
    else {
        return located;
    };
    if !VALUE_ERRORS.iter().any(|m| message.starts_with(m)) {
        return located;
    }
    match value_start(bytes, *line, *column) {
        Some((l, c)) => Error::parse(source_name, l, c, message.clone()),
        None => located,
    }
}

/// serde_json reports a refused value at its last byte; walk back to its first byte and
/// return that position (1-based line and column).
fn value_start(bytes: &[u8], line: usize, column: usize) -> Option<(usize, usize)> {
    if line == 0 || column == 0 {
        return None;
    }
    // Byte offset of (line, column).
    let mut offset = 0;
    for _ in 1..line {
        offset += bytes[offset..].iter().position(|&b| b == b'\n')? + 1;
    }
    let mut end = (offset + column - 1).min(bytes.len().checked_sub(1)?);
    // serde_json may point just past the value: step back over what can follow a value.
    while end > 0
        && matches!(
            bytes[end],
            b' ' | b'\t' | b'\r' | b'\n' | b',' | b'}' | b']'
        )
    {
        end -= 1;
    }
    let start = if bytes[end] == b'"' {
        // The opening quote: the previous quote not escaped by an odd run of backslashes.
        let mut i = end;
        loop {
            i = bytes[..i].iter().rposition(|&b| b == b'"')?;
            let slashes = bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count();
            if slashes % 2 == 0 {
                break i;
            }
        }
    } else {
        let mut i = end;
        while i > 0 && matches!(bytes[i - 1], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
            i -= 1;
        }
        i
    };
    let at = lane_core::Position::of(bytes, start);
    Some((at.line, at.column))
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a lock {\"version\": 1, \"files\": [...]}"
)]
struct RawLock {
    #[allow(dead_code)]
    version: Version,
    #[serde(deserialize_with = "unique_entries")]
    files: Vec<Entry>,
}

struct Version;

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        fn refuse<E: de::Error>(found: impl fmt::Display) -> E {
            E::custom(format!(
                "unsupported lock version {found} (this build reads version {LOCK_VERSION})"
            ))
        }
        impl Visitor<'_> for V {
            type Value = Version;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "the lock version {LOCK_VERSION}")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Version, E> {
                if v == LOCK_VERSION {
                    Ok(Version)
                } else {
                    Err(refuse(v))
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Version, E> {
                Err(refuse(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Version, E> {
                Err(refuse(v))
            }
        }
        d.deserialize_u64(V)
    }
}

/// Reads a string and checks it inside the string visitor, so serde_json places an error
/// at the string itself.
struct CheckedStr<F>(F);

impl<'de, F: FnOnce(&str) -> Result<(), String>> DeserializeSeed<'de> for CheckedStr<F> {
    type Value = String;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_str(self)
    }
}

impl<F: FnOnce(&str) -> Result<(), String>> Visitor<'_> for CheckedStr<F> {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        (self.0)(v).map_err(E::custom)?;
        Ok(v.to_string())
    }
}

fn unique_entries<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Entry>, D::Error> {
    struct Files;
    impl<'de> Visitor<'de> for Files {
        type Value = Vec<Entry>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a list of lock entries")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Entry>, A::Error> {
            let mut seen = BTreeSet::new();
            let mut out = Vec::new();
            while let Some(e) = seq.next_element_seed(EntrySeed { seen: &mut seen })? {
                out.push(e);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(Files)
}

/// Deserializes one entry, checking each value as it is read so an error points at it.
struct EntrySeed<'a> {
    seen: &'a mut BTreeSet<String>,
}

const ENTRY_FIELDS: &[&str] = &["path", "sha256", "bytes", "locked_on"];

impl<'de> DeserializeSeed<'de> for EntrySeed<'_> {
    type Value = Entry;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Entry, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EntrySeed<'_> {
    type Value = Entry;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a lock entry {\"path\", \"sha256\", \"bytes\", \"locked_on\"}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entry, A::Error> {
        let (mut path, mut sha256, mut bytes, mut locked_on) = (None, None, None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "path" => {
                    if path.is_some() {
                        return Err(de::Error::duplicate_field("path"));
                    }
                    let seen = &mut *self.seen;
                    path = Some(map.next_value_seed(CheckedStr(|p: &str| {
                        if seen.insert(p.to_string()) {
                            Ok(())
                        } else {
                            Err(format!("duplicate path '{p}': each file has one entry"))
                        }
                    }))?);
                }
                "sha256" => {
                    if sha256.is_some() {
                        return Err(de::Error::duplicate_field("sha256"));
                    }
                    sha256 = Some(map.next_value_seed(CheckedStr(|s: &str| {
                        if lane_core::hex::is_sha256(s) {
                            Ok(())
                        } else {
                            Err(format!(
                                "expected a 64-digit lowercase hex digest, found '{}'",
                                clip(s)
                            ))
                        }
                    }))?);
                }
                "bytes" => {
                    if bytes.is_some() {
                        return Err(de::Error::duplicate_field("bytes"));
                    }
                    bytes = Some(map.next_value::<u64>()?);
                }
                "locked_on" => {
                    if locked_on.is_some() {
                        return Err(de::Error::duplicate_field("locked_on"));
                    }
                    locked_on = Some(map.next_value_seed(CheckedStr(|s: &str| {
                        lane_core::clock::parse_date(s).map(|_| ()).map_err(|e| {
                            if e.starts_with("expected") {
                                e
                            } else {
                                format!("expected a date as YYYY-MM-DD: {e}")
                            }
                        })
                    }))?);
                }
                other => return Err(de::Error::unknown_field(other, ENTRY_FIELDS)),
            }
        }
        Ok(Entry {
            path: path.ok_or_else(|| de::Error::missing_field("path"))?,
            sha256: sha256.ok_or_else(|| de::Error::missing_field("sha256"))?,
            bytes: bytes.ok_or_else(|| de::Error::missing_field("bytes"))?,
            locked_on: locked_on.ok_or_else(|| de::Error::missing_field("locked_on"))?,
        })
    }
}

fn clip(s: &str) -> String {
    if s.chars().count() > 80 {
        format!("{}...", s.chars().take(80).collect::<String>())
    } else {
        s.to_string()
    }
}

// ---------------------------------------------------------------------------------------
// Sidecars
// ---------------------------------------------------------------------------------------

/// What a `.sha256` sidecar holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sidecar {
    /// One bare digest for the file the sidecar is named after.
    Bare(String),
    /// `sha256sum` output: one digest per named file.
    Sums(Vec<SumLine>),
}

/// One `sha256sum` line: `HEX  name` (text mode) or `HEX *name` (binary mode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SumLine {
    /// Lowercase.
    pub digest: String,
    /// As written: relative to the sidecar's folder.
    pub name: String,
    /// 1-based line in the sidecar.
    pub line: usize,
}

const SUM_EXPECTED: &str = "expected a bare 64-digit hex digest, or sha256sum lines \
                            'HEX  name' / 'HEX *name'";

/// Parses a sidecar. Hex digits may be upper or lower case (they are lowercased); blank lines
/// are ignored; anything else that is not a digest line is an error at its line and column.
pub fn parse_sidecar(bytes: &[u8], source_name: &str) -> Result<Sidecar, Error> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        Error::parse(source_name, line, 0, "expected UTF-8 text")
    })?;
    let lines: Vec<(usize, &str)> = text
        .split('\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)))
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    if lines.is_empty() {
        return Err(Error::parse(source_name, 1, 1, SUM_EXPECTED));
    }
    if let [(_, only)] = lines.as_slice() {
        let t = only.trim();
        if t.len() == 64 && t.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(Sidecar::Bare(t.to_ascii_lowercase()));
        }
    }
    let mut out = Vec::new();
    for (line, text) in lines {
        out.push(parse_sum_line(text, line, source_name)?);
    }
    Ok(Sidecar::Sums(out))
}

fn parse_sum_line(text: &str, line: usize, source_name: &str) -> Result<SumLine, Error> {
    let (escaped, rest, col0) = match text.strip_prefix('\\') {
        Some(r) => (true, r, 2),
        None => (false, text, 1),
    };
    let hex_len = rest.bytes().take_while(|b| b.is_ascii_hexdigit()).count();
    if hex_len != 64 {
        return Err(Error::parse(
            source_name,
            line,
            col0 + hex_len.min(64),
            SUM_EXPECTED,
        ));
    }
    let digest = rest[..64].to_ascii_lowercase();
    let after = &rest[64..];
    let name = match after
        .strip_prefix("  ")
        .or_else(|| after.strip_prefix(" *"))
    {
        Some(n) if !n.is_empty() => n,
        _ => {
            return Err(Error::parse(
                source_name,
                line,
                col0 + 64,
                "expected two spaces (text mode) or ' *' (binary mode) and a file name after the digest",
            ));
        }
    };
    let name = if escaped {
        unescape(name).ok_or_else(|| {
            Error::parse(
                source_name,
                line,
                col0 + 66,
                "expected an escaped file name (only \\\\, \\n and \\r escapes)",
            )
        })?
    } else {
        name.to_string()
    };
    Ok(SumLine { digest, name, line })
}

/// sha256sum's escaping of names holding a backslash or a newline.
fn unescape(name: &str) -> Option<String> {
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next()? {
                '\\' => out.push('\\'),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// Folders never walked: dot-folders, virtualenvs, build outputs and caches (pytest's
/// `norecursedirs` defaults in spirit, plus `target` and `__pycache__`).
pub(crate) fn is_pruned_dir(name: &str) -> bool {
    name.starts_with('.')
        || matches!(
            name,
            "venv" | "node_modules" | "target" | "__pycache__" | "_darcs" | "CVS" | "{arch}"
        )
        || name.ends_with(".egg")
}

/// Every `*.sha256` file under `root` (regular files and symlinks; folders pruned by
/// [`is_pruned_dir`], symlinked folders not followed), as sorted root-relative paths.
pub(crate) fn find_sidecars(root: &Path) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    let walker = walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || !e.file_type().is_dir()
                || !is_pruned_dir(&e.file_name().to_string_lossy())
        });
    for entry in walker {
        let entry = entry.map_err(|e| {
            let path = e.path().map(Path::to_path_buf).unwrap_or_default();
            Error::io(path, std::io::Error::other(e.to_string()))
        })?;
        let name = entry.file_name().to_string_lossy();
        if entry.file_type().is_dir()
            || name.len() <= SIDECAR_SUFFIX.len()
            || !name.ends_with(SIDECAR_SUFFIX)
        {
            continue;
        }
        if let Some(rel) = lane_core::paths::relative_to(entry.path(), root) {
            out.push(rel);
        }
    }
    out.sort();
    Ok(out)
}

/// The file a bare-digest sidecar locks: `fixture.txt.sha256` -> `fixture.txt`, or, as in the
/// article, `statement_v3.sha256` -> `statement_v3.txt` (the one sibling with that stem).
/// `Err` lists the candidates when more than one file could be meant (fail closed).
pub(crate) fn bare_target(root: &Path, sidecar: &str) -> Result<String, Vec<String>> {
    let stripped = &sidecar[..sidecar.len() - SIDECAR_SUFFIX.len()];
    let (dir, stem) = match stripped.rfind('/') {
        Some(i) => (&stripped[..i], &stripped[i + 1..]),
        None => ("", stripped),
    };
    let join = |name: &str| {
        if dir.is_empty() {
            name.to_string()
        } else {
            format!("{dir}/{name}")
        }
    };
    let mut candidates = Vec::new();
    if root.join(stripped).symlink_metadata().is_ok() {
        candidates.push(stripped.to_string());
    }
    let folder: PathBuf = if dir.is_empty() {
        root.to_path_buf()
    } else {
        root.join(dir)
    };
    if let Ok(read) = std::fs::read_dir(&folder) {
        let mut names: Vec<String> = read
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for name in names {
            if name == stem || name.ends_with(SIDECAR_SUFFIX) {
                continue;
            }
            if Path::new(&name).file_stem().map(|s| s.to_string_lossy()) == Some(stem.into()) {
                candidates.push(join(&name));
            }
        }
    }
    match candidates.len() {
        0 => Ok(stripped.to_string()),
        1 => Ok(candidates.remove(0)),
        _ => Err(candidates),
    }
}

/// Joins a name from a sha256sum line to its sidecar's folder, as a root-relative path.
/// `None` when the name is absolute or climbs out with `..` (an unsafe path).
pub(crate) fn sum_target(sidecar: &str, name: &str) -> Option<String> {
    if name.starts_with('/') || name.starts_with('\\') || Path::new(name).is_absolute() {
        return None;
    }
    let mut parts: Vec<&str> = match sidecar.rfind('/') {
        Some(i) => sidecar[..i].split('/').collect(),
        None => Vec::new(),
    };
    let folder_depth = parts.len();
    for part in name.split('/') {
        match part {
            "" | "." => {}
            ".." => return None,
            p => parts.push(p),
        }
    }
    if parts.len() == folder_depth {
        return None;
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

    fn entry_json(path: &str, sha: &str) -> String {
        format!(r#"{{"path": "{path}", "sha256": "{sha}", "bytes": 3, "locked_on": "2026-01-02"}}"#)
    }

    #[test]
    fn round_trips_sorted() {
        let text = format!(
            "{{\"version\": 1, \"files\": [{}, {}]}}",
            entry_json("b.txt", B),
            entry_json("a.txt", A)
        );
        let lock = LockFile::parse(text.as_bytes(), "lanes.lock").unwrap();
        assert_eq!(lock.files[0].path, "a.txt");
        assert_eq!(lock.get("b.txt").unwrap().sha256, B);
        assert!(lock.get("c.txt").is_none());
        let again = LockFile::parse(&lock.to_bytes(), "lanes.lock").unwrap();
        assert_eq!(lock, again);
        let canonical = String::from_utf8(lock.to_bytes()).unwrap();
        assert!(canonical.starts_with("{\n  \"version\": 1,\n  \"files\": [\n"));
        assert!(canonical.ends_with("}\n"));
    }

    #[test]
    fn malformed_locks_name_the_position() {
        let e = |p: &str, s: &str| entry_json(p, s);
        let upper = A.to_uppercase();
        let cases: Vec<(&str, String, &str)> = vec![
            (
                "short digest on line 3",
                format!(
                    "{{\n  \"version\": 1,\n  \"files\": [{}]\n}}",
                    e("a.txt", "abc")
                ),
                "lanes.lock:3:41: expected a 64-digit lowercase hex digest, found 'abc'",
            ),
            (
                "uppercase digest",
                format!("{{\"version\":1,\"files\":[\n{}]}}", e("a.txt", &upper)),
                "lanes.lock:2:29: expected a 64-digit lowercase hex digest",
            ),
            (
                "duplicate path",
                format!(
                    "{{\"version\":1,\"files\":[\n{},\n{}]}}",
                    e("a.txt", A),
                    e("a.txt", B)
                ),
                "lanes.lock:3:10: duplicate path 'a.txt'",
            ),
            (
                "version 2",
                "{\"version\": 2, \"files\": []}".to_string(),
                "lanes.lock:1:13: unsupported lock version 2",
            ),
            (
                "bad date",
                format!(
                    "{{\"version\":1,\"files\":[{}]}}",
                    e("a.txt", A).replace("2026-01-02", "2026-13-40")
                ),
                "lanes.lock:1:",
            ),
            (
                "truncated",
                "{\"version\": 1, \"files\": [".into(),
                "lanes.lock:1:",
            ),
            (
                "bytes as string",
                format!(
                    "{{\"version\":1,\"files\":[{}]}}",
                    e("a.txt", A).replace("\"bytes\": 3", "\"bytes\": \"3\"")
                ),
                "invalid type: string \"3\", expected u64",
            ),
            (
                "unknown field",
                "{\"version\": 1, \"files\": [], \"extra\": 1}".into(),
                "unknown field `extra`",
            ),
            (
                "missing locked_on",
                "{\"version\":1,\"files\":[{\"path\":\"a\",\"sha256\":\"".to_string()
                    + A
                    + "\",\"bytes\":1}]}",
                "missing field `locked_on`",
            ),
            (
                "no files",
                "{\"version\":1}".into(),
                "missing field `files`",
            ),
            ("empty", " \n".into(), "lanes.lock:1:1: expected a lock"),
            ("not an object", "[]".into(), "lanes.lock:1:"),
            (
                "trailing garbage",
                "{\"version\":1,\"files\":[]} x".into(),
                "trailing characters",
            ),
        ];
        for (name, text, expected) in cases {
            let err = LockFile::parse(text.as_bytes(), "lanes.lock")
                .unwrap_err()
                .to_string();
            assert!(err.contains(expected), "{name}: got {err:?}");
        }
    }

    #[test]
    fn sidecar_formats() {
        let cases: Vec<(&str, String, Sidecar)> = vec![
            ("bare", format!("{A}\n"), Sidecar::Bare(A.into())),
            ("bare no newline", A.to_string(), Sidecar::Bare(A.into())),
            (
                "bare uppercase, CRLF",
                format!("{}\r\n", A.to_uppercase()),
                Sidecar::Bare(A.into()),
            ),
            (
                "text mode",
                format!("{A}  statement_v3.txt\n"),
                Sidecar::Sums(vec![SumLine {
                    digest: A.into(),
                    name: "statement_v3.txt".into(),
                    line: 1,
                }]),
            ),
            (
                "binary mode, two lines, blank line",
                format!("{A} *a.bin\n\n{B}  sub/b c.txt\n"),
                Sidecar::Sums(vec![
                    SumLine {
                        digest: A.into(),
                        name: "a.bin".into(),
                        line: 1,
                    },
                    SumLine {
                        digest: B.into(),
                        name: "sub/b c.txt".into(),
                        line: 3,
                    },
                ]),
            ),
            (
                "escaped name",
                format!("\\{A}  a\\nb\\\\c\n"),
                Sidecar::Sums(vec![SumLine {
                    digest: A.into(),
                    name: "a\nb\\c".into(),
                    line: 1,
                }]),
            ),
        ];
        for (name, text, expected) in cases {
            let got = parse_sidecar(text.as_bytes(), "x.sha256").unwrap();
            assert_eq!(got, expected, "{name}");
        }
    }

    #[test]
    fn bad_sidecars_name_the_position() {
        let cases: Vec<(&str, String, &str)> = vec![
            ("empty", String::new(), "x.sha256:1:1: expected a bare"),
            ("short", "abc\n".into(), "x.sha256:1:4: expected a bare"),
            (
                "one space",
                format!("{A} name\n"),
                "x.sha256:1:65: expected two spaces",
            ),
            (
                "no name",
                format!("{A} *\n"),
                "x.sha256:1:65: expected two spaces",
            ),
            (
                "second line bad",
                format!("{A}  a\nnot a digest\n"),
                "x.sha256:2:1: expected a bare",
            ),
            (
                "bad escape",
                format!("\\{A}  a\\tb\n"),
                "x.sha256:1:68: expected an escaped file name",
            ),
            (
                "binary junk",
                "\u{0}\u{1}".into(),
                "x.sha256:1:1: expected a bare",
            ),
        ];
        for (name, text, expected) in cases {
            let err = parse_sidecar(text.as_bytes(), "x.sha256")
                .unwrap_err()
                .to_string();
            assert!(err.starts_with(expected), "{name}: got {err:?}");
        }
        let err = parse_sidecar(b"\xff\xfe", "x.sha256")
            .unwrap_err()
            .to_string();
        assert_eq!(err, "x.sha256:1: expected UTF-8 text");
    }

    #[test]
    fn sum_targets() {
        let cases = [
            ("fx/x.sha256", "a.txt", Some("fx/a.txt")),
            ("fx/x.sha256", "./sub/a.txt", Some("fx/sub/a.txt")),
            ("x.sha256", "a.txt", Some("a.txt")),
            ("fx/x.sha256", "../a.txt", None),
            ("fx/x.sha256", "/etc/passwd", None),
            ("fx/x.sha256", ".", None),
        ];
        for (sidecar, name, expected) in cases {
            assert_eq!(
                sum_target(sidecar, name).as_deref(),
                expected,
                "{sidecar} {name}"
            );
        }
    }

    #[test]
    fn bare_targets() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("fx")).unwrap();
        for f in [
            "fx/fixture.txt",
            "fx/statement_v3.txt",
            "fx/two.txt",
            "fx/two.csv",
        ] {
            std::fs::write(root.join(f), b"x").unwrap();
        }
        assert_eq!(
            bare_target(root, "fx/fixture.txt.sha256"),
            Ok("fx/fixture.txt".into())
        );
        assert_eq!(
            bare_target(root, "fx/statement_v3.sha256"),
            Ok("fx/statement_v3.txt".into())
        );
        assert_eq!(
            bare_target(root, "fx/gone.txt.sha256"),
            Ok("fx/gone.txt".into())
        );
        assert_eq!(
            bare_target(root, "fx/two.sha256"),
            Err(vec!["fx/two.csv".into(), "fx/two.txt".into()])
        );
    }

    #[test]
    fn pruned_folders() {
        for name in [
            ".git",
            ".venv",
            "venv",
            "node_modules",
            "target",
            "__pycache__",
            "x.egg",
        ] {
            assert!(is_pruned_dir(name), "{name}");
        }
        for name in ["tests", "fixtures", "src"] {
            assert!(!is_pruned_dir(name), "{name}");
        }
    }

    fn awkward_entries(n: usize) -> Vec<Entry> {
        let names = [
            "plain/file.txt",
            "q\"uote",
            "back\\slash",
            "new\nline",
            "ctl\u{1}\u{1f}",
            "del\u{7f}",
            "ünï 🦀",
            "a\",\n    },\n    {\n",
        ];
        let mut out: Vec<Entry> = (0..n)
            .map(|i| Entry {
                path: format!("{}/{i:07}", names[i % names.len()]),
                sha256: if i % 3 == 0 { A } else { B }.to_string(),
                bytes: [0, 7, 10, 4096, u64::MAX][i % 5],
                locked_on: ["2026-01-02", "2024-02-29"][i / 500 % 2].to_string(),
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn canonical_locks_are_read_on_every_core_alike() {
        // Empty, small, and large enough for many pieces (several hundred KiB).
        for n in [0, 1, 3, 5000] {
            let lock = LockFile {
                files: awkward_entries(n),
            };
            let bytes = lock.to_bytes();
            assert_eq!(canonical::parse(&bytes), Some(lock.files.clone()), "{n}");
            assert_eq!(LockFile::parse_strict(&bytes, "lanes.lock").unwrap(), lock);
        }
        // Not canonical: read by the strict reader, which sorts, or refuses and locates.
        let lock = LockFile {
            files: awkward_entries(40),
        };
        let canonical_bytes = lock.to_bytes();
        let text = String::from_utf8(canonical_bytes.clone()).unwrap();
        let unsorted = {
            let mut files = lock.files.clone();
            files.reverse();
            let out = LockOut {
                version: LOCK_VERSION,
                files: &files,
            };
            serde_json::to_vec_pretty(&out).unwrap()
        };
        let cases: Vec<(&str, Vec<u8>, Option<&str>)> = vec![
            (
                "compact",
                serde_json::to_vec(&LockOut {
                    version: 1,
                    files: &lock.files,
                })
                .unwrap(),
                None,
            ),
            ("unsorted", unsorted, None),
            (
                "no final newline",
                canonical_bytes[..canonical_bytes.len() - 1].to_vec(),
                None,
            ),
            (
                "duplicate path",
                text.replacen("file.txt/0000008", "file.txt/0000000", 1)
                    .into_bytes(),
                Some("duplicate path"),
            ),
            (
                "uppercase digest",
                text.replacen(A, &A.to_uppercase(), 1).into_bytes(),
                Some("expected a 64-digit lowercase hex digest"),
            ),
            (
                "bad date",
                text.replacen("2026-01-02", "2026-02-30", 1).into_bytes(),
                Some("not a calendar date"),
            ),
            (
                "leading zero",
                text.replacen("\"bytes\": 7,", "\"bytes\": 07,", 1)
                    .into_bytes(),
                Some("lanes.lock:"),
            ),
            (
                "too large",
                text.replacen("18446744073709551615", "18446744073709551616", 1)
                    .into_bytes(),
                Some("lanes.lock:"),
            ),
            (
                "extra field",
                text.replacen("\"bytes\": 7,", "\"bytes\": 7, \"x\": 1,", 1)
                    .into_bytes(),
                Some("unknown field `x`"),
            ),
        ];
        for (name, bytes, error) in cases {
            assert_eq!(canonical::parse(&bytes), None, "{name}");
            match (LockFile::parse(&bytes, "lanes.lock"), error) {
                (Ok(got), None) => assert_eq!(got, lock, "{name}"),
                (Err(e), Some(expected)) => {
                    assert!(e.to_string().contains(expected), "{name}: {e}")
                }
                (got, _) => panic!("{name}: {got:?}"),
            }
        }
    }

    fn entry_strategy() -> impl proptest::strategy::Strategy<Value = Entry> {
        use proptest::prelude::*;
        (any::<String>(), any::<bool>(), any::<u64>(), 0u32..3).prop_map(|(path, a, bytes, day)| {
            Entry {
                path,
                sha256: if a { A } else { B }.to_string(),
                bytes,
                locked_on: format!("2026-01-0{}", day + 1),
            }
        })
    }

    proptest::proptest! {
        #[test]
        fn canonical_reader_agrees_with_the_strict_one(
            files in proptest::collection::vec(entry_strategy(), 0..8),
            damage in proptest::collection::vec((proptest::prelude::any::<usize>(), proptest::prelude::any::<u8>()), 0..3),
        ) {
            let mut bytes = LockFile { files: files.clone() }.to_bytes();
            let mut sorted = files;
            sorted.sort();
            let unique = sorted.windows(2).all(|w| w[0].path != w[1].path);
            if damage.is_empty() {
                proptest::prop_assert_eq!(canonical::parse(&bytes), unique.then_some(sorted));
            }
            for (at, byte) in damage {
                let at = at % bytes.len();
                bytes[at] = byte;
            }
            if let Some(fast) = canonical::parse(&bytes) {
                let strict = LockFile::parse_strict(&bytes, "lanes.lock");
                proptest::prop_assert_eq!(strict.ok(), Some(LockFile { files: fast }));
            }
        }

        #[test]
        fn parsers_never_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300)) {
            let _ = LockFile::parse(&bytes, "lanes.lock");
            let _ = parse_sidecar(&bytes, "x.sha256");
            if let Ok(text) = std::str::from_utf8(&bytes) {
                let _ = sum_target("fx/x.sha256", text);
            }
        }

        #[test]
        fn lock_errors_are_located(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 1..300)) {
            if let Err(e) = LockFile::parse(&bytes, "lanes.lock") {
                proptest::prop_assert!(e.to_string().starts_with("lanes.lock:"), "{e}");
            }
        }
    }
}
