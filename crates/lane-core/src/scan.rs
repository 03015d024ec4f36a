//! The `scan` section lane-scan writes and the other tools read.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::problem::Problem;

/// The three lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lane {
    Merge,
    Witness,
    Freeze,
}

impl Lane {
    pub const ALL: [Lane; 3] = [Lane::Merge, Lane::Witness, Lane::Freeze];

    pub fn as_str(self) -> &'static str {
        match self {
            Lane::Merge => "merge",
            Lane::Witness => "witness",
            Lane::Freeze => "freeze",
        }
    }

    pub fn from_name(name: &str) -> Option<Lane> {
        match name {
            "merge" => Some(Lane::Merge),
            "witness" => Some(Lane::Witness),
            "freeze" => Some(Lane::Freeze),
            _ => None,
        }
    }

    /// Merge and witness tests vote (witness only against the patch).
    pub fn votes(self) -> bool {
        matches!(self, Lane::Merge | Lane::Witness)
    }
}

impl std::fmt::Display for Lane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
// Fields are declared in key order so the section serializes straight into canonical form
// (see `Document::set_section_presorted`); keep them sorted.
pub struct ScanSection {
    pub counts: Counts,
    /// Root-relative files that were scanned, sorted.
    #[serde(default)]
    pub files: Vec<String>,
    pub problems: Vec<Problem>,
    /// Root-relative files in the snapshot libraries' layouts beside the test modules
    /// (syrupy, pytest-regressions, pytest-snapshot), sorted: each should be a witness
    /// test's fixture.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub snapshots: Vec<String>,
    /// Every collected test, sorted by id.
    pub tests: Vec<ScanTest>,
    pub tool: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub freeze: u64,
    pub merge: u64,
    pub unmarked: u64,
    pub witness: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanTest {
    pub attachments: Attachments,
    /// The root-relative file the test function is written in, when that is not `file` (a
    /// method inherited from a base class in another module, a test function imported from
    /// one): pytest's xunit1 `file` attribute names this file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defined_in: Option<String>,
    /// The test's parameter sets (a parametrize's argvalues, a used fixture's `params=`) are
    /// computed at run time, and what pytest does if they come out empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub empty_params: Option<EmptyParams>,
    pub file: String,
    /// pytest node id relative to the rootdir, without parametrization.
    pub id: String,
    /// The single lane, or null when there is none or more than one.
    pub lane: Option<Lane>,
    /// Every distinct lane that reaches the test, sorted.
    pub lanes: Vec<Lane>,
    pub line: u64,
    /// Every mark name that reaches the test, sorted and unique.
    pub marks: Vec<String>,
    pub parametrized: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attachments {
    /// A property's `assume(...)` calls: the source text of each one's arguments, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assumes: Vec<String>,
    /// Source text of the `@given(...)` arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Root-relative paths from the witness mark's `fixture=`, and a witness test's snapshot
    /// files (syrupy, pytest-regressions, pytest-snapshot).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixtures: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locked_on: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Where `owner` came from: "test docstring", "class docstring", "module docstring", or
    /// the CODEOWNERS entry as `FILE:LINE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_from: Option<String>,
    /// A property's effective hypothesis settings: each key's source text, from a profile
    /// loaded in a conftest.py (`profile` names it) overridden by `@settings(...)`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shrinking: Option<String>,
}

/// A test whose parameter sets lane-scan cannot count: when one of them is empty, pytest
/// gives the test a single item whose parameter id is `NOTSET` (`test_x[NOTSET]`,
/// `test_x[NOTSET-1]` beside other parametrizes) carrying the mark of the
/// `empty_parameter_set_mark` ini key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmptyParams {
    /// Where each computed set is written, as `FILE:LINE` (the parametrize mark, or the
    /// fixture's `def`), sorted.
    pub computed: Vec<String>,
    /// What the empty set gives that item: `skip`, `xfail`, or `fail_at_collect` (pytest fails
    /// collecting the module instead; a value pytest does not accept fails it too).
    pub mark: String,
}

impl EmptyParams {
    /// True when the case name's parameter id is the one pytest gives an empty set's item: a
    /// `NOTSET` part of `[...]` (the parts are joined by `-`).
    pub fn is_empty_set_case(name: &str) -> bool {
        let Some(open) = name.find('[') else {
            return false;
        };
        let Some(params) = name[open + 1..].strip_suffix(']') else {
            return false;
        };
        params.split('-').any(|part| part == "NOTSET")
    }
}

impl ScanTest {
    /// The file that defines the test function (`defined_in`, else `file`).
    pub fn defining_file(&self) -> &str {
        self.defined_in.as_deref().unwrap_or(&self.file)
    }
}

/// The records of lane-scan's hot list (100,000 tests on a large suite), written without
/// serde's per-byte string escaping and per-field calls: the same bytes as serde's pretty
/// layout (`fast_records_match_serde` compares them).
impl crate::document::SplitItem for ScanTest {
    fn render_at_depth_3(&self, buf: &mut Vec<u8>) -> std::io::Result<()> {
        use crate::document::json_str;
        // The record's keys sit one level below it (depth 4), list items two (depth 5).
        let mut obj = Object::open(buf, 4);
        obj.key(b"\"attachments\": ");
        self.attachments.render(obj.buf, 4);
        if let Some(defined_in) = &self.defined_in {
            obj.key(b"\"defined_in\": ");
            json_str(obj.buf, defined_in);
        }
        if let Some(empty_params) = &self.empty_params {
            obj.key(b"\"empty_params\": ");
            let mut inner = Object::open(obj.buf, 5);
            inner.key(b"\"computed\": ");
            list(
                inner.buf,
                5,
                empty_params.computed.iter().map(String::as_str),
            );
            inner.key(b"\"mark\": ");
            json_str(inner.buf, &empty_params.mark);
            inner.close();
        }
        obj.key(b"\"file\": ");
        json_str(obj.buf, &self.file);
        obj.key(b"\"id\": ");
        json_str(obj.buf, &self.id);
        obj.key(b"\"lane\": ");
        match self.lane {
            Some(lane) => json_str(obj.buf, lane.as_str()),
            None => obj.buf.extend_from_slice(b"null"),
        }
        obj.key(b"\"lanes\": ");
        list(obj.buf, 4, self.lanes.iter().map(|l| l.as_str()));
        obj.key(b"\"line\": ");
        crate::document::push_u64(obj.buf, self.line);
        obj.key(b"\"marks\": ");
        list(obj.buf, 4, self.marks.iter().map(String::as_str));
        obj.key(b"\"parametrized\": ");
        obj.buf
            .extend_from_slice(if self.parametrized { b"true" } else { b"false" });
        obj.close();
        Ok(())
    }
}

impl Attachments {
    /// Appends the attachments as serde's pretty layout writes them `depth` levels down (see
    /// the `SplitItem` impl of [`ScanTest`]); keys in declaration order, empty ones left out.
    fn render(&self, buf: &mut Vec<u8>, depth: usize) {
        use crate::document::json_str;
        let mut obj = Object::open(buf, depth + 1);
        if !self.assumes.is_empty() {
            obj.key(b"\"assumes\": ");
            list(obj.buf, depth + 1, self.assumes.iter().map(String::as_str));
        }
        let text = |obj: &mut Object, name: &[u8], value: &Option<String>| {
            if let Some(value) = value {
                obj.key(name);
                json_str(obj.buf, value);
            }
        };
        text(&mut obj, b"\"domain\": ", &self.domain);
        if !self.fixtures.is_empty() {
            obj.key(b"\"fixtures\": ");
            list(obj.buf, depth + 1, self.fixtures.iter().map(String::as_str));
        }
        text(&mut obj, b"\"locked_on\": ", &self.locked_on);
        text(&mut obj, b"\"owner\": ", &self.owner);
        text(&mut obj, b"\"owner_from\": ", &self.owner_from);
        if !self.settings.is_empty() {
            obj.key(b"\"settings\": ");
            let mut map = Object::open(obj.buf, depth + 2);
            for (key, value) in &self.settings {
                map.string_key(key);
                json_str(map.buf, value);
            }
            map.close();
        }
        text(&mut obj, b"\"shrinking\": ", &self.shrinking);
        obj.close();
    }
}

/// A JSON object being written in serde's pretty layout, its keys `depth` levels down.
struct Object<'b> {
    buf: &'b mut Vec<u8>,
    depth: usize,
    empty: bool,
}

