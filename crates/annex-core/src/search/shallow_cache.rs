//! A small cache of the table-free search's bounds, one per thread.
//!
//! Below the transposition table (`tt_min_empties`) the exact solver keeps
//! no table: a probe of the big shared table misses the cores' caches and
//! costs more than most subtrees of 5-9 empties. Yet such subtrees
//! transpose often (two moves played in either order). This cache is
//! direct-mapped and small enough to stay in a core's L2 (`shallow_cache_kb`,
//! 24 bytes an entry), owned by one thread (no atomics, no sharing): a
//! probe is a hash, one load and two compares. Entries hold the whole
//! board, so a hit is never a collision; a new entry simply replaces the
//! old one in its slot. The idea is Neural Reversi's endgame caches (its
//! `EndGameCache`, 7-11 and 4-6 empties); written here for our solver.
//!
//! Values are exact-solver bounds, valid for one search's rules: a thread's
//! cache is cleared when it first works for a new search (the search
//! generation, as for the history) or under another scoring.
//!
//! FFO #49-#52, 1 thread, 5-8 empties, 256 KiB: 12.5% fewer nodes; about
//! 6% of the probes find their board, nearly all of them deciding the
//! window (`docs/endgame.md`).

use crate::board::Board;
use crate::rules::Scoring;
use std::cell::RefCell;

/// One slot: the board, the tie sign it was searched with, and its bounds
/// (`lower <= value <= upper`, in search units).
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct Entry {
    player: u64,
    opponent: u64,
    lower: i16,
    upper: i16,
    tie: i8,
}

/// An entry no position matches: an empty board is never searched.
const EMPTY: Entry = Entry {
    player: 0,
    opponent: 0,
    lower: i16::MIN,
    upper: i16::MAX,
    tie: 0,
};

/// The cache of one thread (see the module's documentation).
#[derive(Debug)]
pub(crate) struct ShallowCache {
    entries: Box<[Entry]>,
    mask: usize,
    /// The search (and its scoring) the entries belong to.
    generation: u64,
    scoring: Scoring,
}

impl ShallowCache {
    /// A cache of at most `kb` KiB (a power of two of entries, at least
    /// one), cleared.
    fn new(kb: u32) -> ShallowCache {
        let len = ShallowCache::new_len(kb);
        ShallowCache {
            entries: vec![EMPTY; len].into_boxed_slice(),
            mask: len - 1,
            generation: 0,
            scoring: Scoring::default(),
        }
    }

    /// The number of slots `new(kb)` makes, without allocating: the
    /// largest power of two that fits in `kb` KiB, at least one.
    fn new_len(kb: u32) -> usize {
        let want = (kb as usize * 1024 / std::mem::size_of::<Entry>()).max(1);
        1 << want.ilog2()
    }

    /// Number of slots.
    fn len(&self) -> usize {
        self.entries.len()
    }

