//! `collect_ignore` and `collect_ignore_glob` in conftest files, as pytest's
//! `pytest_ignore_collect` reads them: for each path it visits, the nearest conftest
//! above the path's folder that defines the list gives it, its entries taken relative to that
//! conftest's folder; a path in `collect_ignore`, or matching a pattern of
//! `collect_ignore_glob` (fnmatch against the whole path), is not collected, nor anything
//! under it. The lists are read statically: literal lists, `+`, `+=`, `.append` and
//! `.extend`, under `if` conditions decided for the target interpreter (names they read followed to
//! their modules). Anything else is an `unresolved-collect-ignore` error naming the line.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use lane_python::{IgnoreKind, IgnoreList, IgnorePiece, Module};

use crate::pytest::config::normalize;
use crate::pytest::fnmatch::fnmatch;
use crate::rules::{IgnoreUnsure, IgnoreWhy};

/// The lists a conftest ends with (`None`: it does not define one).
#[derive(Debug, Default)]
struct Lists {
    paths: Option<Vec<PathBuf>>,
    globs: Option<Vec<String>>,
}

/// The ignore lists of the suite's conftest files, by the conftest's folder.
#[derive(Debug, Default)]
pub struct CollectIgnore {
    by_dir: HashMap<PathBuf, Lists>,
}

impl CollectIgnore {
    /// Reads each conftest (absolute path, root-relative name, summary) in order. Statements
    /// it cannot read go to `unsure`; the list they touch is then taken as the entries it
    /// could read (the error stops the gate, so what is collected is never trusted silently).
    pub(crate) fn read<'a>(
        conftests: impl IntoIterator<Item = (&'a Path, &'a str, &'a Module)>,
        names: &crate::pytest::names::Names,
        unsure: &mut Vec<IgnoreUnsure<'a>>,
    ) -> CollectIgnore {
        let mut out = CollectIgnore::default();
        for (abs, rel, module) in conftests {
            if module.collect_ignore.is_empty() {
                continue;
            }
            let Some(dir) = abs.parent() else { continue };
            let mut paths: Option<Vec<String>> = None;
            let mut globs: Option<Vec<String>> = None;
            for op in &module.collect_ignore {
                let unsure_of = |why| IgnoreUnsure {
                    file: rel,
                    line: op.line,
                    list: op.list,
                    why,
                };
                match names.decide_all(&op.guards, abs, module) {
                    Some(false) => continue,
                    None => {
                        unsure.push(unsure_of(IgnoreWhy::Undecided));
                        continue;
                    }
                    Some(true) => {}
                }
                let pieces = match &op.kind {
                    IgnoreKind::Computed(what) => {
                        unsure.push(unsure_of(IgnoreWhy::Computed(what)));
                        continue;
                    }
                    IgnoreKind::Set(p) | IgnoreKind::Extend(p) => p,
                };
                let mut entries = Vec::new();
                for piece in pieces {
                    match piece {
                        IgnorePiece::Str(s) => entries.push(s.to_string()),
                        IgnorePiece::List(l) => {
                            let current = match l {
                                IgnoreList::Paths => &paths,
                                IgnoreList::Globs => &globs,
                            };
                            entries.extend(current.iter().flatten().cloned());
                        }
                    }
                }
                let list = match op.list {
                    IgnoreList::Paths => &mut paths,
                    IgnoreList::Globs => &mut globs,
                };
                match op.kind {
                    IgnoreKind::Set(_) => *list = Some(entries),
                    _ => list.get_or_insert_with(Vec::new).extend(entries),
                }
            }
            let lists = Lists {
                paths: paths.map(|p| p.iter().map(|e| normalize(&dir.join(e))).collect()),
                globs: globs.map(|g| {
                    g.iter()
                        .map(|e| dir.join(e).to_string_lossy().into_owned())
                        .collect()
                }),
            };
            out.by_dir.insert(dir.to_path_buf(), lists);
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.by_dir.is_empty()
    }

    /// Whether pytest leaves `path` out: it, or a folder on the way to it from the rootdir
    /// (below the arguments it was given), is ignored by the conftests above that folder.
    pub fn ignored(&self, path: &Path, root: &Path, args: &[PathBuf]) -> bool {
        if self.by_dir.is_empty() {
            return false;
        }
        let mut chain: Vec<&Path> = path
            .ancestors()
            .take_while(|p| p.starts_with(root) && *p != root)
            .collect();
        chain.reverse();
        chain.into_iter().any(|p| {
            // A path given on the command line (or above one) is collected as asked.
            !args.iter().any(|a| a.starts_with(p)) && self.ignores_one(p)
        })
    }

    /// `pytest_ignore_collect` for one path: the nearest conftest above its folder that
    /// defines each list decides.
    fn ignores_one(&self, path: &Path) -> bool {
        let Some(parent) = path.parent() else {
            return false;
        };
        let nearest_paths = parent
            .ancestors()
            .find_map(|d| self.by_dir.get(d).and_then(|l| l.paths.as_ref()));
        if nearest_paths.is_some_and(|ps| ps.iter().any(|p| p == path)) {
            return true;
        }
        let nearest_globs = parent
            .ancestors()
            .find_map(|d| self.by_dir.get(d).and_then(|l| l.globs.as_ref()));
        match nearest_globs {
            Some(globs) => {
                let full = path.to_string_lossy();
                globs.iter().any(|g| fnmatch(g, &full))
            }
            None => false,
        }
    }
}
