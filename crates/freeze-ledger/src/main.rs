use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = freeze_ledger::app::Cli::parse();
    lane_core::cli::run(freeze_ledger::check::TOOL, || freeze_ledger::app::run(cli))
}
