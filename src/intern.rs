//! Interned identifiers: every name in a path, a keyword or a method is stored once for the
//! whole run. Path segments hold a [`Sym`], a 4-byte number for the name; other facts share the
//! name as `&'static str`. Either way facts copy numbers or pointers instead of allocating, and
//! compare and hash without reading the text.
//!
//! The table only grows (by the distinct identifiers of the checked code, a few megabytes for a
//! large project); a run is one process, so nothing is ever freed early.

use rustc_hash::FxHashMap as HashMap;
use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{OnceLock, RwLock};

/// An interned name: equal names have equal numbers.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(u32);

/// Names by number, in chunks that never move once made, so that reading a name takes no lock.
const CHUNK_BITS: u32 = 12;
const CHUNK: usize = 1 << CHUNK_BITS;
const CHUNKS: usize = 1 << 16;
static NAMES: [OnceLock<Box<[OnceLock<&'static str>]>>; CHUNKS] =
    [const { OnceLock::new() }; CHUNKS];

/// The next number to hand out.
static NEXT: AtomicU32 = AtomicU32::new(0);

/// Name → number for every name interned so far, in shards by hash so that threads looking up
/// different names do not wait on each other. Shared by all threads: a copy per thread would
/// cost the whole table again for every core.
const SHARDS: usize = 64;
static TABLE: [Shard; SHARDS] =
    [const { Shard(RwLock::new(HashMap::with_hasher(rustc_hash::FxBuildHasher))) }; SHARDS];

/// A shard on cache lines of its own: taking a read lock writes to the lock, and shards that
/// shared a line made threads reading different shards wait on each other's writes.
#[repr(align(128))]
struct Shard(RwLock<HashMap<&'static str, Sym>>);

/// Slots of the small per-thread cache in front of [`TABLE`].
const RECENT_SLOTS: usize = 4096;

thread_local! {
    /// The names seen lately, one per slot by hash: a file names the same few hundred
    /// identifiers over and over, so most lookups end here without touching a lock. Constant
    /// and zeroed (empty slots are `None`), so a lookup reads it with no first-use check.
    static RECENT: [Cell<Option<(&'static str, Sym)>>; RECENT_SLOTS] =
        const { [const { Cell::new(None) }; RECENT_SLOTS] };
}

impl Sym {
    /// The number of `name`, interning it on first sight.
    pub fn new(name: &str) -> Sym {
        lookup(name).1
    }

    /// The interned text.
    pub fn as_str(self) -> &'static str {
        let chunk = (self.0 >> CHUNK_BITS) as usize;
        let slot = self.0 as usize & (CHUNK - 1);
        // A `Sym` exists only once its name is stored ([`store`]), so both are always found.
        NAMES
            .get(chunk)
            .and_then(OnceLock::get)
            .and_then(|names| names.get(slot))
            .and_then(OnceLock::get)
            .copied()
            .unwrap_or_default()
    }
}

impl std::ops::Deref for Sym {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq<str> for Sym {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Sym {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Debug for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name is written as its number: encoded facts ([`crate::facts::FunctionBody`]) are read back
/// by the same run, whose table holds every number it ever handed out.
impl serde::Serialize for Sym {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u32(self.0)
    }
}

impl<'de> serde::Deserialize<'de> for Sym {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Sym, D::Error> {
        let number = u32::deserialize(deserializer)?;
        if number < NEXT.load(Ordering::Acquire) {
            Ok(Sym(number))
        } else {
            Err(serde::de::Error::custom("a name this run never interned"))
        }
    }
}

/// The interned copy of `name`.
pub fn intern(name: &str) -> &'static str {
    lookup(name).0
}

fn lookup(name: &str) -> (&'static str, Sym) {
    let hash = {
        use std::hash::BuildHasher;
        rustc_hash::FxBuildHasher.hash_one(name) as usize
    };
    let slot = hash % RECENT_SLOTS;
    let recent = RECENT.with(|recent| recent[slot].get());
    if let Some(found) = recent.filter(|(text, _)| same_text(text, name)) {
        return found;
    }
    let found = lookup_shared(name, &TABLE[(hash >> 32) % SHARDS].0);
    RECENT.with(|recent| recent[slot].set(Some(found)));
    found
}

/// `a == b`, without a call to `memcmp` for names of up to 16 bytes (nearly all): the
/// comparison of every cache hit, where the call cost more than the bytes compared.
#[inline]
fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let len = a.len();
    // Two overlapping words from each end cover the whole name.
    let word = |bytes: &[u8], at: usize| -> u64 {
        let mut buf = [0u8; 8];
        buf.copy_from_slice(&bytes[at..at + 8]);
        u64::from_ne_bytes(buf)
    };
    let half = |bytes: &[u8], at: usize| -> u32 {
        let mut buf = [0u8; 4];
        buf.copy_from_slice(&bytes[at..at + 4]);
        u32::from_ne_bytes(buf)
    };
    match len {
        0 => true,
        1..4 => a.iter().zip(b).all(|(x, y)| x == y),
        4..8 => half(a, 0) == half(b, 0) && half(a, len - 4) == half(b, len - 4),
        8..=16 => word(a, 0) == word(b, 0) && word(a, len - 8) == word(b, len - 8),
        _ => a == b,
    }
}

fn lookup_shared(name: &str, shard: &RwLock<HashMap<&'static str, Sym>>) -> (&'static str, Sym) {
    // A poisoned lock only means another thread panicked mid-insert; the map is still valid.
    let known = shard
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get_key_value(name)
        .map(|(text, sym)| (*text, *sym));
    if let Some(found) = known {
        return found;
    }
    // The table and the names outlive any tree being read in the scratch arena.
    crate::arena::outside(|| insert(name, shard))
}

/// Adds `name` to the table, unless another thread just did.
fn insert(name: &str, shard: &RwLock<HashMap<&'static str, Sym>>) -> (&'static str, Sym) {
    let mut table = shard
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((text, sym)) = table.get_key_value(name) {
        return (*text, *sym);
    }
    let text: &'static str = Box::leak(name.to_string().into_boxed_str());
    let sym = Sym(NEXT.fetch_add(1, Ordering::Relaxed).min(u32::MAX - 1));
    store(sym, text);
    table.insert(text, sym);
    (text, sym)
}

/// Makes `sym` name `text` (before `sym` is handed out).
fn store(sym: Sym, text: &'static str) {
    let chunk = (sym.0 >> CHUNK_BITS) as usize;
    let slot = sym.0 as usize & (CHUNK - 1);
    if let Some(names) = NAMES.get(chunk) {
        let names = names.get_or_init(|| (0..CHUNK).map(|_| OnceLock::new()).collect());
        if let Some(entry) = names.get(slot) {
            let _ = entry.set(text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Sym, intern};

    #[test]
    fn names_compare_by_every_byte() {
        let names = [
            "",
            "a",
            "ab",
            "abc",
            "abcd",
            "abcde",
            "abcdefg",
            "abcdefgh",
            "abcdefghi",
            "abcdefghijklmno",
            "abcdefghijklmnop",
            "abcdefghijklmnopq",
            "abcdefghijklmnopqrstuvwxyz",
        ];
        for a in names {
            for b in names {
                assert_eq!(super::same_text(a, b), a == b, "{a:?} {b:?}");
            }
            assert!(super::same_text(a, &String::from(a)));
            // The same length, one byte changed anywhere.
            for at in 0..a.len() {
                let mut changed = a.as_bytes().to_vec();
                changed[at] ^= 1;
                let changed = String::from_utf8(changed).expect("ascii");
                assert!(!super::same_text(a, &changed), "{a:?} {changed:?}");
            }
        }
    }

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

    #[test]
    fn symbols_name_their_text_across_threads() {
        let a = Sym::new("capture");
        assert_eq!(a, Sym::new(&String::from("capture")));
        assert_ne!(a, Sym::new("refund"));
        assert_eq!(a.as_str(), "capture");
        assert_eq!(a, "capture");
        assert!(std::ptr::eq(a.as_str(), intern("capture")));
        let (b, text) = std::thread::spawn(|| (Sym::new("capture"), Sym::new("x1").as_str()))
            .join()
            .expect("thread");
        assert_eq!(a, b);
        assert_eq!(text, "x1");
        assert_eq!(Sym::new("").as_str(), "");
    }
}
