//! A streaming reader of JUnit XML as pytest (xunit1 and xunit2), xdist and the rerun plugins
//! write it.
//!
//! The report is read event by event from a `BufRead`: nothing but the current test case's
//! classname, name, file, `replay` property and pytest-lanes-gate's properties is held. The
//! bodies of `<failure>`, `<error>`,
//! `<skipped>`, `<system-out>`, `<system-err>` and the retry elements are consumed straight
//! from the underlying reader up to the next `<`, so a captured log of any size is never
//! buffered. Suite-level counts (`tests=`, `failures=`) are never read: only cases count.
//!
//! A DOCTYPE (and with it any entity declaration) is refused, never expanded.

use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use crate::detail::DetailScan;

mod layout;

pub use crate::resolve::junit_key;
pub use layout::{CaseSpan, Layout, LayoutError, layout};

/// What one `<testcase>` element says happened. Ordered from best to worst: when the same
/// case is reported more than once, the worst outcome counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    Passed,
    /// `<skipped type="pytest.xfail">`: an expected failure did fail.
    XFail,
    /// `<skipped>`: did not run.
    Skipped,
    /// `<failure>` (pytest also writes a strict xpass as a failure).
    Failed,
    /// `<error>`: setup/teardown error, or a collection error on a module case.
    Error,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::XFail => "xfail",
            Outcome::Skipped => "skipped",
            Outcome::Failed => "failed",
            Outcome::Error => "error",
        }
    }

    pub(crate) fn is_failure(self) -> bool {
        matches!(self, Outcome::Failed | Outcome::Error)
    }

    pub(crate) fn is_skip(self) -> bool {
        matches!(self, Outcome::Skipped | Outcome::XFail)
    }
}

/// One `<testcase>` as the reader hands it over; borrowed from buffers reused for the next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case<'a> {
    pub classname: &'a str,
    pub name: &'a str,
    /// The `file` attribute (xunit1), when present.
    pub file: Option<&'a str>,
    pub outcome: Outcome,
    /// A `<failure>` whose message marks a strict xpass (`[XPASS(strict)]`).
    pub xpass: bool,
    /// `<flakyFailure>`, `<flakyError>`, `<rerunFailure>` or `<rerunError>` inside the case.
    pub retry: bool,
    /// The value of the case's `replay` property.
    pub replay: Option<&'a str>,
    /// What pytest-lanes-gate recorded about the item at run time, when it did.
    pub runtime: Option<Runtime<'a>>,
    /// What the case's first `<failure>` or `<error>` said, when it has one.
    pub detail: Option<Detail<'a>>,
}

/// The first lines of a failure or error message and the line it failed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detail<'a> {
    /// Up to `crate::detail::DETAIL_LINES` non-blank lines joined by `\n`, each cut at
    /// `crate::detail::DETAIL_LINE_CHARS` characters: the `message` attribute, else the
    /// element's text. Empty when neither says anything.
    pub message: &'a str,
    /// `path:line`: the case's `file` and `line` attributes (xunit1; pytest writes the line
    /// 0-based, this is 1-based), else the last `path:NNN:` line of the element's text that
    /// points inside the checkout.
    pub at: Option<&'a str>,
}

/// The properties pytest-lanes-gate writes on every case of an adopted project: the lane marks
/// that reached the item at run time (comma-separated), its test id, and the file and line of
/// its definition. A case counts as carrying them when it has `lanes_marks` and `lanes_test`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Runtime<'a> {
    pub marks: &'a str,
    pub test: &'a str,
    pub file: &'a str,
    pub line: &'a str,
}

/// The property names of [`Runtime`], in its field order.
pub(crate) const RUNTIME_PROPERTIES: [&str; 4] =
    ["lanes_marks", "lanes_test", "lanes_file", "lanes_line"];

/// Why a report could not be read; `offset` is the byte offset in the file.
#[derive(Debug, thiserror::Error)]
pub enum JunitError {
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error("{message}")]
    Syntax { offset: u64, message: String },
}

impl JunitError {
    fn at(offset: u64, message: impl Into<String>) -> Self {
        JunitError::Syntax {
            offset,
            message: message.into(),
        }
    }
}

/// Counts a reader saw, for tests and diagnostics (not trusted for the vote).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadStats {
    pub cases: u64,
    pub suites: u64,
    /// The largest event buffer the reader held (bytes): a tag with its attributes, never a
    /// text body, so it stays small however large the captured output is.
    pub peak_buffer: usize,
    /// Pieces read in parallel and joined ([`crate::parallel`]); 0 when read serially.
    pub joined: u64,
}

