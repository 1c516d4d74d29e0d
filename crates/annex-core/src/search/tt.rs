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
//! `data` packs, from bit 0: lower bound (`i16`), upper bound (`i16`;
//! a missing bound is `-INF` / `INF`), move (12 bits, `0xfff` = none),
//! depth (`u8`), solved flag (1 bit), generation (8 bits), and bit 63 set
//! in every entry. Keeping both bounds matters because the same node is
//! searched with different windows (aspiration windows, PVS re-searches,
//! selective passes): a node proven `>= a` in one null-window search and
//! `<= b` in another keeps both, and `a == b` is the exact value.
//! A *solved* entry holds bounds on the exact game value (from the
//! endgame solver or a midgame search that reached the end of the game);
//! its depth is the number of empty squares and it is valid at any depth.
//!
//! ```
//! use annex_core::search::tt::{Table, TtBound};
//! let t = Table::new(1);
//! t.store(42, None, 64, 5, TtBound::Exact, false);
//! let e = t.probe(42).unwrap();
//! assert_eq!((e.lower, e.upper, e.depth), (64, 64, 5));
//! assert!(t.probe(43).is_none());
//! ```

use super::INF;
use super::tt_memory::ZeroedSlice;
use crate::moves::Move;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering::Relaxed};

/// The part of the table a faulting thread touches between two looks at
/// its abort flag: 16 MiB.
pub const FAULT_PART: usize = 16 << 20;

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

/// A decoded entry: the value lies in `lower..=upper`; a missing bound is
/// `-INF` or `INF`.
#[derive(Clone, Copy, Debug)]
pub struct TtEntry {
    /// Lower bound in search units (1/`eval::SCALE` disc), `-INF` if none.
    pub lower: i32,
    /// Upper bound in search units, `INF` if none.
    pub upper: i32,
    /// Best or refutation move, unchecked.
    pub mv: Option<Move>,
    /// Remaining depth (empties for solved entries).
    pub depth: u32,
    /// Whether the bounds bound the exact game value.
    pub solved: bool,
}

impl TtEntry {
    /// The stored bound that decides the window `(alpha, beta)`, fail-soft:
    /// a lower bound at or above `beta`, an upper bound at or below
    /// `alpha`, or equal bounds (the exact value).
    #[inline]
    pub fn cut(&self, alpha: i32, beta: i32) -> Option<i32> {
        if self.lower >= beta || self.lower == self.upper {
            Some(self.lower)
        } else if self.upper <= alpha {
            Some(self.upper)
        } else {
            None
        }
    }
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

/// Move field (12 bits: a square and a direction, see [`Move::to_u16`]).
const MOVE_SHIFT: u32 = 32;
const NO_MOVE: u64 = 0xfff;
const DEPTH_SHIFT: u32 = 44;
const SOLVED_BIT: u32 = 52;
const GEN_SHIFT: u32 = 53;
/// Set in every stored word, so that an empty slot (0) is never an entry.
const USED: u64 = 1 << 63;

const _: () = assert!(Move::PASS.to_u16() as u64 <= NO_MOVE);

/// The allocator refused the memory for a table of `mb` MiB.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot allocate {mb} MiB for the hash table")]
pub struct AllocError {
    /// The size asked for.
    pub mb: usize,
}

/// The shared transposition table.
///
/// Clearing a table of a gigabyte takes a tenth of a second, longer than
/// a shallow search: [`Table::invalidate_with`] instead starts an *epoch*,
/// and an entry written before it counts as absent (`live`). Entries carry
/// their search's generation (8 bits); every entry in the table was written
/// within the last `since_clear` searches (the generations since the last
/// real clear, see `PASSES`), so while that is below 256 a generation names
/// one search and the test is exact: the searches see the same table as
/// after a real clear, entry for entry (a test plays both side by side).
pub struct Table {
    buckets: ZeroedSlice<Bucket>,
    generation: AtomicU8,
    /// The first generation of the epoch.
    epoch: AtomicU8,
    /// The generations of the epoch less one (`generation - epoch`), or
    /// 255 when there is no epoch (every entry is live).
    window: AtomicU8,
    /// Generations started since the last real clear (saturating).
    since_clear: AtomicU32,
}

/// How many generations an epoch may span before the entries older than it
/// are swept out (their 8-bit generations would come round again).
const PASSES: u32 = 250;

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
    /// aligned for huge pages and faulted in here on every core (see
    /// [`Table::fault_in`]), so the first search does not pay for it.
    ///
    /// # Errors
    /// The size overflows or the memory cannot be allocated.
    pub fn try_new(mb: usize) -> Result<Table, AllocError> {
        let t = Table::try_new_lazy(mb)?;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        t.fault_in(cores, &AtomicU64::new(0), &AtomicBool::new(false));
        Ok(t)
    }

