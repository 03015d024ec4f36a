//! Arbitrary bytes as a JUnit report (and as pytest's report to lay out): an error or cases,
//! never a panic.

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = lane_tally::junit::read_bytes(&bytes, "r.xml", |_| {});
        let _ = lane_tally::junit::layout(&bytes);
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
        let pytest = format!("<?xml version=\"1.0\" encoding=\"utf-8\"?>{xml}");
        let _ = lane_tally::junit::layout(pytest.as_bytes());
    }
}

/// Everything a reading gave: the suites, the cases (every field) and the error, as text.
fn serial(xml: &[u8]) -> Vec<String> {
    let out = std::cell::RefCell::new(Vec::new());
    let end = lane_tally::junit::read_with_suites(
        xml,
        |s| out.borrow_mut().push(format!("suite {s}")),
        |c| out.borrow_mut().push(format!("{c:?}")),
    );
    let mut out = out.into_inner();
    out.push(match end {
        Ok(stats) => format!("ok {} cases {} suites", stats.cases, stats.suites),
        Err(e) => format!("error {e:?}"),
    });
    out
}

/// The same through the parallel reader, cut about every `chunk` bytes.
fn parallel(xml: &[u8], chunk: usize) -> Vec<String> {
    let out = std::cell::RefCell::new(Vec::new());
    let end = lane_tally::parallel::read(
        xml,
        xml.len() as u64,
        4,
        chunk,
        |s| out.borrow_mut().push(format!("suite {s}")),
        |c| format!("{c:?}"),
        |line| out.borrow_mut().push(line),
    );
    let mut out = out.into_inner();
    out.push(match end {
        Ok(stats) => format!("ok {} cases {} suites", stats.cases, stats.suites),
        Err(e) => format!("error {e:?}"),
    });
    out
}

/// Suites come first in the serial list when they are interleaved with cases; compare the
/// two streams separately (the tally collects them apart).
fn split(lines: Vec<String>) -> (Vec<String>, Vec<String>) {
    lines.into_iter().partition(|l| l.starts_with("suite "))
}

fn assert_same(xml: &str) {
    let want = split(serial(xml.as_bytes()));
    for chunk in 1..=xml.len().min(400) {
        assert_eq!(
            split(parallel(xml.as_bytes(), chunk)),
            want,
            "chunk {chunk}: {xml}"
        );
    }
}

const CASE: &str = r#"<testcase classname="m" name="t1" time="0.1"/>"#;

#[test]
fn parallel_and_serial_agree_on_tricky_reports() {
    let tricky: Vec<String> = vec![
        // CDATA and comments holding what looks like a case start.
        format!(
            r#"<testsuites><testsuite name="a">{CASE}<testcase classname="m" name="t2"><system-out><![CDATA[<testcase classname="x" name="fake"/> <testcase ]]></system-out></testcase><!-- <testcase classname="c" name="commented"/> -->{CASE}</testsuite></testsuites>"#
        ),
        // A failure body in CDATA with a location, entities in text.
        format!(
            r#"<testsuite name="s"><testcase classname="m" name="f"><failure><![CDATA[<testcase
tests/t.py:3: in t]]> &lt;testcase &amp;</failure></testcase>{CASE}<testcase classname="m" name="e"><error message="a&#10;b">tests/u.py:9: E</error></testcase></testsuite>"#
        ),
        // Several suites, nested suites, suite properties and output between cases.
        format!(
            r#"<?xml version="1.0"?>
<testsuites><testsuite name="one">{CASE}</testsuite><testsuite name="two"><properties><property name="p" value="&lt;testcase"/></properties>{CASE}<testsuite name="inner">{CASE}<testcase classname="m" name="s"><skipped type="pytest.xfail"/></testcase></testsuite>{CASE}<system-out>x</system-out></testsuite><testsuite name="one">{CASE}</testsuite></testsuites>
"#
        ),
        // A case inside a case's body is no case; attributes that look like case starts.
        format!(
            r#"<testsuite><testcase classname="m" name="o"><system-out><testcase classname="m" name="inner"/></system-out></testcase><testcase classname="m" name="q" file="a.py" line="3"><properties><property name="replay" value="x &lt;testcase"/></properties></testcase>{CASE}</testsuite>"#
        ),
        // Errors: mismatched end, truncation, trailing text, a second root, a case without
        // a name in the middle.
        format!("<testsuites><testsuite>{CASE}{CASE}</testsuites></testsuite>"),
        format!("<testsuites><testsuite>{CASE}{CASE}<testcase classname=\"m\" name=\"x\">"),
        format!("<testsuite>{CASE}{CASE}</testsuite>trailing"),
        format!("<testsuite>{CASE}</testsuite><testsuite>{CASE}</testsuite>"),
        format!("<testsuite>{CASE}<testcase classname=\"m\"/>{CASE}</testsuite>"),
        format!("<testsuite>{CASE}<!-- <testcase {CASE}"),
        format!("<testsuite>{CASE}<![CDATA[ <testcase {CASE}</testsuite>"),
        // A processing instruction and a `<testcases` element that is no case.
        format!(
            "<testsuite>{CASE}<?pi <testcase ?><testcases><testcase classname=\"z\" name=\"no\"/></testcases>{CASE}</testsuite>"
        ),
    ];
    for xml in &tricky {
        assert_same(xml);
    }
}

