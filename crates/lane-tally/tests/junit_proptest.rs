//! Arbitrary bytes as a JUnit report: an error or cases, never a panic.

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = lane_tally::junit::read_bytes(&bytes, "r.xml", |_| {});
    }

    #[test]
    fn junit_shaped_noise_never_panics(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("<testsuites>".to_string()), Just("</testsuites>".to_string()),
                Just("<testsuite>".to_string()), Just("</testsuite>".to_string()),
                Just("<testcase classname=\"a\" name=\"t\">".to_string()),
                Just("<testcase classname=\"\" name=\"m\"/>".to_string()),
                Just("</testcase>".to_string()), Just("<failure>".to_string()),
                Just("</failure>".to_string()), Just("<skipped type=\"pytest.xfail\"/>".to_string()),
                Just("<properties><property name=\"replay\" value=\"x\"/></properties>".to_string()),
                Just("<![CDATA[<x>]]>".to_string()), Just("&amp;".to_string()), Just("&bad;".to_string()),
                Just("<!DOCTYPE x>".to_string()), Just("<!-- c -->".to_string()),
                "[a-z<>/&\"= ]{0,8}",
            ],
            0..24,
        )
    ) {
        let xml = parts.concat();
        let _ = lane_tally::junit::read_bytes(xml.as_bytes(), "r.xml", |_| {});
    }
}
