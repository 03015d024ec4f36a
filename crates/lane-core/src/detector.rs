//! A detector: one rule file's decision, registered in its tool's one table.
//!
//! Every tool keeps its detectors in a single table of [`Detector`]s over the facts its
//! shared passes computed (the visitors and readers decide nothing; a rule's file holds the
//! predicate and the message). The table is generated at build time by lane-build from the
//! files of the tool's `src/rules/` that declare a `DETECTOR`. A detector owns the catalogue
//! rules it declares, usually one, at most a small family; a test in lane-gate checks that
//! every catalogue rule is declared by exactly one detector and that its problems are built
//! nowhere else.
//!
//! ```
//! use lane_core::detector::{Detector, Facts};
//! use lane_core::{Problem, Rule};
//!
//! struct Count<'a> {
//!     merge: &'a [&'a str],
//! }
//! enum Suite {}
//! impl Facts for Suite {
//!     type Of<'a> = Count<'a>;
//! }
//!
//! fn check(facts: &Count<'_>, problems: &mut Vec<Problem>) {
//!     if facts.merge.is_empty() {
//!         problems.push(Problem::new(Rule::EmptyMergeLane, "no merge test"));
//!     }
//! }
//! const DETECTORS: &[Detector<Suite>] = &[Detector {
//!     rules: &[Rule::EmptyMergeLane],
//!     check,
//! }];
//!
//! let mut problems = Vec::new();
//! for d in DETECTORS {
//!     (d.check)(&Count { merge: &[] }, &mut problems);
//! }
//! assert_eq!(problems[0].rule, "empty-merge-lane");
//! ```

use crate::problem::Problem;
use crate::rule::Rule;

/// The facts one tool's detectors judge, as a family over the facts' lifetime: a marker type
/// names it once (`enum Scan {} impl Facts for Scan { type Of<'a> = ScanFacts<'a>; }`), so that
/// a table of detectors can be a `const` while each run's facts borrow what they describe.
pub trait Facts {
    type Of<'a>;
}

/// One detector: the rules it reports and its check. Its rule file declares it as
/// `pub(crate) const DETECTOR`; lane-build lists every such file in the tool's table.
pub struct Detector<F: Facts + ?Sized> {
    /// The catalogue rules this detector reports; no other detector reports them.
    pub rules: &'static [Rule],
    /// Reads the facts and pushes the problems it finds (any order: each tool sorts).
    pub check: fn(&F::Of<'_>, &mut Vec<Problem>),
}

/// A tool's table as the registry test reads it: each detector's rules and its rule file
/// (relative to the workspace), from the table and the file list lane-build generates.
pub fn registry<F: Facts + ?Sized>(
    table: &[Detector<F>],
    files: &[&'static str],
) -> Vec<Registered> {
    table
        .iter()
        .zip(files)
        .map(|(d, file)| Registered {
            rules: d.rules,
            file,
        })
        .collect()
}

/// A detector as a table lists it, without its facts' type: the rules and the rule file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Registered {
    pub rules: &'static [Rule],
    pub file: &'static str,
}

/// Runs every detector of `table` on `facts`.
pub fn run_all<F: Facts + ?Sized>(
    table: &[Detector<F>],
    facts: &F::Of<'_>,
    problems: &mut Vec<Problem>,
) {
    for detector in table {
        (detector.check)(facts, problems);
    }
}
