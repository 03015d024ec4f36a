//! Splitting a string into words as a POSIX shell does.

/// Splits like a POSIX shell (quotes and backslashes), as pytest's "args" ini type does.
pub fn shell_split(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    cur.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                cur.push(n);
                            }
                        }
                        _ => cur.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_split_quotes() {
        assert_eq!(
            shell_split("-ra  --reruns=2 'a b' \"c d\""),
            vec!["-ra", "--reruns=2", "a b", "c d"]
        );
        assert_eq!(shell_split(r#"a\ b "x\"y" ''"#), vec!["a b", "x\"y", ""]);
        assert!(shell_split(" \t\n").is_empty());
    }
}
