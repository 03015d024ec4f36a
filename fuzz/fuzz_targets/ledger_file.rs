#![no_main]
// Arbitrary bytes as freeze_ledger.json: rows, invalid tickets or an error, never a panic.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(ledger) = freeze_ledger::ledger::Ledger::parse(data, "freeze_ledger.json") {
        let _ = ledger.require_valid("freeze_ledger.json");
    }
    let _ = freeze_ledger::ledger::element_lines(data);
});
