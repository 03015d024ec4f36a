use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = lane_tally::Args::parse();
    lane_core::cli::run("lane-tally", || lane_tally::run(args))
}
