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
    /// test's fixture (issue 19).
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
    /// computed at run time, and what pytest does if they come out empty (issue 18 (fid5)).
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
    /// the CODEOWNERS entry as `FILE:LINE` (issue 19).
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
/// `empty_parameter_set_mark` ini key (issue 18 (fid5)).
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

#[cfg(test)]
mod tests {
    use super::EmptyParams;

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
