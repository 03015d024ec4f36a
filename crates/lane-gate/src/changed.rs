//! The product code lane-scan judges for test-aware-code (DESIGN §4): with `--base`, the lines
//! the patch changed in its product files (`git diff -U0` from the merge base to HEAD) and every
//! untracked Python file of the working tree (the vote runs on a copy that holds them); without
//! `--base` there is no diff to go by, so every product file is judged (fail closed).

use std::collections::BTreeSet;
use std::path::Path;

use lane_scan::aware::Changed;

use crate::GateError;
use crate::surface::{Change, Class, Entry};

/// Judges `options`' scan with `changed` set.
pub(crate) fn with(options: &lane_scan::Options, changed: Changed) -> lane_scan::Options {
    lane_scan::Options {
        changed: Some(changed),
        ..options.clone()
    }
}

/// The lines of product files the patch changed between `merge_base` and `head` (run in `cwd`,
/// the rootdir), and the untracked Python files there, whole.
pub(crate) fn of_patch(
    cwd: &Path,
    merge_base: &str,
    head: &str,
    entries: &[Entry],
) -> Result<Changed, GateError> {
    let product: BTreeSet<&str> = entries
        .iter()
        .filter(|e| e.class == Class::Product && e.change != Change::Removed)
        .map(|e| e.path.as_str())
        .collect();
    let diff = crate::git::run(
        cwd,
        &[
            "diff",
            "-U0",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--find-renames",
            // a file an attributes file marks binary is still read line by line
            "--text",
            "--relative",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            merge_base,
            head,
            "--",
        ],
    )?;
    let text = String::from_utf8_lossy(&diff);
    let mut lines = lane_scan::aware::parse_diff(&text, "git diff -U0")
        .map_err(|e| GateError::Git(format!("cannot read the patch's diff: {e}")))?;
    lines.retain(|path, _| product.contains(path.as_str()));
    // A changed or added product file the diff shows without a line (whatever git was told
    // about it) is judged whole; a rename keeps the lines its diff shows (none: same bytes).
    for e in entries {
        if e.class == Class::Product && matches!(e.change, Change::Added | Change::Changed) {
            lines
                .entry(e.path.clone())
                .or_insert_with(|| vec![(1, u64::MAX)]);
        }
    }
    let untracked = crate::git::run(cwd, &["ls-files", "-z", "--others"])?;
    for path in untracked.split(|b| *b == 0).filter(|p| !p.is_empty()) {
        let path = String::from_utf8_lossy(path).into_owned();
        if path.ends_with(".py") {
            lines.insert(path, vec![(1, u64::MAX)]);
        }
    }
    Ok(Changed::Lines(lines))
}

/// The lines of `changed` in the patch's product files (`entries` classified as product code).
pub(crate) fn product_lines(
    changed: Changed,
    entries: &[Entry],
) -> std::collections::BTreeMap<String, Vec<(u64, u64)>> {
    let Changed::Lines(mut lines) = changed else {
        return std::collections::BTreeMap::new();
    };
    let product: BTreeSet<&str> = entries
        .iter()
        .filter(|e| e.class == Class::Product && e.change != Change::Removed)
        .map(|e| e.path.as_str())
        .collect();
    lines.retain(|path, _| product.contains(path.as_str()));
    lines
}