impl<'b> Object<'b> {
    fn open(buf: &'b mut Vec<u8>, depth: usize) -> Self {
        buf.push(b'{');
        Object {
            buf,
            depth,
            empty: true,
        }
    }

    /// Starts an entry: `key` is its key as written, quoted and followed by `: ` (a name
    /// with nothing to escape); its value comes next.
    fn key(&mut self, key: &[u8]) {
        crate::document::json_newline(self.buf, self.depth, !self.empty);
        self.empty = false;
        self.buf.extend_from_slice(key);
    }

    /// Starts the entry of a key that may need escaping.
    fn string_key(&mut self, name: &str) {
        crate::document::json_newline(self.buf, self.depth, !self.empty);
        self.empty = false;
        crate::document::json_str(self.buf, name);
        self.buf.extend_from_slice(b": ");
    }

    fn close(self) {
        if !self.empty {
            crate::document::json_newline(self.buf, self.depth - 1, false);
        }
        self.buf.push(b'}');
    }
}

/// Appends a list of strings in serde's pretty layout, its closing bracket `depth` levels
/// down (its items one more).
fn list<'a>(buf: &mut Vec<u8>, depth: usize, items: impl Iterator<Item = &'a str>) {
    buf.push(b'[');
    let mut first = true;
    for item in items {
        crate::document::json_newline(buf, depth + 1, !first);
        crate::document::json_str(buf, item);
        first = false;
    }
    if !first {
        crate::document::json_newline(buf, depth, false);
    }
    buf.push(b']');
}

