//! Splitting an ini value into words as pytest's "args" type does: Python's `shlex.split` (POSIX
//! mode, no comments). Hand-written rather than the `shlex` crate, which treats a `#` at the
//! start of a word as a comment where Python's `split` does not; a differential test below holds
//! it to Python's own.

/// Why Python's `shlex.split` refuses a value (its own words).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SplitError {
    /// A quote that never closes.
    NoClosingQuotation,
    /// A backslash at the very end.
    NoEscapedCharacter,
}

impl std::fmt::Display for SplitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SplitError::NoClosingQuotation => "No closing quotation",
            SplitError::NoEscapedCharacter => "No escaped character",
        })
    }
}

/// shlex's whitespace: these four characters only (a form feed or a no-break space is part of
/// a word).
fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// Splits `s` into words as Python's `shlex.split(s)` does: quotes group, a backslash escapes
/// the next character outside quotes, and inside double quotes only `"` and `\`; `''` is an
/// empty word.
pub(crate) fn shell_split(s: &str) -> Result<Vec<String>, SplitError> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(q) => cur.push(q),
                        None => return Err(SplitError::NoClosingQuotation),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(n @ ('"' | '\\')) => cur.push(n),
                            Some(n) => {
                                cur.push('\\');
                                cur.push(n);
                            }
                            None => return Err(SplitError::NoEscapedCharacter),
                        },
                        Some(q) => cur.push(q),
                        None => return Err(SplitError::NoClosingQuotation),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(n) => cur.push(n),
                    None => return Err(SplitError::NoEscapedCharacter),
                }
            }
            c if is_space(c) => {
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
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn shell_split_quotes() {
        assert_eq!(
            shell_split("-ra  --reruns=2 'a b' \"c d\"").unwrap(),
            vec!["-ra", "--reruns=2", "a b", "c d"]
        );
        assert_eq!(
            shell_split(r#"a\ b "x\"y" ''"#).unwrap(),
            vec!["a b", "x\"y", ""]
        );
        assert!(shell_split(" \t\n").unwrap().is_empty());
        assert_eq!(shell_split(r#""a\b""#).unwrap(), vec![r"a\b"]);
        assert_eq!(shell_split("#x y").unwrap(), vec!["#x", "y"]);
        assert_eq!(shell_split("a\u{a0}b").unwrap(), vec!["a\u{a0}b"]);
        assert_eq!(shell_split("'a"), Err(SplitError::NoClosingQuotation));
        assert_eq!(shell_split("a\\"), Err(SplitError::NoEscapedCharacter));
    }

    /// A deterministic stream of strings over the characters shlex treats specially, and some it
    /// does not.
    fn cases() -> Vec<String> {
        const ALPHABET: &[char] = &[
            'a', 'b', ' ', ' ', '\t', '\n', '\r', '\'', '"', '\\', '#', '=', '-', '\u{0b}',
            '\u{0c}', '\u{a0}', 'é', '$', '*',
        ];
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..4000)
            .map(|_| {
                let len = (next() % 12) as usize;
                (0..len)
                    .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
                    .collect()
            })
            .collect()
    }

    /// Every case split by this module and by Python's own `shlex.split` (the interpreter
    /// `LANES_PYTHON` names, else `python3`): the same words, or the same refusal.
    #[test]
    fn splits_as_pythons_shlex_does() {
        let python = std::env::var("LANES_PYTHON").unwrap_or_else(|_| "python3".into());
        let cases = cases();
        let program = "import json, shlex, sys\n\
            out = []\n\
            for s in json.load(sys.stdin):\n\
            \x20   try:\n\
            \x20       out.append(shlex.split(s))\n\
            \x20   except ValueError as e:\n\
            \x20       out.append(str(e))\n\
            json.dump(out, sys.stdout)\n";
        let mut child = std::process::Command::new(&python)
            .args(["-I", "-c", program])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
        let input = serde_json::to_vec(&cases).unwrap();
        std::io::Write::write_all(child.stdin.as_mut().unwrap(), &input).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        let python_says: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(python_says.len(), cases.len());
        let mut refused = 0;
        for (case, theirs) in cases.iter().zip(&python_says) {
            let ours = match shell_split(case) {
                Ok(words) => serde_json::json!(words),
                Err(e) => {
                    refused += 1;
                    serde_json::json!(e.to_string())
                }
            };
            assert_eq!(&ours, theirs, "{case:?}");
        }
        // The stream reaches both kinds of refusal, and plenty of words.
        assert!(refused > 100 && refused < cases.len() - 1000, "{refused}");
    }
}
