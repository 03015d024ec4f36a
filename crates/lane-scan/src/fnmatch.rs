//! Shell-style name matching as Python's `fnmatch` does it, and pytest's prefix-or-glob
//! matching built on it.

/// pytest's matching for `python_classes` / `python_functions`: an entry with glob characters
/// is an fnmatch pattern, any other entry a prefix.
pub fn matches_prefix_or_glob(patterns: &[String], name: &str) -> bool {
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
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    matches(&p, &n)
}

/// `p` matches all of `n`: a backtracking walk that retries from the last `*`.
fn matches(p: &[char], n: &[char]) -> bool {
    let (mut pi, mut ni) = (0, 0);
    let (mut star_p, mut star_n) = (usize::MAX, 0);
    while ni < n.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star_p = pi;
                    star_n = ni;
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                '[' => {
                    if let Some((matched, next)) = class(&p[pi..], n[ni]) {
                        if matched {
                            pi += next;
                            ni += 1;
                            continue;
                        }
                    } else if n[ni] == '[' {
                        pi += 1;
                        ni += 1;
                        continue;
                    }
                }
                c if c == n[ni] => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                _ => {}
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
    p[pi..].iter().all(|&c| c == '*')
}

/// Matches a `[...]` class at the start of `p`: (matched, length of the class).
fn class(p: &[char], c: char) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = p.get(1) == Some(&'!');
    if negate {
        i += 1;
    }
    let start = i;
    let mut matched = false;
    while i < p.len() {
        if p[i] == ']' && i > start {
            return Some((matched != negate, i + 1));
        }
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&e| e != ']') {
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
        ];
        for (p, n, want) in cases {
            assert_eq!(fnmatch(p, n), want, "{p} vs {n}");
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
