//! The outcome channel of one pytest run: a pipe whose write end only the run's processes hold,
//! its descriptor named to the bootstrap on stdin (never in the environment or the arguments),
//! read by a thread of the gate while the run goes on.

use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::process::{Child, Command};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// One spawn at a time holds an inheritable copy of a channel's write end, so no other run's
/// process inherits it (and keeps the channel open after its own run ended).
static SPAWN: Mutex<()> = Mutex::new(());

/// How long the gate goes on reading after the run ended while something still holds the
/// channel open: a process that escaped the run's group cannot keep the gate waiting.
const DRAIN: Duration = Duration::from_secs(2);

/// The thread reading a run's channel, handing over what it reads as it reads it.
pub(crate) struct Reader {
    chunks: Receiver<io::Result<Vec<u8>>>,
}

impl Reader {
    /// Everything the channel carried, once the run has ended: until every writer closed it,
    /// or [`DRAIN`] has passed (the reading thread is then left behind).
    pub(crate) fn finish(self) -> io::Result<Vec<u8>> {
        let deadline = Instant::now() + DRAIN;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.chunks.recv_timeout(left) {
                Ok(chunk) => out.extend_from_slice(&chunk?),
                Err(RecvTimeoutError::Disconnected | RecvTimeoutError::Timeout) => return Ok(out),
            }
        }
    }
}

/// Spawns `cmd` (its stdin piped) with a channel; writes `config(descriptor)` to its stdin.
pub(crate) fn spawn(
    cmd: &mut Command,
    config: impl FnOnce(i32) -> String,
) -> io::Result<(Child, Reader)> {
    // Both ends close on exec; the child gets an inheritable copy of the write end.
    let (mut read, write) = std::io::pipe()?;
    let (mut child, fd) = {
        let _one = SPAWN.lock().unwrap_or_else(|e| e.into_inner());
        // dup() leaves close-on-exec off: the child inherits this one, at the same number.
        let inherited = rustix::io::dup(&write)?;
        let fd = inherited.as_raw_fd();
        let child = cmd.spawn();
        drop(inherited);
        (child?, fd)
    };
    drop(write);
    let (send, chunks) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match read.read(&mut buf) {
                Ok(0) => return,
                Ok(n) => {
                    if send.send(Ok(buf[..n].to_vec())).is_err() {
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let _ = send.send(Err(e));
                    return;
                }
            }
        }
    });
    if let Some(mut stdin) = child.stdin.take() {
        // A run that ends before reading its configuration writes nothing on the channel: the
        // gate judges that, not this write.
        let _ = stdin.write_all(config(fd).as_bytes());
    }
    Ok((child, Reader { chunks }))
}
