//! Doctests (issue 18 (2)). pytest collects every text file matching `--doctest-glob`
//! (default `test*.txt`; the option replaces the default, and may be given more than once) as
//! one test, `path::name`, when it holds an example (`>>>`); with `--doctest-modules`, the
//! examples in the docstrings of every Python module become tests too.
//!
//! A doctest has no place for a lane mark: a text file carries no decorator, and a docstring's
//! examples run outside the marks of the function they document. lane-scan lists text-file
//! doctests under pytest's ids with no lane, so each is `unmarked` naming its file (the gate
//! fails closed instead of meeting an unknown test at tally time); module doctests it cannot
//! list yet, and says so (`unseen-doctests` on the configuration line).

use std::path::Path;

use lane_core::scan::{Attachments, ScanTest};
use lane_core::{Problem, Rule};

use crate::config::Config;
use crate::fnmatch::fnmatch;

/// The `--doctest-glob` patterns of addopts, or pytest's default.
pub fn globs(addopts: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = addopts.iter();
    while let Some(opt) = it.next() {
        if opt == "--doctest-glob" {
            if let Some(v) = it.next() {
                out.push(v.clone());
            }
        } else if let Some(v) = opt.strip_prefix("--doctest-glob=") {
            out.push(v.to_string());
        }
    }
    if out.is_empty() {
        out.push("test*.txt".to_string());
    }
    out
}

/// pytest's `fnmatch_ex`: a pattern without `/` matches the file name, one with `/` the path.
pub fn matches(glob: &str, path: &Path, name: &str) -> bool {
    if glob.contains('/') {
        let full = path.to_string_lossy().replace('\\', "/");
        let pattern = if glob.starts_with('/') {
            glob.to_string()
        } else {
            format!("*/{glob}")
        };
        fnmatch(&pattern, &full)
    } else {
        fnmatch(glob, name)
    }
}

/// The line of the first example (`>>>` after spaces, tabs expanded as doctest does), if any.
pub fn first_example(text: &str) -> Option<u64> {
    text.lines().enumerate().find_map(|(i, line)| {
        let expanded = line.replace('\t', "        ");
        expanded
            .trim_start_matches(' ')
            .starts_with(">>>")
            .then_some(i as u64 + 1)
    })
}

/// The test pytest collects from doctest text file `rel` (root-relative), read from `abs`,
/// and its problems: none when the file holds no example.
pub fn text_file(abs: &Path, rel: &str, problems: &mut Vec<Problem>) -> Option<ScanTest> {
    let text = match lane_core::io::read_file_capped(
        abs,
        lane_core::rule::SOURCE_MAX_BYTES,
        "a doctest file",
    ) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            problems.push(
                Problem::new(
                    Rule::ParseError,
                    format!("cannot read doctest file {rel}: {e}"),
                )
                .file(rel),
            );
            return None;
        }
    };
    let line = first_example(&text)?;
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let id = format!("{rel}::{name}");
    problems.push(
        Problem::new(
            Rule::Unmarked,
            format!(
                "doctest {id} has no lane: pytest runs the examples of {rel} as one test, and a \
                 text file cannot carry a lane mark; move the examples into a test module (a \
                 marked test that runs doctest.testfile) or out of --doctest-glob's reach"
            ),
        )
        .at(rel, line)
        .test(&id),
    );
    Some(ScanTest {
        attachments: Attachments::default(),
        defined_in: None,
        file: rel.to_string(),
        id,
        lane: None,
        lanes: Vec::new(),
        line,
        marks: Vec::new(),
        parametrized: false,
    })
}

/// `--doctest-modules` in addopts: the module doctests lane-scan does not list.
pub fn modules_problem(config: &Config) -> Option<Problem> {
    if !config.addopts.iter().any(|o| o == "--doctest-modules") {
        return None;
    }
    let file = config
        .file
        .as_ref()
        .and_then(|f| lane_core::paths::relative_to(f, &config.rootdir))
        .unwrap_or_default();
    let line = config.addopts_line.unwrap_or(1);
    let problem = Problem::new(
        Rule::UnseenDoctests,
        format!(
            "{file}:{line}: addopts has --doctest-modules: pytest collects the docstring \
             examples of every module as tests, which lane-scan does not list"
        ),
    );
    Some(if file.is_empty() {
        problem
    } else {
        problem.at(&file, line)
    })
}
