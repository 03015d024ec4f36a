#![no_main]
// Arbitrary bytes as an evidence document: parsed (and re-serialized) or refused.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(doc) = lane_core::Document::parse(data, "<stdin>") {
        let _ = doc.all_problems("<stdin>");
        let _ = doc.section_as::<lane_core::scan::ScanSection>("scan", "<stdin>");
        let again = lane_core::Document::parse(&doc.to_bytes(), "<stdin>");
        assert!(again.is_ok(), "a document we wrote must read back");
    }
});
