//! A scratch arena for syntax trees: the tree of one file is built, read once for its facts and
//! thrown away. Freeing it node by node cost an eighth of the instructions of parsing it, and
//! every node went through the general allocator on the way in as well; oxc gives its parser an
//! arena for the same reason (here: 6% fewer instructions for the whole check of Django, 5–7%
//! less wall time on the benchmark corpus). Ruff's tree uses the global allocator, so the arena
//! is in the global allocator: [`Allocator`] serves the allocations a thread makes inside
//! [`scratch`]'s `build` and `read` from a bump region, treats frees of that region as no-ops,
//! and gives the region back whole once `keep` has copied out what outlives the tree. Reading
//! the facts in the arena too (their short-lived paths, taint lists and argument values) took
//! another 3% of Django's instructions off.
//!
//! The region is reserved once (address space only; pages are touched as used) and split into
//! [`SLOTS`] slots; a thread leases a free slot for one tree. A tree that outgrows its slot goes
//! on in the general allocator, and is then dropped normally. Where the allocator is not the
//! program's global allocator (tests, benches, other binaries) or the region cannot be
//! reserved, [`scratch`] is a plain build, read and keep.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

#[cfg(target_env = "msvc")]
use std::alloc::System as Inner;
#[cfg(not(target_env = "msvc"))]
use tikv_jemallocator::Jemalloc as Inner;

/// jemalloc's options: pages freed go back to the system at once, not after its default ten
/// seconds, as a run of twice is short and its peak is what counts. On the benchmark corpus
/// the peak drops by about 1 MiB (198.6 MiB against 199.7 MiB, medians of five) for the same
/// wall and CPU time. `_RJEM_MALLOC_CONF` in the environment still applies after it.
#[cfg(not(target_env = "msvc"))]
#[unsafe(export_name = "_rjem_malloc_conf")]
pub static MALLOC_CONF: &[u8; 34] = b"dirty_decay_ms:0,muzzy_decay_ms:0\0";

/// The global allocator twice's binary installs: the general allocator (jemalloc where it
/// builds), plus the scratch arena.
pub struct Allocator;

/// Slots in the region: at most this many threads parse into an arena at once; more fall back
/// to the general allocator.
const SLOTS: usize = 64;
/// Bytes per slot: the tree of the largest file of the benchmark corpus (365 KB) and the
/// reading of its facts take 7.9 MB, the median file's 40 KB.
const SLOT_BYTES: usize = 256 << 20;
/// Bytes of a slot kept resident between trees: beyond this the pages are returned, so a
/// huge file does not keep its tree's memory for the rest of the run. Every file of the
/// benchmark corpus fits, tree and the reading of its facts (7.9 MB at most): with 4 MiB, the
/// 12 files past it had their pages returned and faulted in again by the next large one.
const KEEP_BYTES: usize = 8 << 20;

/// A block of the arena that has to move to grow to this size moves to the general allocator.
/// Below it, every block of the corpus's trees: the largest tree is 3.9 MB in all.
const MOVE_OUT_BYTES: usize = 1 << 20;

/// Start of the region, or 0 while (or if) it is not reserved.
static BASE: AtomicUsize = AtomicUsize::new(0);
/// Leased slots, one bit each.
static LEASED: AtomicU64 = AtomicU64::new(0);

/// The bump range of the running thread's leased slot; `start == 0` when it has none.
#[derive(Clone, Copy)]
struct Bump {
    /// The slot's first byte.
    start: usize,
    cursor: usize,
    /// Some allocation did not fit and went to the general allocator.
    spilled: bool,
}

impl Bump {
    const NONE: Bump = Bump {
        start: 0,
        cursor: 0,
        spilled: false,
    };

    /// The whole of the slot at `start`, unused.
    fn slot(start: usize) -> Bump {
        Bump {
            start,
            cursor: start,
            spilled: false,
        }
    }