impl ScanSection {
    pub const NAME: &'static str = "scan";

    /// Tests by id.
    pub fn by_id(&self) -> BTreeMap<&str, &ScanTest> {
        self.tests.iter().map(|t| (t.id.as_str(), t)).collect()
    }

    pub fn tests_in(&self, lane: Lane) -> impl Iterator<Item = &ScanTest> {
        self.tests.iter().filter(move |t| t.lane == Some(lane))
    }
}

/// Attachments with every field set, for the tests of this crate's writers.
#[cfg(test)]
pub(crate) fn every_attachment() -> Attachments {
    Attachments {
        assumes: vec!["x > 0".into()],
        domain: Some("st.integers()".into()),
        fixtures: vec!["golden/a.txt".into()],
        locked_on: Some("2026-01-01".into()),
        owner: Some("ana".into()),
        owner_from: Some("test docstring".into()),
        settings: [("max_examples".to_string(), "10".to_string())].into(),
        shrinking: Some("shrinks to 0".into()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::document::{SplitItem, pretty_at};

    fn record(id: &str, line: u64) -> ScanTest {
        ScanTest {
            attachments: Attachments::default(),
            defined_in: None,
            empty_params: None,
            file: "tests/test_a.py".into(),
            id: id.into(),
            lane: Some(Lane::Merge),
            lanes: vec![Lane::Merge],
            line,
            marks: vec!["merge".into(), "parametrize".into()],
            parametrized: true,
        }
    }

    /// The record as the fast path writes it, and as serde's pretty layout writes it.
    fn both(t: &ScanTest) -> (String, String) {
        let mut fast = Vec::new();
        t.render_at_depth_3(&mut fast).unwrap();
        let mut slow = Vec::new();
        pretty_at(&mut slow, 3, t).unwrap();
        (
            String::from_utf8(fast).unwrap(),
            String::from_utf8(slow).unwrap(),
        )
    }

    #[test]
    fn fast_records_match_serde() {
        let mut cases = vec![record("tests/test_a.py::TestX::test_y", 7)];
        let mut t = record("t.py::test_\"q\"\\x\u{1}\n\u{7f}é\u{1F600}", 0);
        t.lane = None;
        t.lanes = vec![Lane::Merge, Lane::Witness, Lane::Freeze];
        t.marks = Vec::new();
        t.parametrized = false;
        cases.push(t);
        let mut t = record("t.py::test_b", u64::MAX);
        t.lanes = Vec::new();
        t.marks = vec!["a\tb".into(), String::new(), "x".repeat(40)];
        t.defined_in = Some("tests/base.py".into());
        t.empty_params = Some(EmptyParams {
            computed: vec!["tests/t.py:3".into(), "tests/t.py:9".into()],
            mark: "skip".into(),
        });
        t.attachments = every_attachment();
        cases.push(t);
        let mut t = record("t.py::test_c", 10);
        t.attachments.owner = Some("o".into());
        t.attachments.settings = [
            ("a\"b".to_string(), "x\ny".to_string()),
            ("z".to_string(), String::new()),
        ]
        .into();
        t.attachments.fixtures = vec!["f1".into(), "f\\2".into()];
        t.empty_params = Some(EmptyParams {
            computed: Vec::new(),
            mark: "fail_at_collect".into(),
        });
        t.lane = Some(Lane::Freeze);
        cases.push(t);
        for t in &cases {
            let (fast, slow) = both(t);
            assert_eq!(fast, slow);
        }
        // Every string length around the 16-byte chunks, with the one byte to escape anywhere.
        for len in 0..40 {
            for bad in [None, Some('"'), Some('\\'), Some('\u{1f}')] {
                for at in 0..len.max(1) {
                    let mut id: Vec<char> = "abcdefghijklmnopqrstuvwxyz0123456789ABCD"
                        .chars()
                        .take(len)
                        .collect();
                    if let (Some(bad), true) = (bad, at < len) {
                        id[at] = bad;
                    }
                    let t = record(&id.into_iter().collect::<String>(), len as u64);
                    let (fast, slow) = both(&t);
                    assert_eq!(fast, slow);
                }
            }
        }
    }

    proptest::proptest! {
        /// Any strings (quotes, backslashes, control characters, any Unicode), any lanes.
        #[test]
        fn fast_records_match_serde_for_any_text(
            id in "\\PC{0,40}|[\\x00-\\x7f]{0,40}",
            file in "\\PC{0,20}",
            marks in proptest::collection::vec("[\\x00-\\x7f]{0,20}|\\PC{0,5}", 0..4),
            lanes in proptest::collection::vec(0usize..3, 0..4),
            line in proptest::num::u64::ANY,
            defined_in in proptest::option::of("\\PC{0,10}"),
            owner in proptest::option::of("\\PC{0,10}"),
            assumes in proptest::collection::vec("[\\x00-\\x7f]{0,8}", 0..3),
            settings in proptest::collection::btree_map("\\PC{0,6}", "[\\x00-\\x7f]{0,6}", 0..3),
            computed in proptest::option::of(proptest::collection::vec("\\PC{0,8}", 0..3)),
        ) {
            let mut t = record(&id, line);
            t.file = file;
            t.marks = marks;
            t.lanes = lanes.into_iter().map(|i| Lane::ALL[i]).collect();
            t.lane = t.lanes.first().copied();
            t.defined_in = defined_in;
            t.attachments.owner = owner;
            t.attachments.assumes = assumes;
            t.attachments.settings = settings;
            t.empty_params = computed.map(|computed| EmptyParams {
                computed,
                mark: "xfail".into(),
            });
            let (fast, slow) = both(&t);
            proptest::prop_assert_eq!(fast, slow);
        }
    }

    #[test]
    fn the_empty_set_case_is_named_by_a_notset_part() {
        for name in [
            "test_x[NOTSET]",
            "test_x[NOTSET-1]",
            "test_x[a-NOTSET]",
            "t[NOTSET-NOTSET]",
        ] {
            assert!(EmptyParams::is_empty_set_case(name), "{name}");
        }
        for name in [
            "test_x",
            "test_x[1]",
            "test_x[NOTSETX]",
            "test_x[not-set]",
            "test_NOTSET",
            "test_x[NOTSET",
        ] {
            assert!(!EmptyParams::is_empty_set_case(name), "{name}");
        }
    }
}
