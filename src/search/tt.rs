//! The transposition table, shared by every search thread.
//!
//! Layout: buckets of four 16-byte slots (one 64-byte cache line), indexed
//! by the multiply-high of the key. A slot is two `AtomicU64`: `check` holds
//! `key ^ data` and `data` holds the packed entry (Hyatt's lockless
//! hashing).
//!
//! Race policy: loads and stores are `Relaxed` and no lock is taken. Two
//! threads may write one slot at the same time and a reader may see the
//! `check` word of one write and the `data` word of another; then
//! `check ^ data` differs from the key and the probe misses. A torn entry
//! is therefore never used. What remains is an ordinary 64-bit key
//! collision, so a hash move is always checked for legality before it is
//! played, and a wrong bound can at worst change a search result the way
//! any hash collision does (about 2^-60 per probe).
//!
//! `data` packs, from bit 0: score (`i16`), move (`u16`, `0xffff` = none),
//! depth (`u8`), bound (2 bits), solved flag (1 bit), generation (8 bits).
//! A *solved* entry holds a bound on the exact game value (from the
//! endgame solver or a midgame search that reached the end of the game);
//! its depth is the number of empty squares and it is valid at any depth.
//!
//! ```
//! use annex::search::tt::{Table, TtBound};
//! let t = Table::new(1);
//! t.store(42, None, 64, 5, TtBound::Exact, false);
//! let e = t.probe(42).unwrap();
//! assert_eq!((e.score, e.depth), (64, 5));
//! assert!(t.probe(43).is_none());
//! ```

use super::tt_memory::ZeroedSlice;
use crate::moves::Move;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

/// Which side of the true value a stored score bounds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TtBound {
    /// The value is at most the score (fail low).
    Upper,
    /// The value is at least the score (fail high).
    Lower,
    /// The score is the value.
    Exact,
}

/// A decoded entry.
#[derive(Clone, Copy, Debug)]
pub struct TtEntry {
    /// Score in search units (1/`eval::SCALE` disc).
    pub score: i32,
    /// Best or refutation move, unchecked.
    pub mv: Option<Move>,
    /// Remaining depth (empties for solved entries).
    pub depth: u32,
    /// Bound type.
    pub bound: TtBound,
    /// Whether the score bounds the exact game value.
    pub solved: bool,
}

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

#[derive(Default)]
#[repr(align(64))]
struct Bucket([Slot; 4]);

const _: () = assert!(std::mem::size_of::<Bucket>() == 64);

const NO_MOVE: u64 = 0xffff;

/// The allocator refused the memory for a table of `mb` MiB.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot allocate {mb} MiB for the hash table")]
pub struct AllocError {
    /// The size asked for.
    pub mb: usize,
}

/// The shared transposition table.
pub struct Table {
    buckets: ZeroedSlice<Bucket>,
    generation: AtomicU8,
}

