#![no_main]
// Arbitrary bytes as lanes.lock and as a .sha256 sidecar: parsed or refused, never a panic.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = lane_lock::lock::LockFile::parse(data, "lanes.lock");
    let _ = lane_lock::lock::parse_sidecar(data, "fixture.txt.sha256");
});
