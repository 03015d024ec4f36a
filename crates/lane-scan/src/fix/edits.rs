//! The edits `--fix` makes: text inserted at byte offsets of a file, never a byte outside the
//! inserts changed, and the files being edited, each read and laid out once.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::PathBuf;

use lane_python::layout::{self, ImportNext, Layout};

/// One inserted text: at a byte offset; among equal offsets, in the order pushed.
pub(super) struct Insert {
    pub(super) at: usize,
    pub(super) text: String,
}

/// A test file being edited.
pub(super) struct FileEdit {
    pub(super) source: String,
    pub(super) layout: Layout,
    pub(super) inserts: Vec<Insert>,
    /// The lane marks put on functions, as (offset, text): a function collected as several
    /// tests is marked once.
    pub(super) function_marks: HashSet<(usize, String)>,
    /// `pytest.mark.*` is written into it.
    pub(super) needs_pytest: bool,
}

/// The files being edited, by root-relative path; a file that cannot be read as UTF-8 or
/// parsed is left untouched and named once in `unparsable`.
pub(super) struct Files {
    root: PathBuf,
    pub(super) edits: BTreeMap<String, FileEdit>,
    /// Files left untouched: those that did not parse in the scan, and those that fail here.
    broken: BTreeSet<String>,
    /// Why each file this found broken is left untouched.
    pub(super) unparsable: Vec<String>,
}

impl Files {
    pub(super) fn new(root: PathBuf, broken: BTreeSet<String>) -> Files {
        Files {
            root,
            edits: BTreeMap::new(),
            broken,
            unparsable: Vec::new(),
        }
    }

    /// Loads a file's source and layout (false: it cannot be read or parsed, and is left
    /// untouched).
    pub(super) fn load(&mut self, rel: &str) -> bool {
        if self.broken.contains(rel) {
            return false;
        }
        if self.edits.contains_key(rel) {
            return true;
        }
        let source = match std::fs::read(self.root.join(rel)).map(String::from_utf8) {
            Ok(Ok(s)) => s,
            _ => {
                self.unparsable
                    .push(format!("{rel}: cannot be read as UTF-8"));
                self.broken.insert(rel.to_string());
                return false;
            }
        };
        match layout::read(&source) {
            Ok(layout) => {
                self.edits.insert(
                    rel.to_string(),
                    FileEdit {
                        source,
                        layout,
                        inserts: Vec::new(),
                        function_marks: HashSet::new(),
                        needs_pytest: false,
                    },
                );
                true
            }
            Err(e) => {
                self.unparsable
                    .push(format!("{rel}:{}:{}: {}", e.line, e.column, e.message));
                self.broken.insert(rel.to_string());
                false
            }
        }
    }
}

/// Inserts a module's `pytestmark` after its imports (or where `import pytest` goes).
pub(super) fn module_mark(edit: &mut FileEdit, text: String) {
    edit.needs_pytest = true;
    match edit.layout.after_imports {
        Some(at) => edit.inserts.push(Insert {
            at,
            text: format!("\n{text}"),
        }),
        None => {
            let (at, next) = import_place(edit);
            let gap = match next {
                Some(ImportNext::Definition) => "\n\n",
                Some(_) => "\n",
                None => "",
            };
            // `import pytest` goes first at the same offset (pushed in `import_pytest`, which
            // runs later: it is put in front).
            edit.inserts.push(Insert {
                at,
                text: format!("{text}{gap}"),
            });
            edit.layout.after_imports = None;
        }
    }
}

/// Where `import pytest` goes and what follows it; at the end of the file when nothing does.
pub(super) fn import_place(edit: &FileEdit) -> (usize, Option<ImportNext>) {
    match edit.layout.import_at {
        Some((at, next)) => (at, Some(next)),
        None => (edit.source.len(), None),
    }
}

/// Adds `import pytest` after the docstring and `__future__` imports (before any insert at
/// the same offset).
pub(super) fn import_pytest(edit: &mut FileEdit) {
    let (at, next) = import_place(edit);
    let mut text = String::new();
    if next.is_none() && !edit.source.is_empty() && !edit.source.ends_with('\n') {
        text.push('\n');
    }
    if next.is_none() && !edit.source.is_empty() {
        text.push('\n');
    }
    text.push_str("import pytest\n");
    let module_mark_here = edit.layout.after_imports.is_none()
        && edit
            .inserts
            .iter()
            .any(|i| i.at == at && i.text.starts_with("pytestmark"));
    match next {
        Some(ImportNext::Import) => {}
        _ if module_mark_here => text.push('\n'),
        Some(ImportNext::Definition) => text.push_str("\n\n"),
        Some(ImportNext::Other) => text.push('\n'),
        None => {}
    }
    // In front of every insert at the same offset, after a new docstring.
    let pos = edit
        .inserts
        .iter()
        .position(|i| i.at == at && !i.text.starts_with("\"\"\""))
        .unwrap_or(edit.inserts.len());
    edit.inserts.insert(pos, Insert { at, text });
}

/// Where `source` and the text [`apply`] makes of it with `inserts` (sorted by offset) line
/// up: the start of each line an insert falls in, paired with where that line starts after
/// the inserts before it. The diff compares the lines between two such places alone.
pub(super) fn line_up(source: &str, inserts: &[Insert]) -> Vec<(usize, usize)> {
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let (mut before, mut counted) = (0, 0);
    for insert in inserts {
        let line = source[..insert.at].rfind('\n').map_or(0, |nl| nl + 1);
        while counted < inserts.len() && inserts[counted].at < line {
            before += inserts[counted].text.len();
            counted += 1;
        }
        if cuts.last().is_none_or(|&(at, _)| at < line) {
            cuts.push((line, line + before));
        }
    }
    cuts
}

/// `source` with the inserts applied (stable by offset).
pub(super) fn apply(source: &str, inserts: &mut [Insert]) -> String {
    inserts.sort_by_key(|i| i.at);
    let mut out =
        String::with_capacity(source.len() + inserts.iter().map(|i| i.text.len()).sum::<usize>());
    let mut at = 0;
    for i in inserts.iter() {
        out.push_str(&source[at..i.at]);
        out.push_str(&i.text);
        at = i.at;
    }
    out.push_str(&source[at..]);
    out
}
