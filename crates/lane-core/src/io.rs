//! Reading the document (stdin or `--input`), writing it (stdout and `--output`), and
//! replacing files atomically.

use std::fs;
use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use crate::document::Document;
use crate::error::Error;

/// The largest evidence document any tool reads (256 MiB, from a file or stdin): a scan of
/// 100,000 tests is about 60 MB. A larger one is refused before it is read whole, so a
/// hostile document cannot exhaust memory (docs/robustness.md).
pub const DOCUMENT_MAX_BYTES: u64 = 256 << 20;

/// Reads the evidence document from `input` (a file, or `-` for stdin) or stdin. A terminal or
/// empty stdin is an empty document. A document over [`DOCUMENT_MAX_BYTES`] is refused.
pub fn read_document(input: Option<&Path>) -> Result<Document, Error> {
    match input {
        Some(path) if path != Path::new("-") => {
            let bytes = read_file_capped(path, DOCUMENT_MAX_BYTES, "an evidence document")?;
            Document::parse(&bytes, &path.display().to_string())
        }
        _ => {
            let stdin = io::stdin();
            if stdin.is_terminal() {
                return Ok(Document::empty());
            }
            let bytes = read_capped(
                stdin.lock(),
                Path::new("<stdin>"),
                DOCUMENT_MAX_BYTES,
                "an evidence document",
            )?;
            Document::parse(&bytes, "<stdin>")
        }
    }
}

/// The error of an input over its cap.
fn over_cap(path: &Path, size: Option<u64>, cap: u64, what: &str) -> Error {
    let size = size.map_or_else(|| "more than".to_string(), |n| format!("{n} bytes,"));
    Error::io(
        path,
        io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!(
                "{size} over the {cap}-byte limit for {what}; refused without reading it \
                 (see docs/robustness.md)"
            ),
        ),
    )
}

/// Reads at most `cap` bytes from a stream (stdin, a pipe); more is refused, noticed after
/// reading one byte past the cap, never by reading the rest. `path` names the stream in the
/// message, `what` the kind of input ("a lock file").
pub fn read_capped(input: impl Read, path: &Path, cap: u64, what: &str) -> Result<Vec<u8>, Error> {
    let mut bytes = Vec::new();
    input
        .take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > cap {
        return Err(over_cap(path, None, cap, what));
    }
    Ok(bytes)
}

/// Reads a whole regular file ([`open_regular`]) of at most `cap` bytes; a larger one is
/// refused by its size before any of it is read (and a file that grows past the cap while it
/// is read is refused too). `what` names the kind of file in the message ("a lock file").
pub fn read_file_capped(path: &Path, cap: u64, what: &str) -> Result<Vec<u8>, Error> {
    let file = open_regular(path).map_err(|e| Error::io(path, e))?;
    let size = file.metadata().map_err(|e| Error::io(path, e))?.len();
    if size > cap {
        return Err(over_cap(path, Some(size), cap, what));
    }
    read_opened(file, size, cap)
        .map_err(|e| Error::io(path, e))?
        .ok_or_else(|| over_cap(path, None, cap, what))
}

/// Reads an open file whose `fstat` said `size` bytes (at most `cap`): the buffer is reserved
/// once (an allocation failure is an error, not an abort) and one byte past `cap` is read, so
/// a file that grew past the cap since the `fstat` gives `None`.
pub(crate) fn read_opened(file: fs::File, size: u64, cap: u64) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(
            usize::try_from(size)
                .unwrap_or(usize::MAX)
                .saturating_add(1),
        )
        .map_err(|e| io::Error::new(io::ErrorKind::OutOfMemory, e))?;
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= cap).then_some(bytes))
}

