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
use crate::check::days_between;
use crate::ledger::{self, Ledger, Seed, Ticket};

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

pub(crate) struct AddRequest {
    pub test_id: String,
    pub seed: Seed,
    pub input: Input,
    pub expires: Date,
    pub replay_job: String,
    pub owner: Option<String>,
    pub reason: Option<String>,
    pub today: Date,
    pub max_days: u32,
}

pub(crate) struct RenewRequest {
    pub test_id: String,
    pub expires: Date,
    /// Required: a renewal names the replay job that justifies it.
    pub replay_job: Option<String>,
    pub seed: Option<Seed>,
    pub input: Option<Input>,
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
        let found = scan.tests.iter().find(|t| t.id == req.test_id);
        match found {
            Some(t) if t.lane == Some(Lane::Freeze) => {}
            Some(t) => {
                let lane = t.lane.map_or("no single".to_string(), |l| l.to_string());
                return Err(refuse(
                    target,
                    format!(
                        "the scan places {} in the {lane} lane, not freeze; only freeze tests get tickets",
                        req.test_id
                    ),
                ));
            }
            None => {
                return Err(refuse(
                    target,
                    format!("the scan has no test {}", req.test_id),
                ));
            }
        }
    }
    check_expiry(target, req.expires, req.today, req.max_days)?;
    let (input_sha256, input_path) = resolve_input(target, &req.input)?;
    let ticket = Ticket {
        test_id: req.test_id,
        seed: req.seed,
        input_sha256,
        input_path,
        expires_on: req.expires,
        last_replay_job: req.replay_job,
        created_on: Some(req.today),
        owner: req.owner,
        reason: req.reason,
    };
    field_issues(target, &ticket)?;
    tickets.push(ticket.clone());
    write(target, &tickets)?;
    Ok(ticket)
}

/// Renews a ticket (new expiry and replay job, optionally a new seed or capsule); returns it.
pub(crate) fn renew(target: &LedgerFile<'_>, req: RenewRequest) -> Result<Ticket, Error> {
    let (_edit, mut tickets) = read_valid(target)?;
    let Some(job) = req.replay_job else {
        return Err(refuse(
            target,
            "a renewal needs --replay-job URL: the replay job whose run justifies keeping the test frozen",
        ));
    };
    let Some(ticket) = tickets.iter_mut().find(|t| t.test_id == req.test_id) else {
        return Err(refuse(
            target,
            format!("{} has no ticket; use `freeze-ledger add`", req.test_id),
        ));
    };
    if ticket.last_replay_job == job {
        return Err(refuse(
            target,
            format!("{job} is the replay job already recorded; a renewal needs a new replay job"),
        ));
    }
    check_expiry(target, req.expires, req.today, req.max_days)?;
    let mut renewed = ticket.clone();
    renewed.expires_on = req.expires;
    renewed.last_replay_job = job;
    if let Some(seed) = req.seed {
        renewed.seed = seed;
    }
    if let Some(input) = &req.input {
        let (digest, path) = resolve_input(target, input)?;
        renewed.input_sha256 = digest;
        renewed.input_path = path;
    }
    field_issues(target, &renewed)?;
    *ticket = renewed.clone();
    write(target, &tickets)?;
    Ok(renewed)
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
