use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};
use lane_core::cli::CommonArgs;
use lane_core::{Document, Error, Status};
use lane_lock::{LockPaths, TOOL, diff, update, verify};

const AFTER_HELP: &str = "\
Commands and their output:
  lock PATH... --today DATE   hashes files (or every file under a folder) and adds or updates
                              their entries in the lock (atomic write; unchanged entries keep
                              locked_on). Prints a document with a `lock_update` section
                              {tool, lock, added, changed, unchanged, sidecars, problems}.
                              Stdin is not read (--input FILE extends that document).
  verify                      rehashes every lock entry and every *.sha256 sidecar under the
                              root and checks every witness fixture of the scan section is
                              locked. Writes the `lock` section {tool, lock, files, problems}.
  diff BASE HEAD              compares two locks ('-' = stdin; empty = no lock) and writes
                              the `lock_diff` section of the document on stdin. Added,
                              moved and removed entries and (--changed) sidecars are lock
                              edits; --base-scan compares the witness lane with the base's.

`lock` holds an exclusive lock on the lock file's folder (no lock file is left) for its whole
read-modify-write: a concurrent `lock` waits (a message after 3 s, exit 2 after
LANES_LOCK_TIMEOUT seconds, default 120) and then sees this one. A lock over 64 MiB, or a
symlink leading out of the root, is refused (docs/robustness.md).

Exit status: 0 no errors in the section, 1 findings, 2 could not do the job.

Example pipeline:
  lane-lock lock tests/fixtures --today \"$LANES_TODAY\"        # lock golden files, review lanes.lock
  lane-scan | lane-lock verify | freeze-ledger check --today \"$LANES_TODAY\" > evidence.json
  git show origin/main:lanes.lock > base.lock
  git diff --name-status origin/main > changed.txt
  git worktree add ../base origin/main && (cd ../base && lane-scan) > base-evidence.json
  lane-lock diff base.lock lanes.lock --changed changed.txt --base-scan base-evidence.json \\
    < evidence.json > evidence2.json";

/// Hash-lock witness fixtures: lanes.lock and .sha256 sidecars are the oracle.
#[derive(Debug, Parser)]
#[command(name = "lane-lock", version = lane_core::VERSION, after_help = AFTER_HELP)]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    /// The lock file [default: <rootdir>/lanes.lock].
    #[arg(long, value_name = "FILE", global = true)]
    lock: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Hash files or folders and add or update their entries in the lock.
    Lock {
        /// Files or folders (relative to the current folder, inside the root).
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// The lock date for new and changed entries [default: $LANES_TODAY; outside CI, the local
        /// date].
        #[arg(long, value_name = "YYYY-MM-DD")]
        today: Option<String>,
        /// Also write FILE.sha256 next to each file (the bare hex digest and a newline).
        #[arg(long)]
        sidecar: bool,
    },
    /// Rehash every lock entry and sidecar; check every witness fixture is locked.
    Verify,
    /// Compare two locks: added, removed and moved entries.
    Diff {
        /// The lock before the change (a file, or '-' for stdin; empty means no lock).
        base: String,
        /// The lock after the change (a file, or '-' for stdin).
        head: String,
        /// Paths the change touches, one per line (git diff --name-only).
        #[arg(long, value_name = "FILE")]
        changed: Option<PathBuf>,
        /// Why the locked bytes changed; lifts lock-batched-with-behavior.
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
        /// The base's evidence document (with its scan section): compare its witness tests
        /// with the scan of the document on stdin (witness-test-removed,
        /// witness-fixture-changed, orphan-lock as an error).
        #[arg(long, value_name = "FILE")]
        base_scan: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli: Cli = lane_core::cli::parse("lane-lock");
    lane_core::cli::run(TOOL, || body(cli))
}

fn body(cli: Cli) -> Result<Status, Error> {
    if let Some(done) = cli.common.tool.meta(Cli::command) {
        return done;
    }
    let Some(command) = cli.command else {
        return Err(Error::usage(
            "a command is needed: lock, verify or diff (see lane-lock --help)",
        ));
    };
    let root = cli.common.tool.rootdir()?;
    let doc_args = &cli.common.document;
    let place = LockPaths::new(root, cli.lock.clone());
    match command {
        Command::Lock {
            paths,
            today,
            sidecar,
        } => {
            let today = lane_core::clock::today(today.as_deref())?;
            today.say_if_local(TOOL);
            let today = today.date.to_string();
            let opts = update::LockOptions {
                paths,
                today,
                sidecar,
            };
            let doc = update::run(&place, &opts, doc_args.input.as_deref())?;
            doc_args.emit(TOOL, &doc, update::SECTION, None)?;
            Ok(Status::Clean)
        }
        Command::Verify => {
            let (doc, section) = verify::verify(&place, doc_args.read()?)?;
            doc_args.emit(TOOL, &doc, verify::SECTION, None)?;
            Ok(Status::from_problems(&section.problems))
        }
        Command::Diff {
            base,
            head,
            changed,
            reason,
            base_scan,
        } => {
            let doc = if base == "-" || head == "-" {
                match doc_args.input.as_deref() {
                    Some(p) if p.as_os_str() == "-" => {
                        return Err(Error::usage(
                            "stdin is BASE or HEAD: give the document with --input FILE",
                        ));
                    }
                    Some(p) => lane_core::io::read_document(Some(p))?,
                    None => Document::empty(),
                }
            } else {
                doc_args.read()?
            };
            let base_scan = match base_scan {
                Some(path) => {
                    let name = path.display().to_string();
                    let base_doc = Document::parse(&lane_core::io::read_file(&path)?, &name)?;
                    let scan: Option<lane_core::scan::ScanSection> =
                        base_doc.section_as(lane_core::scan::ScanSection::NAME, &name)?;
                    Some(scan.ok_or_else(|| {
                        Error::usage(format!(
                            "--base-scan {name}: the document has no scan section"
                        ))
                    })?)
                }
                None => None,
            };
            let opts = diff::DiffOptions {
                base,
                head,
                changed,
                reason,
                base_scan,
                head_scan: None,
            };
            let (doc, section) = diff::diff(&place, &opts, doc)?;
            doc_args.emit(TOOL, &doc, diff::SECTION, None)?;
            Ok(Status::from_problems(&section.problems))
        }
    }
}