/// `read_opened` into `buffer`, reused from file to file (a scan reading thousands of them):
/// the bytes up to its length stay initialized between calls, so a file no larger than one
/// read before costs no allocation and no zeroing. Gives how many bytes of `buffer` the file
/// filled (what lies past them is stale), or `None` for a file that grew past `cap`.
///
/// The first `read` asks for one byte more than the size: when it returns exactly the size, it
/// has reached the end (a regular file's `read` falls short only there), so the `read` that
/// would return 0 is saved, half the reads of a small file (as [`sha256_file`] does). Any other
/// count, a file grown or shrunk since its `fstat`, reads on until a `read` returns 0.
pub fn read_opened_into(
    file: fs::File,
    size: u64,
    cap: u64,
    buffer: &mut Vec<u8>,
) -> io::Result<Option<usize>> {
    let want = usize::try_from(size.min(cap))
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    if buffer.len() < want {
        buffer
            .try_reserve_exact(want - buffer.len())
            .map_err(|e| io::Error::new(io::ErrorKind::OutOfMemory, e))?;
        buffer.resize(want, 0);
    }
    let mut file = file.take(cap.saturating_add(1));
    let first = loop {
        match file.read(&mut buffer[..want]) {
            Ok(n) => break n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    };
    if first as u64 == size {
        return Ok(Some(first));
    }
    buffer.truncate(first);
    file.read_to_end(buffer)?;
    Ok((buffer.len() as u64 <= cap).then_some(buffer.len()))
}

/// How long [`EditLock::acquire`] waits for another run's edit before it says so on stderr.
pub(crate) const EDIT_LOCK_NOTICE_AFTER: std::time::Duration = std::time::Duration::from_secs(3);

/// How long [`EditLock::acquire`] waits in all by default (seconds) before it gives up with an
/// error (exit 2); `LANES_LOCK_TIMEOUT` (whole seconds) overrides it.
pub(crate) const EDIT_LOCK_TIMEOUT_SECS: u64 = 120;

/// The environment variable that sets [`EditLock::acquire`]'s bounded wait, in seconds.
pub(crate) const EDIT_LOCK_TIMEOUT_ENV: &str = "LANES_LOCK_TIMEOUT";

/// An exclusive advisory lock (`flock`) on the folder that holds a file that is read, changed
/// and replaced: held for the whole read-modify-write, so two runs editing the same lock or
/// ledger take turns and the second sees the first's edit (no lost update). Released when
/// dropped, and by the OS on every exit, a kill included. Locking the folder, not a file beside
/// the target, leaves nothing behind in the user's tree (two edits of different files in one
/// folder take turns too, which costs nothing).
pub struct EditLock {
    _folder: fs::File,
}

impl EditLock {
    /// The folder whose lock guards `target` (resolved through a symlink, so every name of one
    /// file shares one lock).
    pub(crate) fn path_for(target: &Path) -> io::Result<PathBuf> {
        let real = write_target(target)?;
        match real.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => Ok(parent.to_path_buf()),
            Some(_) => Ok(PathBuf::from(".")),
            None => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a file path",
            )),
        }
    }

    /// Takes the lock for `target`, waiting for another run that holds it: after
    /// `EDIT_LOCK_NOTICE_AFTER` a line on stderr says so (naming `name` and `tool`); after
    /// `LANES_LOCK_TIMEOUT` seconds (default `EDIT_LOCK_TIMEOUT_SECS`) it gives up with an
    /// error and nothing is changed.
    pub fn acquire(target: &Path, name: &str, tool: &str) -> Result<EditLock, Error> {
        let lock_path = Self::path_for(target).map_err(|e| Error::io(name, e))?;
        let lock_name = format!("the folder of {name}");
        let timeout = match std::env::var(EDIT_LOCK_TIMEOUT_ENV) {
            Ok(text) => text.trim().parse::<u64>().map_err(|_| {
                Error::usage(format!(
                    "{EDIT_LOCK_TIMEOUT_ENV}={text:?}: expected a whole number of seconds"
                ))
            })?,
            Err(_) => EDIT_LOCK_TIMEOUT_SECS,
        };
        let timeout = std::time::Duration::from_secs(timeout);
        let file = fs::File::open(&lock_path).map_err(|e| Error::io(&lock_name, e))?;
        let start = std::time::Instant::now();
        let mut told = false;
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(EditLock { _folder: file }),
                Err(fs::TryLockError::WouldBlock) => {}
                Err(fs::TryLockError::Error(e)) => return Err(Error::io(&lock_name, e)),
            }
            let waited = start.elapsed();
            if waited >= timeout {
                return Err(Error::usage(format!(
                    "{name}: another run has been editing it for {}s (it holds {lock_name}); \
                     gave up, nothing written ({EDIT_LOCK_TIMEOUT_ENV} sets the wait)",
                    waited.as_secs()
                )));
            }
            if !told && waited >= EDIT_LOCK_NOTICE_AFTER {
                eprintln!("{tool}: waiting for another run editing {name} (it holds {lock_name})");
                told = true;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
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
    open_regular_sized(path).map(|(file, _)| file)
}

