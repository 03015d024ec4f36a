use std::process::ExitCode;

fn main() -> ExitCode {
    let args: lane_gate::Args = lane_core::cli::parse("lane-gate");
    lane_gate::main(args)
}
