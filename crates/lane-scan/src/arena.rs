//! A bump arena for parse trees, behind lane-scan's global allocator.
//!
//! A syntax tree lives for one file: built by the parser, read once into a small summary,
//! then thrown away. Allocating it node by node from a general-purpose allocator and freeing
//! it node by node took about a tenth of lane-scan's CPU time on a large suite. Inside
//! [`scoped`], the allocations of the current thread come from that thread's slot of one
//! reserved address range, by bumping a pointer; the tree is never dropped, and the slot is
//! reused for the next file. Everything else goes to mimalloc.
//!
//! The arena is only used once [`enable`] has been called by a binary whose global allocator
//! is [`Allocator`]; elsewhere (tests, other binaries) [`scoped`] just builds and drops.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Address space per thread. A tree that outgrows it continues in mimalloc (and is then
/// dropped normally, so that part is freed).
const SLOT: usize = 64 << 20;
/// Threads with a slot; any further thread parses without an arena.
const SLOTS: usize = 64;
/// A slot that grew past this much is handed back to the system after use.
const KEEP: usize = 16 << 20;

/// The start of the reserved range, once reserved (`None`: it could not be made).
static REGION: OnceLock<Option<usize>> = OnceLock::new();
static NEXT_SLOT: AtomicUsize = AtomicUsize::new(0);
static ENABLED: AtomicBool = AtomicBool::new(false);

/// One thread's slot: `[start, start + SLOT)` (`start` 0 until claimed), bump pointer `top`,
/// and whether the thread's allocations go there right now.
struct Slot {
    start: Cell<usize>,
    top: Cell<usize>,
    active: Cell<bool>,
    /// Set when part of the value lives in mimalloc (an allocation did not fit, or `read`
    /// stored into it): the value is then dropped normally.
    spilled: Cell<bool>,
    /// Inside [`scoped`], from `make` to the end of `read`: a nested call must not reuse
    /// the slot under the value being read.
    busy: Cell<bool>,
    /// The thread does not use the arena: it could not claim a slot, or a panic inside the
    /// arena left memory that may still be in use (the panic's payload).
    off: Cell<bool>,
}

thread_local! {
    // Const-initialized and without a destructor: reading it never allocates, so the
    // allocator itself may use it.
    static SLOT_OF_THREAD: Slot = const {
        Slot {
            start: Cell::new(0),
            top: Cell::new(0),
            active: Cell::new(false),
            spilled: Cell::new(false),
            busy: Cell::new(false),
            off: Cell::new(false),
        }
    };
}

/// The global allocator: mimalloc, except for a thread inside [`scoped`].
pub struct Allocator;

fn in_region(ptr: *mut u8) -> bool {
    REGION
        .get()
        .copied()
        .flatten()
        .is_some_and(|base| (ptr as usize).wrapping_sub(base) < SLOT * SLOTS)
}

/// Whether `ptr` points into the arena's memory (for tests and diagnostics).
pub fn contains<T: ?Sized>(ptr: *const T) -> bool {
    in_region(ptr as *const u8 as *mut u8)
}

impl Slot {
    fn end(&self) -> usize {
        self.start.get() + SLOT
    }

    /// Bumps `top` for `layout`, or `None` when inactive or full (then the allocation goes to
    /// mimalloc, and the value will be dropped normally).
    fn bump(&self, layout: Layout) -> Option<*mut u8> {
        if !self.active.get() {
            return None;
        }
        let top = self.top.get();
        let fits = top
            .checked_add(layout.align() - 1)
            .map(|t| t & !(layout.align() - 1))
            .and_then(|at| Some((at, at.checked_add(layout.size())?)))
            .filter(|&(_, end)| end <= self.end());
        match fits {
            Some((at, end)) => {
                self.top.set(end);
                Some(at as *mut u8)
            }
            None => {
                self.spilled.set(true);
                None
            }
        }
    }
}

fn bump(layout: Layout) -> Option<*mut u8> {
    SLOT_OF_THREAD.try_with(|s| s.bump(layout)).ok().flatten()
}

// SAFETY: every pointer handed out is either mimalloc's (and goes back to mimalloc) or a
// fresh, suitably aligned, unshared range of this thread's slot, which `scoped` only reuses
// once nothing allocated in it is reachable; pointers in the region are never passed to
// mimalloc.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match bump(layout) {
            Some(p) => p,
            // SAFETY: forwarded with the caller's guarantees.
            None => unsafe { mimalloc::MiMalloc.alloc(layout) },
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match bump(layout) {
            Some(p) => {
                // SAFETY: `p` is a fresh range of `layout.size()` bytes (a reused slot holds
                // old bytes, so it is zeroed here).
                unsafe { p.write_bytes(0, layout.size()) };
                p
            }
            // SAFETY: forwarded with the caller's guarantees.
            None => unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) },
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // Arena memory is reclaimed all at once by `scoped`.
        if !in_region(ptr) {
            // SAFETY: `ptr` came from mimalloc with this layout.
            unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !in_region(ptr) {
            // SAFETY: `ptr` came from mimalloc with this layout.
            return unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) };
        }
        // The last allocation of an active slot grows (or shrinks) where it is: a vector
        // being filled.
        let in_place = SLOT_OF_THREAD
            .try_with(|s| {
                let at = ptr as usize;
                let last =
                    s.active.get() && at >= s.start.get() && at + layout.size() == s.top.get();
                let fits = at.checked_add(new_size).is_some_and(|t| t <= s.end());
                if last && fits {
                    s.top.set(at + new_size);
                    true
                } else {
                    false
                }
            })
            .unwrap_or(false);
        if in_place {
            return ptr;
        }
        // SAFETY: the caller guarantees `new_size` with this alignment is a valid layout.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: as for `alloc`.
        let new = unsafe { self.alloc(new_layout) };
        if !new.is_null() {
            // SAFETY: both ranges are valid for the smaller size and do not overlap (`new` is
            // a fresh allocation).
            unsafe { std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size)) };
        }
        new
    }
}

