//! One large report read on every core.
//!
//! The report streams through a window of a few chunks per thread. Each window is cut just
//! before a `<testcase` about every `CHUNK` bytes, and the pieces are read in parallel, each
//! from an assumed state (`State::base`: inside some suites). The pieces are then joined in
//! report order: a piece counts only where what it assumed holds in the real state the pieces
//! before it left (the cut was a real case start, not text inside a comment, CDATA section or
//! attribute; its parent is a suite; the end tags it closed beyond its start match the open
//! suites). From the first piece that does not, the rest of the report is read serially from
//! the real state, so the cases, their order and any error are the serial reader's, byte for
//! byte. The piece after the window's last cut waits for the next window; the report's last
//! piece (from its last `<testcase` on) is always read serially, where the end of the report
//! is checked.
//!
//! While the pieces of one window are read, one thread reads the next window from the input
//! (the read, not only the parsing, is off the joining thread's path); an input error
//! there counts only once every case before it has been given.
//!
//! Memory: two windows (this one and the next), and per piece the mapped values of its cases,
//! whatever the size of the report.

use std::io::{self, Read};
use std::path::Path;

use rayon::prelude::*;

use crate::junit::{self, Case, JunitError, ReadStats, State, read_segment};

/// About this many bytes a piece.
pub(crate) const CHUNK: usize = 1 << 20;

/// Pieces a thread gets per window.
const PIECES_PER_THREAD: usize = 2;

/// Smaller reports are read serially.
pub(crate) const PARALLEL_FROM: u64 = 4 << 20;

/// A window grows to at most this many times its first size while it holds no `<testcase`
/// past its first chunk; past that, the rest of the report is read serially (a report padded
/// between two cases costs the serial reader's memory, not a window of the padding).
const MAX_GROWTH: usize = 2;

