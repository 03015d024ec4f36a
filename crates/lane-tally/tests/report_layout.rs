//! `junit::layout` against lane-gate's hand tokenizer, which it replaces: `gate_parse` below
//! is a copy of `together.rs`'s `parse` (with `tag_at`, `unescape`, `find` and `attr`) as it
//! was when the layout was written. Both must give the same layout, field by field, for every
//! report shape pytest writes, so that the reports split from it stay byte for byte the same:
//! real reports of pytest 9.2 (`pytest-reports/`, written from `shapes.py`: xunit1 and xunit2,
//! suite and case properties, escaped attributes, captured output, failures, setup and
//! teardown errors, skips, xfail and strict xpass, an empty run), variants of them (CDATA
//! output, self-closing cases, a trailing newline), random reports put together from their
//! cases, and the shapes the gate refuses.

use lane_tally::junit::{CaseSpan, Layout, layout};
use proptest::prelude::*;

#[allow(clippy::all, clippy::pedantic)]
mod gate_parse {
    /// One `<testcase>` of the combined report: where its bytes are and what it says.
    #[derive(Debug)]
    struct CaseSpan {
        start: usize,
        end: usize,
        classname: String,
        name: String,
        file: String,
        failure: bool,
        error: bool,
        skipped: bool,
        failed: bool,
    }

    /// The combined report as pytest's junitxml writes it: `<?xml ...?><testsuites ...><testsuite
    /// ...>[<properties>...</properties>]<testcase .../>...</testsuite></testsuites>`.
    #[derive(Debug)]
    struct Combined {
        /// Where `<testsuite` starts (everything before it is copied as it is).
        suite_start: usize,
        suite_attrs: Vec<(String, String)>,
        suite_properties: Option<(usize, usize)>,
        cases: Vec<CaseSpan>,
        /// Where `</testsuites>` starts (copied as it is to the end).
        tail: usize,
    }

    /// One tag: its name, attributes, whether it closes itself, whether it is an end tag, and the
    /// byte after it.
    struct Tag {
        name: String,
        attrs: Vec<(String, String)>,
        empty: bool,
        end: bool,
        after: usize,
    }

    fn tag_at(bytes: &[u8], at: usize) -> Result<Tag, String> {
        let bad = |what: &str| format!("byte {at}: {what}");
        if bytes.get(at) != Some(&b'<') {
            return Err(bad("expected a tag"));
        }
        let close = bytes[at..]
            .iter()
            .position(|&b| b == b'>')
            .ok_or_else(|| bad("a tag that does not end"))?
            + at;
        let inner = std::str::from_utf8(&bytes[at + 1..close]).map_err(|_| bad("not UTF-8"))?;
        let (end, inner) = match inner.strip_prefix('/') {
            Some(rest) => (true, rest),
            None => (false, inner),
        };
        let (empty, inner) = match inner.strip_suffix('/') {
            Some(rest) => (true, rest),
            None => (false, inner),
        };
        let name_len = inner
            .find(|c: char| c.is_ascii_whitespace())
            .unwrap_or(inner.len());
        let name = inner[..name_len].to_string();
        let mut rest = inner[name_len..].trim_start();
        let mut attrs = Vec::new();
        while !rest.is_empty() {
            let eq = rest
                .find('=')
                .ok_or_else(|| bad("an attribute without a value"))?;
            let key = rest[..eq].trim().to_string();
            let value_part = rest[eq + 1..].trim_start();
            let quote = value_part
                .chars()
                .next()
                .filter(|c| *c == '"' || *c == '\'')
                .ok_or_else(|| bad("an unquoted attribute"))?;
            let stop = value_part[1..]
                .find(quote)
                .ok_or_else(|| bad("an attribute that does not end"))?;
            attrs.push((
                key,
                unescape(&value_part[1..1 + stop]).ok_or_else(|| bad("a bad entity"))?,
            ));
            rest = value_part[stop + 2..].trim_start();
        }
        if name.is_empty() || (end && (empty || !attrs.is_empty())) {
            return Err(bad("a malformed tag"));
        }
        Ok(Tag {
            name,
            attrs,
            empty,
            end,
            after: close + 1,
        })
    }

