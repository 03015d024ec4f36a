//! The layout of the report pytest's junitxml plugin writes for a run: where its one
//! `<testsuite>` starts, the suite's attributes, its `<properties>`, the byte span of every
//! `<testcase>` with its identity and outcome, and where `</testsuites>` starts. Cut along
//! these spans and put together again, the report gives back pytest's own bytes: lane-gate
//! splits the report of its one pytest process into one report per lane so.
//!
//! Only the shape pytest writes is read: `<?xml version="1.0" encoding="utf-8"?>`, then a
//! `<testsuites>` root holding one `<testsuite>`, whose `<properties>` (if any) come before
//! its cases, with nothing between the tags. Anything else is refused, and the caller falls
//! back to reading each lane's own report. It is read as the streaming reader reads: text of
//! any size in a bounded buffer, and a single tag over [`super::MAX_TAG_BYTES`] refused.

use quick_xml::Reader;
use quick_xml::errors::SyntaxError;
use quick_xml::events::{BytesStart, Event};

use super::{Skipped, Source, skip_text};

/// How pytest's report starts.
const DECL: &[u8] = b"<?xml version=\"1.0\" encoding=\"utf-8\"?>";

/// A report as pytest writes it, by byte offsets into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Where `<testsuite` starts (everything before it is the report's head).
    pub suite_start: usize,
    /// The suite's attributes in order, their values unescaped.
    pub suite_attrs: Vec<(String, String)>,
    /// The suite's `<properties>` element: from its `<` to the byte after its end.
    pub suite_properties: Option<(usize, usize)>,
    pub cases: Vec<CaseSpan>,
    /// Where `</testsuites>` starts (from there on, the report's tail).
    pub tail: usize,
}

/// One `<testcase>`: where its bytes are and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseSpan {
    /// From its `<` to the byte after its end tag (or after `/>`).
    pub start: usize,
    pub end: usize,
    /// The attribute's unescaped value, empty when it is absent.
    pub classname: String,
    pub name: String,
    /// The `file` attribute (xunit1), empty when it is absent.
    pub file: String,
    /// A `<failure>`, `<error>` or `<skipped>` element inside the case.
    pub failure: bool,
    pub error: bool,
    pub skipped: bool,
    /// A failure or an error: pytest counts the run as failed.
    pub failed: bool,
}

/// Why a report does not have the layout pytest writes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error("a report that does not start as pytest writes it")]
    Head,
    #[error("a report without a <testsuites> root")]
    Root,
    #[error("a report without one <testsuite>")]
    Suite,
    #[error("suite properties that do not end")]
    PropertiesEnd,
    #[error("a case that does not end")]
    CaseEnd,
    #[error("a case without a name")]
    CaseName,
    #[error("byte {at}: an unexpected <{name}>")]
    Unexpected { at: usize, name: String },
    #[error("a report that does not end with </testsuites>")]
    Tail,
    #[error("byte {at}: {what}")]
    Tag { at: usize, what: String },
}

/// The layout of `bytes`, a report as pytest writes it.
pub fn layout(bytes: &[u8]) -> Result<Layout, LayoutError> {
    if !bytes.starts_with(DECL) {
        return Err(LayoutError::Head);
    }
    let mut tags = Tags::new(bytes, DECL.len());
    if !matches!(tags.next()?, Tag::Open(e) if e.name().as_ref() == "testsuites") {
        return Err(LayoutError::Root);
    }
    let suite_start = tags.at();
    let (suite, open) = match tags.next()? {
        Tag::Open(e) if e.name().as_ref() == "testsuite" => (e, true),
        Tag::Empty(e) if e.name().as_ref() == "testsuite" => (e, false),
        _ => return Err(LayoutError::Suite),
    };
    let mut layout = Layout {
        suite_start,
        suite_attrs: attributes(&suite, suite_start)?,
        suite_properties: None,
        cases: Vec::new(),
        tail: 0,
    };
    if open {
        tags.suite(&mut layout)?;
    }
    // (`<testsuite .../>` is written back as an open and a close tag.)
    layout.tail = tags.at();
    if !matches!(tags.next()?, Tag::Close(name) if name == "testsuites")
        || !bytes[tags.at()..].iter().all(u8::is_ascii_whitespace)
    {
        return Err(LayoutError::Tail);
    }
    Ok(layout)
}

