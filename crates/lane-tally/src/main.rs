use std::process::ExitCode;

fn main() -> ExitCode {
    let args: lane_tally::Args = lane_core::cli::parse("lane-tally");
    lane_core::cli::run("lane-tally", || lane_tally::run(args))
}
