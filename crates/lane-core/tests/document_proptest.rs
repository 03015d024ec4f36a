//! No-panic property tests for the evidence document reader: arbitrary bytes, and valid
//! documents with bytes flipped, give a document or an error, and a document read back from
//! our own output is the same document.

use lane_core::Document;
use proptest::prelude::*;

const VALID: &str = r#"{
  "lock": {"problems": [{"rule": "digest-moved", "severity": "error", "message": "m", "file": "a.txt", "line": 3}], "tool": "lane-lock"},
  "scan": {"counts": {"freeze": 0, "merge": 1, "unmarked": 0, "witness": 0}, "files": ["tests/test_a.py"],
           "problems": [], "tests": [{"attachments": {"owner": "qa"}, "file": "tests/test_a.py", "id": "tests/test_a.py::test_a",
           "lane": "merge", "lanes": ["merge"], "line": 4, "marks": ["merge"], "parametrized": false}], "tool": "lane-scan"},
  "version": 1,
  "x-extra": [1, 2.5, null, "\u00e9"]
}"#;

fn check(bytes: &[u8]) {
    if let Ok(doc) = Document::parse(bytes, "<stdin>") {
        let _ = doc.all_problems("<stdin>");
        let _ = doc.upstream_errors("tally", "<stdin>");
        let _ = doc.section_as::<lane_core::scan::ScanSection>("scan", "<stdin>");
        let again = Document::parse(&doc.to_bytes(), "<stdin>").expect("our output reads back");
        assert_eq!(again, doc);
        assert_eq!(again.to_bytes(), doc.to_bytes());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        check(&bytes);
    }

    #[test]
    fn mutated_documents_never_panic(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut bytes = VALID.as_bytes().to_vec();
        for (at, byte) in flips {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        check(&bytes);
        check(&bytes[..cut.index(bytes.len())]);
    }
}

#[test]
fn the_valid_document_is_read() {
    let doc = Document::parse(VALID.as_bytes(), "<stdin>").expect("valid");
    assert_eq!(
        doc.upstream_errors("tally", "<stdin>").expect("problems"),
        1
    );
    let scan = doc
        .section_as::<lane_core::scan::ScanSection>("scan", "<stdin>")
        .expect("scan")
        .expect("present");
    assert_eq!(scan.tests[0].id, "tests/test_a.py::test_a");
}
