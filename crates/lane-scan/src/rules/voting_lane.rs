//! xfail-in-voting-lane and retry-in-voting-lane on a test: a lane that refuses expected
//! failures or retries (the lane rights) gets neither.

use lane_core::{Problem, Rule};

use super::facts::{Effect, TestFacts};
use super::lanes::rights;
use crate::collect::EmptySetMark;

pub fn check(t: &TestFacts, problems: &mut Vec<Problem>) {
    let Some(lane) = t.lane else { return };
    let rights = rights(lane);
    for (effect, a) in &t.effects {
        let (rule, what) = match effect {
            Effect::Xfail if rights.no_xfail => (Rule::XfailInVotingLane, "an expected failure"),
            Effect::Retry if rights.no_retry => (Rule::RetryInVotingLane, "retried on failure"),
            _ => continue,
        };
        let msg = format!("{} is {what} in the {lane} lane", t.id);
        problems.push(t.problem(rule, msg, a.file, a.line));
    }
    // pytest-asyncio's xfail(run=False) on an async generator test (issue 18 (fid5)).
    if rights.no_xfail && t.func.async_generator && t.plugin_xfail {
        let msg = format!(
            "{} is an async generator: pytest-asyncio marks it xfail(run=False) and it never \
             runs in the {lane} lane",
            t.id
        );
        problems.push(t.problem(Rule::XfailInVotingLane, msg, t.func_file, t.func.line));
    }
    // A used fixture's params written empty under empty_parameter_set_mark = xfail (issue 18
    // (fid5)).
    if rights.no_xfail && t.empty_set_mark == EmptySetMark::Xfail {
        for f in &t.empty_fixture_params {
            let msg = format!(
                "{} is an expected failure in the {lane} lane: fixture {} has empty params \
                 (empty_parameter_set_mark = xfail)",
                t.id, f.what
            );
            problems.push(t.problem(Rule::XfailInVotingLane, msg, f.file, f.line));
        }
    }
}
