//! What a failed case said: the first lines of its failure or error message and the
//! line it failed at, collected while the reader streams the element's text, in a bounded
//! buffer whatever the size of the traceback.

/// At most this many non-blank lines of the message are kept.
pub(crate) const DETAIL_LINES: usize = 3;

/// Each kept line is cut at this many characters (then `...` is appended).
pub(crate) const DETAIL_LINE_CHARS: usize = 200;

/// A traceback line longer than this is cut before it is looked at: a `path:NNN:` line is
/// short, so an overlong one is never a location.
const MAX_SCANNED_LINE: usize = 4096;

/// The message and location of a case's first `<failure>` or `<error>`, built as its text
/// streams by.
#[derive(Debug, Clone, Default)]
pub(crate) struct DetailScan {
    /// The kept lines, joined by `\n`.
    pub message: String,
    lines: usize,
    /// The message came from the `message` attribute: the text only gives the location.
    from_attr: bool,
    /// The last `path:NNN` of the text that points inside the checkout.
    pub at: String,
    pub has_at: bool,
    line: Vec<u8>,
    overlong: bool,
}

impl DetailScan {
    pub(crate) fn reset(&mut self) {
        self.message.clear();
        self.lines = 0;
        self.from_attr = false;
        self.at.clear();
        self.has_at = false;
        self.line.clear();
        self.overlong = false;
    }

    /// The element's `message` attribute (already unescaped).
    pub(crate) fn set_message(&mut self, message: &str) {
        self.from_attr = true;
        for line in message.lines() {
            self.keep(line);
        }
    }

    fn keep(&mut self, line: &str) {
        let line = line.trim();
        if line.is_empty() || self.lines >= DETAIL_LINES {
            return;
        }
        if self.lines > 0 {
            self.message.push('\n');
        }
        match line.char_indices().nth(DETAIL_LINE_CHARS) {
            Some((cut, _)) => {
                self.message.push_str(&line[..cut]);
                self.message.push_str("...");
            }
            None => self.message.push_str(line),
        }
        self.lines += 1;
    }

    /// Escaped element text (entities still written as `&...;`).
    pub(crate) fn feed_text(&mut self, bytes: &[u8]) {
        for (i, part) in bytes.split(|&b| b == b'\n').enumerate() {
            if i > 0 {
                self.end_line();
            }
            self.append(part, false);
        }
    }

    /// The content of a CDATA section: taken literally.
    pub(crate) fn feed_cdata(&mut self, bytes: &[u8]) {
        for (i, part) in bytes.split(|&b| b == b'\n').enumerate() {
            if i > 0 {
                self.end_line();
            }
            self.append(part, true);
        }
    }

    fn append(&mut self, part: &[u8], literal: bool) {
        for &b in part {
            if self.line.len() >= MAX_SCANNED_LINE {
                self.overlong = true;
                return;
            }
            if literal && b == b'&' {
                // Kept escaped, so that decoding the line gives the literal `&` back.
                self.line.extend_from_slice(b"&amp;");
            } else {
                self.line.push(b);
            }
        }
    }

    fn end_line(&mut self) {
        let raw = String::from_utf8_lossy(&self.line);
        let text = unescape(&raw);
        if !self.from_attr {
            self.keep(&text);
        }
        if !self.overlong
            && let Some(at) = location(&text)
        {
            self.at.clear();
            self.at.push_str(&at);
            self.has_at = true;
        }
        self.line.clear();
        self.overlong = false;
    }

    /// The element ended: its last line counts too.
    pub(crate) fn finish(&mut self) {
        if !self.line.is_empty() || self.overlong {
            self.end_line();
        }
    }
}

/// How a failure reason shows a case's detail, after `LABEL (OUTCOME)`: ` at PATH:LINE: LINE1 /
/// LINE2`, ` at PATH:LINE`, `: LINE1` or nothing when the report said neither.
pub(crate) fn suffix(detail: &crate::junit::Detail<'_>) -> Option<String> {
    let message = detail.message.split('\n').collect::<Vec<_>>().join(" / ");
    match (detail.at, message.is_empty()) {
        (Some(at), false) => Some(format!(" at {at}: {message}")),
        (Some(at), true) => Some(format!(" at {at}")),
        (None, false) => Some(format!(": {message}")),
        (None, true) => None,
    }
}

