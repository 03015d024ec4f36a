//! doctest-changed: the patch changes a line of a doctest's text. Its examples are a test, in
//! a file the gate counts as product code: a patch that rewrites a test beside the code it
//! checks could approve itself.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::{Scan, ScanFacts};

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::DoctestChanged],
    check,
};

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Doctest(d) = facts else { return };
    let Some(touched) = d.changed else { return };
    let (first, last) = d.text;
    let Some(at) = touched
        .iter()
        .filter(|(a, b)| *a <= last && *b >= first)
        .map(|(a, _)| (*a).max(first))
        .min()
    else {
        return;
    };
    let (id, file) = (d.id, d.file);
    problems.push(
        Problem::new(
            Rule::DoctestChanged,
            format!(
                "the patch changes the text of doctest {id} (lines {first}-{last} of {file}): \
                 its examples are a test, and a patch that rewrites a test beside the code it \
                 checks could approve itself"
            ),
        )
        .at(file, at)
        .test(id),
    );
}