    fn attr<'a>(attrs: &'a [(String, String)], key: &str) -> Option<&'a str> {
        attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn parse(bytes: &[u8]) -> Result<Combined, String> {
        const DECL: &[u8] = b"<?xml version=\"1.0\" encoding=\"utf-8\"?>";
        if !bytes.starts_with(DECL) {
            return Err("a report that does not start as pytest writes it".into());
        }
        let root = tag_at(bytes, DECL.len())?;
        if root.name != "testsuites" || root.empty || root.end {
            return Err("a report without a <testsuites> root".into());
        }
        let suite_start = root.after;
        let suite = tag_at(bytes, suite_start)?;
        if suite.name != "testsuite" || suite.end {
            return Err("a report without one <testsuite>".into());
        }
        let mut doc = Combined {
            suite_start,
            suite_attrs: suite.attrs,
            suite_properties: None,
            cases: Vec::new(),
            tail: suite.after,
        };
        let mut at = suite.after;
        if !suite.empty {
            loop {
                let tag = tag_at(bytes, at)?;
                match (tag.name.as_str(), tag.end) {
                    ("testsuite", true) => {
                        at = tag.after;
                        break;
                    }
                    ("properties", false)
                        if doc.cases.is_empty() && doc.suite_properties.is_none() =>
                    {
                        let end = find(bytes, at, b"</properties>")
                            .ok_or("suite properties that do not end")?
                            + b"</properties>".len();
                        doc.suite_properties = Some((at, if tag.empty { tag.after } else { end }));
                        at = if tag.empty { tag.after } else { end };
                    }
                    ("testcase", false) => {
                        let end = if tag.empty {
                            tag.after
                        } else {
                            find(bytes, tag.after, b"</testcase>")
                                .ok_or("a case that does not end")?
                                + b"</testcase>".len()
                        };
                        let body = &bytes[tag.after..end];
                        let has = |name: &[u8]| body.windows(name.len()).any(|w| w == name);
                        let failure = has(b"<failure");
                        let error = has(b"<error");
                        // pytest's own counting: a failure or an error fails the run.
                        doc.cases.push(CaseSpan {
                            start: at,
                            end,
                            classname: attr(&tag.attrs, "classname").unwrap_or("").to_string(),
                            name: attr(&tag.attrs, "name")
                                .ok_or("a case without a name")?
                                .to_string(),
                            file: attr(&tag.attrs, "file").unwrap_or("").to_string(),
                            failure,
                            error,
                            skipped: has(b"<skipped"),
                            failed: failure || error,
                        });
                        at = end;
                    }
                    _ => return Err(format!("byte {at}: an unexpected <{}>", tag.name)),
                }
            }
        }
        // (`<testsuite .../>` is written back as an open and a close tag.)
        doc.tail = at;
        let end = tag_at(bytes, at)?;
        if end.name != "testsuites"
            || !end.end
            || bytes[end.after..].iter().any(|b| !b.is_ascii_whitespace())
        {
            return Err("a report that does not end with </testsuites>".into());
        }
        Ok(doc)
    }

    fn find(bytes: &[u8], from: usize, what: &[u8]) -> Option<usize> {
        bytes[from..]
            .windows(what.len())
            .position(|w| w == what)
            .map(|p| p + from)
    }

    /// XML's five entities and character references.
    fn unescape(text: &str) -> Option<String> {
        if !text.contains('&') {
            return Some(text.to_string());
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(i) = rest.find('&') {
            out.push_str(&rest[..i]);
            let semi = rest[i..].find(';')? + i;
            let entity = &rest[i + 1..semi];
            let c = match entity {
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "quot" => '"',
                "apos" => '\'',
                _ => {
                    let n = if let Some(hex) = entity.strip_prefix("#x") {
                        u32::from_str_radix(hex, 16).ok()?
                    } else {
                        entity.strip_prefix('#')?.parse().ok()?
                    };
                    char::from_u32(n)?
                }
            };
            out.push(c);
            rest = &rest[semi + 1..];
        }
        out.push_str(rest);
        Some(out)
    }

    /// What the gate's reader finds in `bytes`, as a [`Layout`].
    pub fn layout(bytes: &[u8]) -> Result<super::Layout, String> {
        let c = parse(bytes)?;
        let cases = c
            .cases
            .into_iter()
            .map(|s| super::CaseSpan {
                start: s.start,
                end: s.end,
                classname: s.classname,
                name: s.name,
                file: s.file,
                failure: s.failure,
                error: s.error,
                skipped: s.skipped,
                failed: s.failed,
            })
            .collect();
        Ok(super::Layout {
            suite_start: c.suite_start,
            suite_attrs: c.suite_attrs,
            suite_properties: c.suite_properties,
            cases,
            tail: c.tail,
        })
    }
}

