//! Doctests. pytest collects every text file matching
//! `--doctest-glob` (default `test*.txt`; the option replaces the default, and may be given
//! more than once) as one test, `path::name`, when it holds an example (`>>>`); with
//! `--doctest-modules`, every Python module it walks (not `setup.py` or `__main__.py`) gives
//! one test per docstring holding examples, `path.py::module.name` ([`lane_python::docfinder`]).
//!
//! A doctest has no place for a lane mark: a text file carries no decorator, and a docstring's
//! examples run outside the marks of the function they document. The project gives all its
//! doctest items one lane in its pytest configuration, `lanes_doctest_lane = merge|witness|
//! freeze` (pytest-lanes-gate registers the key and adds that lane's mark to every doctest
//! item at collection). Without the key each doctest item is `unmarked`, naming its file and
//! line; an invalid value is a usage error naming the configuration line.

use std::path::Path;

use lane_core::scan::{Attachments, Lane, ScanTest};
use lane_core::{Error, Problem};
use lane_python::docfinder::DocOf;

use crate::pytest::config::Config;
use crate::pytest::fnmatch::fnmatch;
use crate::rules::{DoctestFacts, DoctestModuleFacts, ScanFacts, Unreadable, Why};

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

/// The line of the first `>>>` line (after spaces, tabs expanded as doctest does), if any.
pub fn first_example(text: &str) -> Option<u64> {
    text.lines().enumerate().find_map(|(i, line)| {
        let expanded = line.replace('\t', "        ");
        expanded
            .trim_start_matches(' ')
            .starts_with(">>>")
            .then_some(i as u64 + 1)
    })
}

/// The ini key pytest-lanes-gate registers for the lane of every doctest item.
pub const LANE_KEY: &str = "lanes_doctest_lane";

/// The lane `lanes_doctest_lane` gives doctest items (none without the key); a value that is
/// not a lane is a usage error naming the configuration file and line (exit 2).
pub fn lane(config: &Config) -> Result<Option<Lane>, Error> {
    let Some((value, line)) = &config.doctest_lane else {
        return Ok(None);
    };
    match Lane::from_name(value) {
        Some(lane) => Ok(Some(lane)),
        None => Err(Error::parse(
            config_name(config),
            *line as usize,
            0,
            format!(
                "{LANE_KEY} is {value:?}: the lane of the project's doctest items is one of \
                 merge, witness or freeze"
            ),
        )),
    }
}

/// The configuration file, root-relative when it lies under the rootdir.
fn config_name(config: &Config) -> String {
    config
        .file
        .as_ref()
        .map(|f| {
            lane_core::paths::relative_to(f, &config.rootdir)
                .unwrap_or_else(|| lane_core::paths::to_slash(f))
        })
        .unwrap_or_else(|| "the pytest configuration".to_string())
}

/// What every doctest item of one scan shares.
pub struct Ctx<'a> {
    pub lane: Option<Lane>,
    /// The configuration file (root-relative), for messages.
    pub config_file: String,
    pub codeowners: Option<&'a crate::owners::CodeOwners>,
    /// The lines a patch changed, by root-relative file (`--changed`, lane-gate's `--base`):
    /// a doctest's text among them is a changed test (`doctest-changed`).
    pub changed: Option<&'a std::collections::BTreeMap<String, crate::aware::Ranges>>,
}

impl<'a> Ctx<'a> {
    pub fn new(
        config: &Config,
        codeowners: Option<&'a crate::owners::CodeOwners>,
        changed: Option<&'a crate::aware::Changed>,
    ) -> Result<Self, Error> {
        Ok(Ctx {
            lane: lane(config)?,
            config_file: config_name(config),
            codeowners,
            changed: match changed {
                Some(crate::aware::Changed::Lines(lines)) => Some(lines),
                _ => None,
            },
        })
    }

    /// The test of one doctest item, its text spanning `text` (first and last line), judged
    /// by the lane rules like a test function's (its problems into `problems`).
    fn item(&self, one: Item<'_>, text: (u64, u64), problems: &mut Vec<Problem>) -> ScanTest {
        let Item {
            id,
            file,
            line,
            owner_docs,
            all_skipped,
        } = one;
        let mut attachments = Attachments::default();
        if self.lane.is_some() {
            let from_docs = owner_docs.iter().find_map(|(doc, from)| {
                let [owner] = crate::rules::facts::docstring_fields(doc, ["owner"]);
                owner.map(|o| (o, owned_by(*from).to_string()))
            });
            let owner = from_docs.or_else(|| self.codeowners.and_then(|c| c.owner_of(file)));
            if let Some((owner, from)) = owner {
                attachments.owner = Some(owner);
                attachments.owner_from = Some(from);
            }
        }
        let facts = DoctestFacts {
            id: &id,
            file,
            line,
            lane: self.lane,
            has_owner: attachments.owner.is_some(),
            all_skipped,
            text,
            changed: self.changed.and_then(|c| c.get(file)),
            config_file: &self.config_file,
        };
        crate::rules::judge(&ScanFacts::Doctest(&facts), problems);
        let lanes: Vec<Lane> = self.lane.into_iter().collect();
        ScanTest {
            attachments,
            defined_in: None,
            empty_params: None,
            file: file.to_string(),
            id,
            lane: self.lane,
            marks: lanes.iter().map(|l| l.as_str().to_string()).collect(),
            lanes,
            line,
            parametrized: false,
        }
    }
}

