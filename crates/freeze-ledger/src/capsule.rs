//! The capsule: the replay input a ticket names by `input_path` and pins by `input_sha256`.

use std::path::{Path, PathBuf};

/// SHA-256 of a regular file's bytes as 64 lowercase hex digits (lane-core's one hasher; capsules
/// can be big: it streams).
pub(crate) fn sha256_file(path: &Path) -> std::io::Result<String> {
    lane_core::io::sha256_file(path).map(|(digest, _)| digest)
}

/// Checks that the root-relative `input_path` stays inside `root` and hashes to `expected`;
/// the error says what is wrong (unsafe path, missing file, other digest).
pub(crate) fn verify(root: &Path, input_path: &str, expected: &str) -> Result<(), String> {
    let path = lane_core::paths::resolve_inside(root, input_path)
        .map_err(|why| format!("input_path {input_path} {why}; it was not read"))?;
    match sha256_file(&path) {
        Ok(actual) if actual == expected => Ok(()),
        Ok(actual) => Err(format!(
            "capsule {input_path} hashes to {actual}, the ticket expects {expected}"
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(format!("capsule {input_path} is missing"))
        }
        Err(e) => Err(format!("capsule {input_path} cannot be read: {e}")),
    }
}

/// The root-relative `/` path of `file` (a path as given on the command line), refusing files
/// outside `root` or reached through a symlink that leaves it.
pub(crate) fn root_relative(root: &Path, file: &Path) -> Result<String, String> {
    let shown = file.display();
    let real_root = root
        .canonicalize()
        .map_err(|e| format!("rootdir {}: {e}", root.display()))?;
    let name = file
        .file_name()
        .ok_or_else(|| format!("{shown} does not name a file"))?;
    let parent = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let real_parent = parent.canonicalize().map_err(|e| format!("{shown}: {e}"))?;
    let rel = real_parent
        .join(name)
        .strip_prefix(&real_root)
        .map(lane_core::paths::to_slash)
        .map_err(|_| format!("{shown} is outside the rootdir {}", root.display()))?;
    lane_core::paths::resolve_inside(root, &rel).map_err(|why| format!("{shown} {why}"))?;
    Ok(rel)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        let dir =
            std::env::temp_dir().join(format!("freeze-ledger-capsule-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("caps")).unwrap();
        std::fs::write(dir.join("caps/empty"), b"").unwrap();
        std::fs::write(dir.join("caps/abc"), b"abc").unwrap();
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(sha256_file(&dir.join("caps/empty")).unwrap(), empty);
        assert_eq!(sha256_file(&dir.join("caps/abc")).unwrap(), abc);
        assert!(verify(&dir, "caps/abc", abc).is_ok());
        assert!(
            verify(&dir, "caps/abc", empty)
                .unwrap_err()
                .contains("hashes to ba78")
        );
        assert!(
            verify(&dir, "caps/gone", abc)
                .unwrap_err()
                .contains("missing")
        );
        assert!(verify(&dir, "../x", abc).unwrap_err().contains("'..'"));
        assert!(
            verify(&dir, "caps", abc)
                .unwrap_err()
                .contains("cannot be read")
        );
        assert_eq!(
            root_relative(&dir, &dir.join("caps/abc")).unwrap(),
            "caps/abc"
        );
        assert!(root_relative(&dir.join("caps"), &dir.join("caps/../x")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
