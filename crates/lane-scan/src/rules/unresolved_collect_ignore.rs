//! unresolved-collect-ignore: a conftest changes `collect_ignore` or `collect_ignore_glob` in a
//! way the scan cannot read (a computed value, a loop, a function), or under a condition it
//! cannot decide: which files pytest leaves out of collection is unknown.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};
use lane_python::IgnoreList;

use super::{Scan, ScanFacts};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::UnresolvedCollectIgnore],
    check,
};

/// A statement of a conftest (root-relative `file`, at `line`) about an ignore list that the
/// scan cannot read.
pub(crate) struct IgnoreUnsure<'a> {
    pub file: &'a str,
    pub line: u64,
    pub list: IgnoreList,
    pub why: IgnoreWhy<'a>,
}

/// Why an ignore list's statement cannot be read.
pub(crate) enum IgnoreWhy<'a> {
    /// It runs under an `if` the scan cannot decide for the target interpreter.
    Undecided,
    /// It sets or changes the list by something computed, described.
    Computed(&'a str),
}

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::CollectIgnore(u) = facts else {
        return;
    };
    let why = match u.why {
        IgnoreWhy::Undecided => "is changed under a condition lane-scan cannot decide".to_string(),
        IgnoreWhy::Computed(what) => format!("is set or changed by {what}"),
    };
    let rel = u.file;
    problems.push(
        Problem::new(
            Rule::UnresolvedCollectIgnore,
            format!(
                "{rel}:{}: {} {why}: lane-scan cannot know which files pytest leaves out of \
                 collection under {}",
                u.line,
                u.list.name(),
                folder_name(rel),
            ),
        )
        .at(rel, u.line),
    );
}

/// The folder a root-relative conftest path stands for, for messages.
fn folder_name(rel: &str) -> String {
    match rel.rsplit_once('/') {
        Some((dir, _)) => format!("{dir}/"),
        None => "the rootdir".to_string(),
    }
}
