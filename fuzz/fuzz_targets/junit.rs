#![no_main]
// Arbitrary bytes as a JUnit report, and as pytest's report to lay out for splitting: cases
// or an error, never a panic or unbounded memory.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = lane_tally::junit::read_from(data, |_case| {});
    let _ = lane_tally::junit::layout(data);
});