    /// Whether the thread is building in a slot.
    fn is_active(self) -> bool {
        self.start != 0
    }

    /// One past the slot's last byte.
    fn end(self) -> usize {
        self.start + SLOT_BYTES
    }
}

thread_local! {
    static BUMP: Cell<Bump> = const { Cell::new(Bump::NONE) };
}

/// Whether `ptr` points into the arena's region (for tests of what lives where).
pub fn contains<T>(ptr: *const T) -> bool {
    let base = BASE.load(Ordering::Relaxed);
    base != 0 && (ptr as usize).wrapping_sub(base) < SLOTS * SLOT_BYTES
}

/// An allocation from the running thread's arena, if it has one and the block fits.
fn bump(layout: Layout) -> Option<*mut u8> {
    let mut bump = BUMP.get();
    if !bump.is_active() {
        return None;
    }
    let start = bump.cursor.checked_add(layout.align() - 1)? & !(layout.align() - 1);
    match start.checked_add(layout.size()) {
        Some(next) if next <= bump.end() => {
            bump.cursor = next;
            BUMP.set(bump);
            Some(start as *mut u8)
        }
        _ => {
            bump.spilled = true;
            BUMP.set(bump);
            None
        }
    }
}

// SAFETY: blocks from the arena are distinct ranges of a live mapping, aligned as asked; the
// mapping is never unmapped, and a slot is reused only after `scratch` has stopped reading what
// was built in it. Everything else is the inner allocator's.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match bump(layout) {
            Some(ptr) => ptr,
            // SAFETY: the caller's contract, passed on.
            None => unsafe { Inner.alloc(layout) },
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match bump(layout) {
            Some(ptr) => {
                // SAFETY: the block was just carved from the slot, `layout.size()` bytes long.
                unsafe { ptr.write_bytes(0, layout.size()) };
                ptr
            }
            // SAFETY: the caller's contract, passed on.
            None => unsafe { Inner.alloc_zeroed(layout) },
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if !contains(ptr) {
            // SAFETY: not an arena block, so the inner allocator made it.
            unsafe { Inner.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !contains(ptr) {
            // SAFETY: not an arena block, so the inner allocator made it.
            return unsafe { Inner.realloc(ptr, layout, new_size) };
        }
        // The last block of the running thread's arena grows or shrinks where it is.
        let mut bump = BUMP.get();
        let addr = ptr as usize;
        if bump.is_active()
            && addr >= bump.start
            && addr.wrapping_add(layout.size()) == bump.cursor
            && let Some(next) = addr
                .checked_add(new_size)
                .filter(|&next| next <= bump.end())
        {
            bump.cursor = next;
            BUMP.set(bump);
            return ptr;
        }
        if new_size <= layout.size() {
            return ptr;
        }
        // SAFETY: `new_size` is non-zero and, rounded to the alignment, fits (the caller's
        // contract for `realloc`).
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // A big block that has to move leaves the arena: the arena cannot reuse the old copy,
        // and a vector growing by doubling would leave behind as much as it holds.
        let new = if new_size >= MOVE_OUT_BYTES && bump.is_active() {
            bump.spilled = true;
            BUMP.set(bump);
            // SAFETY: as for `alloc`.
            unsafe { Inner.alloc(new_layout) }
        } else {
            // SAFETY: as for `alloc`.
            unsafe { self.alloc(new_layout) }
        };
        if !new.is_null() {
            // SAFETY: both blocks are at least `layout.size()` bytes and do not overlap (the new
            // one was just allocated).
            unsafe { std::ptr::copy_nonoverlapping(ptr, new, layout.size()) };
        }
        new
    }
}

/// The region, reserved on first use: `None` where that is not possible or [`Allocator`] is not
/// the global allocator.
static REGION: OnceLock<Option<usize>> = OnceLock::new();

fn region() -> Option<usize> {
    *REGION.get_or_init(|| {
        let base = reserve(SLOTS * SLOT_BYTES)?;
        BASE.store(base, Ordering::Release);
        // Whether allocations really come here: make slot 0 the thread's arena (nothing can
        // lease it before the region exists) and look where a box lands.
        BUMP.set(Bump::slot(base));
        let probe = Box::new(0u64);
        BUMP.set(Bump::NONE);
        let installed = contains(&*probe);
        drop(probe);
        if !installed {
            BASE.store(0, Ordering::Release);
            unreserve(base, SLOTS * SLOT_BYTES);
        }
        installed.then_some(base)
    })
}

#[cfg(unix)]
fn reserve(bytes: usize) -> Option<usize> {
    if !leaves_room(bytes as u64, address_space_limit()) {
        return None;
    }
    // SAFETY: an anonymous private mapping at an address of the kernel's choosing; no existing
    // memory is affected. `MAP_NORESERVE`: only pages that are touched take memory.
    let ptr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    (ptr != libc::MAP_FAILED && !ptr.is_null()).then_some(ptr as usize)
}

#[cfg(not(unix))]
fn reserve(_bytes: usize) -> Option<usize> {
    None
}

/// Whether reserving `bytes` of address space leaves the rest of the run room under the
/// process's limit (`ulimit -v`), if it has one: the region may take a quarter of it. Without
/// this, a limit a little above the region's size would leave too little for everything else.
fn leaves_room(bytes: u64, limit: Option<u64>) -> bool {
    limit.is_none_or(|limit| bytes <= limit / 4)
}

/// The process's address-space limit, if it has one.
#[cfg(unix)]
fn address_space_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `getrlimit` only writes the struct it is given.
    let known = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0;
    let current: u64 = limit.rlim_cur;
    (known && limit.rlim_cur != libc::RLIM_INFINITY).then_some(current)
}