/// Where an owner read from a docstring of kind `of` came from, as the evidence names it.
fn owned_by(of: DocOf) -> &'static str {
    match of {
        DocOf::Item => crate::owners::FROM_TEST,
        DocOf::Class => crate::owners::FROM_CLASS,
        DocOf::Module => crate::owners::FROM_MODULE,
    }
}

/// One doctest item before its lane is given.
struct Item<'a> {
    id: String,
    file: &'a str,
    line: u64,
    owner_docs: Vec<(String, DocOf)>,
    all_skipped: bool,
}

/// The test pytest collects from doctest text file `rel` (root-relative), read from `abs`,
/// and its problems: none when the file holds no example.
pub(crate) fn text_file(
    ctx: &Ctx,
    abs: &Path,
    rel: &str,
    problems: &mut Vec<Problem>,
) -> Option<ScanTest> {
    let text = match lane_core::io::read_file_capped(
        abs,
        lane_core::rule::SOURCE_MAX_BYTES,
        "a doctest file",
    ) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            unreadable(rel, Why::CannotReadDoctestFile(e.to_string()), problems);
            return None;
        }
    };
    let found = lane_python::docfinder::examples(&text);
    if found.count == 0 {
        return None;
    }
    let line = first_example(&text).unwrap_or(1);
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let item = Item {
        id: format!("{rel}::{name}"),
        file: rel,
        line,
        owner_docs: vec![(text.clone(), DocOf::Item)],
        all_skipped: found.skipped == found.count,
    };
    let last = text.lines().count().max(1) as u64;
    Some(ctx.item(item, (1, last), problems))
}

/// `file` could not be read, for `why`: judged into `problems`.
fn unreadable(file: &str, why: Why, problems: &mut Vec<Problem>) {
    let u = Unreadable {
        file: file.to_string(),
        why,
    };
    crate::rules::judge(&ScanFacts::Unreadable(&u), problems);
}

/// `--doctest-modules` in addopts.
pub fn modules_enabled(config: &Config) -> bool {
    config.addopts.iter().any(|o| o == "--doctest-modules")
}

/// Whether pytest's doctest plugin leaves out the Python file `path` (named `name`):
/// `__main__.py`, and a `setup.py` that mentions setuptools or distutils.
pub fn skipped_module(path: &Path, name: &str) -> bool {
    match name {
        "__main__.py" => true,
        "setup.py" => std::fs::read(path).is_ok_and(|b| {
            memchr::memmem::find(&b, b"setuptools").is_some()
                || memchr::memmem::find(&b, b"distutils").is_some()
        }),
        _ => false,
    }
}

/// The `__name__` pytest imports `abs` under (the default `prepend` import mode): the file's
/// stem after the names of the folders above it that hold an `__init__.py` (a package's
/// `__init__.py` is the package).
pub fn module_name(abs: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    let stem = abs
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if stem != "__init__" {
        parts.push(stem);
    }
    let mut dir = abs.parent();
    while let Some(d) = dir {
        if !d.join("__init__.py").is_file() {
            break;
        }
        match d.file_name() {
            Some(n) => parts.push(n.to_string_lossy().into_owned()),
            None => break,
        }
        dir = d.parent();
    }
    parts.reverse();
    parts.join(".")
}

/// The bytes that can make a doctest item: an example prompt (written plainly or as an
/// escape), a `__test__` dict, a `__doc__` set at run time. A module without any has none.
fn may_hold_doctests(bytes: &[u8]) -> bool {
    const NEEDLES: &[&[u8]] = &[
        b">>>",
        b"__test__",
        b"__doc__",
        b"\\x3e",
        b"\\x3E",
        b"\\076",
        b"\\u003e",
        b"\\u003E",
        b"\\U0000003",
        b"\\N{",
    ];
    NEEDLES
        .iter()
        .any(|n| memchr::memmem::find(bytes, n).is_some())
}

/// The doctest items of Python module `abs` (root-relative `rel`) and their problems;
/// `reported`: the module is read by the main pass too, which reports it when it does not
/// parse.
pub(crate) fn module(
    ctx: &Ctx,
    abs: &Path,
    rel: &str,
    reported: bool,
    problems: &mut Vec<Problem>,
) -> Vec<ScanTest> {
    // A module the main pass reads is reported there when it cannot be read.
    let report = |why: Why, problems: &mut Vec<Problem>| {
        if !reported {
            unreadable(rel, why, problems);
        }
    };
    let bytes = match lane_core::io::read_file_capped(
        abs,
        lane_core::rule::SOURCE_MAX_BYTES,
        "a Python module",
    ) {
        Ok(bytes) => bytes,
        Err(e) => {
            report(Why::CannotRead(e.to_string()), problems);
            return Vec::new();
        }
    };
    if !may_hold_doctests(&bytes) {
        return Vec::new();
    }
    let Ok(text) = String::from_utf8(bytes) else {
        report(Why::NotUtf8ForDoctests, problems);
        return Vec::new();
    };
    let source = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let name = module_name(abs);
    let finding = match lane_python::docfinder::find(source, &name) {
        Ok(finding) => finding,
        Err(e) => {
            report(Why::Syntax(e), problems);
            return Vec::new();
        }
    };
    let facts = DoctestModuleFacts {
        file: rel,
        name: &name,
        unsure: &finding.unsure,
    };
    crate::rules::judge(&ScanFacts::DoctestModule(&facts), problems);
    finding
        .items
        .into_iter()
        .map(|found| {
            let item = Item {
                id: format!("{rel}::{}", found.name),
                file: rel,
                line: found.line,
                owner_docs: found.owner_docs,
                all_skipped: found.all_skipped,
            };
            ctx.item(item, found.doc_lines, problems)
        })
        .collect()
}
