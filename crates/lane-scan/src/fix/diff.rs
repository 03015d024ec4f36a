//! `lane-scan --diff`: a unified diff (three lines of context) of a file before and after the
//! fixes, as `diff -u` and `git apply` read it. Lines are compared with Myers' algorithm, whose
//! time grows with the lines times the changed lines and whose trace with the square of the
//! changed lines: a file the fixes change in many places ([`unified_cut`]) is compared piece
//! by piece, between places where the two files are known to line up.
//!
//! Why not the `similar` crate (3.2, measured when this was weighed): its Myers is the
//! linear-space middle-snake variant, which breaks ties between equally short scripts
//! differently. Of 1,568 insert-only edits of the repository's Python files (the edits `--fix`
//! makes), 257 diffs placed an inserted line that equals its neighbour (a blank line, a second
//! decorator) on the other side of it: the same change, other bytes, and `--diff`'s output is
//! pinned by its tests and by users' saved patches. On one 20,000-test file with a decorator
//! inserted above each test, the cut comparison here takes 19 ms and `similar` 305 ms for the
//! same bytes.

/// One step of the edit script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Keep,
    Delete,
    Insert,
}

const CONTEXT: usize = 3;

/// The unified diff of `old` into `new`, labelled `a/PATH` and `b/PATH`; empty when equal.
/// `old` None: the file is created.
pub fn unified(path: &str, old: Option<&str>, new: &str) -> String {
    let a: Vec<&str> = old
        .map(|o| o.split_inclusive('\n').collect())
        .unwrap_or_default();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    if old == Some(new) {
        return String::new();
    }
    let ops = myers(&a, &b);
    render(path, old.is_some(), &a, &b, &ops)
}

/// [`unified`] of `old` into `new` where `cuts` are places the two line up: pairs of offsets,
/// in order, each at the start of a line (or the end) in both, with the text before them in
/// `old` becoming the text before them in `new`. The lines between two cuts are compared
/// alone, so the cost is that of the pieces, not of the whole file.
pub fn unified_cut(path: &str, old: &str, new: &str, cuts: &[(usize, usize)]) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let mut ops = Vec::with_capacity(b.len());
    let (mut a_at, mut b_at) = (0, 0);
    for &(a_cut, b_cut) in cuts.iter().chain([&(old.len(), new.len())]) {
        if a_cut < a_at || b_cut < b_at {
            continue;
        }
        let piece_a: Vec<&str> = old[a_at..a_cut].split_inclusive('\n').collect();
        let piece_b: Vec<&str> = new[b_at..b_cut].split_inclusive('\n').collect();
        ops.extend(myers(&piece_a, &piece_b));
        (a_at, b_at) = (a_cut, b_cut);
    }
    render(path, true, &a, &b, &ops)
}