/// [`open_regular`] for a path that a folder's listing or a `stat` has just shown to be a
/// regular file (a scan opening thousands of them): one `open` and one `fstat`, no `stat` of
/// the path first. The path is opened with `O_NOFOLLOW` as well as `O_NONBLOCK | O_NOCTTY`: a
/// symlink is not followed there but opened the careful way, [`open_regular`]'s. Either way the
/// handle is checked to be a regular file before any byte is read. Gives the file and its size
/// as the handle's `fstat` gave it.
pub fn open_seen_regular(path: &Path) -> io::Result<(fs::File, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut options = fs::OpenOptions::new();
        options
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_NOFOLLOW);
        match options.open(path) {
            Ok(file) => {
                let meta = file.metadata()?;
                if !meta.is_file() {
                    return Err(io::Error::new(io::ErrorKind::InvalidInput, NotRegular));
                }
                return Ok((file, meta.len()));
            }
            // A symlink (or too many of them on the way).
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {}
            Err(e) => return Err(e),
        }
    }
    open_regular_sized(path)
}

/// [`open_regular`], also giving the file's size as its handle's `fstat` gave it.
fn open_regular_sized(path: &Path) -> io::Result<(fs::File, u64)> {
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
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    Ok((file, meta.len()))
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

/// HMAC-SHA-256 (RFC 2104) of `message` under `key`, as 64 lowercase hex digits.
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> String {
    use sha2::Digest as _;
    const BLOCK: usize = 64;
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&sha2::Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let mut inner = sha2::Sha256::new();
    inner.update(pad(0x36));
    inner.update(message);
    let mut outer = sha2::Sha256::new();
    outer.update(pad(0x5c));
    outer.update(inner.finalize());
    crate::hex::encode(&outer.finalize())
}

/// The SHA-256 (64 lowercase hex digits) and size in bytes of a regular file
/// ([`open_regular`]), read with a plain `read` loop (no mmap) through one reused buffer per
/// thread, so hashing many files on many threads allocates once per thread.
pub fn sha256_file(path: &Path) -> io::Result<(String, u64)> {
    let (file, size) = open_regular_sized(path)?;
    sha256_opened(file, size)
}

/// [`sha256_file`] for a path that a directory listing has just shown to be a regular file,
/// not a symlink (walking many files): the listing stands in for the `stat` of the path that
/// [`open_regular`] makes before opening, so each file costs one `open`, one `fstat`, the
/// reads and one `close`. The path is opened with `O_NOFOLLOW` as well (a name replaced by a
/// symlink since the listing is refused, not followed) and `O_NONBLOCK | O_NOCTTY`, and the
/// handle is checked to be a regular file before any byte is read, as [`open_regular`] does.
pub fn sha256_listed_file(path: &Path) -> io::Result<(String, u64)> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_NOFOLLOW);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, NotRegular));
    }
    sha256_opened(file, meta.len())
}