/// Reads the report at `path`, calling `sink` once per `<testcase>`. Errors are located as
/// `path:line:col`.
pub fn read_path(
    path: &Path,
    display: &str,
    sink: impl FnMut(&Case<'_>),
) -> Result<ReadStats, lane_core::Error> {
    read_path_with_suites(path, display, |_| {}, sink)
}

/// [`read_path`], also calling `on_suite` with every `<testsuite>`'s name
/// ([`read_with_suites`]).
pub fn read_path_with_suites(
    path: &Path,
    display: &str,
    on_suite: impl FnMut(&str),
    sink: impl FnMut(&Case<'_>),
) -> Result<ReadStats, lane_core::Error> {
    let file = lane_core::io::open_regular(path).map_err(|e| lane_core::Error::io(path, e))?;
    read_with_suites(file, on_suite, sink).map_err(|e| located(path, display, e))
}

/// A reading error of the report at `path`, located as `display:line:col`.
pub(crate) fn located(path: &Path, display: &str, error: JunitError) -> lane_core::Error {
    match error {
        JunitError::Io(e) => lane_core::Error::io(path, e),
        JunitError::Syntax { offset, message } => {
            let (line, col) = lane_core::io::open_regular(path)
                .and_then(|f| line_col(BufReader::new(f), offset))
                .unwrap_or((0, 0));
            lane_core::Error::parse(display, line, col, message)
        }
    }
}

/// Reads a report from bytes already in memory (tests, small inputs).
pub fn read_bytes(
    bytes: &[u8],
    display: &str,
    sink: impl FnMut(&Case<'_>),
) -> Result<ReadStats, lane_core::Error> {
    match read(bytes, sink) {
        Ok(stats) => Ok(stats),
        Err(JunitError::Io(e)) => Err(lane_core::Error::io(display, e)),
        Err(JunitError::Syntax { offset, message }) => {
            let (line, col) = line_col(bytes, offset).unwrap_or((0, 0));
            Err(lane_core::Error::parse(display, line, col, message))
        }
    }
}

/// 1-based line and column (in characters) of `offset`, counted by streaming `input` again.
pub(crate) fn line_col(input: impl BufRead, offset: u64) -> io::Result<(usize, usize)> {
    lane_core::Position::of_reader(input, offset).map(|at| (at.line, at.column))
}

/// Where an element sits, which decides what its children mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Suites,
    Suite,
    Case,
    CaseProperties,
    SuiteProperties,
    /// Text bodies and everything inside them: skipped.
    Body,
    /// An element lanes does not read (a `<property>`, a vendor extension).
    Other,
    /// The suites around a segment that starts at a `<testcase` in the middle of the report
    /// ([`crate::parallel`]): read as a `<testsuite>`, checked when the segments are joined.
    Base,
}

/// Everything a segment of the report needs to be read from its first byte on: the open
/// elements (what they are and their names, for end-tag checks), and whether the root was
/// seen. A segment read from an assumed `State::base` records the end tags that closed the
/// elements it did not see open, for the join to check against the real state.
#[derive(Debug, Clone, Default)]
pub(crate) struct State {
    stack: Vec<Kind>,
    /// The open elements' names, concatenated; `ends[i]` is where `stack[i]`'s name ends.
    names: String,
    ends: Vec<usize>,
    root_seen: bool,
    below: Vec<String>,
    /// The case being read where the segment ends inside one, and the depth of its
    /// `<failure>` or `<error>` whose text is being read.
    case: CaseBuf,
    detail_depth: Option<usize>,
}

impl State {
    /// A segment starting at a `<testcase` whose parent is some `<testsuite>` or
    /// `<testsuites>`.
    pub(crate) fn base() -> Self {
        State {
            stack: vec![Kind::Base],
            names: String::new(),
            ends: vec![0],
            root_seen: true,
            below: Vec::new(),
            case: CaseBuf::default(),
            detail_depth: None,
        }
    }

    fn push(&mut self, kind: Kind, name: &str) {
        self.stack.push(kind);
        self.names.push_str(name);
        self.ends.push(self.names.len());
    }

    fn top_name(&self) -> &str {
        let n = self.ends.len();
        let start = if n >= 2 { self.ends[n - 2] } else { 0 };
        &self.names[start..self.ends[n - 1]]
    }

    /// Closes the innermost element with the end tag `name`: what it was, or an error text.
    fn pop(&mut self, name: &str) -> Result<Option<Kind>, String> {
        match self.stack.last() {
            None => Err(format!("malformed XML: unexpected end tag </{name}>")),
            Some(Kind::Base) => {
                self.below.push(name.to_string());
                Ok(None)
            }
            Some(_) if self.top_name() != name => Err(format!(
                "malformed XML: expected </{}>, found </{name}>",
                self.top_name()
            )),
            Some(_) => {
                self.ends.pop();
                let start = self.ends.last().copied().unwrap_or(0);
                self.names.truncate(start);
                Ok(self.stack.pop())
            }
        }
    }

    /// Whether a `<testcase` read at this state is a case in a suite (all a segment read
    /// from `State::base` assumed), and all its open elements are suites.
    pub(crate) fn in_suites(&self) -> bool {
        !self.stack.is_empty()
            && self
                .stack
                .iter()
                .all(|k| matches!(k, Kind::Suites | Kind::Suite))
    }

    /// The state after `segment`, read from `State::base`, followed this one; `None` when
    /// what it assumed does not hold (then it must be read again from this state).
    pub(crate) fn then(&self, segment: &State) -> Option<State> {
        if !self.in_suites() || segment.below.len() >= self.stack.len() {
            return None;
        }
        let mut next = self.clone();
        next.case = segment.case.clone();
        for name in &segment.below {
            if next.top_name() != name {
                return None;
            }
            next.pop(name).ok()?;
        }
        // The segment's own open elements, above its base.
        for i in 1..segment.stack.len() {
            let start = segment.ends[i - 1];
            next.push(segment.stack[i], &segment.names[start..segment.ends[i]]);
        }
        // The failure being read, as deep below the top as it was in the segment.
        next.detail_depth = segment
            .detail_depth
            .map(|d| d + next.stack.len() - segment.stack.len());
        Some(next)
    }
}

/// The case being read; its buffers are reused from one case to the next.
#[derive(Debug, Clone, Default)]
struct CaseBuf {
    classname: String,
    name: String,
    has_name: bool,
    file: String,
    has_file: bool,
    outcome: Option<Outcome>,
    xpass: bool,
    retry: bool,
    replay: String,
    has_replay: bool,
    /// pytest-lanes-gate's properties, in [`RUNTIME_PROPERTIES`] order, and which were seen.
    runtime: [String; 4],
    has_runtime: [bool; 4],
    /// The `line` attribute (xunit1), as written.
    line: String,
    has_line: bool,
    /// A `<failure>` or `<error>` was seen; `detail` is what the first one said.
    has_detail: bool,
    detail: DetailScan,
    /// The location shown: from `file` and `line`, else from the text ([`CaseBuf::seal`]).
    at: String,
    has_at: bool,
}

impl CaseBuf {
    fn reset(&mut self) {
        self.classname.clear();
        self.name.clear();
        self.has_name = false;
        self.file.clear();
        self.has_file = false;
        self.outcome = None;
        self.xpass = false;
        self.retry = false;
        self.replay.clear();
        self.has_replay = false;
        for (value, seen) in self.runtime.iter_mut().zip(&mut self.has_runtime) {
            value.clear();
            *seen = false;
        }
        self.line.clear();
        self.has_line = false;
        self.has_detail = false;
        self.has_at = false;
    }

    /// Settles the failure's location before the case is handed over.
    fn seal(&mut self) {
        if !self.has_detail {
            return;
        }
        self.at.clear();
        self.has_at = false;
        let attr_line = if self.has_file && self.has_line {
            self.line.trim().parse::<u64>().ok()
        } else {
            None
        };
        if let Some(line) = attr_line {
            self.at.push_str(&self.file);
            self.at.push(':');
            self.at.push_str(&(line + 1).to_string());
            self.has_at = true;
        } else if self.detail.has_at {
            self.at.push_str(&self.detail.at);
            self.has_at = true;
        }
    }

    fn worsen(&mut self, outcome: Outcome) {
        self.outcome = Some(self.outcome.map_or(outcome, |o| o.max(outcome)));
    }

    fn as_case(&self) -> Case<'_> {
        Case {
            classname: &self.classname,
            name: &self.name,
            file: self.has_file.then_some(self.file.as_str()),
            outcome: self.outcome.unwrap_or(Outcome::Passed),
            xpass: self.xpass,
            retry: self.retry,
            replay: self.has_replay.then_some(self.replay.as_str()),
            runtime: (self.has_runtime[0] && self.has_runtime[1]).then(|| Runtime {
                marks: &self.runtime[0],
                test: &self.runtime[1],
                file: &self.runtime[2],
                line: &self.runtime[3],
            }),
            detail: self.has_detail.then(|| Detail {
                message: &self.detail.message,
                at: self.has_at.then_some(self.at.as_str()),
            }),
        }
    }
}

/// The longest single tag, comment-free declaration or processing instruction quick-xml is
/// handed (16 MiB): text, CDATA and comments are skipped in a bounded buffer whatever their
/// size, but a tag is read whole, so a larger one is refused (docs/robustness.md).
pub(crate) const MAX_TAG_BYTES: u64 = 16 << 20;

/// Size of the [`Source`] buffer.
const SOURCE_BUFFER: usize = 256 * 1024;

/// The report's bytes, through one bounded buffer that can look a few bytes ahead (to tell a
/// comment or CDATA section from a tag before quick-xml reads it whole) and that refuses a
/// single event longer than [`MAX_TAG_BYTES`].
struct Source<R> {
    inner: R,
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    eof: bool,
    /// Bytes consumed since the last [`Source::new_event`].
    event_bytes: u64,
}

impl<R: Read> Source<R> {
    fn new(inner: R) -> Self {
        Source {
            inner,
            buf: vec![0; SOURCE_BUFFER].into_boxed_slice(),
            start: 0,
            end: 0,
            eof: false,
            event_bytes: 0,
        }
    }

    fn new_event(&mut self) {
        self.event_bytes = 0;
    }

    /// At least `n` bytes buffered (fewer only at the end of the input); returns them all.
    fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        while self.end - self.start < n && !self.eof {
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(k) => self.end += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(&self.buf[self.start..self.end])
    }
}

impl<R: Read> Read for Source<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(out.len());
        out[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for Source<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.event_bytes > MAX_TAG_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "a tag, declaration or processing instruction longer than {MAX_TAG_BYTES} \
                     bytes; refused (pytest never writes one)"
                ),
            ));
        }
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            self.peek(1)?;
        }
        Ok(&self.buf[self.start..self.end])
    }

    fn consume(&mut self, n: usize) {
        self.start = (self.start + n).min(self.end);
        self.event_bytes += n as u64;
    }
}

