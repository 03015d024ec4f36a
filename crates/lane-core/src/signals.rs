//! Signals during a file replacement.
//!
//! Outside a replacement SIGTERM, SIGINT and SIGHUP keep their default action (the process
//! ends, nothing of ours is half-written). While [`crate::io::atomic_write`] holds a temporary
//! file they are caught instead: the write stops at the next chunk, the temporary file is
//! removed and the tool exits with 128 + the signal's number, the shell's convention.
//! SIGXFSZ (`ulimit -f` exceeded) never kills: the write that passes the limit fails with
//! `EFBIG` and becomes an error message (exit 2).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// True while no replacement is under way: a terminating signal then takes its default action.
static OUTSIDE_WRITE: AtomicBool = AtomicBool::new(true);
/// The number of the terminating signal caught during a replacement (0: none).
static CAUGHT: AtomicUsize = AtomicUsize::new(0);
/// Set by SIGXFSZ; only there so that the signal has a handler and does not kill.
static FILE_SIZE_EXCEEDED: AtomicBool = AtomicBool::new(false);
static INSTALLED: OnceLock<()> = OnceLock::new();

/// The terminating signals a replacement catches, with their names.
#[cfg(unix)]
pub(crate) const CAUGHT_SIGNALS: [(i32, &str); 3] = [
    (libc::SIGTERM, "SIGTERM"),
    (libc::SIGINT, "SIGINT"),
    (libc::SIGHUP, "SIGHUP"),
];

/// Installs the handlers once per process. Every tool calls it at start ([`crate::cli::run`]);
/// [`crate::io::atomic_write`] calls it too, for library users. Failing to install is not
/// fatal: the default actions stay.
pub(crate) fn install() {
    INSTALLED.get_or_init(|| {
        #[cfg(unix)]
        {
            for (signal, _) in CAUGHT_SIGNALS {
                // The conditional default must run first: outside a write it ends the process
                // as if no handler were there.
                let _ = signal_hook::flag::register_conditional_default(signal, &OUTSIDE_WRITE);
                let _ = signal_hook::flag::register_usize(
                    signal,
                    &CAUGHT,
                    usize::try_from(signal).unwrap_or(0),
                );
            }
            let _ = signal_hook::flag::register(libc::SIGXFSZ, &FILE_SIZE_EXCEEDED);
        }
    });
}

/// While alive, terminating signals are caught (see the module documentation).
pub(crate) struct CatchSignals(());

impl CatchSignals {
    pub(crate) fn new() -> CatchSignals {
        install();
        CAUGHT.store(0, Ordering::SeqCst);
        OUTSIDE_WRITE.store(false, Ordering::SeqCst);
        CatchSignals(())
    }

    /// The signal caught since [`CatchSignals::new`], if any.
    pub(crate) fn caught(&self) -> Option<i32> {
        match CAUGHT.load(Ordering::SeqCst) {
            0 => None,
            n => i32::try_from(n).ok(),
        }
    }
}

impl Default for CatchSignals {
    fn default() -> Self {
        CatchSignals::new()
    }
}

impl Drop for CatchSignals {
    fn drop(&mut self) {
        OUTSIDE_WRITE.store(true, Ordering::SeqCst);
    }
}

/// The conventional name of a signal number this module catches.
pub(crate) fn name(signal: i32) -> &'static str {
    #[cfg(unix)]
    for (n, name) in CAUGHT_SIGNALS {
        if n == signal {
            return name;
        }
    }
    "a signal"
}