    /// The slot of `b`.
    #[inline(always)]
    pub(crate) fn slot(&self, b: &Board) -> usize {
        let h = (b.player ^ b.opponent.rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (h >> 32) as usize & self.mask
    }

    /// Asks the CPU to start loading slot `i` (a hint only): a sorted node
    /// prefetches its children's slots before it probes any of them, so
    /// that the probes overlap (FFO #40-#52, 1 thread: 5% less time).
    #[inline(always)]
    pub(crate) fn prefetch_slot(&self, i: usize) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let ptr = &self.entries[i] as *const Entry as *const i8;
            // Safety: SSE is part of every x86-64 CPU, and a prefetch of a
            // valid address (a reference into the slots) has no effect but
            // on the cache.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(ptr) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }

    /// The stored value that decides the null window at `alpha` for `b`
    /// (searched with tie sign `tie`) in slot `i`, if any.
    #[inline(always)]
    pub(crate) fn probe(&self, i: usize, b: &Board, tie: i32, alpha: i32) -> Option<i32> {
        let e = &self.entries[i];
        if e.player != b.player || e.opponent != b.opponent || i32::from(e.tie) != tie {
            return None;
        }
        if i32::from(e.lower) > alpha {
            Some(i32::from(e.lower))
        } else if i32::from(e.upper) <= alpha {
            Some(i32::from(e.upper))
        } else {
            None
        }
    }

    /// Records that a null-window search of `b` at `alpha` returned `v`
    /// (a lower bound above `alpha`, else an upper bound), in slot `i`:
    /// merged with the slot's bounds when it holds `b`, else replacing it.
    #[inline(always)]
    pub(crate) fn store(&mut self, i: usize, b: &Board, tie: i32, alpha: i32, v: i32) {
        let e = &mut self.entries[i];
        if e.player != b.player || e.opponent != b.opponent || i32::from(e.tie) != tie {
            *e = Entry {
                player: b.player,
                opponent: b.opponent,
                lower: i16::MIN,
                upper: i16::MAX,
                tie: tie as i8,
            };
        }
        // Search values are within ±(64 + 1/2) discs, well inside i16.
        let v16 = v as i16;
        if v > alpha {
            e.lower = e.lower.max(v16);
        } else {
            e.upper = e.upper.min(v16);
        }
    }
}

thread_local! {
    /// Caches not in use on this thread: a worker takes one and gives it
    /// back when it ends (a split point's task may run inside another
    /// task on the same thread, so there can be more than one).
    static POOL: RefCell<Vec<ShallowCache>> = const { RefCell::new(Vec::new()) };
}

/// A cache of `kb` KiB for search `generation` under `scoring`: this
/// thread's own when it has one of that size (cleared if it last served
/// another search), else a new one.
pub(crate) fn take(kb: u32, generation: u64, scoring: Scoring) -> ShallowCache {
    let mut c = POOL
        .with(|p| p.borrow_mut().pop())
        .filter(|c| c.len() == ShallowCache::new_len(kb))
        .unwrap_or_else(|| ShallowCache::new(kb));
    if (c.generation, c.scoring) != (generation, scoring) {
        c.entries.fill(EMPTY);
        (c.generation, c.scoring) = (generation, scoring);
    }
    c
}

/// Returns a cache taken with [`take`] to this thread's pool.
pub(crate) fn give_back(c: ShallowCache) {
    POOL.with(|p| p.borrow_mut().push(c));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(i: u64) -> Board {
        // Distinct disjoint boards, most of them in distinct slots.
        Board::new(
            0x0000_0008_1000_0000 | i << 40,
            0x0000_0010_0800_0000 | (i & 0xff),
        )
    }

    /// Bounds merge while a slot holds its board: a fail-high gives a
    /// lower bound, a fail-low an upper one, and a window is decided only
    /// when a bound is on its side; tie signs are kept apart.
    #[test]
    fn bounds_merge_and_decide_windows() {
        let mut c = ShallowCache::new(16);
        let b = board(3);
        let i = c.slot(&b);
        assert_eq!(c.probe(i, &b, 0, 0), None);
        c.store(i, &b, 0, 10, 64);
        assert_eq!(c.probe(i, &b, 0, 10), Some(64), "a lower bound above alpha");
        assert_eq!(c.probe(i, &b, 0, 63), Some(64));
        assert_eq!(c.probe(i, &b, 0, 64), None, "v > 64 is not decided");
        c.store(i, &b, 0, 100, 96);
        assert_eq!(c.probe(i, &b, 0, 96), Some(96), "an upper bound at alpha");
        assert_eq!(c.probe(i, &b, 0, 80), None, "64 <= v <= 96 decides neither");
        assert_eq!(c.probe(i, &b, 0, 20), Some(64), "the lower bound kept");
        assert_eq!(c.probe(i, &b, 1, 20), None, "another tie sign");
        assert_eq!(c.probe(i, &b.pass(), 0, 20), None, "the other side to move");
        // The other tie sign replaces the slot: the first one is gone.
        c.store(i, &b, -1, 0, -32);
        assert_eq!(c.probe(i, &b, -1, 0), Some(-32));
        assert_eq!(c.probe(i, &b, 0, 20), None);
    }

    /// A board never hits another board's entry, even in its slot: with
    /// 32 slots and 2000 boards every slot is shared.
    #[test]
    fn a_slot_answers_only_for_its_board() {
        let mut c = ShallowCache::new(1);
        assert_eq!(c.len(), 32);
        for i in 0..2000 {
            let b = board(i);
            let s = c.slot(&b);
            c.store(s, &b, 0, 0, 32 + i as i32);
        }
        let (mut hits, mut slots) = (0, std::collections::HashSet::new());
        for i in (0..2000).rev() {
            let b = board(i);
            let s = c.slot(&b);
            if let Some(v) = c.probe(s, &b, 0, 0) {
                assert_eq!(v, 32 + i as i32, "board {i}");
                assert!(slots.insert(s), "two boards answered in slot {s}");
                hits += 1;
            }
        }
        assert!(hits > 16 && hits <= 32, "{hits}");
    }

    /// A thread's cache comes back from its pool with its entries for the
    /// same search, and empty for another search or scoring.
    #[test]
    fn the_pool_clears_for_another_search() {
        let b = board(7);
        let fill = |generation, scoring| {
            let mut c = take(16, generation, scoring);
            let s = c.slot(&b);
            let found = c.probe(s, &b, 0, 0);
            c.store(s, &b, 0, 0, 64);
            give_back(c);
            found
        };
        assert_eq!(fill(u64::MAX - 3, Scoring::default()), None);
        assert_eq!(fill(u64::MAX - 3, Scoring::default()), Some(64));
        assert_eq!(fill(u64::MAX - 2, Scoring::Wof), None);
        assert_eq!(fill(u64::MAX - 2, Scoring::Wof), Some(64));
        assert_eq!(fill(u64::MAX - 2, Scoring::Count), None);
    }
}