    /// A table of `mb` MiB (at least one bucket) whose memory is reserved
    /// but, for a large table, not yet faulted in: it is usable at once
    /// (it reads as empty), and [`Table::fault_in`] makes its first touches
    /// cheap, for instance on another thread.
    ///
    /// # Errors
    /// The size overflows or the memory cannot be allocated.
    pub fn try_new_lazy(mb: usize) -> Result<Table, AllocError> {
        let refused = || AllocError { mb };
        let bytes = mb.max(1).checked_mul(1 << 20).ok_or_else(refused)?;
        Table::with_buckets(bytes / std::mem::size_of::<Bucket>()).ok_or_else(refused)
    }

    /// Faults in every page of the table's memory on `threads` threads,
    /// without changing a slot: one compare-and-swap of 0 with 0 per
    /// 4 KiB page is a write, so the kernel maps (and zeroes) the page
    /// there, once; a search may use the table meanwhile. `done` counts the
    /// bytes faulted in so far; once `abort` is set the threads stop within
    /// a part of [`FAULT_PART`] bytes.
    pub fn fault_in(&self, threads: usize, done: &AtomicU64, abort: &AtomicBool) {
        const PAGE_BUCKETS: usize = 4096 / std::mem::size_of::<Bucket>();
        const PART_BUCKETS: usize = FAULT_PART / std::mem::size_of::<Bucket>();
        let n = self.buckets.len();
        let per_thread = n.div_ceil(threads.max(1)).max(PART_BUCKETS);
        let touch = |range: &[Bucket]| {
            for part in range.chunks(PART_BUCKETS) {
                if abort.load(Relaxed) {
                    return;
                }
                for b in part.iter().step_by(PAGE_BUCKETS) {
                    let _ = b.0[0].check.compare_exchange(0, 0, Relaxed, Relaxed);
                }
                done.fetch_add(std::mem::size_of_val(part) as u64, Relaxed);
            }
        };
        let touch = &touch;
        std::thread::scope(|s| {
            let mut parts = self.buckets.chunks(per_thread);
            let mine = parts.next();
            for part in parts {
                // A thread the system refuses: this one does that part too.
                if std::thread::Builder::new()
                    .spawn_scoped(s, move || touch(part))
                    .is_err()
                {
                    touch(part);
                }
            }
            if let Some(part) = mine {
                touch(part);
            }
        });
    }

    /// A table of `n` buckets (at least one); `None` when refused.
    fn with_buckets(n: usize) -> Option<Table> {
        // Safety: all-zero bytes are an empty bucket (atomics holding 0).
        let buckets = unsafe { ZeroedSlice::<Bucket>::new(n) }?;
        Some(Table {
            buckets,
            generation: AtomicU8::new(0),
            epoch: AtomicU8::new(0),
            window: AtomicU8::new(u8::MAX),
            since_clear: AtomicU32::new(0),
        })
    }

    /// Size in bytes.
    pub fn size_bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// The right shift that maps a key into the table's first `mb` MiB
    /// (between `mb` and `2 * mb` MiB; the bucket is the multiply-high
    /// of the key): 0 when the table is no larger or `mb` is 0. The search
    /// keys positions with few empties so (`tt_near_empties`), and the
    /// other entries stay spread over the whole table.
    pub fn near_shift(&self, mb: usize) -> u32 {
        let near = mb.saturating_mul(1 << 20) / std::mem::size_of::<Bucket>();
        let len = self.buckets.len();
        if near == 0 || len <= near {
            0
        } else {
            (len / near).ilog2()
        }
    }