/// The five predefined entities and character references decoded; anything else is left as
/// written.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp..];
        let decoded = after.find(';').filter(|&end| end <= 12).and_then(|end| {
            let name = &after[1..end];
            let c = match name {
                "lt" => '<',
                "gt" => '>',
                "amp" => '&',
                "quot" => '"',
                "apos" => '\'',
                _ => {
                    let code = if let Some(hex) = name.strip_prefix("#x") {
                        u32::from_str_radix(hex, 16).ok()
                    } else if let Some(dec) = name.strip_prefix('#') {
                        dec.parse().ok()
                    } else {
                        None
                    };
                    char::from_u32(code?)?
                }
            };
            Some((c, end))
        });
        match decoded {
            Some((c, end)) => {
                out.push(c);
                rest = &after[end + 1..];
            }
            None => {
                out.push('&');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `path:NNN` when the line starts with `path:NNN:` (pytest's `tests/test_a.py:18:
/// AssertionError`) and the path is inside the checkout: relative, no `..`, no whitespace.
pub(crate) fn location(line: &str) -> Option<String> {
    let colon = line.find(':')?;
    let (path, rest) = (&line[..colon], &line[colon + 1..]);
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || !rest[digits..].starts_with(':') {
        return None;
    }
    let path = path.replace('\\', "/");
    let inside = !path.is_empty()
        && !path.starts_with('/')
        && !path.starts_with('~')
        && !path.contains(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '"' | '\''))
        && path.split('/').all(|part| part != "..")
        && path.split('/').next_back().is_some_and(|f| f.contains('.'));
    inside.then(|| format!("{path}:{}", &rest[..digits]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &[&[u8]]) -> (String, Option<String>) {
        let mut d = DetailScan::default();
        for part in text {
            d.feed_text(part);
        }
        d.finish();
        (d.message.clone(), d.has_at.then(|| d.at.clone()))
    }

    #[test]
    fn locations() {
        let table: &[(&str, Option<&str>)] = &[
            (
                "tests/test_a.py:18: AssertionError",
                Some("tests/test_a.py:18"),
            ),
            ("src/pkg/mod.py:7: in helper", Some("src/pkg/mod.py:7")),
            (
                "tests\\win\\test_a.py:3: ValueError",
                Some("tests/win/test_a.py:3"),
            ),
            ("/usr/lib/python3/x.py:18: in f", None),
            ("../outside/x.py:18: in f", None),
            ("C:\\x\\y.py:18: in f", None),
            ("E       assert x:1:", None),
            ("tests/test_a.py:18 no colon", None),
            ("tests/test_a.py:: in f", None),
            ("<string>:3: SyntaxError", None),
            ("plain text", None),
        ];
        for (line, want) in table {
            assert_eq!(location(line).as_deref(), *want, "{line}");
        }
    }

    #[test]
    fn first_lines_and_last_location_across_buffer_splits() {
        let (msg, at) = scan(&[
            b"\n  x = 41\n\n  def test(x):\n&gt;  assert f(x) ==",
            b" 84\nE assert 82 == 84\n\ntests/helpers.py:4: in f\ntests/te",
            b"st_a.py:18: AssertionError",
        ]);
        assert_eq!(msg, "x = 41\ndef test(x):\n>  assert f(x) == 84");
        assert_eq!(at.as_deref(), Some("tests/test_a.py:18"));
    }

    #[test]
    fn attribute_message_wins_and_lines_are_cut() {
        let mut d = DetailScan::default();
        let long = "y".repeat(250);
        d.set_message(&format!("assert 1 == 2\n\n{long}\nthird\nfourth"));
        d.feed_text(b"first body line\ntests/t.py:9: AssertionError\n");
        d.finish();
        assert_eq!(
            d.message,
            format!("assert 1 == 2\n{}...\nthird", "y".repeat(200))
        );
        assert_eq!(d.at, "tests/t.py:9");
    }

    #[test]
    fn cdata_is_literal_and_entities_decode() {
        let mut d = DetailScan::default();
        d.feed_cdata(b"a &lt; b & c\n");
        d.feed_text(b"&#65;&#x42;&bogus; &amp");
        d.finish();
        assert_eq!(d.message, "a &lt; b & c\nAB&bogus; &amp");
    }
}
