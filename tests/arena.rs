//! The scratch arena under the allocator it needs: this test binary installs twice's global
//! allocator, as the `twice` binary does.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use twice::arena::{contains, outside, trim};

/// [`twice::arena::scratch`] for these tests' closures, which keep nothing they allocate
/// beyond their return value and hold no `Rc` or `Arc`; what `read` returns is kept by its
/// `Clone`, which copies every allocation for the types used here.
fn scratch<T, R: Clone>(build: impl FnOnce() -> T, read: impl FnOnce(&T) -> R) -> R {
    // SAFETY: see above; every caller below passes such closures.
    unsafe { twice::arena::scratch(build, read, R::clone) }
}

#[global_allocator]
static GLOBAL: twice::arena::Allocator = twice::arena::Allocator;

/// The tests take turns: which slot a thread leases depends on what the others hold, and the
/// panic test needs to know that its slot would be the next one leased.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A tree-like value with many small blocks, as a syntax tree has.
fn build_words(seed: usize, count: usize) -> Vec<String> {
    (0..count).map(|i| format!("word-{seed}-{i}")).collect()
}

/// Whether a vector of strings and every string in it live in the arena.
fn all_in_arena(words: &[String]) -> bool {
    contains(words.as_ptr()) && words.iter().all(|w| contains(w.as_ptr()))
}

#[test]
fn what_build_makes_is_in_the_arena_and_what_is_kept_is_not() {
    let _turn = one_at_a_time();
    let (in_arena, copied) = scratch(
        || build_words(1, 1000),
        |words| (all_in_arena(words), words[999].clone()),
    );
    assert!(in_arena, "the built value should live in the arena");
    assert!(!contains(copied.as_ptr()), "the result should not");
    // The slot is reused by the next trees; the result must survive that.
    for seed in 0..50 {
        let last = scratch(|| build_words(seed, 1000), |words| words[999].clone());
        assert_eq!(last, format!("word-{seed}-999"));
    }
    assert_eq!(copied, "word-1-999");
}

#[test]
fn what_read_makes_is_in_the_arena_and_what_keep_copies_is_not() {
    let _turn = one_at_a_time();
    let (read_in_arena, kept) = scratch(
        || build_words(2, 10),
        |words| {
            let made: Vec<String> = words.iter().map(|w| format!("{w}-read")).collect();
            (all_in_arena(&made), made)
        },
    );
    assert!(read_in_arena, "what read makes should live in the arena");
    assert!(!contains(kept.as_ptr()) && kept.iter().all(|w| !contains(w.as_ptr())));
    // Later trees reuse the slot; the copy must not change.
    for seed in 0..50 {
        scratch(
            || build_words(seed, 1000),
            |words| words.iter().map(|w| format!("{w}-read")).count(),
        );
    }
    assert_eq!(kept.len(), 10);
    assert_eq!(kept[9], "word-2-9-read");
}

#[test]
fn names_interned_while_reading_live_outside_the_arena() {
    let _turn = one_at_a_time();
    // Enough new names that the interner's table grows while a tree is read.
    let names: Vec<String> = (0..5000).map(|i| format!("arena-test-name-{i}")).collect();
    let (interned, any_in_arena) = scratch(
        || build_words(4, 10),
        |_| {
            let interned: Vec<&'static str> =
                names.iter().map(|n| twice::intern::intern(n)).collect();
            let any_in_arena = interned.iter().any(|n| contains(n.as_ptr()));
            (interned, any_in_arena)
        },
    );
    assert!(!any_in_arena, "the interner's names must outlive the tree");
    for seed in 0..20 {
        scratch(|| build_words(seed, 5000), |words| words.len());
    }
    for (name, text) in names.iter().zip(&interned) {
        assert_eq!(name, text);
        // The table still finds each name as the same interned text.
        assert!(std::ptr::eq(twice::intern::intern(name), *text));
    }
}

#[test]
fn outside_allocates_in_the_general_allocator_and_gives_the_arena_back() {
    let _turn = one_at_a_time();
    let (before, during, after) = scratch(
        || (),
        |()| {
            let before = Box::new(1u64);
            let during = outside(|| Box::new(2u64));
            let after = Box::new(3u64);
            (contains(&*before), contains(&*during), contains(&*after))
        },
    );
    assert_eq!((before, during, after), (true, false, true));
}

#[test]
fn a_panic_while_reading_is_caught_and_its_message_survives() {
    let _turn = one_at_a_time();
    let caught = std::panic::catch_unwind(|| {
        scratch(
            || build_words(8, 100),
            |words| -> usize {
                let partial: Vec<String> = words.iter().map(|w| format!("{w}!")).collect();
                panic!("read boom {}", std::hint::black_box(partial.len() - 31))
            },
        )
    });
    for seed in 0..20 {
        scratch(
            || build_words(seed, 2000),
            |words| words.iter().map(|w| format!("{w}?")).count(),
        );
    }
    let payload = caught.expect_err("the panic should reach catch_unwind");
    let message = payload.downcast_ref::<String>().map(String::as_str);
    assert_eq!(message, Some("read boom 69"));
}

#[test]
fn a_block_that_grows_last_stays_intact() {
    let _turn = one_at_a_time();
    let sum = scratch(
        || {
            let mut numbers = Vec::with_capacity(1);
            for i in 0..100_000u64 {
                numbers.push(i);
            }
            numbers
        },
        |numbers| {
            assert!(contains(numbers.as_ptr()));
            numbers.iter().sum::<u64>()
        },
    );
    assert_eq!(sum, 100_000 * 99_999 / 2);
}