    /// Empties every slot and resets the generation.
    pub fn clear(&self) {
        self.clear_with(1);
    }

    /// [`Table::clear`] on `threads` threads (a table of a gigabyte takes
    /// a tenth of a second to clear on one). Plain scoped threads, not a
    /// rayon pool: a rayon worker of another pool that waits on a pool
    /// runs its own pool's jobs meanwhile, and `annex train` creates
    /// engines inside such jobs, which then nested without bound.
    pub fn clear_with(&self, threads: usize) {
        self.for_each_bucket(threads, |b| {
            for s in &b.0 {
                s.check.store(0, Relaxed);
                s.data.store(0, Relaxed);
            }
        });
        self.generation.store(0, Relaxed);
        self.epoch.store(0, Relaxed);
        self.window.store(u8::MAX, Relaxed);
        self.since_clear.store(0, Relaxed);
    }

    /// Runs `f` on every bucket, the table split over `threads` scoped
    /// threads (see [`Table::clear_with`] for why not rayon).
    fn for_each_bucket(&self, threads: usize, f: impl Fn(&Bucket) + Sync) {
        let chunk = self.buckets.len().div_ceil(threads.max(1)).max(1 << 14);
        let f = &f;
        std::thread::scope(|s| {
            let mut parts = self.buckets.chunks(chunk);
            let mine = parts.next();
            for part in parts {
                // A thread the system refuses: this one does that part too.
                let spawned =
                    std::thread::Builder::new().spawn_scoped(s, move || part.iter().for_each(f));
                if spawned.is_err() {
                    part.iter().for_each(f);
                }
            }
            mine.into_iter().flatten().for_each(f);
        });
    }

    /// Empties the table as [`Table::clear_with`] does, as far as any
    /// probe or store can tell, without touching its memory: a new epoch
    /// starts. Once in `PASSES` generations the memory is cleared for real.
    pub fn invalidate_with(&self, threads: usize) {
        let since = self.since_clear.load(Relaxed);
        if since + 1 >= PASSES {
            self.clear_with(threads);
            return;
        }
        let g = self.generation.load(Relaxed).wrapping_add(1);
        self.generation.store(g, Relaxed);
        self.epoch.store(g, Relaxed);
        self.window.store(0, Relaxed);
        self.since_clear.store(since + 1, Relaxed);
    }

    /// Starts a new search: entries of older searches are replaced first.
    /// When an epoch has run `PASSES` generations, the entries from before
    /// it are swept out first (on `threads` threads), so that it can go on
    /// for good.
    pub fn new_search(&self, threads: usize) {
        let mut since = self.since_clear.load(Relaxed).saturating_add(1);
        if since >= PASSES && self.window.load(Relaxed) != u8::MAX {
            self.sweep(threads);
            // Every entry left is of the epoch: it is as old as the table.
            since = self.window.load(Relaxed) as u32 + 1;
            self.window.store(u8::MAX, Relaxed);
        }
        let g = self.generation.load(Relaxed).wrapping_add(1);
        self.generation.store(g, Relaxed);
        self.since_clear.store(since, Relaxed);
        let w = self.window.load(Relaxed);
        if w != u8::MAX {
            self.window.store(w + 1, Relaxed);
        }
    }

    /// Empties the slots whose entries are not live.
    fn sweep(&self, threads: usize) {
        self.for_each_bucket(threads, |b| {
            for s in &b.0 {
                if !self.live(s.data.load(Relaxed)) {
                    s.check.store(0, Relaxed);
                    s.data.store(0, Relaxed);
                }
            }
        });
    }

    /// Whether the stored word `data` is an entry of the epoch (an empty
    /// slot is not).
    #[inline(always)]
    fn live(&self, data: u64) -> bool {
        let gen_ = (data >> GEN_SHIFT) as u8;
        data != 0 && gen_.wrapping_sub(self.epoch.load(Relaxed)) <= self.window.load(Relaxed)
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        &self.buckets[self.index(key)]
    }

