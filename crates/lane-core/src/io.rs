//! Reading the document (stdin or `--input`), writing it (stdout and `--output`), and
//! replacing files atomically.

use std::fs;
use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use crate::document::Document;
use crate::error::Error;

/// Reads the evidence document from `input` (a file, or `-` for stdin) or stdin. A terminal or
/// empty stdin is an empty document.
pub fn read_document(input: Option<&Path>) -> Result<Document, Error> {
    match input {
        Some(path) if path != Path::new("-") => {
            let bytes = read_file(path)?;
            Document::parse(&bytes, &path.display().to_string())
        }
        _ => {
            let stdin = io::stdin();
            if stdin.is_terminal() {
                return Ok(Document::empty());
            }
            let mut bytes = Vec::new();
            stdin
                .lock()
                .read_to_end(&mut bytes)
                .map_err(|e| Error::io("<stdin>", e))?;
            Document::parse(&bytes, "<stdin>")
        }
    }
}

/// Why [`open_regular`] refused a path: it names something other than a regular file.
#[derive(Debug)]
struct NotRegular;

impl std::fmt::Display for NotRegular {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a regular file")
    }
}

impl std::error::Error for NotRegular {}

/// Whether `e` is [`open_regular`]'s refusal of something that is not a regular file.
pub fn is_not_regular(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<NotRegular>())
}

/// Opens a regular file for reading, the one way any lanes tool opens a file it reads. Anything
/// else (a FIFO or a device would block or never end; a folder) is refused before it is opened:
/// opening a FIFO releases its writer, opening a device can act on it. The file is opened with
/// `O_NONBLOCK | O_NOCTTY` and the handle is checked again, in case the path changed in between.
/// A refusal is an `InvalidInput` error reading "not a regular file" ([`is_not_regular`]).
pub fn open_regular(path: &Path) -> io::Result<fs::File> {
    let not_regular = || io::Error::new(io::ErrorKind::InvalidInput, NotRegular);
    if !fs::metadata(path)?.is_file() {
        return Err(not_regular());
    }
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Should the path have become a FIFO or a terminal meanwhile: do not wait for a
        // writer, do not become its controlling terminal. No effect on a regular file.
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(not_regular());
    }
    Ok(file)
}

/// Reads a whole regular file ([`open_regular`]).
pub fn read_file(path: &Path) -> Result<Vec<u8>, Error> {
    let mut file = open_regular(path).map_err(|e| Error::io(path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    // One byte more than the size, so that the read reaching the end needs no larger buffer;
    // a size that cannot be allocated is an error, not an abort.
    let mut bytes = Vec::new();
    let want = usize::try_from(meta.len())
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    bytes
        .try_reserve_exact(want)
        .map_err(|e| Error::io(path, io::Error::new(io::ErrorKind::OutOfMemory, e)))?;
    file.read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    Ok(bytes)
}

/// Size of the per-thread buffer [`sha256_file`] reads through.
pub const HASH_BUFFER_SIZE: usize = 1 << 20;

thread_local! {
    static HASH_BUFFER: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(vec![0; HASH_BUFFER_SIZE]);
}

/// The SHA-256 of a byte slice as 64 lowercase hex digits.
pub fn sha256_bytes(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    crate::hex::encode(&sha2::Sha256::digest(bytes))
}

/// The SHA-256 (64 lowercase hex digits) and size in bytes of a regular file
/// ([`open_regular`]), read with a plain `read` loop (no mmap) through one reused buffer per
/// thread, so hashing many files on many threads allocates once per thread.
pub fn sha256_file(path: &Path) -> io::Result<(String, u64)> {
    use sha2::Digest as _;
    let mut file = open_regular(path)?;
    HASH_BUFFER.with(|cell| {
        let mut buf = cell.borrow_mut();
        let mut hasher = sha2::Sha256::new();
        let mut total: u64 = 0;
        loop {
            let n = match file.read(&mut buf[..]) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            hasher.update(&buf[..n]);
            total += n as u64;
        }
        Ok((crate::hex::encode(&hasher.finalize()), total))
    })
}

/// Writes `bytes` to stdout. A closed pipe is not an error: the reader stopped listening.
pub fn write_stdout(bytes: &[u8]) -> Result<(), Error> {
    write_stdout_with(|out| out.write_all(bytes))
}

/// Buffered stdout, as a concrete type: a serializer's many small writes are inlined into
/// the buffer, not dispatched one by one.
pub type BufferedStdout = io::BufWriter<io::StdoutLock<'static>>;

/// Writes to stdout through `write` (buffered), with [`write_stdout`]'s handling of a closed
/// pipe.
pub fn write_stdout_with(
    write: impl FnOnce(&mut BufferedStdout) -> io::Result<()>,
) -> Result<(), Error> {
    let mut out = io::BufWriter::with_capacity(64 << 10, io::stdout().lock());
    match write(&mut out).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::io("<stdout>", e)),
    }
}

