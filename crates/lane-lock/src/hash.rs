//! SHA-256 of files: one reusable read buffer per thread, a plain `read` loop (no mmap), and
//! many files hashed in parallel on every core.
//!
//! Only regular files are ever read (lane-core's `open_regular`, which also hashes: one reader,
//! one hasher for every tool), so a FIFO or a device named in a lock can neither block the tool
//! nor feed it endless bytes.

use std::io;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

/// Size of the per-thread read buffer.
#[cfg(test)]
use lane_core::io::HASH_BUFFER_SIZE as BUFFER_SIZE;

/// A file's digest (64 lowercase hex digits) and size in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileDigest {
    pub sha256: String,
    pub bytes: u64,
}

/// Why a file could not be hashed.
#[derive(Debug)]
pub(crate) enum HashError {
    /// It does not exist.
    NotFound,
    /// It exists but is not a regular file (a folder, FIFO, socket or device): never read.
    NotRegular,
    /// Opening or reading it failed.
    Io(io::Error),
}

impl std::fmt::Display for HashError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HashError::NotFound => f.write_str("does not exist"),
            HashError::NotRegular => f.write_str("is not a regular file"),
            HashError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl From<io::Error> for HashError {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::NotFound {
            HashError::NotFound
        } else if lane_core::io::is_not_regular(&e) {
            HashError::NotRegular
        } else {
            HashError::Io(e)
        }
    }
}

/// The digest of a byte slice.
pub use lane_core::io::sha256_bytes;

/// Reads a whole regular file (a small one: a lock or a sidecar), never a FIFO or device.
#[cfg(test)]
fn read_regular(path: &Path) -> Result<Vec<u8>, HashError> {
    use std::io::Read;
    let mut file = lane_core::io::open_regular(path)?;
    let mut out = Vec::new();
    file.read_to_end(&mut out).map_err(HashError::Io)?;
    Ok(out)
}

/// Hashes one file with this thread's buffer (lane-core's one hasher).
pub(crate) fn hash_file(path: &Path) -> Result<FileDigest, HashError> {
    let (sha256, bytes) = lane_core::io::sha256_file(path)?;
    Ok(FileDigest { sha256, bytes })
}

/// [`hash_file`] for a path its folder's listing has just shown to be a regular file (not a
/// symlink): one `open` (`O_NOFOLLOW`) and one `fstat`, no `stat` of the path first
/// (lane-core's `sha256_listed_file`).
pub(crate) fn hash_listed_file(path: &Path) -> Result<FileDigest, HashError> {
    let (sha256, bytes) = lane_core::io::sha256_listed_file(path)?;
    Ok(FileDigest { sha256, bytes })
}

/// Hashes every path on all cores; results are in the order of `paths`.
pub(crate) fn hash_files(paths: &[PathBuf]) -> Vec<Result<FileDigest, HashError>> {
    paths.par_iter().map(|p| hash_file(p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        // FIPS 180-2 test vectors.
        let cases: &[(&str, &[u8], &str)] = &[
            (
                "empty",
                b"",
                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            ),
            (
                "abc",
                b"abc",
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            ),
        ];
        for (name, input, expected) in cases {
            assert_eq!(sha256_bytes(input), *expected, "{name}");
        }
    }

    #[test]
    fn files_larger_than_the_buffer_hash_like_their_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let data: Vec<u8> = (0..(BUFFER_SIZE * 2 + 12345))
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        let path = dir.path().join("big.bin");
        std::fs::write(&path, &data).unwrap();
        let small = dir.path().join("small.txt");
        std::fs::write(&small, b"abc").unwrap();
        let got = hash_files(&[path.clone(), small, dir.path().join("missing")]);
        let first = got[0].as_ref().unwrap();
        assert_eq!(first.sha256, sha256_bytes(&data));
        assert_eq!(first.bytes, data.len() as u64);
        assert_eq!(got[1].as_ref().unwrap().bytes, 3);
        assert!(matches!(got[2], Err(HashError::NotFound)));
    }

    #[cfg(unix)]
    #[test]
    fn fifos_and_folders_are_never_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        assert!(matches!(hash_file(&fifo), Err(HashError::NotRegular)));
        assert!(matches!(hash_file(dir.path()), Err(HashError::NotRegular)));
        // Devices: an endless one and an empty one, neither read.
        for device in ["/dev/zero", "/dev/null"] {
            assert!(
                matches!(hash_file(Path::new(device)), Err(HashError::NotRegular)),
                "{device}"
            );
            assert!(
                matches!(read_regular(Path::new(device)), Err(HashError::NotRegular)),
                "{device}"
            );
        }
    }
}