/// A UTF-8 byte order mark at the very start of a report (some writers put one before the XML
/// declaration; XML allows it), consumed: how many bytes, 3 or 0.
fn skip_bom<R: Read>(source: &mut Source<R>) -> io::Result<u64> {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    if source.peek(BOM.len())?.starts_with(BOM) {
        source.consume(BOM.len());
        source.new_event();
        return Ok(BOM.len() as u64);
    }
    Ok(0)
}

/// What [`skip_text`] stopped at.
enum Skipped {
    /// `n` bytes skipped; the next byte is `<` of a tag (or the input ended).
    Bytes(u64),
    /// `n` bytes skipped, and the input ended inside a comment, CDATA section or
    /// processing instruction.
    Truncated(u64),
    /// Text that is not whitespace where none may be (outside the root element), at this
    /// many bytes from where skipping began.
    TextAt(u64),
}

/// Skips, straight from the buffer, text up to the next tag and any comments, CDATA sections
/// and (after the first byte of the report) processing instructions, however long: none of
/// them is ever held whole. `outside_root`: text there must be whitespace and CDATA is text.
/// `at_start`: nothing has been read yet (an XML declaration is left to quick-xml).
fn skip_text<R: Read>(
    source: &mut Source<R>,
    outside_root: bool,
    at_start: bool,
    mut capture: Option<&mut DetailScan>,
) -> Result<Skipped, JunitError> {
    let mut skipped = 0u64;
    loop {
        // Text up to the next `<`.
        loop {
            source.new_event();
            let buf = source.fill_buf()?;
            if buf.is_empty() {
                return Ok(Skipped::Bytes(skipped));
            }
            let len = buf.len();
            let upto = memchr::memchr(b'<', buf).unwrap_or(len);
            if outside_root
                && let Some(bad) = buf[..upto].iter().position(|b| !b.is_ascii_whitespace())
            {
                return Ok(Skipped::TextAt(skipped + bad as u64));
            }
            if let Some(detail) = capture.as_deref_mut() {
                detail.feed_text(&buf[..upto]);
            }
            source.consume(upto);
            skipped += upto as u64;
            if upto < len {
                break;
            }
        }
        let head = source.peek(9)?;
        let (terminator, is_text): (&[u8], bool) = if head.starts_with(b"<!--") {
            (b"-->", false)
        } else if head.starts_with(b"<![CDATA[") {
            (b"]]>", true)
        } else if head.starts_with(b"<?") && !(at_start && skipped == 0) {
            (b"?>", false)
        } else {
            return Ok(Skipped::Bytes(skipped));
        };
        if is_text && outside_root {
            return Ok(Skipped::TextAt(skipped));
        }
        let opener = if is_text { 9 } else { 2 };
        source.consume(opener);
        skipped += opener as u64;
        loop {
            source.new_event();
            let buf = source.peek(terminator.len())?;
            if buf.len() < terminator.len() {
                // Truncated: let quick-xml's reader report the end of the input.
                let n = buf.len();
                source.consume(n);
                return Ok(Skipped::Truncated(skipped + n as u64));
            }
            if let Some(i) = memchr::memmem::find(buf, terminator) {
                if is_text && let Some(detail) = capture.as_deref_mut() {
                    detail.feed_cdata(&buf[..i]);
                }
                source.consume(i + terminator.len());
                skipped += (i + terminator.len()) as u64;
                break;
            }
            let n = buf.len() - (terminator.len() - 1);
            if is_text && let Some(detail) = capture.as_deref_mut() {
                detail.feed_cdata(&buf[..n]);
            }
            source.consume(n);
            skipped += n as u64;
        }
    }
}

