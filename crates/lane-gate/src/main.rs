use std::process::ExitCode;

// lane-scan's allocator (crates/lane-scan/src/main.rs): the gate scans in-process.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args: lane_gate::Args = lane_core::cli::parse("lane-gate");
    lane_gate::main(args)
}
