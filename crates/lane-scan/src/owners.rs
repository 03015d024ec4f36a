//! Owners that scale: a test without an `owner:` line in its own docstring takes
//! the one of its class's docstring (innermost class first), then its module's docstring, then
//! the project's CODEOWNERS file for the test file's path. Each owner is recorded with where it
//! came from (`owner_from`).

use std::path::Path;

use lane_core::Error;

use crate::pytest::fnmatch::fnmatch;

/// Where GitHub and GitLab look for a CODEOWNERS file, in the order they look: the first one
/// that exists is the only one read.
pub const CODEOWNERS_PATHS: &[&str] = &[
    ".github/CODEOWNERS",
    "CODEOWNERS",
    "docs/CODEOWNERS",
    ".gitlab/CODEOWNERS",
];

/// The largest CODEOWNERS file read (GitHub itself ignores files over 3 MB).
const CODEOWNERS_MAX_BYTES: u64 = 3 << 20;

/// `owner_from` of an owner written in the test's own docstring.
pub const FROM_TEST: &str = "test docstring";
/// `owner_from` of an owner written in an enclosing class's docstring.
pub const FROM_CLASS: &str = "class docstring";
/// `owner_from` of an owner written in the module's docstring.
pub const FROM_MODULE: &str = "module docstring";

/// One CODEOWNERS line: a path pattern and its owners (none: the paths it matches have no
/// owner, GitHub's way of exempting them).
#[derive(Debug, Clone)]
struct Entry {
    pattern: String,
    owners: Vec<String>,
    line: u64,
}

/// A parsed CODEOWNERS file.
#[derive(Debug, Clone)]
pub struct CodeOwners {
    /// Root-relative path of the file.
    pub file: String,
    entries: Vec<Entry>,
}

impl CodeOwners {
    /// The first CODEOWNERS file of [`CODEOWNERS_PATHS`] under `root`, parsed; None when there
    /// is none. A file that cannot be read, or is not UTF-8, is an error naming it.
    pub fn load(root: &Path) -> Result<Option<CodeOwners>, Error> {
        for rel in CODEOWNERS_PATHS {
            let path = root.join(rel);
            if !path.is_file() {
                continue;
            }
            let bytes = lane_core::io::read_file_capped(&path, CODEOWNERS_MAX_BYTES, "CODEOWNERS")?;
            let text = String::from_utf8(bytes)
                .map_err(|_| Error::parse(*rel, 0, 0, "not valid UTF-8"))?;
            return Ok(Some(CodeOwners::parse(rel, &text)));
        }
        Ok(None)
    }

    /// Parses CODEOWNERS text (GitHub and GitLab syntax): `PATTERN OWNER...` lines, `#`
    /// comments (`\#` starts a pattern with `#`), GitLab `[Section]` / `^[Section]` headers
    /// (their owners are not used: a line's own owners are).
    pub fn parse(file: &str, text: &str) -> CodeOwners {
        let mut entries = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if line.starts_with('[') || line.starts_with("^[") {
                continue;
            }
            // An inline comment starts at an unescaped `#` after whitespace.
            let line = match line.find(" #") {
                Some(at) => &line[..at],
                None => line,
            };
            let mut words = line.split_whitespace();
            let Some(pattern) = words.next() else {
                continue;
            };
            let pattern = pattern.replace("\\#", "#").replace("\\ ", " ");
            entries.push(Entry {
                pattern,
                owners: words.map(str::to_string).collect(),
                line: i as u64 + 1,
            });
        }
        CodeOwners {
            file: file.to_string(),
            entries,
        }
    }

    /// The owners of `path` (root-relative, `/`-separated), space-separated, and the
    /// `file:line` of the entry that gave them: the last matching entry wins. None when no
    /// entry matches, or the last match lists no owner.
    pub fn owner_of(&self, path: &str) -> Option<(String, String)> {
        let entry = self
            .entries
            .iter()
            .rev()
            .find(|e| pattern_matches(&e.pattern, path))?;
        if entry.owners.is_empty() {
            return None;
        }
        Some((
            entry.owners.join(" "),
            format!("{}:{}", self.file, entry.line),
        ))
    }
}