/// Reads one attribute value into `out` (normalized: entities and whitespace as XML says).
fn attr_into(
    attr: &quick_xml::events::attributes::Attribute<'_>,
    out: &mut String,
    offset: u64,
) -> Result<(), JunitError> {
    let value = attr
        .normalized_value(XmlVersion::Implicit1_0)
        .map_err(|e| JunitError::at(offset, format!("attribute {}: {e}", attr.key.as_ref())))?;
    out.clear();
    out.push_str(&value);
    Ok(())
}

fn element_name(e: &BytesStart<'_>) -> String {
    e.name().as_ref().to_string()
}

/// The streaming reader. `sink` is called once per `<testcase>`, in document order.
pub(crate) fn read<R: Read>(
    input: R,
    sink: impl FnMut(&Case<'_>),
) -> Result<ReadStats, JunitError> {
    read_with_suites(input, |_| {}, sink)
}

/// `read`, also calling `on_suite` with the `name` of every `<testsuite>` that has one (the
/// run manifest lane-gate gives pytest), in document order.
pub fn read_with_suites<R: Read>(
    input: R,
    on_suite: impl FnMut(&str),
    sink: impl FnMut(&Case<'_>),
) -> Result<ReadStats, JunitError> {
    let mut state = State::default();
    read_segment(input, 0, &mut state, true, on_suite, sink)
}

/// quick-xml's reader over `input`, through a bounded [`Source`].
fn xml_reader<R: Read>(input: R) -> Reader<Source<R>> {
    configured(Reader::from_reader(Source::new(input)))
}

/// `reader` as the reports are read: end tags are matched here, not by quick-xml (a segment's
/// end tags close elements opened before it began), comments are not checked, an empty
/// element stays one event, and text is kept as it is.
fn configured<R>(mut reader: Reader<R>) -> Reader<R> {
    let config = reader.config_mut();
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    config.check_comments = false;
    config.expand_empty_elements = false;
    config.trim_text(false);
    reader
}

/// Reads `input`, the report's bytes from offset `base` on, from `state` (updated as it goes).
/// `last`: the input ends where the report does, so whatever is still open is an error; a
/// segment that is not the last stops at its end, and one read from an assumed
/// `State::base` is refused where it ends inside a comment, CDATA section or tag, or reaches
/// outside its suites (the join reads it again from the real state).
///
/// One loop over the event stream: text, comments and CDATA are skipped behind quick-xml's
/// back ([`skip_text`]), and each event goes to the [`Segment`] method for it, where what an
/// element means is decided by the element it opens in.
pub(crate) fn read_segment<R: Read>(
    input: R,
    base: u64,
    state: &mut State,
    last: bool,
    on_suite: impl FnMut(&str),
    sink: impl FnMut(&Case<'_>),
) -> Result<ReadStats, JunitError> {
    let mut reader = xml_reader(input);
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    let mut segment = Segment::new(state, on_suite, sink);
    // Bytes consumed behind quick-xml's back by `skip_text`, and the segment's offset in the
    // report, for error offsets.
    let mut skipped = base;
    if base == 0 {
        skipped += skip_bom(reader.get_mut()).map_err(JunitError::Io)?;
    }
    loop {
        let here = reader.buffer_position() + skipped;
        skipped += segment.skip(reader.get_mut(), here, last)?;
        reader.get_mut().new_event();
        // The previous event's buffer, before it is reused.
        segment.stats.peak_buffer = segment.stats.peak_buffer.max(buf.capacity());
        buf.clear();
        let pos = reader.buffer_position() + skipped;
        let event = match reader.read_event_into(&mut buf) {
            Ok(event) => event,
            Err(e) => return Err(xml_error(e, reader.error_position() + skipped)),
        };
        match event {
            Event::DocType(_) => {
                return Err(JunitError::at(
                    pos,
                    "a DOCTYPE (and any entity declaration) is refused in a JUnit report; \
                     pytest never writes one",
                ));
            }
            Event::Start(ref e) => segment.open(e, pos, false)?,
            Event::Empty(ref e) => segment.open(e, pos, true)?,
            Event::End(ref e) => segment.close(e.name().as_ref(), pos)?,
            Event::Text(ref t) if segment.outside_root() => {
                let text: &str = t.as_ref();
                if !text.bytes().all(|b| b.is_ascii_whitespace()) {
                    return Err(not_a_report(pos));
                }
            }
            Event::GeneralRef(_) | Event::CData(_) if segment.outside_root() => {
                return Err(not_a_report(pos));
            }
            Event::Text(_) | Event::GeneralRef(_) | Event::CData(_) => {}
            Event::Comment(_) | Event::PI(_) | Event::Decl(_) => {}
            Event::Eof => return segment.end(pos, last),
        }
    }
}

/// quick-xml's error at `offset`, as the reader reports it.
fn xml_error(error: quick_xml::Error, offset: u64) -> JunitError {
    match error {
        quick_xml::Error::Io(e) => JunitError::Io(
            std::sync::Arc::try_unwrap(e)
                .unwrap_or_else(|a| io::Error::new(a.kind(), a.to_string())),
        ),
        e => JunitError::at(offset, format!("malformed XML: {e}")),
    }
}

/// One segment being read: the open elements (`state`), the case being read, the buffers its
/// properties are read into, and where cases and suite names go.
struct Segment<'s, S, C> {
    state: &'s mut State,
    case: CaseBuf,
    prop_name: String,
    prop_value: String,
    scratch: String,
    stats: ReadStats,
    /// The depth of the `<failure>` or `<error>` whose text is being read into the case's
    /// detail, while it is.
    detail_depth: Option<usize>,
    on_suite: S,
    sink: C,
}

// The methods every event goes through are `#[inline(always)]`: called from the one loop of
// `read_segment`, they cost about 1.5% more instructions on a large report (callgrind, one
// thread) where the compiler leaves them out of line.
impl<'s, S: FnMut(&str), C: FnMut(&Case<'_>)> Segment<'s, S, C> {
    fn new(state: &'s mut State, on_suite: S, sink: C) -> Self {
        Segment {
            case: std::mem::take(&mut state.case),
            detail_depth: state.detail_depth.take(),
            state,
            prop_name: String::new(),
            prop_value: String::new(),
            scratch: String::new(),
            stats: ReadStats::default(),
            on_suite,
            sink,
        }
    }

    /// Skips the text before the next tag ([`skip_text`]), feeding a failure's text to the
    /// case's detail; returns how many bytes it skipped.
    #[inline(always)]
    fn skip<R: Read>(
        &mut self,
        source: &mut Source<R>,
        here: u64,
        last: bool,
    ) -> Result<u64, JunitError> {
        let capture = self.detail_depth.is_some().then_some(&mut self.case.detail);
        match skip_text(source, self.state.stack.is_empty(), here == 0, capture)? {
            Skipped::Bytes(n) => Ok(n),
            Skipped::Truncated(n) if !last => Err(JunitError::at(
                here + n,
                "the segment ends inside a comment, CDATA section or processing instruction",
            )),
            Skipped::Truncated(n) => Ok(n),
            Skipped::TextAt(n) => Err(not_a_report(here + n)),
        }
    }

    /// Whether no element is open: text there (other than whitespace) is an error.
    fn outside_root(&self) -> bool {
        self.state.stack.is_empty()
    }

    /// A start tag, or an empty element (`empty`): what it is depends on the element it
    /// opens in.
    #[inline(always)]
    fn open(&mut self, e: &BytesStart<'_>, pos: u64, empty: bool) -> Result<(), JunitError> {
        let name = e.name();
        let local: &str = name.as_ref();
        let kind = match self.state.stack.last().copied() {
            None => self.open_root(e, local, pos)?,
            Some(Kind::Suites | Kind::Suite | Kind::Base) => self.open_in_suite(e, local, pos)?,
            Some(Kind::Case) => self.open_in_case(e, local, pos, empty)?,
            Some(Kind::CaseProperties) => {
                if local == "property" {
                    self.read_property(e, pos)?;
                }
                Kind::Other
            }
            Some(Kind::SuiteProperties | Kind::Other) => Kind::Other,
            Some(Kind::Body) => Kind::Body,
        };
        if !empty {
            self.state.push(kind, local);
        } else if kind == Kind::Case {
            self.give_case();
        }
        Ok(())
    }

    /// The root element: `<testsuites>` or `<testsuite>`, once.
    fn open_root(&mut self, e: &BytesStart<'_>, local: &str, pos: u64) -> Result<Kind, JunitError> {
        if self.state.root_seen {
            return Err(JunitError::at(
                pos,
                format!(
                    "unexpected <{}> after the root element ended",
                    element_name(e)
                ),
            ));
        }
        self.state.root_seen = true;
        match local {
            "testsuites" => Ok(Kind::Suites),
            "testsuite" => self.open_suite(e, pos),
            _ => Err(JunitError::at(
                pos,
                format!(
                    "unknown root element <{}>: expected <testsuites> or <testsuite> (a JUnit \
                     XML report)",
                    element_name(e)
                ),
            )),
        }
    }

    /// A `<testsuite>`: counted, and its name (the run manifest) handed over.
    fn open_suite(&mut self, e: &BytesStart<'_>, pos: u64) -> Result<Kind, JunitError> {
        self.stats.suites += 1;
        if read_attr(e, "name", &mut self.scratch, pos)? {
            (self.on_suite)(&self.scratch);
        }
        Ok(Kind::Suite)
    }

    /// An element in a suite: a nested suite, a case, the suite's properties or output.
    #[inline(always)]
    fn open_in_suite(
        &mut self,
        e: &BytesStart<'_>,
        local: &str,
        pos: u64,
    ) -> Result<Kind, JunitError> {
        match local {
            "testsuite" => self.open_suite(e, pos),
            "testcase" => {
                self.case.reset();
                read_case_attrs(e, &mut self.case, pos)?;
                if !self.case.has_name {
                    return Err(JunitError::at(
                        pos,
                        "<testcase> without a name attribute: expected name=\"test_...\"",
                    ));
                }
                Ok(Kind::Case)
            }
            "properties" => Ok(Kind::SuiteProperties),
            "system-out" | "system-err" => Ok(Kind::Body),
            _ => Ok(Kind::Other),
        }
    }

    /// An element in a case: its outcome (`<failure>`, `<error>`, `<skipped>`), retry
    /// evidence, its properties, or a body.
    #[inline(always)]
    fn open_in_case(
        &mut self,
        e: &BytesStart<'_>,
        local: &str,
        pos: u64,
        empty: bool,
    ) -> Result<Kind, JunitError> {
        match local {
            "failure" => self.open_failure(e, pos, Outcome::Failed, empty)?,
            "error" => self.open_failure(e, pos, Outcome::Error, empty)?,
            "skipped" => {
                let xfail =
                    read_attr(e, "type", &mut self.scratch, pos)? && self.scratch == "pytest.xfail";
                self.case.worsen(if xfail {
                    Outcome::XFail
                } else {
                    Outcome::Skipped
                });
            }
            "flakyFailure" | "flakyError" | "rerunFailure" | "rerunError" => {
                self.case.retry = true;
            }
            "properties" => return Ok(Kind::CaseProperties),
            _ => {}
        }
        Ok(Kind::Body)
    }

    /// A `<failure>` or `<error>`: the case's outcome, a strict xpass, and (the first one)
    /// what it said.
    fn open_failure(
        &mut self,
        e: &BytesStart<'_>,
        pos: u64,
        outcome: Outcome,
        empty: bool,
    ) -> Result<(), JunitError> {
        self.case.worsen(outcome);
        let has_message = read_attr(e, "message", &mut self.scratch, pos)?;
        if outcome == Outcome::Failed && has_message && self.scratch.starts_with("[XPASS(strict)]")
        {
            self.case.xpass = true;
        }
        if self.case.has_detail {
            return Ok(());
        }
        self.case.has_detail = true;
        self.case.detail.reset();
        if has_message {
            self.case.detail.set_message(&self.scratch);
        }
        if empty {
            self.case.detail.finish();
        } else {
            self.detail_depth = Some(self.state.stack.len() + 1);
        }
        Ok(())
    }

    /// A case's `<property>`: its `replay` and pytest-lanes-gate's properties are kept.
    fn read_property(&mut self, e: &BytesStart<'_>, pos: u64) -> Result<(), JunitError> {
        let case = &mut self.case;
        let has_name = read_attr(e, "name", &mut self.prop_name, pos)?;
        if has_name
            && self.prop_name == "replay"
            && read_attr(e, "value", &mut self.prop_value, pos)?
        {
            case.replay.clear();
            case.replay.push_str(&self.prop_value);
            case.has_replay = true;
        }
        if let Some(i) = RUNTIME_PROPERTIES
            .iter()
            .position(|p| has_name && *p == self.prop_name)
            && read_attr(e, "value", &mut self.prop_value, pos)?
        {
            case.runtime[i].clear();
            case.runtime[i].push_str(&self.prop_value);
            case.has_runtime[i] = true;
        }
        Ok(())
    }

    /// An end tag: closes the innermost element (a failure's text ends, a case is handed
    /// over).
    #[inline(always)]
    fn close(&mut self, name: &str, pos: u64) -> Result<(), JunitError> {
        if self.detail_depth == Some(self.state.stack.len()) {
            self.detail_depth = None;
            self.case.detail.finish();
        }
        let closed = self
            .state
            .pop(name)
            .map_err(|message| JunitError::at(pos, message))?;
        if closed == Some(Kind::Case) {
            self.give_case();
        }
        Ok(())
    }

    /// Hands the case just read to the sink.
    #[inline(always)]
    fn give_case(&mut self) {
        self.stats.cases += 1;
        self.case.seal();
        (self.sink)(&self.case.as_case());
    }

    /// The end of the input: of the segment (its state kept for the next), or of the report
    /// (`last`: nothing may be open).
    fn end(self, pos: u64, last: bool) -> Result<ReadStats, JunitError> {
        let state = self.state;
        if !last {
            state.case = self.case;
            state.detail_depth = self.detail_depth;
            return Ok(self.stats);
        }
        if let Some(open) = state.stack.last() {
            let n = state.stack.len();
            return Err(JunitError::at(
                pos,
                format!(
                    "unexpected end of file inside {} ({n} element{} still open): the report \
                     is truncated",
                    describe(*open),
                    if n == 1 { "" } else { "s" }
                ),
            ));
        }
        if !state.root_seen {
            return Err(JunitError::at(
                pos,
                "empty report: expected a <testsuites> or <testsuite> root element",
            ));
        }
        Ok(self.stats)
    }
}

