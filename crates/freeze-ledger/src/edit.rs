//! `add`, `renew` and `remove`: every edit is validated before anything is written, the whole
//! resulting ledger is validated again from the bytes about to be written, and the file is
//! replaced atomically. A refused edit returns an error and leaves the file byte-identical.

use std::path::{Path, PathBuf};

use jiff::civil::Date;
use lane_core::Error;
use lane_core::io::EditLock;
use lane_core::scan::{Lane, ScanSection};
use serde_json::Value;

use crate::capsule;
use crate::capture::{self, Captured};
use crate::check::days_between;
use crate::ledger::{self, Kind, Ledger, Replay, Seed, Ticket};

/// The ledger file an edit reads and replaces: where it is, how messages name it, and the
/// root capsule paths are relative to.
pub(crate) struct LedgerFile<'a> {
    pub path: &'a Path,
    pub name: &'a str,
    pub root: &'a Path,
}

/// The replay input: a capsule file to hash (its path is recorded) or a bare digest.
#[derive(Debug, Clone)]
pub(crate) enum Input {
    File(PathBuf),
    Sha256(String),
}

/// What a new ticket keeps frozen.
pub(crate) enum Adding {
    /// A flake: each replay field typed, or captured from the out folder of the gate's run
    /// that saw the failure (`from`); a typed field wins and is marked typed.
    Flake {
        seed: Option<Seed>,
        input: Option<Input>,
        replay_job: Option<String>,
        from: Option<PathBuf>,
    },
    /// A deterministic known failure (`xfail(strict=True)`): an issue and an owner, no replay.
    KnownFailure,
}

pub(crate) struct AddRequest {
    pub test_id: String,
    pub adding: Adding,
    pub expires: Date,
    pub issue: Option<String>,
    pub owner: Option<String>,
    pub reason: Option<String>,
    pub today: Date,
    pub max_days: u32,
}

pub(crate) struct RenewRequest {
    pub test_id: String,
    pub expires: Date,
    /// Required for a flake: a renewal names the replay job that justifies it.
    pub replay_job: Option<String>,
    /// A known failure's new issue link.
    pub issue: Option<String>,
    pub seed: Option<Seed>,
    pub input: Option<Input>,
    /// `--from OUT_DIR`: the replay job, seed and capsule captured by the gate's run there.
    pub from: Option<PathBuf>,
    pub today: Date,
    pub max_days: u32,
}

fn refuse(target: &LedgerFile<'_>, message: impl std::fmt::Display) -> Error {
    Error::usage(format!(
        "{}: refused, nothing written: {message}",
        target.name
    ))
}

fn check_expiry(
    target: &LedgerFile<'_>,
    expires: Date,
    today: Date,
    max_days: u32,
) -> Result<(), Error> {
    let days = days_between(today, expires);
    if days < 0 {
        return Err(refuse(
            target,
            format!("--expires {expires} is in the past (today is {today})"),
        ));
    }
    if days > i64::from(max_days) {
        return Err(refuse(
            target,
            format!(
                "--expires {expires} is {days} days from today; tickets expire within {max_days} days (--max-days)"
            ),
        ));
    }
    Ok(())
}

/// The digest and recorded path of the replay input.
fn resolve_input(
    target: &LedgerFile<'_>,
    input: &Input,
) -> Result<(String, Option<String>), Error> {
    match input {
        Input::Sha256(hex) => {
            if lane_core::hex::is_sha256(hex) {
                Ok((hex.clone(), None))
            } else {
                Err(refuse(
                    target,
                    format!("--input-sha256 must be 64 lowercase hex digits, found {hex:?}"),
                ))
            }
        }
        Input::File(file) => {
            let rel = capsule::root_relative(target.root, file)
                .map_err(|why| refuse(target, format!("--input {why}")))?;
            let digest = capsule::sha256_file(file)
                .map_err(|e| refuse(target, format!("--input {}: {e}", file.display())))?;
            Ok((digest, Some(rel)))
        }
    }
}

fn field_issues(target: &LedgerFile<'_>, ticket: &Ticket) -> Result<(), Error> {
    ticket.validate().map_err(|issues| {
        let text: Vec<String> = issues.into_iter().map(|i| i.message).collect();
        refuse(target, text.join("; "))
    })
}

/// Writes the tickets after validating the exact bytes once more.
fn write(target: &LedgerFile<'_>, tickets: &[Ticket]) -> Result<(), Error> {
    let bytes = ledger::to_bytes(tickets);
    let again = Ledger::parse(&bytes, target.name)?.require_valid(target.name)?;
    if again.len() != tickets.len() {
        return Err(refuse(target, "the new ledger did not validate"));
    }
    // Named as everywhere else (root-relative), never by the joined or absolute path.
    lane_core::io::atomic_write(target.path, &bytes).map_err(|e| e.renamed(target.name))
}

