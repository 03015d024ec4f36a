//! The outcome channel of one pytest run: a pipe whose write end only the run's processes hold,
//! its descriptor named to the bootstrap on stdin (never in the environment or the arguments),
//! read by a thread of the gate while the run goes on.

use std::io::{self, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};

/// One spawn at a time holds an inheritable copy of a channel's write end, so no other run's
/// process inherits it (and keeps the channel open after its own run ended).
static SPAWN: Mutex<()> = Mutex::new(());

/// How long the reader goes on after the run ended while something still writes: a process
/// that escaped the run's group cannot keep the gate waiting.
const DRAIN: Duration = Duration::from_secs(2);

/// The thread reading a run's channel.
pub(crate) struct Reader {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<io::Result<Vec<u8>>>,
}

impl Reader {
    /// Everything the channel carried, once the run has ended.
    pub(crate) fn finish(self) -> io::Result<Vec<u8>> {
        self.stop.store(true, Ordering::SeqCst);
        self.thread
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the channel's reader panicked")))
    }
}

/// Spawns `cmd` (its stdin piped) with a channel; writes `config(descriptor)` to its stdin.
pub(crate) fn spawn(
    cmd: &mut Command,
    config: impl FnOnce(i32) -> String,
) -> io::Result<(Child, Reader)> {
    let (read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
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
    let stop = Arc::new(AtomicBool::new(false));
    let thread = std::thread::spawn({
        let stop = Arc::clone(&stop);
        move || read_all(&read, &stop)
    });
    let reader = Reader { stop, thread };
    if let Some(mut stdin) = child.stdin.take() {
        // A run that ends before reading its configuration writes nothing on the channel: the
        // gate judges that, not this write.
        let _ = stdin.write_all(config(fd).as_bytes());
    }
    Ok((child, reader))
}

fn read_all(read: &OwnedFd, stop: &AtomicBool) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut stopped: Option<Instant> = None;
    let tick = Timespec {
        tv_sec: 0,
        tv_nsec: 50_000_000,
    };
    loop {
        if stopped.is_none() && stop.load(Ordering::SeqCst) {
            stopped = Some(Instant::now());
        }
        if stopped.is_some_and(|at| at.elapsed() > DRAIN) {
            return Ok(out);
        }
        let mut fds = [PollFd::new(read, PollFlags::IN)];
        match poll(&mut fds, Some(&tick)) {
            Ok(0) if stopped.is_some() => return Ok(out),
            Ok(0) | Err(rustix::io::Errno::INTR) => continue,
            Ok(_) => {}
            Err(e) => return Err(e.into()),
        }
        match rustix::io::read(read, &mut buf) {
            Ok(0) => return Ok(out),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(rustix::io::Errno::INTR | rustix::io::Errno::AGAIN) => {}
            Err(e) => return Err(e.into()),
        }
    }
}
