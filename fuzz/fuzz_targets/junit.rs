#![no_main]
// Arbitrary bytes as a JUnit report: cases or an error, never a panic or unbounded memory.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = lane_tally::junit::read_from(data, |_case| {});
});