/// Hashes an opened regular file to its end through this thread's buffer. `size` is what
/// its `fstat` said: a read that falls short of the buffer and brings the total to exactly
/// that size has reached the end, so the extra `read` that would return 0 is saved (half
/// the reads of a small file). Any other count, a file grown or shrunk meanwhile or a
/// `/proc` file that claims 0 bytes, reads on until a read returns 0.
fn sha256_opened(mut file: fs::File, size: u64) -> io::Result<(String, u64)> {
    use sha2::Digest as _;
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
            if n < buf.len() && total == size {
                break;
            }
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
pub(crate) type BufferedStdout = io::BufWriter<io::StdoutLock<'static>>;

/// Writes to stdout through `write` (buffered), with [`write_stdout`]'s handling of a closed
/// pipe.
pub(crate) fn write_stdout_with(
    write: impl FnOnce(&mut BufferedStdout) -> io::Result<()>,
) -> Result<(), Error> {
    let mut out = io::BufWriter::with_capacity(64 << 10, io::stdout().lock());
    match write(&mut out).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::io("<stdout>", e)),
    }
}

/// Bytes written per `write` call by [`atomic_write`]: between two chunks it looks for a
/// terminating signal, so an interrupted replacement stops within one chunk.
const WRITE_CHUNK: usize = 1 << 20;

/// How many temporary names [`atomic_write`] tries before giving up (each is new: process id,
/// a per-process sequence number and the clock's nanoseconds).
const TEMP_NAME_TRIES: u32 = 64;

/// The path a replacement writes through: `path` itself, or, when it is a symlink, the file it
/// resolves to (so the link stays a link and its target is replaced atomically). A dangling
/// link is resolved lexically to where it points.
pub(crate) fn write_target(path: &Path) -> io::Result<PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => match path.canonicalize() {
            Ok(real) => Ok(real),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let link = fs::read_link(path)?;
                let base = path.parent().unwrap_or(Path::new("."));
                Ok(base.join(link))
            }
            Err(e) => Err(e),
        },
        _ => Ok(path.to_path_buf()),
    }
}

/// Refuses a lock or ledger path that is a symlink resolving outside `root` (for reading and
/// writing alike: a file outside the root is never read or replaced through a link). `name`
/// is how messages name the file.
pub fn refuse_link_out_of_root(path: &Path, root: &Path, name: &str) -> Result<(), Error> {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return Ok(());
    };
    if !meta.file_type().is_symlink() {
        return Ok(());
    }
    let real_root = root.canonicalize().map_err(|e| Error::io(root, e))?;
    let target = write_target(path).map_err(|e| Error::io(name, e))?;
    // A dangling link: its folder must exist inside the root.
    let resolved = match target.canonicalize() {
        Ok(t) => t,
        Err(_) => match (target.parent(), target.file_name()) {
            (Some(dir), Some(file)) => dir
                .canonicalize()
                .map(|d| d.join(file))
                .map_err(|e| Error::io(name, e))?,
            _ => target.clone(),
        },
    };
    if resolved.starts_with(&real_root) {
        Ok(())
    } else {
        Err(Error::usage(format!(
            "{name}: refused: it is a symlink that resolves outside the root (never read or written)"
        )))
    }
}

/// A fresh temporary path beside `target`, created with `O_EXCL` (so a stale temporary file
/// of a dead run, even one with the same process id, never blocks a run).
fn create_temp(dir: &Path, name: &std::ffi::OsStr) -> io::Result<(PathBuf, fs::File)> {
    static SEQUENCE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut last = None;
    for _ in 0..TEMP_NAME_TRIES {
        let seq = SEQUENCE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".tmp-{}-{seq}-{nanos:09}", std::process::id()));
        let tmp = dir.join(tmp_name);
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

/// Gives the temporary file the replaced file's permissions and, where the process may, its
/// owner and group (a 0600 ledger stays 0600).
fn keep_mode_and_owner(file: &fs::File, old: Option<&fs::Metadata>) -> io::Result<()> {
    let Some(old) = old else {
        return Ok(());
    };
    file.set_permissions(old.permissions())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let mine = file.metadata()?;
        if mine.uid() != old.uid() || mine.gid() != old.gid() {
            // Only root may give a file away; anyone else keeps the file as their own.
            let _ = std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid()));
        }
    }
    Ok(())
}