/// Whether a CODEOWNERS pattern matches a file path. gitignore rules as GitHub documents them:
/// a pattern with a `/` at the start or in the middle is anchored at the root, one without
/// matches a file or folder name at any depth; a pattern that matches a folder matches
/// everything under it, except that `dir/*` matches only the files directly in `dir`; a
/// trailing `/` matches folders only; `*` and `?` stay within one path segment and `**`
/// spans any number of them.
pub fn pattern_matches(pattern: &str, path: &str) -> bool {
    let dir_only = pattern.ends_with('/');
    let trimmed = pattern.trim_end_matches('/');
    let anchored = trimmed.starts_with('/') || trimmed.contains('/');
    let trimmed = trimmed.trim_start_matches('/');
    if trimmed.is_empty() {
        return false;
    }
    let pat: Vec<&str> = trimmed.split('/').collect();
    let segs: Vec<&str> = path.split('/').collect();
    let direct_only = pat.last() == Some(&"*") && pat.len() > 1;
    // The path itself (a file) unless folders only, or one of its folders.
    let mut ends: Vec<usize> = (1..segs.len()).collect();
    if !dir_only {
        ends.push(segs.len());
    }
    for end in ends {
        if direct_only && end != segs.len() {
            continue;
        }
        let prefix = &segs[..end];
        let hit = if anchored {
            segments_match(&pat, prefix)
        } else {
            // One name: any segment of the prefix, ending at `end`.
            segments_match(&pat, &prefix[prefix.len() - 1..])
        };
        if hit {
            return true;
        }
    }
    false
}

/// `pat` matches all of `segs`, `**` standing for any number of segments.
fn segments_match(pat: &[&str], segs: &[&str]) -> bool {
    match pat.split_first() {
        None => segs.is_empty(),
        Some((&"**", rest)) => (0..=segs.len()).any(|skip| segments_match(rest, &segs[skip..])),
        Some((first, rest)) => match segs.split_first() {
            Some((seg, more)) => fnmatch(first, seg) && segments_match(rest, more),
            None => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_follow_githubs_documented_examples() {
        let cases: &[(&str, &str, bool)] = &[
            ("*", "tests/test_a.py", true),
            ("*.py", "tests/unit/test_a.py", true),
            ("*.js", "tests/test_a.py", false),
            ("/build/logs/", "build/logs/a.log", true),
            ("/build/logs/", "x/build/logs/a.log", false),
            ("docs/*", "docs/getting-started.md", true),
            ("docs/*", "docs/build-app/troubleshooting.md", false),
            ("apps/", "apps/a.py", true),
            ("apps/", "src/apps/deep/a.py", true),
            ("apps/", "apps", false),
            ("/docs/", "docs/a/b.md", true),
            ("/scripts/", "src/scripts/a.sh", false),
            ("**/logs", "build/logs/a.log", true),
            ("**/logs", "deeply/nested/logs/x", true),
            ("tests/**/test_*.py", "tests/test_a.py", true),
            ("tests/**/test_*.py", "tests/a/b/test_a.py", true),
            ("tests", "tests/test_a.py", true),
            ("tests", "src/tests/test_a.py", true),
            ("/tests/test_a.py", "tests/test_a.py", true),
            ("/tests/test_?.py", "tests/test_ab.py", false),
            ("test_a.py", "tests/test_a.py", true),
            ("tests/test_a", "tests/test_a.py", false),
        ];
        for (pattern, path, want) in cases {
            assert_eq!(pattern_matches(pattern, path), *want, "{pattern} vs {path}");
        }
    }

    #[test]
    fn last_match_wins_and_empty_owners_exempt() {
        let text = "# owners\n*  @org/all\n\ntests/ @org/qa  # the suite\n[Docs]\ntests/vendored/\n\\#odd @x\n";
        let owners = CodeOwners::parse("CODEOWNERS", text);
        assert_eq!(
            owners.owner_of("tests/test_a.py"),
            Some(("@org/qa".to_string(), "CODEOWNERS:4".to_string()))
        );
        assert_eq!(
            owners.owner_of("src/a.py"),
            Some(("@org/all".to_string(), "CODEOWNERS:2".to_string()))
        );
        assert_eq!(owners.owner_of("tests/vendored/test_v.py"), None);
        assert_eq!(
            owners.owner_of("#odd"),
            Some(("@x".to_string(), "CODEOWNERS:7".to_string()))
        );
    }
}
