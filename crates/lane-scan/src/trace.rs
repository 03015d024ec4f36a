//! Phase timings on stderr, only when `LANES_TRACE` is set (to anything but `0` or empty):
//! one line per phase, `lane-scan trace: PHASE MS (at MS)`, the milliseconds the phase took
//! and the time since the first mark. Without the variable nothing is measured or printed,
//! and stdout is never touched either way.

use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// The last mark's time, while tracing; `None` when `LANES_TRACE` is unset.
fn state() -> Option<&'static Mutex<(Instant, Instant)>> {
    static STATE: OnceLock<Option<Mutex<(Instant, Instant)>>> = OnceLock::new();
    STATE
        .get_or_init(|| {
            let on = std::env::var_os("LANES_TRACE").is_some_and(|v| !v.is_empty() && v != "0");
            on.then(|| {
                let now = Instant::now();
                Mutex::new((now, now))
            })
        })
        .as_ref()
}

/// Starts the clock (when tracing): the first phase is measured from here.
pub fn start() {
    let _ = state();
}

/// Ends the phase `name`: prints how long it took since the previous mark.
pub fn mark(name: &str) {
    let Some(state) = state() else {
        return;
    };
    let now = Instant::now();
    let mut guard = state
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (first, last) = *guard;
    *guard = (first, now);
    drop(guard);
    eprintln!(
        "lane-scan trace: {name} {:.1} ms (at {:.1} ms)",
        (now - last).as_secs_f64() * 1e3,
        (now - first).as_secs_f64() * 1e3
    );
}
