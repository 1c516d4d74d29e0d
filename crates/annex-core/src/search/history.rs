//! The endgame solver's history: how often each square, played at a given
//! number of empties, refuted a null window, counted per thread over one
//! search. The order of the solver's moves (`end_moves`) moves a square
//! up by `end_history_weight * cuts / (tries + 4)`: a square that cut
//! often at this depth is tried earlier at its siblings and cousins. A
//! history heuristic in the chess sense, kept per thread (no sharing, no
//! contention) and cleared when a thread first works for a new search.
//! 1 thread, FFO #40-#52: 6% fewer nodes (docs/endgame.md).

use std::cell::Cell;

/// Counts by `empties * 64 + square`: (tries, cuts).
const SLOTS: usize = 64 * 64;

/// Counts halve when the tries of a slot reach this, so they never
/// overflow and follow the search as it moves on.
const HALVE_AT: u32 = 1 << 30;

thread_local! {
    static COUNTS: [Cell<(u32, u32)>; SLOTS] = const { [const { Cell::new((0, 0)) }; SLOTS] };
    /// Each slot's bonus as of its last note: the order reads a slot for
    /// every move of every node it sorts, a note comes only for the moves
    /// searched, so the division is done there (as `bonus` in the order,
    /// it was 5% of the order's samples, `perf annotate`, FFO #49).
    static BONUS: [Cell<i32>; SLOTS] = const { [const { Cell::new(0) }; SLOTS] };
    static GENERATION: Cell<u64> = const { Cell::new(0) };
}

/// Makes this thread's counts those of search `generation`, clearing them
/// if the thread last worked for another search.
pub(crate) fn prepare(generation: u64) {
    GENERATION.with(|g| {
        if g.get() != generation {
            g.set(generation);
            COUNTS.with(|c| c.iter().for_each(|s| s.set((0, 0))));
            BONUS.with(|b| b.iter().for_each(|s| s.set(0)));
        }
    });
}

/// The slot of `sq` at `empties`.
#[inline]
fn slot(empties: u32, sq: u8) -> usize {
    (empties as usize & 63) * 64 + (sq as usize & 63)
}

/// Notes that `sq` was searched at `empties` and whether it cut, and
/// sets its bonus for the order: `weight` (the same for a whole search)
/// times its cut rate, `weight * cuts / (tries + 4)`.
#[inline]
pub(crate) fn note(empties: u32, sq: u8, cut: bool, weight: i32) {
    let i = slot(empties, sq);
    let (t, k) = COUNTS.with(|c| {
        let slot = &c[i];
        let (mut t, mut k) = slot.get();
        if t >= HALVE_AT {
            (t, k) = (t / 2, k / 2);
        }
        let next = (t + 1, k + u32::from(cut));
        slot.set(next);
        next
    });
    let b = i64::from(weight) * i64::from(k) / (i64::from(t) + 4);
    BONUS.with(|s| s[i].set(b as i32));
}

/// The order's bonus of `sq` at `empties`, as its last `note` set it (0
/// before any).
#[inline]
pub(crate) fn bonus(empties: u32, sq: u8) -> i32 {
    BONUS.with(|s| s[slot(empties, sq)].get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_notes_and_clear_per_search() {
        prepare(u64::MAX - 1);
        assert_eq!(bonus(20, 5), 0);
        for i in 0..16 {
            note(20, 5, i % 4 != 0, 100);
            // After i + 1 tries with a cut at all but every fourth.
            let cuts = i - i / 4;
            assert_eq!(
                bonus(20, 5),
                100 * cuts / (i + 1 + 4),
                "after {} notes",
                i + 1
            );
        }
        // 12 cuts of 16 tries: 100 * 12 / 20.
        assert_eq!(bonus(20, 5), 60);
        assert_eq!(bonus(21, 5), 0);
        assert_eq!(bonus(20, 6), 0);
        prepare(u64::MAX - 1);
        assert_eq!(bonus(20, 5), 60, "the same search keeps its counts");
        prepare(u64::MAX - 2);
        assert_eq!(bonus(20, 5), 0, "a new search starts from nothing");
    }

    #[test]
    fn counts_halve_instead_of_overflowing() {
        prepare(u64::MAX - 3);
        COUNTS.with(|c| c[64 * 10 + 3].set((HALVE_AT, HALVE_AT)));
        note(10, 3, false, 64);
        assert_eq!(
            COUNTS.with(|c| c[64 * 10 + 3].get()),
            (HALVE_AT / 2 + 1, HALVE_AT / 2)
        );
    }
}
