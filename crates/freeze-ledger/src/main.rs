use std::process::ExitCode;

fn main() -> ExitCode {
    let cli: freeze_ledger::app::Cli = lane_core::cli::parse("freeze-ledger");
    lane_core::cli::run(freeze_ledger::check::TOOL, || freeze_ledger::app::run(cli))
}
