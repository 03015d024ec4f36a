//! The parse-tree arena behind lane-scan's global allocator, installed here as this test
//! binary's global allocator too.
#![allow(unsafe_code)]

use std::panic::{AssertUnwindSafe, catch_unwind};

use lane_scan::arena::{self, Allocator};

#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

/// Held by the tests that allocate about 100 MiB, so that one does not disturb the other's
/// measurement of resident memory.
static LARGE: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn enable() {
    // SAFETY: `Allocator` is this binary's global allocator.
    unsafe { arena::enable() }
}

/// `arena::scoped` for values whose construction keeps nothing outside the value.
fn scoped<T, R>(make: impl FnOnce() -> T, read: impl FnOnce(&T) -> R) -> R {
    // SAFETY: every `make` in these tests only builds its result; no `T` here has interior
    // mutability.
    unsafe { arena::scoped(make, read) }
}

/// A tree of strings, like a syntax tree: many small allocations of several sizes.
fn words(seed: usize, n: usize) -> Vec<Vec<String>> {
    (0..n)
        .map(|i| {
            (0..(i % 7) + 1)
                .map(|j| format!("w{seed}-{i}-{j}"))
                .collect()
        })
        .collect()
}

#[test]
fn values_are_built_in_the_arena_and_results_outlive_it() {
    enable();
    let mut kept = Vec::new();
    for seed in 0..200 {
        let (inside, joined) = scoped(
            || words(seed, 300),
            |w| {
                let inside = arena::contains(w.as_ptr()) && arena::contains(w[5][0].as_ptr());
                (inside, w[17].join(","))
            },
        );
        assert!(inside, "round {seed}: the value was not built in the arena");
        assert!(
            !arena::contains(joined.as_ptr()),
            "the result must not live in the arena"
        );
        kept.push(joined);
    }
    // Two hundred reuses of the same slot later, every result is intact.
    for (seed, joined) in kept.iter().enumerate() {
        let want: Vec<String> = (0..4).map(|j| format!("w{seed}-17-{j}")).collect();
        assert_eq!(joined, &want.join(","));
    }
}

#[test]
fn growing_vectors_keep_their_contents() {
    enable();
    let sum = scoped(
        || {
            // Interleaved growth: each push may move one vector past the other.
            let mut a: Vec<u64> = Vec::new();
            let mut b: Vec<u32> = Vec::new();
            for i in 0..200_000u64 {
                a.push(i);
                if i % 3 == 0 {
                    b.push(i as u32);
                }
            }
            a.shrink_to_fit();
            (a, b)
        },
        |(a, b)| {
            assert!(arena::contains(a.as_ptr()));
            assert!(a.iter().enumerate().all(|(i, &v)| v == i as u64));
            assert!(b.iter().enumerate().all(|(i, &v)| v == 3 * i as u32));
            a.iter().sum::<u64>() + b.iter().map(|&v| v as u64).sum::<u64>()
        },
    );
    let want: u64 = (0..200_000u64).sum::<u64>() + (0..200_000u64).step_by(3).sum::<u64>();
    assert_eq!(sum, want);
}

#[test]
fn zeroed_allocations_are_zero_in_a_reused_slot() {
    enable();
    scoped(
        || vec![0xA5u8; 1 << 20],
        |v| assert!(v.iter().all(|&b| b == 0xA5)),
    );
    let zeros = scoped(
        || vec![0u8; 1 << 20],
        |v| {
            assert!(arena::contains(v.as_ptr()));
            v.iter().filter(|&&b| b != 0).count()
        },
    );
    assert_eq!(zeros, 0);
}

#[test]
fn memory_from_outside_is_freed_to_its_own_allocator_inside() {
    enable();
    let outside: Vec<String> = (0..1000).map(|i| i.to_string()).collect();
    assert!(!arena::contains(outside.as_ptr()));
    let n = scoped(
        move || {
            // Dropped while the arena is active: must go back to mimalloc, not be ignored
            // or handed to the arena.
            let n = outside.len();
            drop(outside);
            n
        },
        |n| *n,
    );
    assert_eq!(n, 1000);
}

#[test]
fn a_value_too_large_for_a_slot_spills_and_stays_correct() {
    enable();
    let _large = LARGE.lock().unwrap_or_else(|e| e.into_inner());
    // 96 MiB in 1 MiB blocks: more than one thread's slot.
    let total = scoped(
        || (0..96u8).map(|i| vec![i; 1 << 20]).collect::<Vec<_>>(),
        |blocks| {
            assert!(arena::contains(blocks[0].as_ptr()));
            assert!(
                !arena::contains(blocks[95].as_ptr()),
                "the last blocks spill"
            );
            blocks
                .iter()
                .enumerate()
                .all(|(i, b)| b.iter().all(|&x| x == i as u8))
        },
    );
    assert!(total);
    // The slot is usable again afterwards.
    let ok = scoped(|| words(1, 10), |w| arena::contains(w.as_ptr()));
    assert!(ok);
}

#[test]
fn threads_build_in_their_own_slots() {
    enable();
    let handles: Vec<_> = (0..8)
        .map(|t| {
            std::thread::spawn(move || {
                let mut out = Vec::new();
                for round in 0..50 {
                    let seed = t * 1000 + round;
                    out.push(scoped(
                        || words(seed, 100),
                        |w| (arena::contains(w.as_ptr()), w[99].concat()),
                    ));
                }
                (t, out)
            })
        })
        .collect();
    for h in handles {
        let (t, out) = h.join().expect("thread");
        for (round, (inside, got)) in out.into_iter().enumerate() {
            let seed = t * 1000 + round;
            assert!(inside);
            let want: String = (0..2).map(|j| format!("w{seed}-99-{j}")).collect();
            assert_eq!(got, want);
        }
    }
}