#[cfg(unix)]
fn unreserve(base: usize, bytes: usize) {
    // SAFETY: `base..base + bytes` is the mapping `reserve` made, and nothing was allocated in
    // it (the probe did not land there).
    unsafe { libc::munmap(base as *mut libc::c_void, bytes) };
}

#[cfg(not(unix))]
fn unreserve(_base: usize, _bytes: usize) {}

/// Returns the pages of `start..end` to the system; they read as zeros when touched again.
#[cfg(unix)]
fn release_pages(start: usize, end: usize) {
    if end > start {
        // SAFETY: the range lies inside the region's mapping, and nothing in it is read again
        // before it is allocated anew.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED) };
    }
}

#[cfg(not(unix))]
fn release_pages(_start: usize, _end: usize) {}

/// A leased slot of the region.
struct Lease {
    slot: usize,
    base: usize,
    /// `build` is running: a panic now may leave its payload in the slot, so the slot is not
    /// given back.
    building: bool,
    /// The bump range when `build` ended.
    used: Bump,
}

impl Lease {
    /// The first free slot, if the arena works here and one is free.
    fn take() -> Option<Lease> {
        let base = region()?;
        loop {
            let slot = (!LEASED.load(Ordering::Relaxed)).trailing_zeros() as usize;
            if slot >= SLOTS {
                return None;
            }
            if let Some(lease) = Lease::claim(base, slot) {
                return Some(lease);
            }
        }
    }

    /// Slot `slot`, if no one holds it.
    fn claim(base: usize, slot: usize) -> Option<Lease> {
        let bit = 1 << slot;
        let before = LEASED.fetch_or(bit, Ordering::Acquire);
        (before & bit == 0).then(|| Lease {
            slot,
            base: base + slot * SLOT_BYTES,
            building: false,
            used: Bump::NONE,
        })
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if self.building {
            BUMP.set(Bump::NONE);
            return;
        }
        // Debug builds overwrite what was built, so that a block that escaped `scratch` reads
        // as garbage in the tests instead of as the next tree.
        #[cfg(debug_assertions)]
        if self.used.is_active() {
            // SAFETY: `base..cursor` is the part of the leased slot the build and read used;
            // nothing reads it any more.
            unsafe {
                std::ptr::write_bytes(self.base as *mut u8, 0xDB, self.used.cursor - self.base);
            }
        }
        if self.used.cursor > self.base + KEEP_BYTES {
            release_pages(self.base + KEEP_BYTES, self.used.cursor);
        }
        LEASED.fetch_and(!(1 << self.slot), Ordering::Release);
    }
}

