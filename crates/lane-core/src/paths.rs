//! Root-relative `/` paths, and resolving them without ever leaving the root.

use std::path::{Component, Path, PathBuf};

/// Why a path was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unsafe {
    Absolute,
    ParentComponent,
    /// The path (or one of its folders) is a symlink that resolves outside the root.
    EscapesRoot,
    Empty,
}

impl std::fmt::Display for Unsafe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unsafe::Absolute => "is absolute",
            Unsafe::ParentComponent => "has a '..' component",
            Unsafe::EscapesRoot => "resolves outside the root through a symlink",
            Unsafe::Empty => "is empty",
        })
    }
}

/// `rel` as a `/`-separated string (lossy for non-UTF-8 names).
pub fn to_slash(rel: &Path) -> String {
    let mut out = String::new();
    for c in rel.components() {
        if let Component::Normal(part) = c {
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(&part.to_string_lossy());
        }
    }
    out
}

/// `path` relative to `root` as a `/` string, when it is inside it (lexically).
pub fn relative_to(path: &Path, root: &Path) -> Option<String> {
    path.strip_prefix(root).ok().map(to_slash)
}

/// How a file is named in sections and messages: root-relative when it is inside the root
/// (so output holds no absolute paths), otherwise as given.
pub fn display_name(root: &Path, path: &Path) -> String {
    if path.is_relative() && (root == Path::new(".") || root == Path::new("")) {
        let slash = to_slash(path);
        if !path.components().any(|c| matches!(c, Component::ParentDir)) && !slash.is_empty() {
            return slash;
        }
    }
    if let Some(rel) = relative_to(path, root)
        && !rel.is_empty()
    {
        return rel;
    }
    let real = |p: &Path| -> Option<PathBuf> {
        match (p.parent(), p.file_name()) {
            (Some(parent), Some(name)) => {
                let parent = if parent.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    parent
                };
                parent.canonicalize().ok().map(|d| d.join(name))
            }
            _ => None,
        }
    };
    if let (Some(p), Ok(r)) = (real(path), root.canonicalize())
        && let Ok(rel) = p.strip_prefix(&r)
    {
        return to_slash(rel);
    }
    // Outside the root: a relative path as given; an absolute one by its file name only
    // (output holds no absolute paths, and a temporary folder's name is not stable).
    if path.is_absolute()
        && let Some(name) = path.file_name()
    {
        return name.to_string_lossy().into_owned();
    }
    path.display().to_string()
}

/// Joins a root-relative path to `root` after checking it lexically (not absolute, no `..`)
/// and physically (every existing prefix canonicalizes inside the canonical root). Nothing is
/// opened or read. A path that does not exist yet is fine as long as what exists of it stays
/// inside.
pub fn resolve_inside(root: &Path, rel: &str) -> Result<PathBuf, Unsafe> {
    if rel.is_empty() {
        return Err(Unsafe::Empty);
    }
    let rel_path = Path::new(rel);
    if rel_path.is_absolute() || rel.starts_with('/') || rel.starts_with('\\') {
        return Err(Unsafe::Absolute);
    }
    for c in rel_path.components() {
        match c {
            Component::ParentDir => return Err(Unsafe::ParentComponent),
            Component::Prefix(_) | Component::RootDir => return Err(Unsafe::Absolute),
            _ => {}
        }
    }
    let joined = root.join(rel_path);
    let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    // Walk from the full path up to the first prefix that exists and check where it points.
    let mut probe = joined.clone();
    loop {
        if probe.symlink_metadata().is_ok() {
            match probe.canonicalize() {
                Ok(real) if real.starts_with(&canonical_root) => break,
                // A dangling or looping symlink: it cannot be shown to stay inside.
                _ => return Err(Unsafe::EscapesRoot),
            }
        }
        if !probe.pop() || probe == root {
            break;
        }
    }
    Ok(joined)
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn refuses_lexically_unsafe_paths() {
        let root = std::env::temp_dir();
        assert_eq!(resolve_inside(&root, "/etc/passwd"), Err(Unsafe::Absolute));
        assert_eq!(
            resolve_inside(&root, "a/../../b"),
            Err(Unsafe::ParentComponent)
        );
        assert_eq!(resolve_inside(&root, ""), Err(Unsafe::Empty));
    }

    #[test]
    fn refuses_symlinks_that_leave_the_root() {
        let base = std::env::temp_dir().join(format!("lane-core-paths-{}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        let root = base.join("root");
        let outside = base.join("outside");
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("secret"), b"s").unwrap();
        fs::write(root.join("sub/ok.txt"), b"ok").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        std::os::unix::fs::symlink("sub/ok.txt", root.join("inner")).unwrap();
        assert_eq!(
            resolve_inside(&root, "link/secret"),
            Err(Unsafe::EscapesRoot)
        );
        assert!(resolve_inside(&root, "inner").is_ok());
        assert!(resolve_inside(&root, "sub/ok.txt").is_ok());
        assert!(resolve_inside(&root, "sub/not-yet.txt").is_ok());
        fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn slash_form() {
        assert_eq!(to_slash(Path::new("a/./b/c.txt")), "a/b/c.txt");
    }
}