/// An I/O error with the reason spelled out where the OS's words are cryptic.
fn explain_write_error(e: io::Error) -> io::Error {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::EFBIG) {
        return io::Error::new(
            e.kind(),
            "file size limit exceeded (ulimit -f); nothing was replaced",
        );
    }
    e
}

/// Replaces `path` with `bytes` atomically: a temporary file with a unique name in the same
/// folder, given the old file's mode (and owner where permitted), written and fsynced, then
/// renamed over the target (and the folder fsynced). A symlink is kept and its target
/// replaced. On any failure the temporary file is removed and the old file is untouched;
/// a SIGTERM, SIGINT or SIGHUP meanwhile removes the temporary file and returns
/// [`Error::Interrupted`] (the tool then exits 128 + the signal's number).
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let target = write_target(path).map_err(|e| Error::io(path, e))?;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .ok_or_else(|| Error::usage(format!("{}: not a file path", path.display())))?;
    let old = fs::symlink_metadata(&target).ok();
    if old.as_ref().is_some_and(fs::Metadata::is_dir) {
        return Err(Error::io(
            path,
            io::Error::new(io::ErrorKind::IsADirectory, "is a folder, not a file"),
        ));
    }
    // A device, FIFO or socket is never replaced by a regular file (`--output /dev/full`).
    if old.as_ref().is_some_and(|m| !m.is_file()) {
        return Err(Error::io(
            path,
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file; refusing to replace it",
            ),
        ));
    }
    let signals = crate::signals::CatchSignals::new();
    let interrupted = |signal, replaced| Error::Interrupted {
        path: path.to_path_buf(),
        signal,
        replaced,
    };
    let (tmp, mut file) = create_temp(&dir, name).map_err(|e| Error::io(path, e))?;
    let written = (|| -> io::Result<Option<i32>> {
        keep_mode_and_owner(&file, old.as_ref().filter(|m| m.is_file()))?;
        for chunk in bytes.chunks(WRITE_CHUNK) {
            if let Some(signal) = signals.caught() {
                return Ok(Some(signal));
            }
            file.write_all(chunk)?;
        }
        file.sync_all()?;
        Ok(signals.caught())
    })();
    drop(file);
    match written {
        Ok(None) => {}
        Ok(Some(signal)) => {
            let _ = fs::remove_file(&tmp);
            return Err(interrupted(signal, false));
        }
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            return Err(Error::io(path, explain_write_error(e)));
        }
    }
    if let Err(e) = fs::rename(&tmp, &target) {
        let _ = fs::remove_file(&tmp);
        return Err(Error::io(path, e));
    }
    // Make the rename itself durable; not every platform can open a folder.
    if let Ok(d) = fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    match signals.caught() {
        Some(signal) => Err(interrupted(signal, true)),
        None => Ok(()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {

    #[test]
    fn hmac_sha256_gives_the_rfc_4231_values() {
        assert_eq!(
            hmac_sha256(b"Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // a key longer than the block is hashed first (test case 6)
        assert_eq!(
            hmac_sha256(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            ),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }
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
    fn listed_files_hash_alike_and_refuse_links_folders_and_devices() {
        let dir = scratch("listed");
        let big: Vec<u8> = (0..HASH_BUFFER_SIZE * 2 + 3)
            .map(|i| (i % 253) as u8)
            .collect();
        fs::write(dir.join("big"), &big).unwrap();
        fs::write(dir.join("empty"), b"").unwrap();
        for name in ["big", "empty"] {
            assert_eq!(
                sha256_listed_file(&dir.join(name)).unwrap(),
                sha256_file(&dir.join(name)).unwrap(),
                "{name}"
            );
        }
        // Exactly two buffers: the reads fill the buffer, so the end is read as a 0.
        let even: Vec<u8> = (0..HASH_BUFFER_SIZE * 2).map(|i| (i % 7) as u8).collect();
        fs::write(dir.join("even"), &even).unwrap();
        assert_eq!(
            sha256_listed_file(&dir.join("even")).unwrap(),
            (sha256_bytes(&even), even.len() as u64)
        );
        // A /proc file says it holds 0 bytes: it is read to its real end.
        #[cfg(target_os = "linux")]
        {
            let proc = Path::new("/proc/self/cmdline");
            let (digest, bytes) = sha256_file(proc).unwrap();
            assert!(bytes > 0);
            assert_eq!(digest, sha256_bytes(&fs::read(proc).unwrap()));
            assert_eq!(sha256_listed_file(proc).unwrap(), (digest, bytes));
        }
        let folder = sha256_listed_file(&dir).unwrap_err();
        assert!(is_not_regular(&folder), "{folder}");
        let missing = sha256_listed_file(&dir.join("gone")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        #[cfg(unix)]
        {
            // A name that became a symlink after the listing is refused, not followed.
            std::os::unix::fs::symlink(dir.join("big"), dir.join("link")).unwrap();
            let link = sha256_listed_file(&dir.join("link")).unwrap_err();
            assert_eq!(link.raw_os_error(), Some(libc::ELOOP), "{link}");
            assert!(sha256_file(&dir.join("link")).is_ok());
            for device in ["/dev/zero", "/dev/null"] {
                assert!(is_not_regular(
                    &sha256_listed_file(Path::new(device)).unwrap_err()
                ));
            }
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn seen_files_open_once_and_a_link_the_careful_way() {
        let dir = scratch("seen");
        fs::write(dir.join("file"), b"hello").unwrap();
        let (_, size) = open_seen_regular(&dir.join("file")).unwrap();
        assert_eq!(size, 5);
        let folder = open_seen_regular(&dir).unwrap_err();
        assert!(is_not_regular(&folder), "{folder}");
        let missing = open_seen_regular(&dir.join("gone")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        #[cfg(unix)]
        {
            // A symlink to a regular file is followed (after a `stat`), one to a device is
            // refused before it is opened.
            std::os::unix::fs::symlink(dir.join("file"), dir.join("link")).unwrap();
            assert_eq!(open_seen_regular(&dir.join("link")).unwrap().1, 5);
            std::os::unix::fs::symlink("/dev/zero", dir.join("zero")).unwrap();
            assert!(is_not_regular(
                &open_seen_regular(&dir.join("zero")).unwrap_err()
            ));
            for device in ["/dev/zero", "/dev/null"] {
                assert!(is_not_regular(
                    &open_seen_regular(Path::new(device)).unwrap_err()
                ));
            }
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn reads_into_a_reused_buffer_whatever_its_stale_bytes() {
        let dir = scratch("into");
        let mut buffer = vec![b'x'; 100];
        for size in [0usize, 1, 7, 100, 4097] {
            let path = dir.join(format!("f{size}"));
            let bytes: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
            fs::write(&path, &bytes).unwrap();
            let (file, seen) = open_seen_regular(&path).unwrap();
            let len = read_opened_into(file, seen, 1 << 20, &mut buffer)
                .unwrap()
                .unwrap();
            assert_eq!(&buffer[..len], &bytes[..], "size {size}");
        }
        // A size that is no longer true (the file grew or shrank since its `fstat`): the file
        // is read to its end all the same, and one past the cap is refused.
        let path = dir.join("f4097");
        for said in [0, 1, 4096, 4098] {
            let len = read_opened_into(fs::File::open(&path).unwrap(), said, 1 << 20, &mut buffer)
                .unwrap()
                .unwrap();
            assert_eq!(len, 4097, "said {said}");
        }
        let over = read_opened_into(fs::File::open(&path).unwrap(), 100, 4096, &mut buffer);
        assert!(over.unwrap().is_none());
        // A /proc file says it holds 0 bytes: it is read to its real end.
        #[cfg(target_os = "linux")]
        {
            let proc = Path::new("/proc/self/cmdline");
            let (file, said) = open_seen_regular(proc).unwrap();
            let len = read_opened_into(file, said, 1 << 20, &mut buffer)
                .unwrap()
                .unwrap();
            assert_eq!(&buffer[..len], &fs::read(proc).unwrap()[..]);
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
