//! empty-parameter-set: a parametrize over an empty list, or a used fixture whose `params` are
//! empty, under `empty_parameter_set_mark = fail_at_collect` (or a value pytest does not
//! accept): pytest fails collecting the module, and none of its tests run.

use lane_core::detector::Detector;
use lane_core::{Problem, Rule};

use super::facts::ParamMark;
use super::{Scan, ScanFacts};
use crate::pytest::collect::EmptySetMark;

pub(crate) const DETECTOR: Detector<Scan> = Detector {
    rules: &[Rule::EmptyParameterSet],
    check,
};

fn check(facts: &ScanFacts<'_>, problems: &mut Vec<Problem>) {
    let ScanFacts::Test(t) = facts else { return };
    let id = t.id;
    for mark in &t.param_marks {
        if let ParamMark::EmptySetFailsCollection = mark.what {
            let msg = format!(
                "{id}: parametrized over an empty list with empty_parameter_set_mark = \
                 fail_at_collect (or a value pytest does not accept): pytest fails collecting \
                 {}, and none of its tests run",
                mark.file
            );
            problems.push(t.problem(Rule::EmptyParameterSet, msg, mark.file, mark.line));
        }
    }
    if t.empty_set_mark == EmptySetMark::FailAtCollect {
        for f in &t.empty_fixture_params {
            let msg = format!(
                "{id}: uses fixture {} whose params are empty, with empty_parameter_set_mark = \
                 fail_at_collect (or a value pytest does not accept): pytest fails collecting \
                 {}, and none of its tests run",
                f.what, t.file
            );
            problems.push(t.problem(Rule::EmptyParameterSet, msg, f.file, f.line));
        }
    }
}