    /// The bucket of `key`: the multiply-high of the key and the size.
    #[inline]
    fn index(&self, key: u64) -> usize {
        ((key as u128 * self.buckets.len() as u128) >> 64) as usize
    }

    /// The first key past the region of keys shifted right by `shift`
    /// (see [`Self::near_shift`]): adding it to a key shifted by another
    /// region's shift puts that region right after this one. Both fit in
    /// the table for any two shifts of at least 1; 0 for `shift` 0.
    pub fn region_end(shift: u32) -> u64 {
        if shift == 0 { 0 } else { 1u64 << (64 - shift) }
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
            if data != 0 && s.check.load(Relaxed) ^ data == key && self.live(data) {
                return Some(decode(data));
            }
        }
        None
    }

    /// Stores a bound. On the slot of the same key, a bound of the same
    /// kind (`solved` and `depth` equal) is merged with the stored ones
    /// when they are compatible (the tighter lower and upper bound are
    /// kept); otherwise the entry is replaced, unless it is a deeper one of
    /// this search and the new bound is neither solved nor exact. A `None`
    /// move keeps the stored move. A new key takes the least valuable slot
    /// of the bucket: one from an older search, else the shallowest.
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
        let depth = depth.min(255);
        let score = score.clamp(-INF, INF);
        let mut lower = if bound == TtBound::Upper { -INF } else { score };
        let mut upper = if bound == TtBound::Lower { INF } else { score };
        let bucket = self.bucket(key);
        let mut victim = 0;
        let mut victim_value = i32::MAX;
        let mut mv_code = mv.map_or(NO_MOVE, |m| m.to_u16() as u64);
        for (i, s) in bucket.0.iter().enumerate() {
            let data = s.data.load(Relaxed);
            if !self.live(data) {
                // Empty, or before the epoch (the same to the search).
                victim = i;
                victim_value = i32::MIN;
                continue;
            }
            let old_gen = (data >> GEN_SHIFT) as u8;
            if s.check.load(Relaxed) ^ data == key {
                let old_mv = (data >> MOVE_SHIFT) & NO_MOVE;
                if mv_code == NO_MOVE || (bound == TtBound::Upper && old_mv != NO_MOVE) {
                    mv_code = old_mv;
                }
                let old = decode(data);
                if old.solved == solved && old.depth == depth {
                    let (lo, hi) = (lower.max(old.lower), upper.min(old.upper));
                    if lo <= hi {
                        (lower, upper) = (lo, hi);
                    }
                } else if old.depth > depth + 2
                    && old_gen == generation_now
                    && !solved
                    && bound != TtBound::Exact
                    && !old.solved
                {
                    // Keep a deeper entry of this search unless the new one
                    // is solved or exact.
                    return;
                }
                victim = i;
                break;
            }
            let value = if old_gen == generation_now {
                ((data >> DEPTH_SHIFT) & 0xff) as i32
                    + if data >> SOLVED_BIT & 1 != 0 { 4 } else { 0 }
            } else {
                -1
            };
            if value < victim_value {
                victim_value = value;
                victim = i;
            }
        }
        let data = (lower as i16 as u16 as u64)
            | (upper as i16 as u16 as u64) << 16
            | mv_code << MOVE_SHIFT
            | (depth as u64) << DEPTH_SHIFT
            | (solved as u64) << SOLVED_BIT
            | (generation_now as u64) << GEN_SHIFT
            | USED;
        let s = &bucket.0[victim];
        s.check.store(key ^ data, Relaxed);
        s.data.store(data, Relaxed);
    }

    /// Slots filled by the current search, per mille (sampled from 250
    /// buckets spread over the table: its first ones hold the entries of
    /// few empties, see [`Table::near_shift`]).
    pub fn hashfull(&self) -> u32 {
        let generation_now = self.generation.load(Relaxed);
        let n = self.buckets.len().min(250);
        let step = self.buckets.len() / n;
        let mut used = 0;
        for b in self.buckets.iter().step_by(step).take(n) {
            for s in &b.0 {
                let d = s.data.load(Relaxed);
                if d != 0 && (d >> GEN_SHIFT) as u8 == generation_now {
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
        lower: data as u16 as i16 as i32,
        upper: (data >> 16) as u16 as i16 as i32,
        mv: match (data >> MOVE_SHIFT) & NO_MOVE {
            NO_MOVE => None,
            c => Move::from_u16(c as u16),
        },
        depth: ((data >> DEPTH_SHIFT) & 0xff) as u32,
        solved: (data >> SOLVED_BIT) & 1 != 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `near_shift` maps every key into a region of the table's first
    /// buckets between `mb` and `2 * mb` MiB, and keys so shifted are
    /// stored and found like any other; none where the table is no larger.
    #[test]
    fn near_shift_maps_keys_into_the_first_mebibytes() {
        const PER_MB: usize = (1 << 20) / std::mem::size_of::<Bucket>();
        for (size, mb) in [(16, 1), (24, 1), (24, 5), (64, 4), (8, 3)] {
            let t = Table::new(size);
            let s = t.near_shift(mb);
            let region = t.buckets.len() >> s;
            assert!(
                region >= mb * PER_MB && region < 2 * mb * PER_MB,
                "{size} MiB, {mb}"
            );
            let mut rng = crate::rng::Rng::new(size as u64);
            let keys: Vec<u64> = (0..1000).map(|_| rng.next_u64() >> s).collect();
            assert!(keys.iter().all(|&k| t.index(k) < region));
            assert!(keys.iter().any(|&k| t.index(k) >= region / 2));
            for (i, &k) in keys.iter().enumerate() {
                t.store(k, None, i as i32, 10, TtBound::Exact, true);
            }
            for (i, &k) in keys.iter().enumerate() {
                assert_eq!(t.probe(k).map(|e| e.lower), Some(i as i32));
            }
        }
        let t = Table::new(4);
        assert_eq!([t.near_shift(0), t.near_shift(4), t.near_shift(9)], [0; 3]);
    }

    /// A region placed after another by `region_end` holds its keys in
    /// the buckets between the two regions' ends, and the two share none.
    #[test]
    fn regions_follow_each_other() {
        for (size, near, mid) in [
            (64, 4, 16),
            (64, 16, 16),
            (24, 1, 5),
            (40, 2, 1),
            (16, 4, 8),
        ] {
            let t = Table::new(size);
            let (ns, ms) = (t.near_shift(near), t.near_shift(mid));
            assert!(ns > 0 && ms > 0, "{size} {near} {mid}");
            let (near_len, mid_len) = (t.buckets.len() >> ns, t.buckets.len() >> ms);
            let mut rng = crate::rng::Rng::new(size as u64 + 7);
            let mut top = 0;
            for _ in 0..4000 {
                let k = rng.next_u64();
                assert!(t.index(k >> ns) < near_len);
                let i = t.index((k >> ms) + Table::region_end(ns));
                assert!(
                    i >= near_len && i <= near_len + mid_len,
                    "{size} {near} {mid}: {i}"
                );
                top = top.max(i);
            }
            assert!(top < t.buckets.len() && top >= near_len + mid_len * 9 / 10);
        }
        let k = u64::MAX;
        let t = Table::new(16);
        assert!(t.index((k >> 1) + Table::region_end(1)) < t.buckets.len());
        assert_eq!(Table::region_end(0), 0);
    }

    #[test]
    fn store_probe_replace() {
        let t = Table::new(1);
        let m = Move::from_u16(37).unwrap();
        t.store(7, Some(m), -100, 9, TtBound::Lower, true);
        let e = t.probe(7).unwrap();
        assert_eq!((e.lower, e.upper), (-100, INF));
        assert_eq!(e.mv, Some(m));
        assert!(e.solved);
        // Another kind (unsolved, depth 12) replaces it, keeping the move
        // when given none.
        t.store(7, None, 5, 12, TtBound::Upper, false);
        let e = t.probe(7).unwrap();
        assert_eq!((e.mv, e.lower, e.upper, e.depth), (Some(m), -INF, 5, 12));
        assert!(!e.solved);
        t.clear();
        assert!(t.probe(7).is_none());
        assert_eq!(t.hashfull(), 0);
    }

    /// Bounds of one kind merge: the tighter of each side is kept, equal
    /// bounds make the value exact, and a bound that contradicts the
    /// stored ones replaces them.
    #[test]
    fn bounds_of_one_kind_merge() {
        let t = Table::new(1);
        let m = Move::from_u16(10).unwrap();
        t.store(9, Some(m), 40, 20, TtBound::Lower, true);
        t.store(9, None, 200, 20, TtBound::Upper, true);
        let e = t.probe(9).unwrap();
        assert_eq!((e.lower, e.upper, e.mv), (40, 200, Some(m)));
        assert_eq!(e.cut(0, 40), Some(40));
        assert_eq!(e.cut(200, 201), Some(200));
        assert_eq!(e.cut(100, 101), None);
        // Looser bounds change nothing, tighter ones narrow.
        t.store(9, None, 30, 20, TtBound::Lower, true);
        t.store(9, None, 300, 20, TtBound::Upper, true);
        t.store(9, None, 64, 20, TtBound::Lower, true);
        let e = t.probe(9).unwrap();
        assert_eq!((e.lower, e.upper), (64, 200));
        t.store(9, None, 64, 20, TtBound::Upper, true);
        let e = t.probe(9).unwrap();
        assert_eq!((e.lower, e.upper), (64, 64));
        assert_eq!(e.cut(100, 101), Some(64));
        assert_eq!(e.cut(-100, -99), Some(64));
        // A contradicting bound (below the stored lower) replaces both.
        t.store(9, None, 10, 20, TtBound::Upper, true);
        let e = t.probe(9).unwrap();
        assert_eq!((e.lower, e.upper), (-INF, 10));
        // Negative scores and a missing lower bound survive the packing.
        t.store(9, None, -INF, 20, TtBound::Upper, true);
        let e = t.probe(9).unwrap();
        assert_eq!((e.lower, e.upper), (-INF, -INF));
        // Another depth does not merge: an exact shallower midgame value
        // replaces a deeper entry.
        t.store(11, None, -70, 9, TtBound::Lower, false);
        t.store(11, None, -80, 3, TtBound::Exact, false);
        let e = t.probe(11).unwrap();
        assert_eq!((e.lower, e.upper, e.depth), (-80, -80, 3));
    }

    /// A deeper entry of this search is kept against a shallow bound, and
    /// a full bucket gives up its shallowest slot for a new key.
    #[test]
    fn deeper_entries_are_kept() {
        let t = Table::empty();
        t.store(1, None, 5, 10, TtBound::Lower, false);
        t.store(1, None, 50, 4, TtBound::Upper, false);
        let e = t.probe(1).unwrap();
        assert_eq!((e.lower, e.upper, e.depth), (5, INF, 10));
        for (k, d) in [(2, 12), (3, 3), (4, 14)] {
            t.store(k, None, 0, d, TtBound::Exact, false);
        }
        t.store(5, None, 0, 11, TtBound::Exact, false);
        assert!(t.probe(3).is_none(), "the depth-3 entry is the victim");
        for k in [1, 2, 4, 5] {
            assert!(t.probe(k).is_some(), "key {k}");
        }
        // A new search's stores take the old entries first.
        t.new_search(1);
        t.store(6, None, 0, 1, TtBound::Exact, false);
        assert!(t.probe(6).is_some());
        assert_eq!(t.hashfull(), 250);
    }

    /// Faulting a table in counts every byte, changes no slot (entries
    /// stored before stay, empty slots stay empty), and an abort set
    /// beforehand stops it before the first part.
    #[test]
    fn fault_in_counts_and_keeps_the_slots() {
        let t = Table::try_new_lazy(40).unwrap();
        for k in 0..1000u64 {
            t.store(
                k.wrapping_mul(0x9e37_79b9_7f4a_7c15),
                None,
                3,
                2,
                TtBound::Exact,
                false,
            );
        }
        let done = AtomicU64::new(0);
        t.fault_in(3, &done, &AtomicBool::new(false));
        assert_eq!(done.load(Relaxed), t.size_bytes() as u64);
        for k in 0..1000u64 {
            let e = t.probe(k.wrapping_mul(0x9e37_79b9_7f4a_7c15)).unwrap();
            assert_eq!((e.lower, e.depth), (3, 2));
        }
        assert!(t.probe(1).is_none());
        let stopped = AtomicU64::new(0);
        t.fault_in(2, &stopped, &AtomicBool::new(true));
        assert_eq!(stopped.load(Relaxed), 0);
    }

    /// Clearing on several threads empties every slot, as the serial clear does.
    #[test]
    fn clear_on_threads_empties_every_slot() {
        let t = Table::new(4);
        let keys: Vec<u64> = (0..50_000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        for &k in &keys {
            t.store(k, None, 1, 3, TtBound::Exact, false);
        }
        let found = keys.iter().filter(|&&k| t.probe(k).is_some()).count();
        assert!(found > keys.len() / 2, "{found} of {} stored", keys.len());
        assert!(t.hashfull() > 0);
        t.new_search(1);
        t.clear_with(3);
        assert_eq!(t.hashfull(), 0);
        assert!(keys.iter().all(|&k| t.probe(k).is_none()));
        assert_eq!(t.generation.load(Relaxed), 0);
    }

    /// A table emptied by epochs (`invalidate_with`) answers every probe
    /// as one cleared for real does, through random stores, new searches
    /// and new games: long games (the epoch swept), many short ones (the
    /// real clear every `PASSES` generations) and the wrap of the 8-bit
    /// generation. Few stores a search, so that old entries last long.
    #[test]
    fn epochs_answer_as_real_clears() {
        let soft = Table::with_buckets(1024).unwrap();
        let hard = Table::with_buckets(1024).unwrap();
        let mut rng = crate::rng::Rng::new(0xe90c_5eed);
        let key = |r: u64| r % 6000 + 1;
        let (mut sweeps, mut clears, mut probes) = (0, 0, 0);
        for round in 0..3000 {
            // Games of 1-3 searches, then ones of 100-400.
            let searches = if round % 40 < 30 {
                1 + rng.next_u64() % 3
            } else {
                100 + rng.next_u64() % 300
            };
            let before = soft.since_clear.load(Relaxed);
            soft.invalidate_with(2);
            hard.clear_with(2);
            if soft.since_clear.load(Relaxed) == 0 && before > 0 {
                clears += 1;
            }
            for _ in 0..searches {
                let was_epoch = soft.window.load(Relaxed) != u8::MAX;
                soft.new_search(2);
                hard.new_search(2);
                if was_epoch && soft.window.load(Relaxed) == u8::MAX {
                    sweeps += 1;
                }
                for _ in 0..rng.next_u64() % 4 {
                    let r = rng.next_u64();
                    let (k, score) = (key(r >> 8), (r >> 40) as i32 % 200 - 100);
                    let mv = Move::from_u16((r >> 20) as u16 % 64);
                    let bound = [TtBound::Lower, TtBound::Upper, TtBound::Exact][(r % 3) as usize];
                    let (depth, solved) = ((r >> 30) as u32 % 20, r >> 50 & 1 == 1);
                    soft.store(k, mv, score, depth, bound, solved);
                    hard.store(k, mv, score, depth, bound, solved);
                }
                for _ in 0..8 {
                    let q = key(rng.next_u64());
                    let (a, b) = (soft.probe(q), hard.probe(q));
                    assert_eq!(format!("{a:?}"), format!("{b:?}"), "round {round}, key {q}");
                    probes += 1;
                }
                assert_eq!(soft.hashfull(), hard.hashfull());
            }
        }
        assert!(
            sweeps > 5 && clears > 5 && probes > 100_000,
            "{sweeps} {clears} {probes}"
        );
    }
}