/// A tag, as [`Tags`] reads it.
enum Tag {
    Open(BytesStart<'static>),
    Empty(BytesStart<'static>),
    Close(String),
}

/// The report's tags one after the other, from an offset on, read as the streaming reader
/// reads (its bounded [`Source`], with text, comments and CDATA skipped behind quick-xml's
/// back); anything but a tag where a tag must follow is refused.
struct Tags<'a> {
    reader: Reader<Source<&'a [u8]>>,
    /// The buffer of the event being read.
    buf: Vec<u8>,
    /// The offset the reader started at, plus the bytes skipped behind its back.
    skipped: usize,
}

impl<'a> Tags<'a> {
    fn new(bytes: &'a [u8], base: usize) -> Self {
        Tags {
            reader: super::xml_reader(&bytes[base..]),
            buf: Vec::new(),
            skipped: base,
        }
    }

    /// The offset of the next byte to read.
    fn at(&self) -> usize {
        self.skipped + usize::try_from(self.reader.buffer_position()).unwrap_or(usize::MAX)
    }

    /// Skips the text, comments and CDATA sections up to the next tag; how many bytes.
    fn skip(&mut self) -> Result<usize, LayoutError> {
        let at = self.at();
        let n = match skip_text(self.reader.get_mut(), false, false, None) {
            Ok(Skipped::Bytes(n) | Skipped::Truncated(n) | Skipped::TextAt(n)) => n,
            Err(e) => {
                return Err(LayoutError::Tag {
                    at,
                    what: e.to_string(),
                });
            }
        };
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        self.skipped = self.skipped.saturating_add(n);
        Ok(n)
    }

    /// The next event, whatever it is.
    fn event(&mut self) -> Result<Event<'_>, LayoutError> {
        let at = self.at();
        self.reader.get_mut().new_event();
        self.buf.clear();
        let skipped = self.skipped;
        self.reader
            .read_event_into(&mut self.buf)
            .map_err(|e| match e {
                quick_xml::Error::Syntax(
                    SyntaxError::UnclosedTag
                    | SyntaxError::UnclosedSingleQuotedAttributeValue
                    | SyntaxError::UnclosedDoubleQuotedAttributeValue,
                ) => LayoutError::Tag {
                    at,
                    what: "a tag that does not end".to_string(),
                },
                e => LayoutError::Tag {
                    at: skipped
                        + usize::try_from(self.reader.error_position()).unwrap_or(usize::MAX),
                    what: format!("malformed XML: {e}"),
                },
            })
    }

    /// The next tag, which must follow at once.
    fn next(&mut self) -> Result<Tag, LayoutError> {
        let at = self.at();
        let expected = || LayoutError::Tag {
            at,
            what: "expected a tag".to_string(),
        };
        if self.skip()? > 0 {
            return Err(expected());
        }
        match self.event()? {
            Event::Start(e) => Ok(Tag::Open(e.into_owned())),
            Event::Empty(e) => Ok(Tag::Empty(e.into_owned())),
            Event::End(e) => Ok(Tag::Close(e.name().as_ref().to_string())),
            _ => Err(expected()),
        }
    }

    /// The suite's content up to its end tag: its properties, then its cases.
    fn suite(&mut self, layout: &mut Layout) -> Result<(), LayoutError> {
        loop {
            let at = self.at();
            let (e, open) = match self.next()? {
                Tag::Close(name) if name == "testsuite" => return Ok(()),
                Tag::Close(name) => return Err(LayoutError::Unexpected { at, name }),
                Tag::Open(e) => (e, true),
                Tag::Empty(e) => (e, false),
            };
            match e.name().as_ref() {
                "properties" if layout.cases.is_empty() && layout.suite_properties.is_none() => {
                    if open {
                        self.skip_to("properties", LayoutError::PropertiesEnd, |_| {})?;
                    }
                    layout.suite_properties = Some((at, self.at()));
                }
                "testcase" => {
                    let case = self.case(&e, at, open)?;
                    layout.cases.push(case);
                }
                name => {
                    return Err(LayoutError::Unexpected {
                        at,
                        name: name.to_string(),
                    });
                }
            }
        }
    }