/// Turns the arena on for this process.
///
/// # Safety
/// [`Allocator`] must be the process's `#[global_allocator]`: the arena's memory must never
/// reach another allocator's `free`.
pub unsafe fn enable() {
    ENABLED.store(true, Ordering::Release);
}

/// Reserves the region (address space only: pages are committed as they are touched).
fn region() -> Option<usize> {
    *REGION.get_or_init(|| {
        // SAFETY: an anonymous private mapping at an address of the kernel's choosing;
        // nothing else refers to it.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                SLOT * SLOTS,
                // Address space only; a slot becomes usable when a thread claims it, so under
                // strict overcommit only the claimed slots are charged.
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        // Without the reservation (strict overcommit, an address-space limit) every parse
        // simply uses mimalloc.
        (p != libc::MAP_FAILED).then_some(p as usize)
    })
}

/// Gives this thread its slot on first use; false when it has none.
fn claim(slot: &Slot) -> bool {
    if slot.start.get() != 0 {
        return true;
    }
    let i = NEXT_SLOT.fetch_add(1, Ordering::Relaxed);
    let Some(base) = region().filter(|_| i < SLOTS) else {
        slot.off.set(true);
        return false;
    };
    // SAFETY: slot `i` lies inside the reserved range and belongs to this thread alone.
    let usable = unsafe {
        libc::mprotect(
            (base + i * SLOT) as *mut libc::c_void,
            SLOT,
            libc::PROT_READ | libc::PROT_WRITE,
        )
    } == 0;
    if !usable {
        slot.off.set(true);
        return false;
    }
    slot.start.set(base + i * SLOT);
    slot.top.set(base + i * SLOT);
    true
}

/// Asks [`scoped`] to drop the value being read normally instead of abandoning it: `read`
/// stored memory of its own into it (a cache), which would otherwise never be freed. Does
/// nothing outside `read`.
pub fn drop_after_read() {
    let _ = SLOT_OF_THREAD.try_with(|s| {
        if s.busy.get() {
            s.spilled.set(true);
        }
    });
}

/// Stops the slot taking allocations when `make` returns or unwinds.
struct Active<'a>(&'a Slot);

impl Drop for Active<'_> {
    fn drop(&mut self) {
        self.0.active.set(false);
        if std::thread::panicking() {
            self.0.off.set(true);
        }
    }
}

/// Frees the slot for the next call when `scoped` returns or unwinds.
struct Busy<'a>(&'a Slot);

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.busy.set(false);
    }
}

/// Builds a value with `make`, its allocations in this thread's arena, and hands it to `read`
/// (which allocates normally); the value is then abandoned, not dropped, and its memory
/// reused by the next call on this thread. Without an arena (not enabled, no slot, a nested
/// call, a slot given up after a panic) the value is built and dropped normally.
///
/// # Safety
/// Nothing allocated inside `make` may outlive the call: `make` must not store heap data
/// anywhere but in its result (no statics, thread-locals or captured variables) and must not
/// catch a panic itself (the panic machinery may keep what it allocates; the slot is only
/// given up when the panic leaves `make`). `read` must not move or share memory of the value
/// out of it (through interior mutability); what `read` stores into the value is lost with it
/// unless `read` calls [`drop_after_read`]. `R` cannot borrow from the value, by its
/// signature.
pub unsafe fn scoped<T, R>(make: impl FnOnce() -> T, read: impl FnOnce(&T) -> R) -> R {
    let usable = ENABLED.load(Ordering::Acquire)
        && SLOT_OF_THREAD
            .try_with(|s| !s.busy.get() && !s.off.get() && claim(s))
            .unwrap_or(false);
    if !usable {
        let value = make();
        return read(&value);
    }
    SLOT_OF_THREAD.with(|slot| {
        slot.busy.set(true);
        let _busy = Busy(slot);
        slot.top.set(slot.start.get());
        slot.spilled.set(false);
        slot.active.set(true);
        let value = {
            let _on = Active(slot);
            std::mem::ManuallyDrop::new(make())
        };
        let result = read(&value);
        if slot.spilled.get() {
            // Part of it is mimalloc's (it outgrew the slot, or `read` cached into it):
            // dropping frees that part (freeing arena memory is a no-op).
            drop(std::mem::ManuallyDrop::into_inner(value));
        }
        // Otherwise `value` is abandoned here: its memory is this slot's, reused from now on.
        let used = slot.top.get() - slot.start.get();
        if used > KEEP {
            // SAFETY: the range is inside this thread's slot and nothing in it is reachable;
            // the pages read back as zero when touched again.
            unsafe {
                libc::madvise(
                    (slot.start.get() + KEEP) as *mut libc::c_void,
                    used - KEEP,
                    libc::MADV_DONTNEED,
                );
            }
        }
        slot.top.set(slot.start.get());
        result
    })
}