/// Takes the ledger's edit lock (held by the caller until its write is done, so that a
/// concurrent edit waits and then sees this one) and reads the ledger under it.
fn locked_read(target: &LedgerFile<'_>) -> Result<(EditLock, Ledger), Error> {
    lane_core::io::refuse_link_out_of_root(target.path, target.root, target.name)?;
    let edit = EditLock::acquire(target.path, target.name, crate::check::TOOL)?;
    Ok((edit, Ledger::read(target.path, target.name)?))
}

fn read_valid(target: &LedgerFile<'_>) -> Result<(EditLock, Vec<Ticket>), Error> {
    let (edit, ledger) = locked_read(target)?;
    Ok((edit, ledger.require_valid(target.name)?))
}

/// Adds a ticket; returns it.
pub(crate) fn add(
    target: &LedgerFile<'_>,
    req: AddRequest,
    scan: Option<&ScanSection>,
) -> Result<Ticket, Error> {
    let (_edit, mut tickets) = read_valid(target)?;
    ledger::check_test_id(&req.test_id).map_err(|m| refuse(target, m))?;
    if tickets.iter().any(|t| t.test_id == req.test_id) {
        return Err(refuse(
            target,
            format!(
                "{} already has a ticket; use `freeze-ledger renew` to extend it",
                req.test_id
            ),
        ));
    }
    if let Some(scan) = scan {
        in_freeze_lane(target, scan, &req)?;
    }
    check_expiry(target, req.expires, req.today, req.max_days)?;
    let (kind, install) = match req.adding {
        Adding::KnownFailure => {
            if req.issue.is_none() || req.owner.is_none() {
                return Err(refuse(
                    target,
                    "a known failure needs --issue URL (the issue that tracks the bug) and \
                     --owner WHO",
                ));
            }
            (Kind::KnownFailure, None)
        }
        Adding::Flake {
            seed,
            input,
            replay_job,
            from,
        } => {
            let captured = from
                .as_deref()
                .map(|out| capture::read(out, &req.test_id))
                .transpose()?;
            flake(target, seed, input, replay_job, captured.as_ref())?
        }
    };
    let ticket = Ticket {
        test_id: req.test_id,
        kind,
        expires_on: req.expires,
        issue: req.issue,
        created_on: Some(req.today),
        owner: req.owner,
        reason: req.reason,
    };
    field_issues(target, &ticket)?;
    if let Some((from, to, digest)) = install {
        install_capsule(target, &from, &to, &digest)?;
    }
    tickets.push(ticket.clone());
    write(target, &tickets)?;
    Ok(ticket)
}

/// The scan (when one is piped in) places the test in the freeze lane, and a known failure
/// carries `xfail`.
fn in_freeze_lane(
    target: &LedgerFile<'_>,
    scan: &ScanSection,
    req: &AddRequest,
) -> Result<(), Error> {
    let Some(t) = scan.tests.iter().find(|t| t.id == req.test_id) else {
        return Err(refuse(
            target,
            format!("the scan has no test {}", req.test_id),
        ));
    };
    if t.lane != Some(Lane::Freeze) {
        let lane = t.lane.map_or("no single".to_string(), |l| l.to_string());
        return Err(refuse(
            target,
            format!(
                "the scan places {} in the {lane} lane, not freeze; only freeze tests get tickets",
                req.test_id
            ),
        ));
    }
    if matches!(req.adding, Adding::KnownFailure) && !t.marks.iter().any(|m| m == "xfail") {
        return Err(refuse(
            target,
            format!(
                "{} has no xfail mark; a known failure is a freeze test marked \
                 xfail(strict=True) (a flake gets a replay ticket instead)",
                req.test_id
            ),
        ));
    }
    Ok(())
}

