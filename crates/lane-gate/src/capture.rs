//! What a run captured for `freeze-ledger add --from OUT_DIR`: the gate writes `capture.json`
//! into its out folder after the lanes, so that a flake's ticket is taken from the run that
//! saw it fail instead of typed. It holds the run's hypothesis seed, the CI job's URL (read
//! from the CI's environment at run time), and each case that failed, errored or failed as
//! expected, by test id, with the capsule its `replay` property named; the capsule itself is
//! copied from the run's tree into `capsules/` beside it (the vote copy is temporary).

use std::path::Path;

use lane_core::scan::Lane;
use lane_tally::junit::Outcome;
use serde::Serialize;

use crate::GateError;

/// The file in the out folder (freeze-ledger reads it by this name).
pub(crate) const FILE: &str = "capture.json";

/// Where the capsules go, inside the out folder.
pub(crate) const CAPSULES: &str = "capsules";

/// One case that saw a failure.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub(crate) struct CapturedCase {
    test: String,
    lane: String,
    outcome: &'static str,
    capsule: Option<String>,
    capsule_sha256: Option<String>,
}

#[derive(Serialize)]
struct CaptureFile<'a> {
    job: Option<String>,
    seed: Option<u64>,
    cases: &'a [CapturedCase],
}

/// The failing cases of one lane's report, their capsules copied from `run_root` (where pytest
/// ran, which the `replay` paths are relative to) into the out folder. A case without the
/// plugin's test id, or a capsule path that leaves the tree or names no file, is kept without
/// a capsule: freeze-ledger then asks for what it lacks.
pub(crate) fn collect(
    lane: Lane,
    report: &Path,
    run_root: &Path,
    out: &Path,
    into: &mut Vec<CapturedCase>,
) -> Result<(), GateError> {
    let mut found = Vec::new();
    let read = lane_tally::junit::read_path(report, &format!("{lane}.xml"), |case| {
        let outcome = match case.outcome {
            Outcome::Failed => "failed",
            Outcome::Error => "error",
            Outcome::XFail => "xfail",
            Outcome::Passed | Outcome::Skipped => return,
        };
        let Some(runtime) = case.runtime else {
            return;
        };
        found.push((
            runtime.test.to_string(),
            outcome,
            case.replay.map(str::to_string),
        ));
    });
    // A report that does not read is the tally's to refuse, with its place.
    if read.is_err() {
        return Ok(());
    }
    for (test, outcome, replay) in found {
        let copied = match &replay {
            Some(rel) => copy_capsule(run_root, rel, out)?,
            None => None,
        };
        into.push(CapturedCase {
            test,
            lane: lane.to_string(),
            outcome,
            capsule: copied.as_ref().and(replay),
            capsule_sha256: copied,
        });
    }
    Ok(())
}

/// Copies the capsule `rel` (root-relative) from `run_root` to the out folder's capsules;
/// its digest, or None when the path is unsafe or names no regular file.
fn copy_capsule(run_root: &Path, rel: &str, out: &Path) -> Result<Option<String>, GateError> {
    let Ok(source) = lane_core::paths::resolve_inside(run_root, rel) else {
        return Ok(None);
    };
    let Ok((digest, _)) = lane_core::io::sha256_file(&source) else {
        return Ok(None);
    };
    let Ok(dest) = lane_core::paths::resolve_inside(&out.join(CAPSULES), rel) else {
        return Ok(None);
    };
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| GateError::io("cannot create the out folder's capsules folder", e))?;
    }
    std::fs::copy(&source, &dest)
        .map_err(|e| GateError::io(format!("cannot copy the capsule {rel}"), e))?;
    Ok(Some(digest))
}

/// Writes `capture.json` (cases sorted: the same run gives the same bytes).
pub(crate) fn write(
    out: &Path,
    seed: Option<u64>,
    cases: &mut [CapturedCase],
) -> Result<(), GateError> {
    cases.sort();
    let file = CaptureFile {
        job: ci_job(&|name| std::env::var(name).ok().filter(|v| !v.is_empty())),
        seed,
        cases,
    };
    let mut bytes = serde_json::to_vec_pretty(&file).map_err(|source| GateError::Encode {
        what: FILE.into(),
        source,
    })?;
    bytes.push(b'\n');
    crate::gate::write(&out.join(FILE), &bytes)
}

/// The URL of the CI job this process runs in, from the CI's own environment: `LANES_JOB_URL`
/// first (any CI), then GitHub Actions, GitLab CI, Buildkite and Jenkins. None outside a CI it
/// knows, or when the value is not an http(s) URL.
pub(crate) fn ci_job(env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let github = || {
        let server = env("GITHUB_SERVER_URL")?;
        let repo = env("GITHUB_REPOSITORY")?;
        let run = env("GITHUB_RUN_ID")?;
        let attempt = env("GITHUB_RUN_ATTEMPT")
            .map(|a| format!("/attempts/{a}"))
            .unwrap_or_default();
        Some(format!(
            "{}/{repo}/actions/runs/{run}{attempt}",
            server.trim_end_matches('/')
        ))
    };
    let buildkite = || {
        let build = env("BUILDKITE_BUILD_URL")?;
        Some(match env("BUILDKITE_JOB_ID") {
            Some(job) => format!("{build}#{job}"),
            None => build,
        })
    };
    let url = env("LANES_JOB_URL")
        .or_else(github)
        .or_else(|| env("CI_JOB_URL"))
        .or_else(buildkite)
        .or_else(|| env("BUILD_URL"))?;
    let scheme_ok = url.starts_with("https://") || url.starts_with("http://");
    (scheme_ok && !url.chars().any(|c| c.is_whitespace() || c.is_control())).then_some(url)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_string())
        }
    }

    #[test]
    fn each_known_ci_gives_its_job_url() {
        type Env = &'static [(&'static str, &'static str)];
        let cases: &[(Env, Option<&str>)] = &[
            (&[], None),
            (
                &[
                    ("GITHUB_SERVER_URL", "https://github.example/"),
                    ("GITHUB_REPOSITORY", "team/app"),
                    ("GITHUB_RUN_ID", "41"),
                    ("GITHUB_RUN_ATTEMPT", "2"),
                ],
                Some("https://github.example/team/app/actions/runs/41/attempts/2"),
            ),
            // A part missing: not GitHub's job.
            (&[("GITHUB_RUN_ID", "41")], None),
            (
                &[("CI_JOB_URL", "https://gitlab.example/team/app/-/jobs/7")],
                Some("https://gitlab.example/team/app/-/jobs/7"),
            ),
            (
                &[
                    (
                        "BUILDKITE_BUILD_URL",
                        "https://buildkite.example/o/p/builds/3",
                    ),
                    ("BUILDKITE_JOB_ID", "abc"),
                ],
                Some("https://buildkite.example/o/p/builds/3#abc"),
            ),
            (
                &[("BUILD_URL", "http://jenkins.example/job/app/12/")],
                Some("http://jenkins.example/job/app/12/"),
            ),
            (
                &[
                    ("LANES_JOB_URL", "https://ci.example/j/1"),
                    ("BUILD_URL", "http://jenkins.example/job/app/12/"),
                ],
                Some("https://ci.example/j/1"),
            ),
            (&[("BUILD_URL", "jenkins/job/12")], None),
        ];
        for (env, expected) in cases {
            assert_eq!(ci_job(&env_of(env)).as_deref(), *expected, "{env:?}");
        }
    }
}