/// Text where a report has none: outside the root element.
fn not_a_report(offset: u64) -> JunitError {
    JunitError::at(
        offset,
        "expected a JUnit XML report (<testsuites> or <testsuite>), found text",
    )
}

fn describe(kind: Kind) -> &'static str {
    match kind {
        Kind::Suites => "<testsuites>",
        Kind::Suite => "a <testsuite>",
        Kind::Case => "a <testcase>",
        Kind::CaseProperties | Kind::SuiteProperties => "<properties>",
        Kind::Body => "a failure, error, skipped or output body",
        Kind::Other => "an element",
        Kind::Base => "a <testsuite>",
    }
}

fn read_case_attrs(e: &BytesStart<'_>, case: &mut CaseBuf, pos: u64) -> Result<(), JunitError> {
    let mut seen_classname = false;
    for attr in e.attributes().with_checks(false) {
        let attr =
            attr.map_err(|err| JunitError::at(pos, format!("malformed attribute: {err}")))?;
        let (target, seen) = match attr.key.as_ref() {
            "classname" => (&mut case.classname, &mut seen_classname),
            "name" => (&mut case.name, &mut case.has_name),
            "file" => (&mut case.file, &mut case.has_file),
            "line" => (&mut case.line, &mut case.has_line),
            _ => continue,
        };
        if *seen {
            return Err(JunitError::at(
                pos,
                format!("<testcase> has the attribute {} twice", attr.key.as_ref()),
            ));
        }
        *seen = true;
        attr_into(&attr, target, pos)?;
    }
    Ok(())
}