/// A flake's replay fields (typed ones marked), and the captured capsule to copy into the
/// root when the ticket is written (from the out folder, to the root-relative path).
#[allow(clippy::type_complexity)]
fn flake(
    target: &LedgerFile<'_>,
    seed: Option<Seed>,
    input: Option<Input>,
    replay_job: Option<String>,
    captured: Option<&Captured>,
) -> Result<(Kind, Option<(PathBuf, String, String)>), Error> {
    let mut typed = Vec::new();
    let from = |what: &str| match captured {
        Some(c) => format!(
            "the run in --from recorded no {what} (it saw the test {})",
            c.saw
        ),
        None => format!("no {what} given (type it, or capture it with --from OUT_DIR)"),
    };
    let seed = match (seed, captured.and_then(|c| c.seed)) {
        (Some(s), _) => {
            typed.push("seed");
            s
        }
        (None, Some(s)) => s,
        (None, None) => {
            return Err(refuse(
                target,
                format!(
                    "{}; give --seed N",
                    from("seed (hypothesis was not loaded)")
                ),
            ));
        }
    };
    let job = match (replay_job, captured.and_then(|c| c.job.clone())) {
        (Some(j), _) => {
            typed.push("last_replay_job");
            j
        }
        (None, Some(j)) => j,
        (None, None) => {
            return Err(refuse(
                target,
                format!(
                    "{}; give --replay-job URL",
                    from(
                        "CI job (the gate records GitHub Actions', GitLab's, Buildkite's or \
                          Jenkins' job URL, or LANES_JOB_URL)"
                    )
                ),
            ));
        }
    };
    let mut install = None;
    let (input_sha256, input_path) = match (input, captured.and_then(|c| c.capsule.clone())) {
        (Some(input), _) => {
            typed.push("input_sha256");
            resolve_input(target, &input)?
        }
        (None, Some((path, sha, copy))) => {
            let (kept, digest) = captured_capsule(target, &path, &sha, &copy)?;
            install = Some((copy, kept.clone(), digest.clone()));
            (digest, Some(kept))
        }
        (None, None) => {
            return Err(refuse(
                target,
                format!(
                    "{}; give --input FILE",
                    from("capsule (lane_replay, or a `replay` property)")
                ),
            ));
        }
    };
    typed.sort_unstable();
    let replay = Replay {
        seed,
        input_sha256,
        input_path,
        last_replay_job: job,
        typed: typed.into_iter().map(str::to_string).collect(),
    };
    Ok((Kind::Flake(replay), install))
}

/// A capsule the run in `--from` captured (recorded at root-relative `path` with digest `sha`,
/// copied to `copy` in the out folder), checked: where the ticket keeps it, and its digest.
fn captured_capsule(
    target: &LedgerFile<'_>,
    path: &str,
    sha: &str,
    copy: &Path,
) -> Result<(String, String), Error> {
    ledger::check_input_path(path).map_err(|m| refuse(target, m))?;
    let digest = capsule::sha256_file(copy)
        .map_err(|e| refuse(target, format!("{}: {e}", copy.display())))?;
    if digest != sha {
        return Err(refuse(
            target,
            format!(
                "the capsule copy {} does not have the digest the run recorded",
                copy.display()
            ),
        ));
    }
    Ok((kept_capsule_path(path), digest))
}

/// Where the ticket keeps a captured capsule: a `lane_replay` capsule (under `.lanes/replay/`,
/// which every run of its test writes again) moves to `.lanes/capsules/`, so that the bytes the
/// ticket pins are not the file the next run replaces (the gate watches a ticket's capsule); a
/// capsule the test only names (a `replay` property pointing at a file of the project) stays.
fn kept_capsule_path(recorded: &str) -> String {
    match recorded.strip_prefix(REPLAY_DIR) {
        Some(rest) => format!("{KEPT_DIR}{rest}"),
        None => recorded.to_string(),
    }
}

/// Where pytest-lanes-gate's `lane_replay` writes capsules, and where a ticket keeps them.
const REPLAY_DIR: &str = ".lanes/replay/";
const KEPT_DIR: &str = ".lanes/capsules/";

/// Puts the captured capsule at its root-relative path: nothing to do when the same bytes are
/// there; refused when other bytes are.
fn install_capsule(
    target: &LedgerFile<'_>,
    copy: &Path,
    rel: &str,
    digest: &str,
) -> Result<(), Error> {
    let dest = lane_core::paths::resolve_inside(target.root, rel)
        .map_err(|why| refuse(target, format!("capsule {rel} {why}")))?;
    if dest.exists() {
        let there =
            capsule::sha256_file(&dest).map_err(|e| refuse(target, format!("{rel}: {e}")))?;
        if there == digest {
            return Ok(());
        }
        return Err(refuse(
            target,
            format!(
                "{rel} holds other bytes than the capsule the run recorded; move it away first"
            ),
        ));
    }
    let bytes =
        std::fs::read(copy).map_err(|e| refuse(target, format!("{}: {e}", copy.display())))?;
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(rel, e))?;
    }
    lane_core::io::atomic_write(&dest, &bytes).map_err(|e| e.renamed(rel))?;
    eprintln!(
        "{}: copied the run's capsule to {rel} (commit it with the ledger)",
        crate::check::TOOL
    );
    Ok(())
}