/// The shape of `scripts/bench-tally`'s captured report: every case with a
/// `<system-out>` of escaped log text, a failure and a skip among them, over many windows of the
/// parallel reader (the next window read while this one's pieces are), one of them holding a
/// case start inside CDATA that sends the rest to the serial reader.
#[test]
fn parallel_and_serial_agree_on_captured_output_reports() {
    let case = |n: usize| -> String {
        let head = format!(
            r#"<testcase classname="tests.pkg_00.test_mod" name="test_case[p{n}]" time="0.{n:03}""#
        );
        if n.is_multiple_of(13) {
            format!(
                r#"{head}><failure message="assert 82 == 84">x = 41
&gt;       assert double(x) == 84
tests/pkg_00/test_mod.py:18: AssertionError</failure></testcase>"#
            )
        } else if n.is_multiple_of(17) {
            format!(
                r#"{head}><skipped type="pytest.skip" message="no network">tests/t.py:3: no network</skipped></testcase>"#
            )
        } else {
            format!(
                "{head}><system-out>12:00:{:02} INFO worker-{} batch {n} of &lt;items&gt; total=&quot;{}&quot; &amp; ok\n12:00 DEBUG done\n</system-out></testcase>",
                n % 60,
                n % 4,
                n * 37
            )
        }
    };
    let cases: String = (0..40).map(case).collect();
    let clean = format!(
        r#"<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" tests="40">{cases}</testsuite></testsuites>"#
    );
    let fooled: String = (0..40)
        .map(|n| {
            if n == 25 {
                r#"<testcase classname="m" name="cdata"><system-out><![CDATA[<testcase classname="x" name="fake"/>]]></system-out></testcase>"#.to_string()
            } else {
                case(n)
            }
        })
        .collect();
    let fooled = format!("<testsuites><testsuite>{fooled}</testsuite></testsuites>");
    for xml in [&clean, &fooled] {
        let want = split(serial(xml.as_bytes()));
        assert!(want.1.len() > 40, "every case and the end were read");
        for chunk in [1, 2, 3, 5, 8, 50, 120, 200, 333, 1000, 4000] {
            assert_eq!(
                split(parallel(xml.as_bytes(), chunk)),
                want,
                "chunk {chunk}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn parallel_and_serial_agree(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("<testsuite name=\"s\">"), Just("</testsuite>"),
                Just("<testsuite name=\"t\">"),
                Just(CASE),
                Just("<testcase classname=\"a\" name=\"f\"><failure message=\"m\">tests/a.py:2: E</failure></testcase>"),
                Just("<testcase classname=\"a\" name=\"c\"><system-out><![CDATA[<testcase classname=\"x\" name=\"y\"/>]]></system-out></testcase>"),
                Just("<!-- <testcase classname=\"x\" name=\"z\"/> -->"),
                Just("<testcase classname=\"a\" name=\"open\">"), Just("</testcase>"),
                Just("<properties><property name=\"replay\" value=\"r\"/></properties>"),
                Just("\n"), Just("<![CDATA[ <testcase "), Just("]]>"),
            ],
            0..40,
        )
    ) {
        let xml = format!("<testsuites>{}</testsuites>", parts.concat());
        let want = split(serial(xml.as_bytes()));
        for chunk in [1, 7, 40, 150] {
            prop_assert_eq!(split(parallel(xml.as_bytes(), chunk)), want.clone());
        }
    }
}