/// The hunks of the edit script `ops` from lines `a` into lines `b`.
fn render(path: &str, old: bool, a: &[&str], b: &[&str], ops: &[Op]) -> String {
    let mut out = if old {
        format!("--- a/{path}\n+++ b/{path}\n")
    } else {
        format!("--- /dev/null\n+++ b/{path}\n")
    };
    // Positions in a and b of each op.
    let mut at = Vec::with_capacity(ops.len());
    let (mut i, mut j) = (0, 0);
    for op in ops {
        at.push((i, j));
        match op {
            Op::Keep => {
                i += 1;
                j += 1;
            }
            Op::Delete => i += 1,
            Op::Insert => j += 1,
        }
    }
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k] != Op::Keep).collect();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(CONTEXT);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 2 * CONTEXT + 1 {
            end = changed[k];
            k += 1;
        }
        let end = (end + CONTEXT + 1).min(ops.len());
        let (a0, b0) = at[start];
        let a_len = ops[start..end].iter().filter(|o| **o != Op::Insert).count();
        let b_len = ops[start..end].iter().filter(|o| **o != Op::Delete).count();
        let from = |first: usize, len: usize| if len == 0 { first } else { first + 1 };
        out.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            from(a0, a_len),
            a_len,
            from(b0, b_len),
            b_len
        ));
        for (op, &(i, j)) in ops[start..end].iter().zip(&at[start..end]) {
            let (mark, line) = match op {
                Op::Keep => (' ', a[i]),
                Op::Delete => ('-', a[i]),
                Op::Insert => ('+', b[j]),
            };
            out.push(mark);
            out.push_str(line);
            if !line.ends_with('\n') {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    out
}

/// The shortest edit script from `a` to `b` (Myers 1986, with the trace kept for the walk back).
fn myers(a: &[&str], b: &[&str]) -> Vec<Op> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let max = (n + m) as usize;
    let offset = max as isize + 1;
    let mut v = vec![0isize; 2 * max + 3];
    let mut trace: Vec<Vec<isize>> = Vec::new();
    'outer: for d in 0..=max as isize {
        trace.push(v.clone());
        let mut k = -d;
        while k <= d {
            let idx = (k + offset) as usize;
            let mut x = if k == -d || (k != d && v[idx - 1] < v[idx + 1]) {
                v[idx + 1]
            } else {
                v[idx - 1] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[idx] = x;
            if x >= n && y >= m {
                break 'outer;
            }
            k += 2;
        }
    }
    // Walk back through the trace.
    let mut ops = Vec::new();
    let (mut x, mut y) = (n, m);
    for (d, v) in trace.iter().enumerate().rev() {
        let d = d as isize;
        let k = x - y;
        let idx = (k + offset) as usize;
        let prev_k = if k == -d || (k != d && v[idx - 1] < v[idx + 1]) {
            k + 1
        } else {
            k - 1
        };
        let prev_x = if d == 0 {
            0
        } else {
            v[(prev_k + offset) as usize]
        };
        let prev_y = prev_x - prev_k;
        while x > prev_x.max(0) && y > prev_y.max(0) && x > 0 && y > 0 {
            ops.push(Op::Keep);
            x -= 1;
            y -= 1;
        }
        if d > 0 {
            if x == prev_x {
                ops.push(Op::Insert);
                y -= 1;
            } else {
                ops.push(Op::Delete);
                x -= 1;
            }
        }
    }
    while x > 0 && y > 0 {
        ops.push(Op::Keep);
        x -= 1;
        y -= 1;
    }
    ops.reverse();
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies `ops` to `a` with the lines of `b`, to check the script.
    fn apply(a: &[&str], b: &[&str], ops: &[Op]) -> Vec<String> {
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        for op in ops {
            match op {
                Op::Keep => {
                    assert_eq!(a[i], b[j]);
                    out.push(a[i].to_string());
                    i += 1;
                    j += 1;
                }
                Op::Delete => i += 1,
                Op::Insert => {
                    out.push(b[j].to_string());
                    j += 1;
                }
            }
        }
        assert_eq!((i, j), (a.len(), b.len()));
        out
    }

    #[test]
    fn scripts_are_minimal_and_correct() {
        let cases: &[(&str, &str, usize)] = &[
            ("", "", 0),
            ("a", "", 1),
            ("", "a b", 2),
            ("a b c", "a x b c", 1),
            ("a b c d", "a c d e", 2),
            ("x a b", "a b y", 2),
            ("a b c a b b a", "c b a b a c", 5),
        ];
        for (a, b, edits) in cases {
            let a: Vec<&str> = a.split_whitespace().collect();
            let b: Vec<&str> = b.split_whitespace().collect();
            let ops = myers(&a, &b);
            assert_eq!(apply(&a, &b, &ops), b, "{a:?} -> {b:?}");
            assert_eq!(
                ops.iter().filter(|o| **o != Op::Keep).count(),
                *edits,
                "{a:?} -> {b:?}"
            );
        }
    }

    #[test]
    fn hunks_have_context_and_counts() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
        let new = "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n9.5\n10\n";
        assert_eq!(
            unified("f.py", Some(old), new),
            "--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,4 @@\n+0\n 1\n 2\n 3\n@@ -7,4 +8,5 @@\n 7\n 8\n 9\n+9.5\n 10\n"
        );
        assert_eq!(unified("f.py", Some(old), old), "");
        assert_eq!(
            unified("p.ini", None, "a\n"),
            "--- /dev/null\n+++ b/p.ini\n@@ -0,0 +1,1 @@\n+a\n"
        );
    }
}
