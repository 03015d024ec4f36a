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
struct Args {
    /// Files and folders to scan, as given to pytest (default: testpaths, or the current folder).
    paths: Vec<PathBuf>,
    /// The interpreter the tests will run on (default: python3, then python, on PATH). It is
    /// asked only for its version and sys.platform (`-I -S -c`, no project code), to decide
    /// `sys.version_info` / `sys.platform` conditions around test definitions.
    #[arg(long, value_name = "PYTHON")]
    python: Option<PathBuf>,
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
    let args: Args = cli::parse("lane-scan");
    cli::run("lane-scan", || {
        if let Some(done) = args.common.tool.meta(Args::command) {
            return done;
        }
        let doc = args.common.document.read()?;
        let target = match &args.python {
            Some(p) => Some(lane_scan::probe_target(Some(p)).ok_or_else(|| {
                lane_core::Error::usage(format!(
                    "{}: could not report its version and sys.platform (--python)",
                    p.display()
                ))
            })?),
            None => None,
        };
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
            paths: args.paths.clone(),
            rootdir: args.common.tool.rootdir.clone(),
            target,
            python: None,
            markers_plugin: false,
            changed,
        })?;
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
        // The process ends right after writing: freeing 100,000 tests one by one would only
        // delay the exit.
        std::mem::forget(scan);
        Ok(status)
    })
}