/// Returns the kept pages of every slot not leased now: for when no more trees are built
/// for a while.
pub fn trim() {
    let Some(base) = REGION.get().copied().flatten() else {
        return;
    };
    let leased = LEASED.load(Ordering::Acquire);
    for slot in 0..SLOTS {
        if leased & 1 << slot != 0 {
            continue;
        }
        if let Some(lease) = Lease::claim(base, slot) {
            release_pages(lease.base, lease.base + KEEP_BYTES);
        }
    }
}

/// Builds a value whose memory comes from a scratch arena, reads it with `read` (whose own
/// allocations come from the arena too), lets `keep` copy out what outlives the call, and
/// frees everything else with the arena. `keep` runs with the general allocator.
///
/// Reading in the arena matters as much as building there: the facts of a tree are worked out
/// through many short-lived values (paths, taint lists, arguments) that the general allocator
/// would hand out and take back one by one.
///
/// # Safety
///
/// Nothing `build` or `read` allocates may outlive the call except through `keep`'s copy:
/// they must not store an allocation anywhere but in their return values (no statics,
/// thread-locals or caches they fill on first use, unless filled inside [`outside`]), and the
/// values must not hold shared ownership (`Rc`, `Arc`). `keep` must copy deeply: what it
/// returns must not point into `read`'s result. The memory of an escaped allocation would be
/// handed out again for the next tree.
pub unsafe fn scratch<T, R, K>(
    build: impl FnOnce() -> T,
    read: impl FnOnce(&T) -> R,
    keep: impl FnOnce(&R) -> K,
) -> K {
    // Inside another `build` (not done by twice) the outer arena stays in charge.
    if BUMP.get().is_active() {
        return keep(&read(&build()));
    }
    let Some(mut lease) = Lease::take() else {
        return keep(&read(&build()));
    };
    lease.building = true;
    BUMP.set(Bump::slot(lease.base));
    let value = build();
    let read = read(&value);
    lease.used = BUMP.get();
    BUMP.set(Bump::NONE);
    lease.building = false;
    let kept = keep(&read);
    if lease.used.spilled {
        // Part of them lives in the general allocator: dropping frees that part (frees of
        // arena blocks are no-ops).
        drop(read);
        drop(value);
    } else {
        // All of them are in the slot, which is reused as a whole.
        std::mem::forget(read);
        std::mem::forget(value);
    }
    drop(lease);
    kept
}

/// Runs `f` with the general allocator even inside [`scratch`]'s `build` or `read`: for what
/// they add to a store that outlives the tree (the interner, a buffer kept per thread).
pub fn outside<R>(f: impl FnOnce() -> R) -> R {
    /// Gives the thread its arena back, also when `f` panics.
    struct Restore(Bump);
    impl Drop for Restore {
        fn drop(&mut self) {
            BUMP.set(self.0);
        }
    }
    let _restore = Restore(BUMP.replace(Bump::NONE));
    f()
}

#[cfg(test)]
mod tests {
    use super::leaves_room;

    #[test]
    fn the_region_takes_at_most_a_quarter_of_an_address_space_limit() {
        const GIB: u64 = 1 << 30;
        assert!(leaves_room(16 * GIB, None));
        assert!(leaves_room(16 * GIB, Some(64 * GIB)));
        assert!(!leaves_room(16 * GIB, Some(17 * GIB)));
        assert!(!leaves_room(16 * GIB, Some(8 * GIB)));
    }
}