/// Renews a ticket (new expiry and replay job, optionally a new seed or capsule); returns it.
pub(crate) fn renew(target: &LedgerFile<'_>, req: RenewRequest) -> Result<Ticket, Error> {
    let (_edit, mut tickets) = read_valid(target)?;
    let Some(ticket) = tickets.iter_mut().find(|t| t.test_id == req.test_id) else {
        return Err(refuse(
            target,
            format!("{} has no ticket; use `freeze-ledger add`", req.test_id),
        ));
    };
    check_expiry(target, req.expires, req.today, req.max_days)?;
    let mut renewed = ticket.clone();
    renewed.expires_on = req.expires;
    if let Some(issue) = req.issue {
        renewed.issue = Some(issue);
    }
    let mut install = None;
    match &mut renewed.kind {
        Kind::KnownFailure => {
            if req.replay_job.is_some()
                || req.seed.is_some()
                || req.input.is_some()
                || req.from.is_some()
            {
                return Err(refuse(
                    target,
                    format!(
                        "{} is a known failure: it has no replay job, seed or capsule to renew",
                        req.test_id
                    ),
                ));
            }
        }
        Kind::Flake(replay) => {
            let captured = req
                .from
                .as_deref()
                .map(|out| capture::read(out, &req.test_id))
                .transpose()?;
            let typed = Typed {
                job: req.replay_job,
                seed: req.seed,
                input: req.input,
            };
            install = renew_replay(target, replay, typed, captured.as_ref())?;
        }
    }
    field_issues(target, &renewed)?;
    if let Some((from, to, digest)) = install {
        install_capsule(target, &from, &to, &digest)?;
    }
    *ticket = renewed.clone();
    write(target, &tickets)?;
    Ok(renewed)
}

/// The replay fields typed on a renewal's command line.
struct Typed {
    job: Option<String>,
    seed: Option<Seed>,
    input: Option<Input>,
}

/// A flake's renewal: the new replay job (required), a new seed or capsule, each typed (and
/// marked so) or captured from the gate's run in `--from` (and no longer marked typed). The
/// captured capsule to copy into the root, when there is one.
fn renew_replay(
    target: &LedgerFile<'_>,
    replay: &mut Replay,
    typed: Typed,
    captured: Option<&Captured>,
) -> Result<Option<(PathBuf, String, String)>, Error> {
    let mut marks: Vec<String> = replay.typed.clone();
    let mut mark = |field: &str, was_typed: bool| {
        marks.retain(|m| m != field);
        if was_typed {
            marks.push(field.to_string());
        }
    };
    let (job, job_typed) = match (typed.job, captured.and_then(|c| c.job.clone())) {
        (Some(j), _) => (j, true),
        (None, Some(j)) => (j, false),
        (None, None) => {
            let why = match captured {
                Some(c) => format!(
                    "the run in --from recorded no CI job (it saw the test {}); give \
                     --replay-job URL",
                    c.saw
                ),
                None => "a renewal needs --replay-job URL, or --from OUT_DIR of the gate's run \
                         that justifies keeping the test frozen"
                    .to_string(),
            };
            return Err(refuse(target, why));
        }
    };
    if replay.last_replay_job == job {
        return Err(refuse(
            target,
            format!("{job} is the replay job already recorded; a renewal needs a new replay job"),
        ));
    }
    replay.last_replay_job = job;
    mark("last_replay_job", job_typed);
    match (typed.seed, captured.and_then(|c| c.seed)) {
        (Some(seed), _) => {
            replay.seed = seed;
            mark("seed", true);
        }
        (None, Some(seed)) => {
            replay.seed = seed;
            mark("seed", false);
        }
        (None, None) => {}
    }
    let mut install = None;
    match (&typed.input, captured.and_then(|c| c.capsule.clone())) {
        (Some(input), _) => {
            let (digest, path) = resolve_input(target, input)?;
            replay.input_sha256 = digest;
            replay.input_path = path;
            mark("input_sha256", true);
        }
        (None, Some((path, sha, copy))) => {
            let (kept, digest) = captured_capsule(target, &path, &sha, &copy)?;
            install = Some((copy, kept.clone(), digest.clone()));
            replay.input_sha256 = digest;
            replay.input_path = Some(kept);
            mark("input_sha256", false);
        }
        (None, None) => {}
    }
    marks.sort_unstable();
    marks.dedup();
    replay.typed = marks;
    Ok(install)
}

/// Removes every row for `test_id` (also an invalid or duplicated one); the rows left must
/// form a valid ledger. Returns the removed rows as they were.
pub(crate) fn remove(target: &LedgerFile<'_>, test_id: &str) -> Result<Vec<Value>, Error> {
    let (_edit, mut ledger) = locked_read(target)?;
    let before = ledger.rows.len();
    let mut removed = Vec::new();
    ledger.rows.retain(|row| {
        if row.test_id.as_deref() == Some(test_id) {
            removed.push(row.raw.clone());
            false
        } else {
            true
        }
    });
    if ledger.rows.len() == before {
        return Err(refuse(target, format!("{test_id} has no ticket")));
    }
    let tickets = ledger.require_valid(target.name)?;
    write(target, &tickets)?;
    Ok(removed)
}