/// Reads attribute `key` of `e` into `out`; false when it is absent.
fn read_attr(
    e: &BytesStart<'_>,
    key: &str,
    out: &mut String,
    pos: u64,
) -> Result<bool, JunitError> {
    for attr in e.attributes().with_checks(false) {
        let attr =
            attr.map_err(|err| JunitError::at(pos, format!("malformed attribute: {err}")))?;
        if attr.key.as_ref() == key {
            attr_into(&attr, out, pos)?;
            return Ok(true);
        }
    }
    Ok(false)
}

/// Reads everything from `input` (helper for callers that hold a `Read`).
pub fn read_from<R: Read>(input: R, sink: impl FnMut(&Case<'_>)) -> Result<ReadStats, JunitError> {
    read(input, sink)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Eq)]
    struct Owned {
        classname: String,
        name: String,
        file: Option<String>,
        outcome: Outcome,
        xpass: bool,
        retry: bool,
        replay: Option<String>,
    }

    fn cases(xml: &str) -> Result<Vec<Owned>, String> {
        let mut out = Vec::new();
        read_bytes(xml.as_bytes(), "r.xml", |c| {
            out.push(Owned {
                classname: c.classname.to_string(),
                name: c.name.to_string(),
                file: c.file.map(str::to_string),
                outcome: c.outcome,
                xpass: c.xpass,
                retry: c.retry,
                replay: c.replay.map(str::to_string),
            })
        })
        .map_err(|e| e.to_string())?;
        Ok(out)
    }

    fn summary(xml: &str) -> Result<Vec<String>, String> {
        Ok(cases(xml)?
            .into_iter()
            .map(|c| {
                let mut s = format!("{}|{}|{}", c.classname, c.name, c.outcome.as_str());
                if let Some(f) = c.file {
                    s.push_str(&format!("|file={f}"));
                }
                if c.xpass {
                    s.push_str("|xpass");
                }
                if c.retry {
                    s.push_str("|retry");
                }
                if let Some(r) = c.replay {
                    s.push_str(&format!("|replay={r}"));
                }
                s
            })
            .collect())
    }

    const XUNIT2: &str = r#"<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="0" failures="1" skipped="0" tests="3" time="0.070" timestamp="2026-12-02T17:43:28.128197+00:00" hostname="vm"><testcase classname="tests.test_a" name="test_pass" time="0.001"><properties><property name="replay" value="caps/a.bin" /></properties></testcase><testcase classname="tests.test_a" name="test_fail" time="0.001"><failure message="AssertionError: a&lt;b &amp; c">long