/// Reads the report at `path` like [`junit::read_path_with_suites`], with `map` applied to
/// every case on whichever thread read it and `sink` given the results in report order.
pub(crate) fn read_path<T: Send>(
    path: &Path,
    display: &str,
    on_suite: impl FnMut(&str),
    map: impl Fn(&Case<'_>) -> T + Sync,
    sink: impl FnMut(T),
) -> Result<ReadStats, lane_core::Error> {
    let file = lane_core::io::open_regular(path).map_err(|e| lane_core::Error::io(path, e))?;
    let len = file
        .metadata()
        .map_err(|e| lane_core::Error::io(path, e))?
        .len();
    let threads = if len < PARALLEL_FROM {
        1
    } else {
        rayon::current_num_threads()
    };
    read(file, len, threads, CHUNK, on_suite, map, sink)
        .map_err(|e| junit::located(path, display, e))
}

/// Reads `input` (`len` bytes) on `threads` threads in pieces of about `chunk` bytes; serially
/// when one thread or a small input would gain nothing.
pub fn read<T: Send, R: Read + Send>(
    mut input: R,
    len: u64,
    threads: usize,
    chunk: usize,
    mut on_suite: impl FnMut(&str),
    map: impl Fn(&Case<'_>) -> T + Sync,
    mut sink: impl FnMut(T),
) -> Result<ReadStats, JunitError> {
    let chunk = chunk.max(1);
    let mut done = Joined::default();
    if threads < 2 || len < (chunk as u64).saturating_mul(2) {
        return done.serial(input, &mut on_suite, |c| sink(map(c)));
    }
    let mut window = chunk * threads * PIECES_PER_THREAD;
    let max_window = window * MAX_GROWTH;
    let mut buf: Vec<u8> = Vec::with_capacity(window + chunk);
    // The next window, read from the input while the pieces of this one are read.
    let mut next: Vec<u8> = Vec::with_capacity(window + chunk);
    let mut eof = fill(&mut input, &mut buf, window)?;
    loop {
        let cuts = cuts(&buf, chunk, eof);
        if cuts.len() < 2 && !eof {
            if buf.len() >= max_window {
                let rest = io::Cursor::new(&buf[..]).chain(input);
                return done.serial(rest, &mut on_suite, |c| sink(map(c)));
            }
            window = (window * 2).min(max_window);
            eof = fill(&mut input, &mut buf, window)?;
            continue;
        }
        let tail = cuts.last().copied().unwrap_or(0);
        // The next window starts with this one's last piece; the rest of it is read from the
        // input on one thread while the others read this window's pieces.
        next.clear();
        if !eof {
            next.extend_from_slice(&buf[tail..]);
        }
        let (pieces, next_eof) = rayon::join(
            || read_pieces(&buf, &cuts, done.offset, &map),
            || {
                if eof {
                    Ok(true)
                } else {
                    fill(&mut input, &mut next, window)
                }
            },
        );
        if let Some(i) = done.join(pieces, &mut on_suite, &mut sink) {
            // What piece `i` assumed does not hold: the serial reader takes over, from the
            // piece's start through the rest of this window, the next one as far as it was
            // read, and the rest of the input.
            let start = cuts[i];
            let (this, read_ahead) = if eof {
                (&buf[start..], &next[..0])
            } else {
                (&buf[start..tail], &next[..])
            };
            done.offset += start as u64;
            let rest = io::Cursor::new(this)
                .chain(io::Cursor::new(read_ahead))
                .chain(input);
            return done.serial(rest, &mut on_suite, |c| sink(map(c)));
        }
        done.offset += tail as u64;
        if eof {
            return done.serial(&buf[tail..], &mut on_suite, |c| sink(map(c)));
        }
        // An input error while reading ahead counts only now, after every case before it.
        eof = next_eof?;
        std::mem::swap(&mut buf, &mut next);
    }
}

/// Where the pieces of `buf` start: at 0, then just before a `<testcase` about every `chunk`
/// bytes, and at the last `<testcase` of the report once it has ended (`eof`). The piece from
/// the last cut on is read with what follows it.
fn cuts(buf: &[u8], chunk: usize, eof: bool) -> Vec<usize> {
    let mut cuts = vec![0usize];
    let mut from = chunk;
    while from < buf.len() {
        let Some(cut) = find_case(buf, from) else {
            break;
        };
        cuts.push(cut);
        from = cut + chunk;
    }
    let last_cut = cuts.last().copied().unwrap_or(0);
    if eof && let Some(cut) = rfind_case(buf).filter(|&c| c > last_cut) {
        cuts.push(cut);
    }
    cuts
}

/// One piece read from its assumed state: the state it left, its suite names and its cases
/// mapped.
struct Piece<T> {
    stats: ReadStats,
    state: State,
    suites: Vec<String>,
    items: Vec<T>,
}

/// Reads the pieces between consecutive `cuts` of `buf` (the report from `offset` on) in
/// parallel, each from an assumed state (the report's first piece from its real start);
/// `None` for a piece that could not be read so.
fn read_pieces<T: Send>(
    buf: &[u8],
    cuts: &[usize],
    offset: u64,
    map: &(impl Fn(&Case<'_>) -> T + Sync),
) -> Vec<Option<Piece<T>>> {
    let pieces: Vec<(usize, usize)> = cuts.windows(2).map(|w| (w[0], w[1])).collect();
    pieces
        .par_iter()
        .map(|&(a, b)| {
            let mut state = if offset == 0 && a == 0 {
                State::default()
            } else {
                State::base()
            };
            let mut suites: Vec<String> = Vec::new();
            let mut items: Vec<T> = Vec::new();
            let read = read_segment(
                &buf[a..b],
                offset + a as u64,
                &mut state,
                false,
                |name| suites.push(name.to_string()),
                |c| items.push(map(c)),
            );
            read.ok().map(|stats| Piece {
                stats,
                state,
                suites,
                items,
            })
        })
        .collect()
}

/// The report as far as it has been given: the real state at `offset`, and the counts.
#[derive(Default)]
struct Joined {
    offset: u64,
    state: State,
    stats: ReadStats,
}

impl Joined {
    /// Gives the pieces' suite names and cases in report order, as far as each piece's
    /// assumed state holds in the real one (the report's first piece was read from it);
    /// returns the first piece that does not join.
    fn join<T>(
        &mut self,
        pieces: Vec<Option<Piece<T>>>,
        on_suite: &mut impl FnMut(&str),
        sink: &mut impl FnMut(T),
    ) -> Option<usize> {
        for (i, piece) in pieces.into_iter().enumerate() {
            let Some(piece) = piece else {
                return Some(i);
            };
            let next = if self.offset == 0 && i == 0 {
                Some(piece.state)
            } else {
                self.state.then(&piece.state)
            };
            let Some(next) = next else {
                return Some(i);
            };
            for name in &piece.suites {
                on_suite(name);
            }
            for item in piece.items {
                sink(item);
            }
            self.stats = add(self.stats, piece.stats);
            self.stats.joined += 1;
            self.state = next;
        }
        None
    }

    /// Reads the rest of the report, `input` from `offset` on, serially from the real state.
    fn serial<R: Read>(
        mut self,
        input: R,
        on_suite: impl FnMut(&str),
        sink: impl FnMut(&Case<'_>),
    ) -> Result<ReadStats, JunitError> {
        let more = read_segment(input, self.offset, &mut self.state, true, on_suite, sink)?;
        Ok(add(self.stats, more))
    }
}

fn add(a: ReadStats, b: ReadStats) -> ReadStats {
    ReadStats {
        cases: a.cases + b.cases,
        suites: a.suites + b.suites,
        peak_buffer: a.peak_buffer.max(b.peak_buffer),
        joined: a.joined + b.joined,
    }
}

/// Reads until `buf` holds `window` bytes or the input ends (true).
fn fill(input: &mut impl Read, buf: &mut Vec<u8>, window: usize) -> io::Result<bool> {
    while buf.len() < window {
        let have = buf.len();
        buf.resize(window, 0);
        match input.read(&mut buf[have..]) {
            Ok(0) => {
                buf.truncate(have);
                return Ok(true);
            }
            Ok(n) => buf.truncate(have + n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => buf.truncate(have),
            Err(e) => {
                buf.truncate(have);
                return Err(e);
            }
        }
    }
    Ok(false)
}

const OPEN: &[u8] = b"<testcase";

/// Whether a `<testcase` at `at` is the whole element name.
fn is_case_start(buf: &[u8], at: usize) -> bool {
    matches!(
        buf.get(at + OPEN.len()),
        Some(b' ' | b'\t' | b'\r' | b'\n' | b'>' | b'/')
    )
}

/// The first `<testcase` at or after `from`.
fn find_case(buf: &[u8], from: usize) -> Option<usize> {
    let finder = memchr::memmem::Finder::new(OPEN);
    let mut at = from;
    while at < buf.len() {
        let found = at + finder.find(&buf[at..])?;
        if is_case_start(buf, found) {
            return Some(found);
        }
        at = found + 1;
    }
    None
}

/// The last `<testcase` of `buf`.
fn rfind_case(buf: &[u8]) -> Option<usize> {
    let finder = memchr::memmem::FinderRev::new(OPEN);
    let mut end = buf.len();
    while let Some(found) = finder.rfind(&buf[..end]) {
        if is_case_start(buf, found) {
            return Some(found);
        }
        end = found;
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn names(xml: &str, chunk: usize) -> (Vec<String>, ReadStats) {
        let mut out = Vec::new();
        let stats = read(
            xml.as_bytes(),
            xml.len() as u64,
            2,
            chunk,
            |_| {},
            |c| c.name.to_string(),
            |n| out.push(n),
        )
        .unwrap();
        (out, stats)
    }

    #[test]
    fn clean_reports_are_joined_in_parallel_in_order() {
        let cases: String = (0..300)
            .map(|i| format!(r#"<testcase classname="m" name="t{i}"/>"#))
            .collect();
        let xml = format!("<testsuites><testsuite>{cases}</testsuite></testsuites>");
        let (got, stats) = names(&xml, 200);
        let want: Vec<String> = (0..300).map(|i| format!("t{i}")).collect();
        assert_eq!(got, want);
        assert_eq!(stats.cases, 300);
        // A piece per 200 bytes and the rest of its last case (37 bytes a case), all joined:
        // no serial fallback.
        assert!(stats.joined as usize >= xml.len() / 237 - 2, "{stats:?}");
    }

    #[test]
    fn a_cut_inside_cdata_falls_back_to_the_serial_reader() {
        let fake = r#"<testcase classname="x" name="fake"/>"#.repeat(20);
        let xml = format!(
            r#"<testsuite><testcase classname="m" name="a"/><testcase classname="m" name="b"><system-out><![CDATA[{fake}]]></system-out></testcase><testcase classname="m" name="c"/></testsuite>"#
        );
        let (got, _) = names(&xml, 64);
        assert_eq!(got, ["a", "b", "c"]);
    }

    #[test]
    fn cuts_are_at_case_starts_only() {
        let buf = b"<testcases><testcase\n<testcase/><testcase>";
        assert_eq!(find_case(buf, 0), Some(11));
        assert_eq!(find_case(buf, 12), Some(21));
        assert_eq!(rfind_case(buf), Some(32));
        assert_eq!(rfind_case(b"<testcases>"), None);
    }
}
