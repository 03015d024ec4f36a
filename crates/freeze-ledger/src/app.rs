//! The command line: flags, and the one function that runs a command and returns its status.

use lane_core::paths::display_name;
use std::path::{Path, PathBuf};

use clap::{CommandFactory, Parser, Subcommand};
use lane_core::cli::{DocumentArgs, ToolArgs};
use lane_core::scan::ScanSection;
use lane_core::{Error, Status, clock};

use crate::check::{self, CheckOptions, DEFAULT_MAX_DAYS, TOOL};
use crate::diff;
use crate::edit::{self, AddRequest, Adding, Input, LedgerFile, RenewRequest};
use crate::ledger::{Ledger, Seed};
use crate::list;

const AFTER_HELP: &str = "\
Example (before pytest, in the gate's pipeline):
  lane-scan | lane-lock verify | freeze-ledger check --today \"$LANES_TODAY\" > evidence.json

Capture a flake's capsule from the gate's run that saw it fail, record a known bug, then
review what a patch did to the ledger:
  freeze-ledger add tests/test_invoice.py::test_flaky_rounding --from out/lanes \\
      --expires 2026-03-01 --today 2026-01-15 < /dev/null
  freeze-ledger add tests/test_invoice.py::test_euro_rounding --known-failure \\
      --issue https://tracker.example.org/issues/88 --owner billing-team \\
      --expires 2026-03-01 --today 2026-01-15 < /dev/null
  git show origin/main:freeze_ledger.json > base.json
  freeze-ledger diff base.json freeze_ledger.json < evidence.json

The ledger (--ledger, default <rootdir>/freeze_ledger.json) is a JSON array of tickets. A
flake's: test_id, seed, input_sha256, expires_on, last_replay_job, and optionally
input_path, issue, typed (the replay fields typed by hand rather than captured with --from),
owner, reason, created_on. A known failure's: test_id, kind \"known-failure\", issue, owner,
expires_on, and optionally reason, created_on. A missing ledger file has no tickets (check then reports every
freeze test of the scan as missing-ticket; add creates the file).

check and diff write the evidence document (stdin or --input, extended with the `ledger`
or `ledger_diff` section) to stdout; --format markdown|github prints a report instead.
add reads the evidence document from stdin for the scan (a terminal or empty stdin: no
scan); --input FILE of add is the capsule file (a path as given, inside the rootdir).
Edits (add, renew, remove) validate before writing, replace the ledger atomically in its
canonical form (rows sorted by test_id, 2-space JSON) and print the ticket they wrote (or
the rows removed) as JSON on stdout and one confirmation line on stderr; a refused edit
exits 2 and leaves the file byte-identical. list prints the tickets sorted by expiry as
JSON, or a table with --format markdown.

Edits hold an exclusive lock on the ledger's folder (no lock file is left) for their whole
read-modify-write: a concurrent edit waits (a message after 3 s, exit 2 after
LANES_LOCK_TIMEOUT seconds, default 120) and then sees this one. A ledger over 16 MiB, or
a symlink leading out of the rootdir, is refused (docs/robustness.md).