traceback &lt;module&gt; here</failure><system-out>captured</system-out></testcase><testcase classname="tests.test_a.TestK" name="test_p[1-a b]" time="0.000" /></testsuite></testsuites>"#;

    const XUNIT1: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="0" failures="0" skipped="1" tests="2" time="0.1" timestamp="2026-12-02T17:43:28.128197">
<testcase classname="test_a" name="test_pass" file="test_a.py" line="1" time="0.001" />
<testcase classname="test_a" name="test_xfail" file="test_a.py" line="11" time="0.000"><skipped type="pytest.xfail" message="known" /></testcase>
</testsuite></testsuites>"#;

    #[test]
    fn reader_table() {
        let table: &[(&str, &str, &[&str])] = &[
            (
                "xunit2 with properties, failure body and output",
                XUNIT2,
                &[
                    "tests.test_a|test_pass|passed|replay=caps/a.bin",
                    "tests.test_a|test_fail|failed",
                    "tests.test_a.TestK|test_p[1-a b]|passed",
                ],
            ),
            (
                "xunit1 with file attributes and xfail, naive timestamp",
                XUNIT1,
                &[
                    "test_a|test_pass|passed|file=test_a.py",
                    "test_a|test_xfail|xfail|file=test_a.py",
                ],
            ),
            (
                "bare testsuite root",
                r#"<testsuite tests="99"><testcase classname="m" name="t"/></testsuite>"#,
                &["m|t|passed"],
            ),
            (
                "nested suites and suite properties",
                r#"<testsuites><testsuite><properties><property name="replay" value="no"/></properties><testsuite><testcase classname="a" name="t1"/></testsuite><testcase classname="b" name="t2"><skipped type="pytest.skip" message="x">why</skipped></testcase></testsuite></testsuites>"#,
                &["a|t1|passed", "b|t2|skipped"],
            ),
            (
                "error and failure: the worst counts",
                r#"<testsuite><testcase classname="a" name="t"><failure message="f"/><error message="teardown"/></testcase></testsuite>"#,
                &["a|t|error"],
            ),
            (
                "strict xpass is a failure",
                r#"<testsuite><testcase classname="a" name="t"><failure message="[XPASS(strict)] known">[XPASS(strict)] known</failure></testcase></testsuite>"#,
                &["a|t|failed|xpass"],
            ),
            (
                "retry evidence (surefire style, nested children)",
                r#"<testsuite><testcase classname="a" name="t"><flakyFailure message="m" type="AssertionError"><stackTrace>at x &lt;y&gt;</stackTrace><system-out><![CDATA[<not markup>]]></system-out></flakyFailure></testcase><testcase classname="a" name="u"><rerunError/></testcase><testcase classname="a" name="v"><flakyError/></testcase><testcase classname="a" name="w"><rerunFailure>x</rerunFailure></testcase></testsuite>"#,
                &[
                    "a|t|passed|retry",
                    "a|u|passed|retry",
                    "a|v|passed|retry",
                    "a|w|passed|retry",
                ],
            ),
            (
                "collection error: empty classname",
                r#"<testsuites><testsuite><testcase classname="" name="sub.test_broken" time="0.000"><error message="collection failure">ImportError</error></testcase></testsuite></testsuites>"#,
                &["|sub.test_broken|error"],
            ),
            (
                "comments, processing instructions and entities in attributes",
                "<?xml version=\"1.0\"?>\n<!-- c --><?pi x?><testsuite><testcase classname=\"a\" name=\"t[&quot;&amp;&#65;]\"/></testsuite>\n",
                &["a|t[\"&A]|passed"],
            ),
            ("empty testsuites", "<testsuites/>", &[]),
        ];
        for (name, xml, expected) in table {
            let got = summary(xml).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(got, *expected, "{name}");
        }
    }

    fn details(xml: &str) -> Vec<String> {
        let mut out = Vec::new();
        read_bytes(xml.as_bytes(), "r.xml", |c| {
            out.push(match c.detail {
                None => format!("{}: none", c.name),
                Some(d) => format!("{}: {:?} at {:?}", c.name, d.message, d.at),
            })
        })
        .unwrap_or_else(|e| panic!("{e}"));
        out
    }

    #[test]
    fn failure_details_table() {
        let tb = "x = 41\n\n    def test(x):\n&gt;       assert f(x) == 84\nE       assert 82 == 84\n\ntests/helpers.py:4: in f\n    return 2 * x\ntests/test_a.py:18: AssertionError\n/usr/lib/python3.13/x.py:9: in g";
        let table: &[(&str, String, &[&str])] = &[
            (
                "message attribute, location from the traceback's last in-checkout line",
                format!(r#"<testsuite><testcase classname="a" name="t"><failure message="assert 82 == 84&#10;+  where 82 = f(41)">{tb}</failure></testcase></testsuite>"#),
                &[r#"t: "assert 82 == 84\n+  where 82 = f(41)" at Some("tests/test_a.py:18")"#],
            ),
            (
                "no message attribute: the text's first three non-blank lines",
                format!(r#"<testsuite><testcase classname="a" name="t"><error>{tb}</error></testcase></testsuite>"#),
                &[r#"t: "x = 41\ndef test(x):\n>       assert f(x) == 84" at Some("tests/test_a.py:18")"#],
            ),
            (
                "xunit1 file and 0-based line win over the traceback",
                format!(r#"<testsuite><testcase classname="a" name="t" file="tests/test_a.py" line="11"><failure message="boom">{tb}</failure></testcase><testcase classname="a" name="u" file="tests/test_a.py" line="20"/></testsuite>"#),
                &[r#"t: "boom" at Some("tests/test_a.py:12")"#, "u: none"],
            ),
            (
                "CDATA text, the first failure or error counts, skips carry none",
                r#"<testsuite><testcase classname="a" name="t"><failure><![CDATA[a < b & c
tests/t.py:3: in t]]></failure><error message="teardown"/></testcase><testcase classname="a" name="s"><skipped message="later">tests/t.py:9: skip</skipped></testcase></testsuite>"#.to_string(),
                &[r#"t: "a < b & c\ntests/t.py:3: in t" at Some("tests/t.py:3")"#, "s: none"],
            ),
            (
                "an empty failure element and one outside the checkout",
                r#"<testsuite><testcase classname="a" name="t"><failure/></testcase><testcase classname="a" name="u"><failure message="m">/abs/t.py:3: in t</failure></testcase></testsuite>"#.to_string(),
                &[r#"t: "" at None"#, r#"u: "m" at None"#],
            ),
        ];
        for (name, xml, expected) in table {
            assert_eq!(details(xml), *expected, "{name}");
        }
    }

    #[test]
    fn a_byte_order_mark_before_the_report_is_read_past() {
        for xml in [XUNIT1, XUNIT2] {
            let with_bom = format!("\u{feff}{xml}");
            assert_eq!(summary(&with_bom), summary(xml));
            assert!(!summary(&with_bom).unwrap().is_empty());
        }
    }

    #[test]
    fn refusals_table() {
        let table: &[(&str, &str, &str)] = &[
            (
                "doctype with an entity bomb",
                "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;\">]>\n<testsuite><testcase classname=\"a\" name=\"&lol2;\"/></testsuite>",
                "r.xml:2:1: a DOCTYPE",
            ),
            (
                "truncated inside a case body",
                "<testsuites><testsuite>\n<testcase classname=\"a\" name=\"t\"><failure>trace",
                "the report is truncated",
            ),
            (
                "truncated inside a tag",
                "<testsuites><testsuite><testcase classname=\"a\" na",
                "r.xml:1:",
            ),
            (
                "unknown root",
                "<html><body/></html>",
                "unknown root element <html>",
            ),
            ("not xml", "hello world", "found text"),
            (
                "a byte order mark, then text",
                "\u{feff}hello",
                "r.xml:1:2: expected a JUnit XML report",
            ),
            (
                "a byte order mark after the declaration",
                "<?xml version=\"1.0\"?>\u{feff}<testsuite><testcase classname=\"a\" name=\"t\"/></testsuite>",
                "found text",
            ),
            ("empty", "", "empty report"),
            (
                "mismatched end",
                "<testsuite><testcase classname=\"a\" name=\"t\"></testsuite>",
                "malformed XML",
            ),
            (
                "undeclared entity in an attribute",
                "<testsuite><testcase classname=\"a\" name=\"&bomb;\"/></testsuite>",
                "attribute name",
            ),
            (
                "testcase without a name",
                "<testsuite><testcase classname=\"a\"/></testsuite>",
                "without a name attribute",
            ),
            (
                "duplicate attribute",
                "<testsuite><testcase classname=\"a\" name=\"t\" name=\"u\"/></testsuite>",
                "attribute name twice",
            ),
            (
                "second root",
                "<testsuite/><testsuite/>",
                "after the root element ended",
            ),
        ];
        for (name, xml, expected) in table {
            let err = cases(xml).expect_err(name);
            assert!(err.contains(expected), "{name}: {err}");
        }
    }

    #[test]
    fn huge_bodies_are_skipped_and_offsets_stay_right() {
        let body = "x".repeat(3_000_000);
        let xml = format!(
            "<testsuite>\n<testcase classname=\"a\" name=\"t\"><system-out>{body}</system-out></testcase>\n<bogus"
        );
        let err = cases(&xml).expect_err("bogus tail");
        assert!(err.starts_with("r.xml:3:"), "{err}");
        let ok = format!(
            "<testsuite><testcase classname=\"a\" name=\"t\"><failure>{body}</failure></testcase></testsuite>"
        );
        assert_eq!(summary(&ok).unwrap(), ["a|t|failed"]);
    }

    #[test]
    fn output_and_failure_bodies_are_streamed_not_held() {
        // 3 x 64 MiB of body text, generated as it is read: the reader's buffer must stay the
        // size of a tag.
        const BODY: u64 = 64 << 20;
        let body = |byte: u8| io::repeat(byte).take(BODY);
        let input = io::Cursor::new(
            &b"<testsuites><testsuite><testcase classname=\"a\" name=\"t\"><system-out>"[..],
        )
        .chain(body(b'o'))
        .chain(io::Cursor::new(&b"</system-out><system-err>"[..]))
        .chain(body(b'e'))
        .chain(io::Cursor::new(
            &b"</system-err><failure message=\"boom\">"[..],
        ))
        .chain(body(b'f'))
        .chain(io::Cursor::new(
            &b"</failure></testcase><testcase classname=\"a\" name=\"u\"/></testsuite></testsuites>"[..],
        ));
        let mut seen = Vec::new();
        let stats = read_from(input, |c| {
            seen.push(format!("{}|{}", c.name, c.outcome.as_str()))
        })
        .unwrap();
        assert_eq!(seen, ["t|failed", "u|passed"]);
        assert_eq!(stats.cases, 2);
        assert!(
            stats.peak_buffer < 64 * 1024,
            "the reader held {} bytes",
            stats.peak_buffer
        );
    }

    #[test]
    fn line_col_counts_bytes() {
        assert_eq!(line_col(&b"ab\ncd"[..], 0).unwrap(), (1, 1));
        assert_eq!(line_col(&b"ab\ncd"[..], 4).unwrap(), (2, 2));
        assert_eq!(line_col(&b"ab\ncd"[..], 2).unwrap(), (1, 3));
    }
}
