#![no_main]
// Arbitrary bytes as a Python test module: a summary or a syntax error, never a panic.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = lane_python::summarize(&text);
});