/// Replaces `path` with `bytes` atomically: a temporary file in the same folder, written and
/// fsynced, then renamed over the target (and the folder fsynced). On any failure the
/// temporary file is removed and the old file is untouched.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| Error::usage(format!("{}: not a file path", path.display())))?;
    if let Ok(meta) = fs::symlink_metadata(path)
        && meta.is_dir()
    {
        return Err(Error::io(
            path,
            io::Error::new(io::ErrorKind::IsADirectory, "is a folder, not a file"),
        ));
    }
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    let tmp = dir.join(tmp_name);
    let result = (|| -> io::Result<()> {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, path)?;
        // Make the rename itself durable; not every platform can open a folder.
        if let Ok(d) = fs::File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(Error::io(path, e));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lane-core-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn the_one_hasher_and_reader() {
        let dir = scratch("hash");
        fs::write(dir.join("abc"), b"abc").unwrap();
        let big: Vec<u8> = (0..HASH_BUFFER_SIZE + 7).map(|i| (i % 251) as u8).collect();
        fs::write(dir.join("big"), &big).unwrap();
        assert_eq!(
            sha256_file(&dir.join("abc")).unwrap(),
            (
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".to_string(),
                3
            )
        );
        assert_eq!(
            sha256_file(&dir.join("big")).unwrap(),
            (sha256_bytes(&big), big.len() as u64)
        );
        assert_eq!(read_file(&dir.join("big")).unwrap(), big);
        let folder = sha256_file(&dir).unwrap_err();
        assert!(is_not_regular(&folder), "{folder}");
        assert_eq!(folder.to_string(), "not a regular file");
        let missing = open_regular(&dir.join("gone")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        assert!(!is_not_regular(&missing));
        #[cfg(unix)]
        for device in ["/dev/zero", "/dev/null"] {
            assert!(is_not_regular(
                &open_regular(Path::new(device)).unwrap_err()
            ));
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = scratch("replace");
        let target = dir.join("lanes.lock");
        fs::write(&target, b"old").unwrap();
        atomic_write(&target, b"new").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("lanes.lock")]);
    }

    #[test]
    fn atomic_write_into_missing_folder_fails_cleanly() {
        let dir = scratch("missing");
        let blocker = dir.join("not-a-folder");
        fs::write(&blocker, b"x").unwrap();
        let err = atomic_write(&blocker.join("ledger.json"), b"new").unwrap_err();
        assert!(err.to_string().contains("ledger.json"));
        assert_eq!(fs::read(&blocker).unwrap(), b"x");
    }

    #[cfg(unix)]
    #[test]
    fn read_file_refuses_a_fifo_without_waiting_for_a_writer() {
        let dir = scratch("fifo");
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        // Run on a thread: a blocking open would hang it, not the test.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(read_file(&fifo).map_err(|e| e.to_string())));
        let got = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("read_file blocked on a FIFO");
        assert!(got.unwrap_err().contains("not a regular file"));
    }

    #[cfg(unix)]
    #[test]
    fn read_file_refuses_a_huge_file_with_an_error_not_an_abort() {
        let dir = scratch("huge");
        let path = dir.join("sparse");
        // A sparse file far larger than any memory: no disk is used.
        let file = fs::File::create(&path).unwrap();
        file.set_len(1 << 40).unwrap();
        let err = read_file(&path).unwrap_err().to_string();
        assert!(err.contains("sparse"), "{err}");
    }

    #[test]
    fn read_file_reads_whole_files_of_any_size() {
        let dir = scratch("sizes");
        for size in [0usize, 1, 4095, 4096, 4097, 1 << 20] {
            let path = dir.join(format!("f{size}"));
            let bytes: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
            fs::write(&path, &bytes).unwrap();
            assert_eq!(read_file(&path).unwrap(), bytes, "size {size}");
        }
        let missing = read_file(&dir.join("missing")).unwrap_err().to_string();
        assert!(missing.contains("missing"), "{missing}");
    }

    #[test]
    fn read_file_refuses_folders() {
        let dir = scratch("folder");
        assert!(
            read_file(&dir)
                .unwrap_err()
                .to_string()
                .contains("not a regular file")
        );
    }
}
