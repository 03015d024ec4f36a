//! Where a byte offset sits in a text: a 1-based line and a 1-based column counted in
//! characters (UTF-8 scalar values: a continuation byte is not a character), the one way every
//! tool reports a position.

use std::io::{self, BufRead};

/// A 1-based line and column (in characters) in a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// A byte that starts a character (not a UTF-8 continuation byte).
fn starts_char(b: u8) -> bool {
    b & 0xC0 != 0x80
}

fn chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| starts_char(b)).count()
}

impl Position {
    /// The position of byte `offset` (clamped to the end) of `text`; lines end at `\n`.
    pub fn of(text: &[u8], offset: usize) -> Position {
        let before = &text[..offset.min(text.len())];
        let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
        Position {
            line: memchr::memchr_iter(b'\n', before).count() + 1,
            column: chars(&before[line_start..]) + 1,
        }
    }

    /// The position of byte `offset` of what `input` reads (streamed again, not held in
    /// memory: a large report); an offset past the end is the end.
    pub fn of_reader(mut input: impl BufRead, offset: u64) -> io::Result<Position> {
        let mut at = Position { line: 1, column: 1 };
        let mut left = offset;
        while left > 0 {
            let buf = input.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            let take = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            let chunk = &buf[..take];
            match memchr::memrchr(b'\n', chunk) {
                Some(last) => {
                    at.line += memchr::memchr_iter(b'\n', chunk).count();
                    at.column = chars(&chunk[last + 1..]) + 1;
                }
                None => at.column += chars(chunk),
            }
            input.consume(take);
            left -= take as u64;
        }
        Ok(at)
    }
}

/// The starts of a text's lines, for many look-ups in one text (a Python module).
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Lines of `text` ending at `\n`, `\r\n` or a lone `\r` (Python's universal newlines).
    pub fn universal(text: &[u8]) -> LineIndex {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        if memchr::memchr(b'\r', text).is_none() {
            // Only `\n` ends a line (the usual case): eight bytes at a time, without a search
            // call per line.
            const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
            let (words, rest) = text.as_chunks::<8>();
            for (w, word) in words.iter().enumerate() {
                let x = u64::from_le_bytes(*word) ^ 0x0a0a_0a0a_0a0a_0a0a;
                // The high bit of exactly the bytes of `x` that are zero (the `\n`s): no carry
                // crosses a byte, so none is marked wrongly.
                let mut newlines = !(((x & LOW7) + LOW7) | x | LOW7);
                while newlines != 0 {
                    starts.push(w * 8 + newlines.trailing_zeros() as usize / 8 + 1);
                    newlines &= newlines - 1;
                }
            }
            let done = words.len() * 8;
            starts.extend(
                rest.iter()
                    .enumerate()
                    .filter(|(_, b)| **b == b'\n')
                    .map(|(i, _)| done + i + 1),
            );
            return LineIndex { starts };
        }
        for i in memchr::memchr2_iter(b'\n', b'\r', text) {
            // A `\r` ends a line unless a `\n` follows it (which then ends it).
            if text[i] == b'\n' || text.get(i + 1) != Some(&b'\n') {
                starts.push(i + 1);
            }
        }
        LineIndex { starts }
    }

    /// The 1-based line of byte `offset` (past the end: the last line).
    pub fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset)
    }

    /// The position of byte `offset` (clamped to the end) of `text`, the text indexed.
    pub fn position(&self, text: &[u8], offset: usize) -> Position {
        let offset = offset.min(text.len());
        let line = self.line(offset);
        let start = self.starts[line - 1].min(offset);
        Position {
            line,
            column: chars(&text[start..offset]) + 1,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn at(line: usize, column: usize) -> Position {
        Position { line, column }
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let text = "ab\nçé=x".as_bytes();
        assert_eq!(Position::of(text, 0), at(1, 1));
        assert_eq!(Position::of(text, 2), at(1, 3));
        assert_eq!(Position::of(text, 3), at(2, 1));
        // 'ç' and 'é' are two bytes each: '=' is byte 7, the third character.
        assert_eq!(Position::of(text, 7), at(2, 3));
        assert_eq!(Position::of(text, 99), at(2, 5));
    }

    #[test]
    fn streaming_agrees_with_the_slice_in_any_chunking() {
        let text = "ü\nxyz\n\nçaa\u{1F600}b".as_bytes();
        for offset in 0..=text.len() + 2 {
            for cap in 1..5 {
                let reader = std::io::BufReader::with_capacity(cap, text);
                assert_eq!(
                    Position::of_reader(reader, offset as u64).unwrap(),
                    Position::of(text, offset),
                    "offset {offset}, buffer {cap}"
                );
            }
        }
    }

    #[test]
    fn line_starts_agree_with_a_byte_by_byte_count() {
        // Every length around the eight-byte words, a `\n` at every place, next to bytes
        // one bit away from it (`\x0b`, `\x8a`, `\x0e`), and `\r` anywhere (the other path).
        let naive = |text: &[u8]| -> Vec<usize> {
            let mut starts = vec![0];
            for (i, &b) in text.iter().enumerate() {
                if b == b'\n' || (b == b'\r' && text.get(i + 1) != Some(&b'\n')) {
                    starts.push(i + 1);
                }
            }
            starts
        };
        let fill = [b'a', 0x0b, 0x8a, 0x0e, 0x00, 0xff];
        for len in 0..40 {
            for &other in &fill {
                for at in 0..len {
                    for second in [None, Some(b'\n'), Some(b'\r')] {
                        let mut text = vec![other; len];
                        text[at] = b'\n';
                        if let Some(b) = second {
                            text[(at * 7 + 3) % len] = b;
                        }
                        assert_eq!(LineIndex::universal(&text).starts, naive(&text), "{text:?}");
                    }
                }
                let text = vec![b'\n'; len];
                assert_eq!(LineIndex::universal(&text).starts, naive(&text));
            }
        }
    }

    #[test]
    fn universal_line_ends() {
        let text = b"a\r\nb\rc\nd";
        let index = LineIndex::universal(text);
        assert_eq!(index.position(text, 0), at(1, 1));
        assert_eq!(index.position(text, 1), at(1, 2));
        assert_eq!(index.position(text, 3), at(2, 1));
        assert_eq!(index.position(text, 5), at(3, 1));
        assert_eq!(index.position(text, 7), at(4, 1));
        assert_eq!(index.line(100), 4);
    }
}