    /// A case whose start tag `e` was at `at`, read to its end.
    fn case(&mut self, e: &BytesStart<'_>, at: usize, open: bool) -> Result<CaseSpan, LayoutError> {
        let attrs = attributes(e, at)?;
        let (mut failure, mut error, mut skipped) = (false, false, false);
        if open {
            self.skip_to("testcase", LayoutError::CaseEnd, |name| match name {
                "failure" => failure = true,
                "error" => error = true,
                "skipped" => skipped = true,
                _ => {}
            })?;
        }
        let value = |key: &str| attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        Ok(CaseSpan {
            start: at,
            end: self.at(),
            classname: value("classname").unwrap_or_default(),
            name: value("name").ok_or(LayoutError::CaseName)?,
            file: value("file").unwrap_or_default(),
            failure,
            error,
            skipped,
            failed: failure || error,
        })
    }

    /// Reads past the first end tag `name`, telling `seen` every element opened before it;
    /// `unended` when the report ends first, or is malformed before it.
    fn skip_to(
        &mut self,
        name: &str,
        unended: LayoutError,
        mut seen: impl FnMut(&str),
    ) -> Result<(), LayoutError> {
        loop {
            if self.skip().is_err() {
                return Err(unended);
            }
            match self.event() {
                Ok(Event::Eof) | Err(_) => return Err(unended),
                Ok(Event::End(e)) if e.name().as_ref() == name => return Ok(()),
                Ok(Event::Start(e) | Event::Empty(e)) => seen(e.name().as_ref()),
                Ok(_) => {}
            }
        }
    }
}