#[test]
fn a_panic_while_building_poisons_the_slot_and_keeps_the_message() {
    enable();
    // On a fresh thread, so that no other test shares the slot.
    std::thread::spawn(|| {
        let caught = catch_unwind(AssertUnwindSafe(|| {
            scoped(
                || -> Vec<String> {
                    let what = std::hint::black_box(String::from("input"));
                    panic!("parser broke on {what}")
                },
                |_| (),
            )
        }));
        let payload = caught.expect_err("the panic comes through");
        // Later parses on this thread do not reuse the slot the message may live in.
        let after = scoped(|| words(7, 50), |w| arena::contains(w.as_ptr()));
        assert!(!after, "a slot given up after a panic is not reused");
        let message = payload
            .downcast_ref::<String>()
            .expect("a formatted message");
        assert_eq!(message, "parser broke on input");
    })
    .join()
    .expect("thread");
}

/// Resident memory of this process, in MiB.
#[cfg(target_os = "linux")]
fn resident_mib() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("statm");
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .expect("rss")
        .parse()
        .expect("number");
    (pages * 4096) >> 20
}

/// Runs `round` once, then `rounds` times more, on a fresh thread (its own slot, whatever the
/// other tests do) while holding [`LARGE`]; resident memory must grow by less than `limit`
/// MiB over the repeated rounds.
#[cfg(target_os = "linux")]
fn assert_memory_stays_flat(rounds: usize, limit: u64, round: impl Fn() + Send + 'static) {
    enable();
    let _large = LARGE.lock().unwrap_or_else(|e| e.into_inner());
    std::thread::spawn(move || {
        round();
        let before = resident_mib();
        for _ in 0..rounds {
            round();
        }
        let grown = resident_mib().saturating_sub(before);
        assert!(
            grown < limit,
            "resident memory grew by {grown} MiB over {rounds} rounds"
        );
    })
    .join()
    .expect("thread");
}

#[cfg(target_os = "linux")]
#[test]
fn spilled_parts_are_freed() {
    // Each round spills about 32 MiB into mimalloc; kept, ten rounds would add 320 MiB.
    assert_memory_stays_flat(10, 160, || {
        let ok = scoped(
            || (0..96u8).map(|i| vec![i; 1 << 20]).collect::<Vec<_>>(),
            |blocks| blocks[95][0] == 95,
        );
        assert!(ok);
    });
}

#[test]
fn a_call_inside_read_does_not_reuse_the_slot_being_read() {
    enable();
    let (outer_inside, inner_inside, outer_after) = scoped(
        || words(3, 200),
        |outer| {
            let outer_inside = arena::contains(outer.as_ptr());
            // A nested call builds without the arena: the outer value stays intact.
            let inner_inside = scoped(|| words(4, 200), |inner| arena::contains(inner.as_ptr()));
            (outer_inside, inner_inside, outer[150].concat())
        },
    );
    assert!(outer_inside);
    assert!(!inner_inside);
    let want: String = (0..4).map(|j| format!("w3-150-{j}")).collect();
    assert_eq!(outer_after, want);
}

#[test]
fn the_last_allocation_does_not_grow_past_its_slot() {
    enable();
    // On a fresh thread: the slot starts empty.
    std::thread::spawn(|| {
        let ok = scoped(
            || {
                // Fill the slot to 8 KiB below its end, then grow the last vector past it: it
                // must move to mimalloc (not into the next thread's slot) with its contents.
                let filler = vec![1u8; (64 << 20) - (8 << 10)];
                let mut last: Vec<u8> = Vec::with_capacity(1024);
                last.extend((0..1024u32).map(|i| i as u8));
                let inside = arena::contains(last.as_ptr());
                last.extend((0..100_000u32).map(|i| i as u8));
                (filler, last, inside)
            },
            |(filler, last, inside)| {
                *inside
                    && !arena::contains(last.as_ptr())
                    && filler.len() == (64 << 20) - (8 << 10)
                    && last
                        .iter()
                        .enumerate()
                        .all(|(i, &b)| b == ((if i < 1024 { i } else { i - 1024 }) as u8))
            },
        );
        assert!(ok);
    })
    .join()
    .expect("thread");
}

#[cfg(target_os = "linux")]
#[test]
fn outside_memory_freed_inside_is_not_leaked() {
    // Kept, forty rounds would add 320 MiB.
    assert_memory_stays_flat(40, 160, || {
        let outside = vec![7u8; 8 << 20];
        scoped(move || drop(outside), |_| ());
    });
}

#[cfg(target_os = "linux")]
#[test]
fn summaries_of_concatenated_string_asserts_do_not_leak() {
    // `assert "a" "b" == "a" "b"`: comparing the sides caches the joined text in the tree.
    let part = "x".repeat(2000);
    let mut source = String::from("def test_f():\n");
    for _ in 0..100 {
        source.push_str(&format!(
            "    assert '{part}' '{part}' == '{part}' '{part}'\n"
        ));
    }
    // Kept, each round would leave 100 x 4 KB: 200 rounds, about 80 MiB.
    assert_memory_stays_flat(200, 40, move || {
        let module = lane_scan::python::summarize(&source).expect("parses");
        assert_eq!(module.functions[0].asserts.tautologies, 100);
    });
}