impl Table {
    /// A table of about `mb` MiB (at least one bucket).
    ///
    /// # Panics
    /// When the memory cannot be had; [`Table::try_new`] reports it instead.
    pub fn new(mb: usize) -> Table {
        Table::try_new(mb).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A stand-in of one bucket, for an engine whose table is not yet
    /// allocated.
    pub fn empty() -> Table {
        Table::with_buckets(1).expect("one bucket of 64 bytes")
    }

    /// A table of `mb` MiB (at least one bucket), or an error when the
    /// allocator refuses the memory (e.g. under `ulimit -v`). The memory is
    /// aligned for huge pages and written here (see `tt_memory`), so the first search does not pay for faulting them in.
    ///
    /// # Errors
    /// The size overflows or the memory cannot be allocated.
    pub fn try_new(mb: usize) -> Result<Table, AllocError> {
        let refused = || AllocError { mb };
        let bytes = mb.max(1).checked_mul(1 << 20).ok_or_else(refused)?;
        Table::with_buckets(bytes / std::mem::size_of::<Bucket>()).ok_or_else(refused)
    }

    /// A table of `n` buckets (at least one); `None` when refused.
    fn with_buckets(n: usize) -> Option<Table> {
        // Safety: all-zero bytes are an empty bucket (atomics holding 0).
        let buckets = unsafe { ZeroedSlice::<Bucket>::new(n) }?;
        Some(Table {
            buckets,
            generation: AtomicU8::new(0),
        })
    }

    /// Size in bytes.
    pub fn size_bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// Empties every slot and resets the generation.
    pub fn clear(&self) {
        for b in self.buckets.iter() {
            for s in &b.0 {
                s.check.store(0, Relaxed);
                s.data.store(0, Relaxed);
            }
        }
        self.generation.store(0, Relaxed);
    }

    /// Starts a new search: entries of older searches are replaced first.
    pub fn new_search(&self) {
        let g = self.generation.load(Relaxed).wrapping_add(1);
        self.generation.store(g, Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        let i = ((key as u128 * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[i]
    }

    /// Asks the CPU to start loading the bucket of `key` (a hint only), so
    /// that probes of several keys overlap their cache misses.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let ptr = self.bucket(key) as *const Bucket as *const i8;
            // Safety: SSE is part of every x86-64 CPU, and a prefetch of a
            // valid address (a reference into the table) has no effect but
            // on the cache.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(ptr) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry for `key`, if stored.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        for s in &self.bucket(key).0 {
            let data = s.data.load(Relaxed);
            if data != 0 && s.check.load(Relaxed) ^ data == key {
                return Some(decode(data));
            }
        }
        None
    }

    /// Stores an entry. The slot of the same key is overwritten (keeping its
    /// move when `mv` is `None`); otherwise the least valuable slot of the
    /// bucket: one from an older search, else the shallowest.
    pub fn store(
        &self,
        key: u64,
        mv: Option<Move>,
        score: i32,
        depth: u32,
        bound: TtBound,
        solved: bool,
    ) {
        let generation_now = self.generation.load(Relaxed);
        let bucket = self.bucket(key);
        let mut victim = 0;
        let mut victim_value = i32::MAX;
        let mut mv_code = mv.map_or(NO_MOVE, |m| m.to_u16() as u64);
        for (i, s) in bucket.0.iter().enumerate() {
            let data = s.data.load(Relaxed);
            if data == 0 {
                victim = i;
                victim_value = i32::MIN;
                continue;
            }
            if s.check.load(Relaxed) ^ data == key {
                if mv_code == NO_MOVE {
                    mv_code = (data >> 16) & 0xffff;
                }
                let old = decode(data);
                // Keep a deeper entry of this search unless the new one is
                // solved or exact.
                if old.depth > depth + 2
                    && ((data >> 43) as u8) == generation_now
                    && !solved
                    && bound != TtBound::Exact
                    && old.solved == solved
                {
                    return;
                }
                victim = i;
                break;
            }
            let old_gen = (data >> 43) as u8;
            let value = if old_gen == generation_now {
                ((data >> 32) & 0xff) as i32 + if data >> 42 & 1 != 0 { 4 } else { 0 }
            } else {
                -1
            };
            if value < victim_value {
                victim_value = value;
                victim = i;
            }
        }
        let b = match bound {
            TtBound::Upper => 1u64,
            TtBound::Lower => 2,
            TtBound::Exact => 3,
        };
        let data = (score as i16 as u16 as u64)
            | mv_code << 16
            | (depth.min(255) as u64) << 32
            | b << 40
            | (solved as u64) << 42
            | (generation_now as u64) << 43;
        let s = &bucket.0[victim];
        s.check.store(key ^ data, Relaxed);
        s.data.store(data, Relaxed);
    }

    /// Slots filled by the current search, per mille (sampled).
    pub fn hashfull(&self) -> u32 {
        let generation_now = self.generation.load(Relaxed);
        let n = self.buckets.len().min(250);
        let mut used = 0;
        for b in &self.buckets[..n] {
            for s in &b.0 {
                let d = s.data.load(Relaxed);
                if d != 0 && (d >> 43) as u8 == generation_now {
                    used += 1;
                }
            }
        }
        (used * 1000 / (n * 4)) as u32
    }
}

/// Memory the system can still give without swapping, in bytes
/// (`MemAvailable` of `/proc/meminfo`); `None` where that is unknown.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

fn decode(data: u64) -> TtEntry {
    TtEntry {
        score: data as u16 as i16 as i32,
        mv: match (data >> 16) & 0xffff {
            NO_MOVE => None,
            c => Move::from_u16(c as u16),
        },
        depth: ((data >> 32) & 0xff) as u32,
        bound: match (data >> 40) & 3 {
            1 => TtBound::Upper,
            2 => TtBound::Lower,
            _ => TtBound::Exact,
        },
        solved: (data >> 42) & 1 != 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_probe_replace() {
        let t = Table::new(1);
        let m = Move::from_u16(37).unwrap();
        t.store(7, Some(m), -100, 9, TtBound::Lower, true);
        let e = t.probe(7).unwrap();
        assert_eq!(e.score, -100);
        assert_eq!(e.mv, Some(m));
        assert_eq!(e.bound, TtBound::Lower);
        assert!(e.solved);
        // Same key without a move keeps the old move.
        t.store(7, None, 5, 12, TtBound::Upper, false);
        let e = t.probe(7).unwrap();
        assert_eq!((e.mv, e.score, e.depth), (Some(m), 5, 12));
        t.clear();
        assert!(t.probe(7).is_none());
        assert_eq!(t.hashfull(), 0);
    }
}
