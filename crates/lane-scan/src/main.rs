use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use lane_core::cli::{self, CommonArgs};
use lane_core::{Status, scan::ScanSection};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const EXAMPLE: &str = "\
Example (before pytest runs: fail fast on illegal suites):
  lane-scan \\
    | lane-lock verify \\
    | freeze-ledger check --today \"$LANES_TODAY\" > evidence.json

lane-scan never imports or runs the code it reads. Exit status: 0 no errors in the scan
section, 1 errors found, 2 it could not scan (bad config, missing path, bad input, a
path or testpaths entry outside the rootdir). A Python file over 2 MiB is not read
(file-too-large); an evidence document over 256 MiB is refused (docs/robustness.md).
Product code (test-aware-code): --changed DIFF judges the lines a patch changed,
  git diff -U0 --relative \"$BASE\"...HEAD > patch.diff && lane-scan --changed patch.diff
and --all-product judges every product file.
Explain a rule: lane-scan --explain unconditional-skip";

/// Finds pytest tests without running them, gives each its lane (merge, witness, freeze) and
/// reports every rule broken, as the `scan` section of the evidence document.
#[derive(Debug, Parser)]
#[command(name = "lane-scan", version = lane_core::VERSION, after_help = EXAMPLE)]
#[command(group = clap::ArgGroup::new("fix_or_diff").args(["fix", "diff"]).multiple(true))]
struct Args {
    /// Files and folders to scan, as given to pytest (default: testpaths, or the current folder).
    paths: Vec<PathBuf>,
    /// The interpreter the tests will run on (default: python3, then python, on PATH). It is
    /// asked only for its version and sys.platform (`-I -S -c`, no project code), to decide
    /// `sys.version_info` / `sys.platform` conditions around test definitions; its prefixes
    /// (`-I -S`) locate its site-packages, where test-class bases from installed packages are
    /// read statically.
    #[arg(long, value_name = "PYTHON")]
    python: Option<PathBuf>,
    /// Put the suite under the gate: register the lane markers in the pytest config and give
    /// every unmarked test a lane by the fix-* rules (printed beside each edit; --explain
    /// fix-merge). Prints what it did instead of the evidence document.
    #[arg(long)]
    fix: bool,
    /// Like --fix, but write nothing: print a unified diff of the edits (the report goes to
    /// stderr).
    #[arg(long)]
    diff: bool,
    /// With --fix / --diff: write `owner: TEAM` into the docstring of each module whose merge
    /// tests have no owner (never replacing one).
    #[arg(long, value_name = "TEAM", requires = "fix_or_diff")]
    owner: Option<String>,
    /// With --fix / --diff: write `shrinking: NOTE` (how hypothesis shrinks a failure) into the
    /// docstring of each module whose merge properties have no shrinking note.
    #[arg(long, value_name = "NOTE", requires = "fix_or_diff")]
    shrinking: Option<String>,
    /// With --fix / --diff: mark the listed freeze candidates freeze (their ledger tickets are
    /// still to be written with freeze-ledger add).
    #[arg(long, requires = "fix_or_diff")]
    mark_freeze: bool,
    /// A unified diff (`git diff -U0 BASE...HEAD`, run from the rootdir with --relative, or
    /// paths relative to the rootdir) of the patch: the product files it changed are judged
    /// for test-aware-code on the lines it changed. Test modules, conftest.py files and files
    /// in test folders are not product code.
    #[arg(long, value_name = "DIFF", conflicts_with = "all_product")]
    changed: Option<PathBuf>,
    /// Judge every product file of the tree for test-aware-code (no diff to go by; what
    /// lane-gate does without --base).
    #[arg(long)]
    all_product: bool,
    #[command(flatten)]
    common: CommonArgs,
}

fn main() -> ExitCode {
    lane_scan::trace::start();
    let args: Args = cli::parse("lane-scan");
    // One set of threads parses, collects and renders the output.
    lane_scan::start_threads();
    lane_scan::trace::mark("arguments");
    cli::run("lane-scan", || {
        if let Some(done) = args.common.tool.meta(Args::command) {
            return done;
        }
        if args.fix || args.diff {
            return fix(&args, target(&args)?);
        }
        let doc = args.common.document.read()?;
        let target = target(&args)?;
        let changed = match (&args.changed, args.all_product) {
            (Some(path), _) => {
                let bytes = lane_core::io::read_file_capped(
                    path,
                    lane_core::rule::SOURCE_MAX_BYTES * 8,
                    "a diff",
                )?;
                let name = path.display().to_string();
                let text = String::from_utf8(bytes)
                    .map_err(|_| lane_core::Error::parse(&name, 0, 0, "not valid UTF-8"))?;
                Some(lane_scan::aware::Changed::Lines(
                    lane_scan::aware::parse_diff(&text, &name)?,
                ))
            }
            (None, true) => Some(lane_scan::aware::Changed::All),
            (None, false) => None,
        };
        let scan = lane_scan::scan(&lane_scan::Options {
            dir: None,
            paths: args.paths.clone(),
            rootdir: args.common.tool.rootdir.clone(),
            target,
            // Also where installed packages are looked up, for test-class bases.
            python: args.python.clone(),
            markers_plugin: false,
            changed,
            plugin_root: None,
        })?;
        lane_scan::trace::mark("drops at the end of the scan");
        let status = Status::from_problems(&scan.section.problems);
        // Serialized straight to stdout: the section is never held as text.
        args.common.document.emit_split_section(
            "lane-scan",
            &doc,
            ScanSection::NAME,
            &scan.section,
            "tests",
            &scan.runs,
            &scan.section.problems,
        )?;
        lane_scan::trace::mark("output");
        // The process ends right after writing: freeing 100,000 tests one by one would only
        // delay the exit.
        std::mem::forget(scan);
        Ok(status)
    })
}

/// The `--python` target, when given.
fn target(args: &Args) -> Result<Option<lane_scan::python::Target>, lane_core::Error> {
    match &args.python {
        Some(p) => Ok(Some(lane_scan::probe_target(Some(p)).ok_or_else(|| {
            lane_core::Error::usage(format!(
                "{}: could not report its version and sys.platform (--python)",
                p.display()
            ))
        })?)),
        None => Ok(None),
    }
}

/// `--fix` / `--diff`: the report on stdout (with --diff: the diff on stdout, the report on
/// stderr); exit 2 naming each file left untouched because it does not parse.
fn fix(args: &Args, target: Option<lane_scan::python::Target>) -> Result<Status, lane_core::Error> {
    let outcome = lane_scan::fix::fix(&lane_scan::fix::FixOptions {
        scan: lane_scan::Options {
            dir: None,
            paths: args.paths.clone(),
            rootdir: args.common.tool.rootdir.clone(),
            target,
            python: args.python.clone(),
            markers_plugin: false,
            changed: None,
            plugin_root: None,
        },
        write: args.fix && !args.diff,
        owner: args.owner.clone(),
        shrinking: args.shrinking.clone(),
        mark_freeze: args.mark_freeze,
    })?;
    if args.diff {
        lane_core::io::write_stdout(outcome.diff.as_bytes())?;
        eprint!("{}", outcome.report);
    } else {
        lane_core::io::write_stdout(outcome.report.as_bytes())?;
    }
    if outcome.unparsable.is_empty() {
        return Ok(Status::Clean);
    }
    Err(lane_core::Error::usage(format!(
        "left untouched, not parsable: {}",
        outcome.unparsable.join("; ")
    )))
}