#[test]
fn blocks_that_grow_in_turns_keep_their_contents() {
    let _turn = one_at_a_time();
    let (a, b) = scratch(
        || {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for i in 0..10_000u32 {
                a.push(i);
                b.push(u64::from(i) * 3);
            }
            (a, b)
        },
        |(a, b)| {
            (
                a.iter().map(|&x| u64::from(x)).sum::<u64>(),
                b.iter().sum::<u64>(),
            )
        },
    );
    assert_eq!(a, 10_000 * 9_999 / 2);
    assert_eq!(b, 3 * a);
}

#[test]
fn a_big_block_that_has_to_move_leaves_the_arena() {
    let _turn = one_at_a_time();
    let (small_in_arena, big_in_arena, sum) = scratch(
        || {
            // Two vectors growing in turns: neither is the last block for long, so each
            // growth moves; past a megabyte the big one goes to the general allocator.
            let (mut small, mut big) = (Vec::new(), Vec::new());
            for i in 0..300_000u64 {
                big.push(i);
                if i % 1000 == 0 {
                    small.push(i);
                }
            }
            (small, big)
        },
        |(small, big)| {
            (
                contains(small.as_ptr()),
                contains(big.as_ptr()),
                big.iter().sum::<u64>(),
            )
        },
    );
    assert!(small_in_arena);
    assert!(!big_in_arena, "a 2.4 MB vector should have moved out");
    assert_eq!(sum, 300_000 * 299_999 / 2);
}

#[test]
fn a_block_made_before_and_grown_inside_stays_with_the_general_allocator() {
    let _turn = one_at_a_time();
    let mut outside = vec![1u8; 16];
    scratch(
        || outside.extend(std::iter::repeat_n(2u8, 100_000)),
        |()| (),
    );
    assert!(!contains(outside.as_ptr()));
    assert_eq!(outside.len(), 100_016);
    assert_eq!(
        outside.iter().map(|&b| usize::from(b)).sum::<usize>(),
        16 + 200_000
    );
    outside.push(3);
}

#[test]
fn a_value_too_big_for_a_slot_goes_to_the_general_allocator_and_is_freed() {
    let _turn = one_at_a_time();
    // 300 MiB of zeros: more than a slot holds. Zeroed memory from the general allocator is
    // not touched, so this costs no real memory.
    let (big_in_arena, small_in_arena, len) = scratch(
        || (vec![0u8; 300 << 20], build_words(7, 10)),
        |(big, small)| (contains(big.as_ptr()), contains(small.as_ptr()), big.len()),
    );
    assert!(!big_in_arena);
    assert!(small_in_arena);
    assert_eq!(len, 300 << 20);
}

#[test]
fn zeroed_blocks_are_zero_even_in_a_reused_slot() {
    let _turn = one_at_a_time();
    for _ in 0..20 {
        scratch(
            || vec![0xAAu8; 4096],
            |v| assert!(v.iter().all(|&b| b == 0xAA)),
        );
        scratch(
            || vec![0u8; 4096],
            |v| assert!(v.iter().all(|&b| b == 0), "zeroed memory was not zero"),
        );
    }
}

#[test]
fn a_panic_while_building_is_caught_and_its_message_survives() {
    let _turn = one_at_a_time();
    let caught = std::panic::catch_unwind(|| {
        scratch(
            || -> Vec<String> {
                let partial = build_words(3, 100);
                // A number known only at run time: the message is formatted into a new
                // String, in the slot.
                panic!("boom {}", std::hint::black_box(partial.len() - 58))
            },
            |_| (),
        )
    });
    // The payload may have been allocated in the slot: later trees must not overwrite it.
    for seed in 0..20 {
        scratch(
            || build_words(seed, 2000),
            |words| assert_eq!(words.len(), 2000),
        );
    }
    let payload = caught.expect_err("the panic should reach catch_unwind");
    let message = payload.downcast_ref::<String>().map(String::as_str);
    assert_eq!(message, Some("boom 42"));
}

#[test]
fn a_scratch_inside_a_build_leaves_the_outer_one_in_charge() {
    let _turn = one_at_a_time();
    let (inner, outer_in_arena) = scratch(
        || {
            let inner = scratch(|| build_words(5, 10), |words| words[9].clone());
            (inner, build_words(6, 10))
        },
        |(inner, outer)| (inner.clone(), contains(outer.as_ptr())),
    );
    assert_eq!(inner, "word-5-9");
    assert!(outer_in_arena);
}

#[test]
fn threads_building_at_once_do_not_see_each_others_trees() {
    let _turn = one_at_a_time();
    let checked = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for thread in 0..8 {
            let checked = &checked;
            scope.spawn(move || {
                for round in 0..100 {
                    let seed = thread * 1000 + round;
                    let words = scratch(
                        || build_words(seed, 200),
                        |words| words.iter().map(|w| w.len()).sum::<usize>(),
                    );
                    let expected: usize = (0..200).map(|i| format!("word-{seed}-{i}").len()).sum();
                    assert_eq!(words, expected);
                    checked.fetch_add(1, Ordering::Relaxed);
                }
                trim();
            });
        }
    });
    assert_eq!(checked.load(Ordering::Relaxed), 800);
}
