//! Shell-style name matching as Python's `fnmatch` does it, and pytest's prefix-or-glob
//! matching built on it.

/// pytest's matching for `python_classes` / `python_functions`: an entry with glob characters
/// is an fnmatch pattern, any other entry a prefix.
pub(crate) fn matches_prefix_or_glob(patterns: &[String], name: &str) -> bool {
    patterns.iter().any(|p| {
        if p.contains(['*', '?', '[']) {
            fnmatch(p, name)
        } else {
            name.starts_with(p.as_str())
        }
    })
}

/// fnmatch on a name: `*`, `?`, `[seq]`, `[!seq]`.
pub fn fnmatch(pattern: &str, name: &str) -> bool {
    // Names and patterns are nearly always ASCII, where a byte is a character: matched in
    // place. Otherwise character by character (`?` and classes match one character).
    if pattern.is_ascii() && name.is_ascii() {
        return matches(pattern.as_bytes(), name.as_bytes());
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    matches(&p, &n)
}

/// A unit of [`matches`]: an ASCII byte or a character.
trait Sym: Copy + Ord {
    fn ascii(c: u8) -> Self;
}

impl Sym for u8 {
    fn ascii(c: u8) -> u8 {
        c
    }
}

impl Sym for char {
    fn ascii(c: u8) -> char {
        char::from(c)
    }
}

/// `p` matches all of `n`: a backtracking walk that retries from the last `*`.
fn matches<T: Sym>(p: &[T], n: &[T]) -> bool {
    let (star, any, open) = (T::ascii(b'*'), T::ascii(b'?'), T::ascii(b'['));
    let (mut pi, mut ni) = (0, 0);
    let (mut star_p, mut star_n) = (usize::MAX, 0);
    while ni < n.len() {
        if pi < p.len() {
            let c = p[pi];
            if c == star {
                star_p = pi;
                star_n = ni;
                pi += 1;
                continue;
            }
            if c == any {
                pi += 1;
                ni += 1;
                continue;
            }
            if c == open {
                if let Some((matched, next)) = class(&p[pi..], n[ni]) {
                    if matched {
                        pi += next;
                        ni += 1;
                        continue;
                    }
                } else if n[ni] == open {
                    pi += 1;
                    ni += 1;
                    continue;
                }
            } else if c == n[ni] {
                pi += 1;
                ni += 1;
                continue;
            }
        }
        if star_p != usize::MAX {
            pi = star_p + 1;
            star_n += 1;
            ni = star_n;
            continue;
        }
        return false;
    }
    p[pi..].iter().all(|&c| c == star)
}

/// Matches a `[...]` class at the start of `p`: (matched, length of the class).
fn class<T: Sym>(p: &[T], c: T) -> Option<(bool, usize)> {
    let (close, bang, dash) = (T::ascii(b']'), T::ascii(b'!'), T::ascii(b'-'));
    let mut i = 1;
    let negate = p.get(1) == Some(&bang);
    if negate {
        i += 1;
    }
    let start = i;
    let mut matched = false;
    while i < p.len() {
        if p[i] == close && i > start {
            return Some((matched != negate, i + 1));
        }
        if p.get(i + 1) == Some(&dash) && p.get(i + 2).is_some_and(|&e| e != close) {
            if p[i] <= c && c <= p[i + 2] {
                matched = true;
            }
            i += 3;
        } else {
            if p[i] == c {
                matched = true;
            }
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnmatch_cases() {
        let cases = [
            ("test_*.py", "test_a.py", true),
            ("test_*.py", "a_test.py", false),
            ("*_test.py", "a_test.py", true),
            ("*.egg", "x.egg", true),
            (".*", ".git", true),
            (".*", "git", false),
            ("{arch}", "{arch}", true),
            ("check_*", "check_it", true),
            ("t?st", "test", true),
            ("[ab]c", "bc", true),
            ("[!ab]c", "bc", false),
            ("[a-c]x", "bx", true),
            ("[a-c]x", "dx", false),
            ("[!a-c]x", "dx", true),
            ("[]]", "]", true),
            ("[x", "[x", true),
            ("t?st_é", "tést_é", true),
            ("t?st", "tést", true),
            ("[é]x", "éx", true),
            ("*é*", "aéb", true),
        ];
        for (p, n, want) in cases {
            assert_eq!(fnmatch(p, n), want, "{p} vs {n}");
        }
    }

    proptest::proptest! {
        /// The byte walk used for ASCII agrees with the character walk on every ASCII input
        /// (patterns drawn mostly from the special characters).
        #[test]
        fn ascii_bytes_match_like_chars(
            p in "[*?\\[\\]!a-c-]{0,8}",
            n in "[a-c\\[\\]!-]{0,8}",
        ) {
            let (pc, nc): (Vec<char>, Vec<char>) = (p.chars().collect(), n.chars().collect());
            proptest::prop_assert_eq!(
                matches(p.as_bytes(), n.as_bytes()),
                matches(&pc, &nc),
                "{:?} vs {:?}", p, n
            );
        }
    }

    #[test]
    fn prefix_or_glob() {
        let pats = vec!["Test".to_string(), "*Suite".to_string()];
        assert!(matches_prefix_or_glob(&pats, "Testing"));
        assert!(matches_prefix_or_glob(&pats, "InvoiceSuite"));
        assert!(!matches_prefix_or_glob(&pats, "Invoice"));
    }
}