Dates come from --today or LANES_TODAY. Under CI (CI=true or a known CI's variables) a
command that needs a date and has neither exits 2; outside CI it takes the local date, and
check's section says \"clock\": \"local\" (a verdict over it is not a CI verdict).
Exit status: 0 clean, 1 findings (errors in the section), 2 could not do the job.
Rules: freeze-ledger --explain RULE (e.g. --explain expired-ticket).";

/// Checks and edits the freeze ledger: every freeze test has one valid, unexpired ticket
/// with a replay capsule (seed, input digest, expiry, last replay job).
#[derive(Debug, Parser)]
#[command(name = "freeze-ledger", version = lane_core::VERSION, after_help = AFTER_HELP)]
pub struct Cli {
    /// The ledger file (default: <rootdir>/freeze_ledger.json).
    #[arg(long, value_name = "FILE", global = true)]
    pub ledger: Option<PathBuf>,
    #[command(flatten)]
    pub common: ToolArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check every ticket (fields, duplicates, expiry, capsule) and, when the document has a
    /// scan section, match tickets 1:1 to the scan's freeze tests; writes the `ledger` section.
    Check {
        #[command(flatten)]
        clock: Clock,
        #[command(flatten)]
        doc: DocumentArgs,
    },
    /// Add a ticket for a freeze test (refused if it exists, expires in the past or past
    /// --max-days, or the scan on stdin does not place the test in the freeze lane). A flake's
    /// seed, capsule and replay job are captured with --from OUT_DIR (the gate's out folder of
    /// the run that saw the failure) or typed (each typed one is marked in `typed`); a
    /// deterministic bug marked xfail(strict=True) gets --known-failure --issue URL --owner WHO.
    Add {
        /// The pytest node id, without parametrization brackets.
        test_id: String,
        /// A deterministic known failure (xfail(strict=True)): needs --issue and --owner; no
        /// seed, capsule or replay job.
        #[arg(long, conflicts_with_all = ["from", "seed", "replay_job", "input", "input_sha256"])]
        known_failure: bool,
        /// The gate's out folder (out/lanes) of the run that saw the failure: the seed, the
        /// capsule and the CI job are taken from it.
        #[arg(long, value_name = "OUT_DIR")]
        from: Option<PathBuf>,
        /// The seed that reproduces the flake (an integer that fits 64 bits); typed.
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        seed: Option<String>,
        #[command(flatten)]
        input: InputArgs,
        /// Expiry date, YYYY-MM-DD (the ticket is valid through this day).
        #[arg(long, value_name = "DATE")]
        expires: String,
        /// URL of the CI job that replayed the flake with this capsule; typed.
        #[arg(long, value_name = "URL")]
        replay_job: Option<String>,
        /// URL of the issue that tracks the failure (required with --known-failure).
        #[arg(long, value_name = "URL")]
        issue: Option<String>,
        /// Who answers for the test (recorded as `owner`; required with --known-failure).
        #[arg(long, value_name = "WHO")]
        owner: Option<String>,
        /// Why the test is frozen (recorded as `reason`).
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
        #[command(flatten)]
        clock: Clock,
    },
    /// Renew a ticket: a new expiry, and for a flake the new replay job that justifies it
    /// (required: captured with --from OUT_DIR, the gate's out folder of that run, or typed),
    /// optionally a new seed or capsule (captured the same way, or typed); for a known failure,
    /// optionally a new issue link.
    Renew {
        test_id: String,
        /// New expiry date, YYYY-MM-DD.
        #[arg(long, value_name = "DATE")]
        expires: String,
        /// The gate's out folder (out/lanes) of the run that justifies the renewal: its CI job,
        /// and the seed and capsule it captured, are taken from it.
        #[arg(long, value_name = "OUT_DIR")]
        from: Option<PathBuf>,
        /// URL of the new replay job (required for a flake: a renewal needs the run that
        /// justifies it).
        #[arg(long, value_name = "URL")]
        replay_job: Option<String>,
        /// A known failure's new issue link.
        #[arg(long, value_name = "URL")]
        issue: Option<String>,
        /// A new seed.
        #[arg(long, value_name = "N", allow_hyphen_values = true)]
        seed: Option<String>,
        /// A new capsule file (hashed; its root-relative path is recorded).
        #[arg(long, value_name = "FILE", conflicts_with = "input_sha256")]
        input: Option<PathBuf>,
        /// A new input digest (64 lowercase hex digits).
        #[arg(long, value_name = "HEX")]
        input_sha256: Option<String>,
        #[command(flatten)]
        clock: Clock,
    },
    /// Remove every row for a test (also an invalid or duplicated one).
    Remove { test_id: String },
    /// Print the tickets sorted by expiry (JSON rows, or a table with --format markdown).
    List {
        /// json: the rows; markdown: a table for a step summary.
        #[arg(long, value_enum, default_value_t = ListFormat::Json)]
        format: ListFormat,
    },
    /// Compare two ledger files (a missing or empty BASE has no tickets) and write the
    /// `ledger_diff` section; exit 1 when the patch adds, renews or changes a ticket.
    Diff {
        /// The ledger before the patch (e.g. from `git show origin/main:freeze_ledger.json`).
        base: PathBuf,
        /// The ledger after the patch.
        head: PathBuf,
        #[command(flatten)]
        doc: DocumentArgs,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ListFormat {
    Json,
    Markdown,
}

#[derive(Debug, clap::Args)]
#[group(required = false, multiple = false)]
pub struct InputArgs {
    /// The capsule file: its SHA-256 and root-relative path are recorded.
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// The input digest, when the capsule is stored elsewhere (64 lowercase hex digits).
    #[arg(long, value_name = "HEX")]
    pub input_sha256: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct Clock {
    /// Today's date, YYYY-MM-DD (or set LANES_TODAY); outside CI the local date when neither.
    #[arg(long, value_name = "DATE")]
    pub today: Option<String>,
    /// Tickets may expire at most this many days after today.
    #[arg(long, value_name = "DAYS", default_value_t = DEFAULT_MAX_DAYS)]
    pub max_days: u32,
}

/// The clap command (for `--generate`).
pub(crate) fn command() -> clap::Command {
    Cli::command()
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<Status, Error> {
    if let Some(done) = cli.common.meta(command) {
        return done;
    }
    let Some(command) = &cli.command else {
        return Err(Error::usage(
            "no command given: use check, add, renew, remove, list or diff (see --help)",
        ));
    };
    let root = cli.common.rootdir()?;
    let ledger_path = cli
        .ledger
        .clone()
        .unwrap_or_else(|| root.join("freeze_ledger.json"));
    let name = display_name(&root, &ledger_path);
    let target = LedgerFile {
        path: &ledger_path,
        name: &name,
        root: &root,
    };
    if !matches!(command, Command::Diff { .. }) {
        // A ledger that is a link out of the root is never read (nor written).
        lane_core::io::refuse_link_out_of_root(&ledger_path, &root, &name)?;
    }
    match command {
        Command::Check { clock, doc } => run_check(doc, &target, clock),
        Command::Diff { base, head, doc } => run_diff(doc, &root, base, head),
        Command::List { format } => run_list(*format, &target),
        Command::Add {
            test_id,
            known_failure,
            from,
            seed,
            input,
            expires,
            replay_job,
            issue,
            owner,
            reason,
            clock,
        } => {
            let adding = adding(*known_failure, from, seed, input, replay_job)?;
            let req = AddRequest {
                test_id: test_id.clone(),
                adding,
                expires: parse_flag_date("--expires", expires)?,
                issue: issue.clone(),
                owner: owner.clone(),
                reason: reason.clone(),
                today: dated(clock)?,
                max_days: clock.max_days,
            };
            run_add(&target, req)
        }
        Command::Renew {
            test_id,
            expires,
            from,
            replay_job,
            issue,
            seed,
            input,
            input_sha256,
            clock,
        } => {
            let today = dated(clock)?;
            let req = RenewRequest {
                test_id: test_id.clone(),
                expires: parse_flag_date("--expires", expires)?,
                replay_job: replay_job.clone(),
                issue: issue.clone(),
                seed: seed.as_deref().map(parse_seed).transpose()?,
                input: match (input, input_sha256) {
                    (Some(file), _) => Some(Input::File(file.clone())),
                    (None, Some(hex)) => Some(Input::Sha256(hex.clone())),
                    (None, None) => None,
                },
                from: from.clone(),
                today,
                max_days: clock.max_days,
            };
            run_renew(&target, req)
        }
        Command::Remove { test_id } => run_remove(&target, test_id),
    }
}

/// An edit's date: pinned, or the local date outside CI, said on stderr (the ticket's dates
/// then come from this machine's clock).
fn dated(clock: &Clock) -> Result<jiff::civil::Date, Error> {
    let today = clock::today(clock.today.as_deref())?;
    today.say_if_local(TOOL);
    Ok(today.date)
}

/// What `add` is asked to write: a known failure, or a flake captured `--from` a run and/or
/// typed (then every replay field must be given).
fn adding(
    known_failure: bool,
    from: &Option<PathBuf>,
    seed: &Option<String>,
    input: &InputArgs,
    replay_job: &Option<String>,
) -> Result<Adding, Error> {
    if known_failure {
        return Ok(Adding::KnownFailure);
    }
    let input = match (&input.input, &input.input_sha256) {
        (Some(file), _) => Some(Input::File(file.clone())),
        (None, Some(hex)) => Some(Input::Sha256(hex.clone())),
        (None, None) => None,
    };
    if from.is_none() && (seed.is_none() || input.is_none() || replay_job.is_none()) {
        return Err(Error::usage(
            "add needs --from OUT_DIR (the gate's out folder of the run that saw the \
             failure), or every replay field typed: --seed N, --input FILE (or \
             --input-sha256 HEX) and --replay-job URL; a deterministic bug marked \
             xfail(strict=True) is --known-failure --issue URL --owner WHO",
        ));
    }
    Ok(Adding::Flake {
        seed: seed.as_deref().map(parse_seed).transpose()?,
        input,
        replay_job: replay_job.clone(),
        from: from.clone(),
    })
}

/// `add`: the ticket written, on stdout, after one line on stderr.
fn run_add(target: &LedgerFile<'_>, req: AddRequest) -> Result<Status, Error> {
    // The scan, when one is piped in: a terminal or empty stdin is an empty document.
    let doc = lane_core::io::read_document(None)?;
    let scan: Option<ScanSection> = doc.section_as(ScanSection::NAME, "<stdin>")?;
    let ticket = edit::add(target, req, scan.as_ref())?;
    let typed = match ticket.replay() {
        Some(r) if !r.typed.is_empty() => format!("; typed: {}", r.typed.join(", ")),
        Some(_) => "; captured from the run".to_string(),
        None => String::new(),
    };
    eprintln!(
        "{TOOL}: added a {} ticket for {} to {} (expires {}{typed})",
        ticket.kind.name(),
        ticket.test_id,
        target.name,
        ticket.expires_on
    );
    lane_core::io::write_stdout(&ticket.to_pretty())?;
    Ok(Status::Clean)
}

/// `renew`: the ticket written, on stdout, after one line on stderr.
fn run_renew(target: &LedgerFile<'_>, req: RenewRequest) -> Result<Status, Error> {
    let ticket = edit::renew(target, req)?;
    match ticket.replay() {
        Some(r) => eprintln!(
            "{TOOL}: renewed the ticket for {} in {} (expires {}, replay job {})",
            ticket.test_id, target.name, ticket.expires_on, r.last_replay_job
        ),
        None => eprintln!(
            "{TOOL}: renewed the known-failure ticket for {} in {} (expires {})",
            ticket.test_id, target.name, ticket.expires_on
        ),
    }
    lane_core::io::write_stdout(&ticket.to_pretty())?;
    Ok(Status::Clean)
}

/// `remove`: the rows removed, on stdout, after one line on stderr.
fn run_remove(target: &LedgerFile<'_>, test_id: &str) -> Result<Status, Error> {
    let removed = edit::remove(target, test_id)?;
    eprintln!(
        "{TOOL}: removed {} row{} for {test_id} from {}",
        removed.len(),
        lane_core::render::plural(removed.len()),
        target.name
    );
    print_json(&serde_json::Value::Array(removed))
}

fn run_check(args: &DocumentArgs, target: &LedgerFile<'_>, clock: &Clock) -> Result<Status, Error> {
    let today = clock::today(clock.today.as_deref())?;
    let mut doc = args.read()?;
    let scan: Option<ScanSection> = doc.section_as(ScanSection::NAME, &doc_name(args))?;
    let ledger = Ledger::read(target.path, target.name)?;
    let opts = CheckOptions {
        root: target.root,
        ledger_name: target.name,
        today,
        max_days: clock.max_days,
    };
    let section = check::check(&ledger, scan.as_ref(), &opts);
    let status = Status::from_problems(&section.problems);
    let markdown = check_markdown(&section);
    doc.set_section(check::SECTION, &section);
    args.emit(TOOL, &doc, check::SECTION, Some(markdown))?;
    Ok(status)
}

fn check_markdown(section: &check::LedgerSection) -> String {
    use lane_core::render::markdown::{cell, section as problems_md};
    let mut out = problems_md(TOOL, check::SECTION, &section.problems);
    if section.clock.is_some() {
        out.push_str(&format!("\n{}.\n", clock::local_line(&section.today)));
    }
    if !section.tickets.is_empty() {
        out.push_str("\n| test | status | expires_on | days left |\n|---|---|---|---|\n");
        for t in &section.tickets {
            let status = serde_json::to_value(t.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            out.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                cell(t.test_id.as_deref().unwrap_or("?")),
                status,
                t.expires_on.as_deref().unwrap_or(""),
                t.days_left.map(|d| d.to_string()).unwrap_or_default()
            ));
        }
    }
    out
}

fn run_diff(args: &DocumentArgs, root: &Path, base: &Path, head: &Path) -> Result<Status, Error> {
    let base_name = display_name(root, base);
    let head_name = display_name(root, head);
    let base_ledger = Ledger::read(base, &base_name)?;
    let head_ledger = Ledger::read(head, &head_name)?;
    let mut doc = args.read()?;
    let section = diff::diff(&base_ledger, &base_name, &head_ledger, &head_name)?;
    let status = Status::from_problems(&section.problems);
    doc.set_section(diff::SECTION, &section);
    args.emit(TOOL, &doc, diff::SECTION, None)?;
    Ok(status)
}

fn run_list(format: ListFormat, target: &LedgerFile<'_>) -> Result<Status, Error> {
    let tickets = list::sorted(Ledger::read(target.path, target.name)?.require_valid(target.name)?);
    let bytes = match format {
        ListFormat::Json => list::json(&tickets),
        ListFormat::Markdown => list::markdown(target.name, &tickets).into_bytes(),
    };
    lane_core::io::write_stdout(&bytes)?;
    Ok(Status::Clean)
}

fn print_json(value: &serde_json::Value) -> Result<Status, Error> {
    let mut bytes = serde_json::to_vec_pretty(value).unwrap_or_default();
    bytes.push(b'\n');
    lane_core::io::write_stdout(&bytes)?;
    Ok(Status::Clean)
}

fn parse_seed(text: &str) -> Result<Seed, Error> {
    Seed::parse(text).map_err(|e| Error::usage(format!("--seed: {e}")))
}

fn parse_flag_date(flag: &str, text: &str) -> Result<jiff::civil::Date, Error> {
    clock::parse_date(text).map_err(|e| Error::usage(format!("{flag}: {e}")))
}

fn doc_name(args: &DocumentArgs) -> String {
    match &args.input {
        Some(p) if p != Path::new("-") => p.display().to_string(),
        _ => "<stdin>".to_string(),
    }
}