/// The attributes of `e` (at `at`) in order, their values unescaped.
fn attributes(e: &BytesStart<'_>, at: usize) -> Result<Vec<(String, String)>, LayoutError> {
    let bad = |what: String| LayoutError::Tag { at, what };
    e.attributes()
        .with_checks(false)
        .map(|attr| {
            let attr = attr.map_err(|err| bad(format!("a malformed attribute: {err}")))?;
            let value = quick_xml::escape::unescape(&attr.value)
                .map_err(|_| bad("a bad entity".to_string()))?;
            Ok((attr.key.as_ref().to_string(), value.into_owned()))
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const HEAD: &str =
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><testsuites name=\"pytest tests\">";
    const SUITE: &str = "<testsuite name=\"pytest\" errors=\"1\" failures=\"1\" skipped=\"1\" \
        tests=\"4\" time=\"0.1\" timestamp=\"t\" hostname=\"h\">";
    const PROPS: &str = "<properties><property name=\"k\" value=\"v &amp; w\" /></properties>";
    const PASS: &str = "<testcase classname=\"tests.test_a\" name=\"test_p[a&amp;b&lt;c&gt;&quot;d]\" \
        file=\"tests/test_a.py\" line=\"3\" time=\"0.001\" />";
    const FAIL: &str = "<testcase classname=\"tests.test_a\" name=\"test_f\" time=\"0.0\"><failure \
        message=\"assert 1 == 2&#10;+ where\">tests/test_a.py:9: AssertionError</failure>\
        <system-out>out &lt;b&gt;</system-out></testcase>";
    const ERROR: &str = "<testcase classname=\"\" name=\"tests.test_c\" time=\"0.0\"><error \
        message=\"collection failure\">E</error></testcase>";
    const SKIP: &str = "<testcase classname=\"tests.test_a\" name=\"test_s\" time=\"0.0\"><skipped \
        type=\"pytest.xfail\" message=\"known\" /></testcase>";
    const TAIL: &str = "</testsuite></testsuites>";

    /// A case as plain values: its span, classname, name, file and outcome flags.
    type Seen<'a> = (usize, usize, &'a str, &'a str, &'a str, [bool; 4]);

    /// Where `part` starts in `text` and the byte after it.
    fn span(text: &str, part: &str) -> (usize, usize) {
        let start = text.find(part).unwrap();
        (start, start + part.len())
    }

    #[test]
    fn every_part_is_found_where_pytest_wrote_it() {
        let text = format!("{HEAD}{SUITE}{PROPS}{PASS}{FAIL}{ERROR}{SKIP}{TAIL}\n");
        let got = layout(text.as_bytes()).unwrap();
        assert_eq!(got.suite_start, HEAD.len());
        assert_eq!(got.suite_attrs[0], ("name".into(), "pytest".into()));
        assert_eq!(got.suite_attrs.len(), 8);
        assert_eq!(got.suite_properties, Some(span(&text, PROPS)));
        assert_eq!(got.tail, text.find("</testsuites>").unwrap());
        let cases: Vec<Seen<'_>> = got
            .cases
            .iter()
            .map(|c| {
                (
                    c.start,
                    c.end,
                    c.classname.as_str(),
                    c.name.as_str(),
                    c.file.as_str(),
                    [c.failure, c.error, c.skipped, c.failed],
                )
            })
            .collect();
        let at = |part| span(&text, part);
        assert_eq!(
            cases,
            [
                (
                    at(PASS).0,
                    at(PASS).1,
                    "tests.test_a",
                    "test_p[a&b<c>\"d]",
                    "tests/test_a.py",
                    [false, false, false, false]
                ),
                (
                    at(FAIL).0,
                    at(FAIL).1,
                    "tests.test_a",
                    "test_f",
                    "",
                    [true, false, false, true]
                ),
                (
                    at(ERROR).0,
                    at(ERROR).1,
                    "",
                    "tests.test_c",
                    "",
                    [false, true, false, true]
                ),
                (
                    at(SKIP).0,
                    at(SKIP).1,
                    "tests.test_a",
                    "test_s",
                    "",
                    [false, false, true, false]
                ),
            ]
        );
    }

    #[test]
    fn an_empty_run_has_no_cases() {
        let text = format!("{HEAD}<testsuite name=\"x\" tests=\"0\" /></testsuites>");
        let got = layout(text.as_bytes()).unwrap();
        assert_eq!(got.suite_start, HEAD.len());
        assert_eq!(got.tail, text.len() - "</testsuites>".len());
        assert!(got.cases.is_empty());
        assert_eq!(got.suite_properties, None);
    }

    #[test]
    fn what_pytest_does_not_write_is_refused() {
        let table: &[(&str, String, LayoutError)] = &[
            (
                "no declaration",
                format!("<testsuites>{SUITE}{PASS}{TAIL}"),
                LayoutError::Head,
            ),
            (
                "a bare suite root",
                format!("<?xml version=\"1.0\" encoding=\"utf-8\"?>{SUITE}{PASS}</testsuite>"),
                LayoutError::Root,
            ),
            (
                "two suites",
                format!("{HEAD}{SUITE}{PASS}</testsuite>{SUITE}{TAIL}"),
                LayoutError::Tail,
            ),
            (
                "a nested suite",
                format!("{HEAD}{SUITE}{SUITE}{PASS}</testsuite>{TAIL}"),
                LayoutError::Unexpected {
                    at: HEAD.len() + SUITE.len(),
                    name: "testsuite".into(),
                },
            ),
            (
                "properties after a case",
                format!("{HEAD}{SUITE}{PASS}{PROPS}{TAIL}"),
                LayoutError::Unexpected {
                    at: HEAD.len() + SUITE.len() + PASS.len(),
                    name: "properties".into(),
                },
            ),
            (
                "a case that does not end",
                format!("{HEAD}{SUITE}<testcase name=\"x\">{TAIL}"),
                LayoutError::CaseEnd,
            ),
            (
                "a case without a name",
                format!("{HEAD}{SUITE}<testcase classname=\"a\" />{TAIL}"),
                LayoutError::CaseName,
            ),
            (
                "text between cases",
                format!("{HEAD}{SUITE}{PASS}\n{PASS}{TAIL}"),
                LayoutError::Tag {
                    at: HEAD.len() + SUITE.len() + PASS.len(),
                    what: "expected a tag".into(),
                },
            ),
            (
                "truncated",
                format!("{HEAD}{SUITE}{PASS}"),
                LayoutError::Tag {
                    at: HEAD.len() + SUITE.len() + PASS.len(),
                    what: "expected a tag".into(),
                },
            ),
            (
                "something after the root",
                format!("{HEAD}{SUITE}{PASS}{TAIL}<testsuites>"),
                LayoutError::Tail,
            ),
        ];
        for (name, text, want) in table {
            assert_eq!(layout(text.as_bytes()).as_ref(), Err(want), "{name}");
        }
    }
}
