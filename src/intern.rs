//! Interned identifiers: every name in a path, a keyword or a method is stored once for the
//! whole run and shared as `&'static str`, so facts copy pointers instead of allocating.
//!
//! The table only grows (by the distinct identifiers of the checked code, a few megabytes for a
//! large project); a run is one process, so nothing is ever freed early.

use rustc_hash::FxHashSet as HashSet;
use std::cell::RefCell;
use std::sync::{Mutex, OnceLock};

static TABLE: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();

/// Slots of the small per-thread cache in front of [`CACHE`].
const RECENT_SLOTS: usize = 4096;

thread_local! {
    /// Each thread's view of the table: most lookups never take the lock.
    static CACHE: RefCell<HashSet<&'static str>> = RefCell::new(HashSet::default());
    /// The names seen lately, one per slot by hash: a file names the same few hundred
    /// identifiers over and over, and this table stays in the processor's cache where the
    /// thread's whole table (every identifier of the project) does not.
    static RECENT: RefCell<Box<[&'static str]>> =
        RefCell::new(vec![""; RECENT_SLOTS].into_boxed_slice());
}

/// The interned copy of `name`.
pub fn intern(name: &str) -> &'static str {
    let slot = {
        use std::hash::BuildHasher;
        rustc_hash::FxBuildHasher.hash_one(name) as usize % RECENT_SLOTS
    };
    let recent = RECENT.with(|recent| recent.borrow().get(slot).copied());
    if let Some(found) = recent.filter(|found| *found == name && !found.is_empty()) {
        return found;
    }
    let found = intern_slow(name);
    RECENT.with(|recent| {
        if let Some(entry) = recent.borrow_mut().get_mut(slot) {
            *entry = found;
        }
    });
    found
}

fn intern_slow(name: &str) -> &'static str {
    if let Some(found) = CACHE.with(|cache| cache.borrow().get(name).copied()) {
        return found;
    }
    let table = TABLE.get_or_init(|| Mutex::new(HashSet::default()));
    let interned = {
        // A poisoned lock only means another thread panicked mid-insert; the set is still valid.
        let mut table = table
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match table.get(name) {
            Some(found) => *found,
            None => {
                let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
                table.insert(leaked);
                leaked
            }
        }
    };
    CACHE.with(|cache| cache.borrow_mut().insert(interned));
    interned
}

#[cfg(test)]
mod tests {
    use super::intern;

    #[test]
    fn interning_returns_one_copy() {
        let a = intern("payment_gateway");
        let b = intern(&String::from("payment_gateway"));
        assert!(std::ptr::eq(a, b));
        assert_eq!(a, "payment_gateway");
        let other = std::thread::spawn(|| intern("payment_gateway"))
            .join()
            .expect("thread");
        assert!(std::ptr::eq(a, other));
    }
}