/// Both readers on `bytes`: the same layout, or both refuse it with the same words (the gate
/// prints why it runs one process per lane), but for a comment between the tags, which the
/// gate's tokenizer read as a tag with a malformed attribute. Returns the layout.
fn agree(bytes: &[u8]) -> Option<Layout> {
    let gate = gate_parse::layout(bytes);
    let ours = layout(bytes);
    match (gate, ours) {
        (Ok(g), Ok(o)) => {
            assert_eq!(o, g, "{}", String::from_utf8_lossy(bytes));
            Some(o)
        }
        (Err(g), Err(o)) => {
            if !bytes.windows(4).any(|w| w == b"<!--") {
                assert_eq!(o.to_string(), g, "{}", String::from_utf8_lossy(bytes));
            }
            None
        }
        (g, o) => panic!(
            "the gate's reader says {g:?}, the layout {o:?}:\n{}",
            String::from_utf8_lossy(bytes)
        ),
    }
}

fn report(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/pytest-reports/{name}.xml",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

const REPORTS: [&str; 4] = ["xunit1", "xunit2", "plain", "empty"];

#[test]
fn pytest_s_own_reports_have_one_layout() {
    for name in REPORTS {
        let bytes = report(name);
        let Some(Layout {
            suite_attrs,
            suite_properties,
            cases,
            ..
        }) = agree(&bytes)
        else {
            panic!("{name}: refused")
        };
        assert!(suite_attrs.iter().any(|(k, _)| k == "timestamp"), "{name}");
        if name.starts_with("xunit") {
            // record_testsuite_property, and every kind of outcome
            assert!(suite_properties.is_some(), "{name}");
            let flags: Vec<[bool; 4]> = cases
                .iter()
                .map(|c| [c.failure, c.error, c.skipped, c.failed])
                .collect();
            for kind in 0..3 {
                assert!(flags.iter().any(|f| f[kind]), "{name}: {kind}");
            }
            // escaped names
            assert!(cases.iter().any(|c| c.name.contains('&')), "{name}");
            assert!(cases.iter().any(|c| c.name.contains('<')), "{name}");
        }
        if name == "xunit1" {
            assert!(cases.iter().all(|c| c.file == "tests/test_shapes.py"));
        }
        if name == "empty" {
            assert!(cases.is_empty());
        }
    }
}

/// `<system-out>TEXT</system-out>` as CDATA (TEXT unescaped), as other writers give it.
fn as_cdata(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("<system-out>") {
        let body = at + "<system-out>".len();
        let Some(len) = rest[body..].find("</system-out>") else {
            break;
        };
        let inner = rest[body..body + len]
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&");
        out.push_str(&rest[..body]);
        out.push_str(&format!("<![CDATA[{inner}]]>"));
        rest = &rest[body + len..];
    }
    out.push_str(rest);
    out
}

#[test]
fn variants_of_pytest_s_reports_have_one_layout() {
    for name in REPORTS {
        let text = String::from_utf8(report(name)).unwrap_or_default();
        let variants = [
            format!("{text}\n"),
            as_cdata(&text),
            // a case with an empty body written as an open and a close tag, and vice versa
            text.replace("\" />", "\"></testcase>"),
            text.replace("></testcase>", " />"),
        ];
        for variant in variants {
            agree(variant.as_bytes());
        }
    }
    assert!(
        agree(as_cdata(&String::from_utf8(report("xunit2")).unwrap_or_default()).as_bytes())
            .is_some()
    );
}

#[test]
fn what_the_gate_refuses_the_layout_refuses() {
    let ok = String::from_utf8(report("plain")).unwrap_or_default();
    let head = &ok[..ok.find("<testcase").unwrap_or(0)];
    let case = r#"<testcase classname="tests.test_a" name="test_m[a&amp;b]" file="tests/test_a.py" line="3" time="0.0" />"#;
    let tail = "</testsuite></testsuites>";
    let refused = [
        format!("{head}{case}"),
        format!("{head}<testcase name=\"x\">{tail}"),
        format!("{head}<foo/>{case}{tail}"),
        ok.replace("<?xml version=\"1.0\" encoding=\"utf-8\"?>", ""),
        format!("{head}{case}{tail}<testsuites>"),
        format!("{head}{case}\n{case}{tail}"),
        format!("{head}{case}<!-- a comment -->{tail}"),
        format!("{head}{case}</testsuite><testsuite>{tail}"),
        format!("{head}<testcase classname=\"a\" />{tail}"),
        format!("{head}<testcase name=\"&bogus;\" />{tail}"),
        String::new(),
    ];
    for bad in refused {
        assert!(agree(bad.as_bytes()).is_none(), "{bad}");
    }
}

/// The cases of pytest's reports, and a few more kinds, to put reports together from.
fn pool() -> Vec<String> {
    let mut cases = Vec::new();
    for name in ["xunit1", "xunit2"] {
        let bytes = report(name);
        let Some(found) = agree(&bytes) else {
            continue;
        };
        for CaseSpan { start, end, .. } in found.cases {
            cases.push(String::from_utf8_lossy(&bytes[start..end]).into_owned());
        }
    }
    cases.extend(
        [
            r#"<testcase classname="t" name="bare" />"#,
            r#"<testcase classname="t" name="cdata" time="0.0"><system-out><![CDATA[a < b & c]]></system-out></testcase>"#,
            r#"<testcase classname="t" name="xf" time="0.0"><skipped type="pytest.xfail" message="x" /></testcase>"#,
            r#"<testcase name="no-class" time="0.0"><error message="e">E</error></testcase>"#,
        ]
        .map(String::from),
    );
    cases
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Reports put together from pytest's cases, with or without suite properties, whole or
    /// cut short anywhere.
    #[test]
    fn reports_put_together_from_pytest_s_cases_have_one_layout(
        picks in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
        properties in any::<bool>(),
        newline in any::<bool>(),
        cut in proptest::option::of(any::<prop::sample::Index>()),
    ) {
        let pool = pool();
        let mut text = String::from(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?><testsuites name=\"pytest tests\">\
             <testsuite name=\"pytest\" errors=\"0\" failures=\"0\" skipped=\"0\" tests=\"1\" \
             time=\"0.1\" timestamp=\"t\" hostname=\"h\">",
        );
        if properties {
            text.push_str(r#"<properties><property name="k" value="v &amp; &lt;w&gt;" /></properties>"#);
        }
        for pick in &picks {
            text.push_str(&pool[pick.index(pool.len())]);
        }
        text.push_str("</testsuite></testsuites>");
        if newline {
            text.push('\n');
        }
        let mut bytes = text.into_bytes();
        if let Some(cut) = cut {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        agree(&bytes);
    }
}
