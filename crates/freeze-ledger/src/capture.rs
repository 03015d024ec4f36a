//! `add --from OUT_DIR`: a flake's capsule taken from the gate's out folder of the run that saw
//! the failure, never typed. lane-gate writes `capture.json` there after the lanes: the run's
//! hypothesis seed, the CI job's URL (from the CI's environment), and each case that failed,
//! errored or failed as expected, with the capsule its `replay` property named, copied under
//! `capsules/` in the same folder.

use std::path::Path;

use lane_core::Error;
use serde::Deserialize;

use crate::ledger::{Seed, check_url};

/// The file lane-gate writes in its out folder.
pub const FILE: &str = "capture.json";

/// Where lane-gate copies the capsules, inside its out folder.
pub const CAPSULES: &str = "capsules";

/// The capture file is small (one row per failing case): anything over 16 MiB is refused.
const MAX_BYTES: u64 = 16 << 20;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaptureFile {
    /// The CI job that ran the gate, when the gate ran in a CI it knows.
    job: Option<String>,
    /// The hypothesis seed every run of the gate got (none when hypothesis was not loaded).
    seed: Option<u64>,
    cases: Vec<CapturedCase>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CapturedCase {
    /// The test's id, without parametrization.
    test: String,
    lane: String,
    /// `failed`, `error` or `xfail`.
    outcome: String,
    /// The `replay` property's path (root-relative), when the case recorded one.
    capsule: Option<String>,
    /// The SHA-256 of the capsule as the run left it (none when it could not be copied).
    capsule_sha256: Option<String>,
}

/// What the run captured for one test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Captured {
    pub seed: Option<Seed>,
    pub job: Option<String>,
    /// The capsule: its root-relative path, its digest, and the copy in the out folder.
    pub capsule: Option<(String, String, std::path::PathBuf)>,
    /// How the test's cases ended, e.g. `failed in the merge lane`.
    pub saw: String,
}

/// Reads the capture of `test_id` from the out folder `out`: an error (exit 2) when the
/// folder has no capture file, the file does not read, or the run saw no failure of the test.
pub(crate) fn read(out: &Path, test_id: &str) -> Result<Captured, Error> {
    let path = out.join(FILE);
    let name = path.display().to_string();
    if !path.is_file() {
        return Err(Error::usage(format!(
            "--from {}: no {FILE} there; --from takes the out folder of a lane-gate run \
             (out/lanes) that saw the failure",
            out.display()
        )));
    }
    let bytes = lane_core::io::read_file_capped(&path, MAX_BYTES, "a capture file")
        .map_err(|e| e.renamed(&name))?;
    let file: CaptureFile = serde_json::from_slice(&bytes).map_err(|e| Error::json(&name, &e))?;
    let cases: Vec<&CapturedCase> = file.cases.iter().filter(|c| c.test == test_id).collect();
    if cases.is_empty() {
        return Err(Error::usage(format!(
            "--from {}: that run saw no failure of {test_id} (it failed, errored or failed \
             as expected in no lane); take the out folder of a run where it failed",
            out.display()
        )));
    }
    let mut saw: Vec<String> = cases
        .iter()
        .map(|c| format!("{} in the {} lane", c.outcome, c.lane))
        .collect();
    saw.dedup();
    let capsule = cases.iter().find_map(|c| {
        let (path, sha) = (c.capsule.as_ref()?, c.capsule_sha256.as_ref()?);
        let copy = out.join(CAPSULES).join(path);
        copy.is_file().then(|| (path.clone(), sha.clone(), copy))
    });
    let job =
        match file.job {
            Some(url) => Some(check_url(&url).map(|()| url).map_err(|m| {
                Error::usage(format!("{name}: the recorded CI job is not a URL: {m}"))
            })?),
            None => None,
        };
    Ok(Captured {
        seed: file.seed.and_then(|s| Seed::new(i128::from(s))),
        job,
        capsule,
        saw: saw.join(", "),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn out_folder(capture: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("capture-{}-{}", std::process::id(), capture.len()));
        std::fs::create_dir_all(dir.join(CAPSULES).join("caps")).unwrap();
        std::fs::write(dir.join(FILE), capture).unwrap();
        std::fs::write(dir.join(CAPSULES).join("caps/a.bin"), b"x").unwrap();
        dir
    }

    #[test]
    fn a_captured_failure_gives_its_seed_job_and_capsule() {
        let dir = out_folder(
            r#"{"job":"https://ci.example.org/j/1","seed":7,"cases":[
            {"test":"t.py::t","lane":"freeze","outcome":"failed","capsule":"caps/a.bin","capsule_sha256":"ab"},
            {"test":"t.py::u","lane":"merge","outcome":"error","capsule":null,"capsule_sha256":null}]}"#,
        );
        let got = read(&dir, "t.py::t").unwrap();
        assert_eq!(got.seed, Seed::new(7));
        assert_eq!(got.job.as_deref(), Some("https://ci.example.org/j/1"));
        let (path, sha, copy) = got.capsule.unwrap();
        assert_eq!((path.as_str(), sha.as_str()), ("caps/a.bin", "ab"));
        assert!(copy.ends_with("capsules/caps/a.bin"));
        assert_eq!(got.saw, "failed in the freeze lane");
        let other = read(&dir, "t.py::u").unwrap();
        assert_eq!(other.capsule, None);
        let err = read(&dir, "t.py::v").unwrap_err().to_string();
        assert!(err.contains("saw no failure of t.py::v"), "{err}");
        let none = read(&dir.join("nowhere"), "t.py::t")
            .unwrap_err()
            .to_string();
        assert!(none.contains("no capture.json there"), "{none}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_unknown_field_or_a_job_that_is_no_url_is_refused() {
        let dir = out_folder(r#"{"job":null,"seed":null,"cases":[],"extra":1}"#);
        assert!(read(&dir, "t.py::t").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
        let dir = out_folder(
            r#"{"job":"ftp://x","seed":null,"cases":[{"test":"t.py::t","lane":"freeze","outcome":"failed","capsule":null,"capsule_sha256":null}]}"#,
        );
        let err = read(&dir, "t.py::t").unwrap_err().to_string();
        assert!(err.contains("not a URL"), "{err}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
