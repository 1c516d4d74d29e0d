//! The tail of the exact solver, below the transposition table: no move
//! list kept between nodes, no table.
//!
//! - `shallow` (from 5 empties up to `tt_min_empties - 1`): from
//!   `shallow_sort_min_empties` (6) the moves are sorted fastest-first (the
//!   opponent's replies, corners twice, and the quadrant parity); below it
//!   the empty squares are tried in quadrant-parity order (squares alone
//!   in their quadrant, then the other odd quadrants', then the rest) and,
//!   within a parity class, corners, then edges, then inner squares, then
//!   C- and X-squares; a square is skipped unless it touches
//!   an opponent disc and turns something. Stability cutoffs from
//!   `stability_min_empties` (4), here and at 4 empties. At 5-8 empties
//!   (`shallow_cache_min_empties`..`shallow_cache_max_empties`) a small
//!   per-thread cache of bounds ([`super::shallow_cache`]) is probed
//!   after the stability test and filled after the search; the sorted
//!   nodes probe their children's slots before searching any (enhanced
//!   transposition cutoffs), and a child so probed skips its own probe.
//! - `solve4` .. `solve2` (4-2 empties): the same parity and class order,
//!   on the squares listed once at 4 empties.
//! - `last` (1 empty): whoever can play the square does; the board is full.

use super::INF;
use super::endgame::score_diff;
use super::endorder::{odd_squares, single_squares};
use super::lastflip::last_flip_count;
use super::worker::Worker;
use crate::bitboard::{CORNERS, SQUARE_CLASSES};
use crate::board::{Board, flips};

/// The eight neighbours of each square.
const NEIGHBOURS: [u64; 64] = {
    let mut t = [0u64; 64];
    let mut s = 0;
    while s < 64 {
        let (r, c) = ((s / 8) as i32, (s % 8) as i32);
        let mut m = 0u64;
        let mut dr = -1;
        while dr <= 1 {
            let mut dc = -1;
            while dc <= 1 {
                let (rr, cc) = (r + dr, c + dc);
                if (dr != 0 || dc != 0) && rr >= 0 && rr < 8 && cc >= 0 && cc < 8 {
                    m |= 1u64 << (rr * 8 + cc);
                }
                dc += 1;
            }
            dr += 1;
        }
        t[s] = m;
        s += 1;
    }
    t
};

/// The class of each square in `SQUARE_CLASSES` (0 corners .. 4 X-squares).
const CLASS_RANK: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut c = 0;
    while c < SQUARE_CLASSES.len() {
        let mut s = 0;
        while s < 64 {
            if SQUARE_CLASSES[c] >> s & 1 == 1 {
                t[s] = c as u8;
            }
            s += 1;
        }
        c += 1;
    }
    t
};

/// The squares of `empty` (the first `N` of them) in the static order of
/// the table-free search, and their number: those alone in their quadrant,
/// then the other odd quadrants', then the rest, each by square class,
/// then by square. One key sorted in place: a loop over the five classes of
/// each of the three parity sets tests 15 masks for 4-5 squares.
#[inline(always)]
fn parity_order<const N: usize>(empty: u64) -> ([u8; N], usize) {
    let odd = odd_squares(empty);
    let single = single_squares(empty);
    let mut sq = [0u8; N];
    let mut key = [0u8; N];
    let mut n = 0;
    let mut e = empty;
    while e != 0 && n < N {
        let s = e.trailing_zeros() as usize;
        e &= e - 1;
        // 0 alone in its quadrant, 8 another odd one, 16 even (a square
        // alone is odd too).
        let k = (16 - 8 * (odd >> s & 1) - 8 * (single >> s & 1)) as u8 + CLASS_RANK[s];
        let mut i = n;
        while i > 0 && key[i - 1] > k {
            key[i] = key[i - 1];
            sq[i] = sq[i - 1];
            i -= 1;
        }
        key[i] = k;
        sq[i] = s as u8;
        n += 1;
    }
    (sq, n)
}

/// A sort key of `shallow_sorted` packed with the child's place `i` (below
/// 16) in its low bits, so that the smallest packed key is the child to
/// search next and equal keys go in square order (the children are listed
/// by square). Keys beyond ±2^25 (no weights in use come near) are clamped.
#[inline(always)]
fn pick_key(key: i32, i: usize) -> u32 {
    const HALF: i32 = 1 << 25;
    ((key.clamp(-HALF, HALF - 1) + HALF) as u32) << 4 | i as u32
}

/// Puts the smaller of two values first.
#[inline(always)]
fn order_pair(c: &mut [u32], i: usize, j: usize) {
    let (x, y) = (c[i], c[j]);
    c[i] = x.min(y);
    c[j] = x.max(y);
}

/// [`parity_order`] of at most `N` (4 or 5) empty squares by a sorting
/// network on the keys `key << 6 | square` (the square breaks ties as the
/// insertion does): fixed compares in registers. The insertion sort wrote
/// its arrays a byte at a time and they were read back a word at a time,
/// a store-to-load forwarding stall that took a fifth of `solve_small`'s
/// samples (`perf annotate`).
#[inline(always)]
fn parity_network<const N: usize>(empty: u64) -> ([usize; N], usize) {
    const { assert!(N == 4 || N == 5) };
    debug_assert!(empty.count_ones() as usize <= N);
    let odd = odd_squares(empty);
    let single = single_squares(empty);
    let mut c = [u32::MAX; N];
    let mut e = empty;
    for x in c.iter_mut() {
        let s = e.trailing_zeros() as usize;
        if s < 64 {
            let k = (16 - 8 * (odd >> s & 1) - 8 * (single >> s & 1)) as u32 + CLASS_RANK[s] as u32;
            *x = k << 6 | s as u32;
        }
        e &= e.wrapping_sub(1);
    }
    sort_network(&mut c);
    (c.map(|x| (x & 63) as usize), empty.count_ones() as usize)
}

/// The compares of the sorting networks of 4 and 5 values (5 and 9, the
/// fewest for either).
const NETWORK_4: [(usize, usize); 5] = [(0, 1), (2, 3), (0, 2), (1, 3), (1, 2)];
#[rustfmt::skip]
const NETWORK_5: [(usize, usize); 9] =
    [(0, 3), (1, 4), (0, 2), (1, 3), (0, 1), (2, 4), (1, 2), (3, 4), (2, 3)];

/// Sorts 4 or 5 values by a fixed network of compares.
#[inline(always)]
fn sort_network<const N: usize>(c: &mut [u32; N]) {
    let pairs: &[(usize, usize)] = if N == 4 { &NETWORK_4 } else { &NETWORK_5 };
    for &(i, j) in pairs {
        order_pair(c, i, j);
    }
}

impl Worker<'_> {
    /// Null-window exact search without table or move list, for
    /// 5..`tt_min_empties` empties. Returns 0 when stopped.
    pub(crate) fn shallow(&mut self, b: &Board, alpha: i32) -> i32 {
        self.shallow_node(b, alpha, false)
    }

    /// `shallow`; `probed` when the parent has just probed this node's
    /// cache slot at this window and found nothing that decides it (no
    /// store can have put this position there since: the positions
    /// searched in between have other empty squares).
    #[inline(always)]
    fn shallow_node(&mut self, b: &Board, alpha: i32, probed: bool) -> i32 {
        if self.tick() {
            return 0;
        }
        let empty = b.empty();
        let n = empty.count_ones();
        if n >= self.cfg.stability_min_empties
            && let Some(v) = self.stability_cut(b, alpha)
        {
            return v;
        }
        let cached =
            (self.cfg.shallow_cache_min_empties..=self.cfg.shallow_cache_max_empties).contains(&n);
        let mut slot = 0;
        if cached {
            let c = self.scache.as_ref().expect("a worker's cache");
            slot = c.slot(b);
            if !probed && let Some(v) = c.probe(slot, b, self.tie, alpha) {
                return v;
            }
        }
        let v = self.shallow_value(b, alpha, n);
        if cached && !self.stopped {
            let tie = self.tie;
            let c = self.scache.as_mut().expect("a worker's cache");
            c.store(slot, b, tie, alpha, v);
        }
        v
    }

    /// `shallow` past its cutoffs and cache: the moves, or the pass.
    #[inline(always)]
    fn shallow_value(&mut self, b: &Board, alpha: i32, n: u32) -> i32 {
        let best = if (self.cfg.shallow_sort_min_empties..=16).contains(&n) {
            self.shallow_sorted(b, alpha)
        } else {
            self.shallow_static(b, alpha)
        };
        if self.stopped {
            return 0;
        }
        if best > -INF {
            return best;
        }
        let passed = b.pass();
        if passed.legal_moves() == 0 {
            return self.final_value(b);
        }
        -self.as_opponent(|w| w.shallow(&passed, -alpha - 1))
    }

    /// The child after square `s` (flips `f`), searched below `shallow`;
    /// `probed` as in `shallow_node`.
    #[inline]
    fn shallow_child(&mut self, b: &Board, (s, f): (usize, u64), alpha: i32, probed: bool) -> i32 {
        let child = b.play_flips(s, f);
        if b.empties() <= 5 {
            -self.as_opponent(|w| w.solve_small(&child, -alpha - 1))
        } else {
            -self.as_opponent(|w| w.shallow_node(&child, -alpha - 1, probed))
        }
    }

    /// The moves of `shallow` in the static order; `-INF` when there are
    /// none, the first value above `alpha` or the best one.
    fn shallow_static(&mut self, b: &Board, alpha: i32) -> i32 {
        let empty = b.empty();
        // 5 empties unless the tunables say otherwise.
        if empty.count_ones() <= 5 {
            let (sq, n) = parity_network::<5>(empty);
            self.shallow_listed(b, alpha, sq[..n].iter().copied())
        } else {
            let (sq, n) = parity_order::<64>(empty);
            self.shallow_listed(b, alpha, sq[..n].iter().map(|&s| s as usize))
        }
    }

    /// The moves of `shallow_static` among the squares `squares`, in order.
    #[inline(always)]
    fn shallow_listed(
        &mut self,
        b: &Board,
        alpha: i32,
        squares: impl Iterator<Item = usize>,
    ) -> i32 {
        let mut best = -INF;
        for s in squares {
            if NEIGHBOURS[s] & b.opponent == 0 {
                continue;
            }
            let f = flips(b.player, b.opponent, s);
            if f == 0 {
                continue;
            }
            if f == b.opponent {
                // The game ends: the exact value, whatever the order says.
                let v = self.child_final_value(&b.play_flips(s, f));
                if v > alpha {
                    return v;
                }
            }
            if let Some(v) = self.shallow_step(b, (s, f), alpha, false, &mut best) {
                return v;
            }
        }
        best
    }

    /// Searches the child after `mv` (square, flips) and folds its value
    /// into `best`: `Some` with the node's value when it is done (a cut,
    /// or 0 when stopped). `probed` as in `shallow_node`.
    #[inline(always)]
    fn shallow_step(
        &mut self,
        b: &Board,
        mv: (usize, u64),
        alpha: i32,
        probed: bool,
        best: &mut i32,
    ) -> Option<i32> {
        let v = self.shallow_child(b, mv, alpha, probed);
        if self.stopped {
            return Some(0);
        }
        if v > *best {
            *best = v;
            if v > alpha {
                return Some(v);
            }
        }
        None
    }

    /// The moves of `shallow` sorted fastest-first: the opponent's mobility
    /// (corners twice) and the quadrant parity (odd quadrants, squares alone
    /// in theirs), weighted as the endgame order above the table. The
    /// potential mobility of that order is left out here: it cost more time
    /// than its nodes saved (FFO #40-#48, 1 thread: 0.1% fewer nodes). At
    /// most 16 empties.
    fn shallow_sorted(&mut self, b: &Board, alpha: i32) -> i32 {
        let empty = b.empty();
        let odd = odd_squares(empty);
        let single = single_squares(empty);
        let mut e = b.legal_moves();
        let n = empty.count_ones();
        let prefetch = (self.cfg.shallow_cache_min_empties + 1
            ..=self.cfg.shallow_cache_max_empties + 1)
            .contains(&n);
        let etc = prefetch && self.cfg.shallow_cache_etc;
        // The children first, their cache slots prefetched (with ETC), so
        // that the probes below do not wait on each slot in turn.
        let mut kids = [(0usize, 0u64, 0usize); 16];
        let mut count = 0;
        while e != 0 && count < kids.len() {
            let s = e.trailing_zeros() as usize;
            e &= e - 1;
            let f = flips(b.player, b.opponent, s);
            let mut slot = 0;
            if prefetch {
                let c = self.scache.as_ref().expect("a worker's cache");
                let child = b.play_flips(s, f);
                slot = c.slot(&child);
                c.prefetch_slot(slot);
            }
            kids[count] = (s, f, slot);
            count += 1;
        }
        // The best upper bound among the children the cache rules out.
        let mut proven = -INF;
        // The sort key of each child still to search, by its place in
        // `kids` (see `pick_key`; `u32::MAX` for none).
        let mut keys = [u32::MAX; 16];
        let mut left = 0;
        for (i, &(s, f, slot)) in kids[..count].iter().enumerate() {
            let child = b.play_flips(s, f);
            if f == b.opponent {
                // The game ends: the exact value, whatever the order says.
                let v = self.child_final_value(&child);
                if v > alpha {
                    return v;
                }
            }
            let om = child.legal_moves();
            if etc {
                // Enhanced transposition cutoff: a child whose cached
                // bound decides the window is not searched.
                let c = self.scache.as_ref().expect("a worker's cache");
                if let Some(v) = c.probe(slot, &child, -self.tie, -alpha - 1) {
                    if -v > alpha {
                        return -v;
                    }
                    proven = proven.max(-v);
                    continue;
                }
            }
            let mob = (om.count_ones() + (om & CORNERS).count_ones()) as i32;
            let parity = if odd >> s & 1 == 1 {
                0
            } else {
                self.cfg.end_parity_weight
            };
            let key = mob * self.cfg.end_mobility_weight + parity
                - if single >> s & 1 == 1 {
                    self.cfg.end_single_weight
                } else {
                    0
                };
            keys[i] = pick_key(key, i);
            left += 1;
        }
        // The children in key order, each picked when its turn comes: most
        // nodes here cut at their first child, and the rest pay a scan of
        // a few keys per child instead of an insertion sort.
        let mut best = proven;
        for _ in 0..left {
            let k = keys.iter().copied().min().unwrap_or(u32::MAX);
            let i = (k & 15) as usize;
            keys[i] = u32::MAX;
            let (s, f, _) = kids[i];
            if let Some(v) = self.shallow_step(b, (s, f), alpha, etc, &mut best) {
                return v;
            }
        }
        best
    }

    /// 0-4 empties: squares in parity order (squares alone in their
    /// quadrant, then the other odd quadrants'), then by class as in
    /// `shallow_static`, no table; at 4 empties a
    /// stability cutoff first when `stability_min_empties` allows it.
    pub(crate) fn solve_small(&mut self, b: &Board, alpha: i32) -> i32 {
        debug_assert!(b.empties() <= 4);
        let (sq, n) = parity_network::<4>(b.empty());
        match n {
            0 => {
                self.local += 1;
                self.final_value(b)
            }
            1 => self.last(b, sq[0]),
            2 => self.solve2(b, alpha, sq[0], sq[1], false),
            3 => self.solve3(b, alpha, [sq[0], sq[1], sq[2]], false),
            _ => {
                if self.cfg.stability_min_empties <= 4
                    && let Some(v) = self.stability_cut(b, alpha)
                {
                    // The node counts, as `solve4` would have counted it.
                    self.local += 1;
                    return v;
                }
                self.solve4(b, alpha, sq, false)
            }
        }
    }

    /// Four empties `s`, in order.
    fn solve4(&mut self, b: &Board, alpha: i32, s: [usize; 4], passed: bool) -> i32 {
        self.local += 1;
        let mut best = -INF;
        for i in 0..4 {
            let x = s[i];
            if NEIGHBOURS[x] & b.opponent == 0 {
                continue;
            }
            let f = flips(b.player, b.opponent, x);
            if f == 0 {
                continue;
            }
            let rest = match i {
                0 => [s[1], s[2], s[3]],
                1 => [s[0], s[2], s[3]],
                2 => [s[0], s[1], s[3]],
                _ => [s[0], s[1], s[2]],
            };
            let v = -self.as_opponent(|w| w.solve3(&b.play_flips(x, f), -alpha - 1, rest, false));
            if v > best {
                best = v;
                if v > alpha {
                    return v;
                }
            }
        }
        if best > -INF {
            best
        } else if passed {
            self.final_value(b)
        } else {
            -self.as_opponent(|w| w.solve4(&b.pass(), -alpha - 1, s, true))
        }
    }

    /// Three empties `s`, in order.
    fn solve3(&mut self, b: &Board, alpha: i32, s: [usize; 3], passed: bool) -> i32 {
        self.local += 1;
        let mut best = -INF;
        for i in 0..3 {
            let x = s[i];
            if NEIGHBOURS[x] & b.opponent == 0 {
                continue;
            }
            let f = flips(b.player, b.opponent, x);
            if f == 0 {
                continue;
            }
            let (y, z) = match i {
                0 => (s[1], s[2]),
                1 => (s[0], s[2]),
                _ => (s[0], s[1]),
            };
            let v = -self.as_opponent(|w| w.solve2(&b.play_flips(x, f), -alpha - 1, y, z, false));
            if v > best {
                best = v;
                if v > alpha {
                    return v;
                }
            }
        }
        if best > -INF {
            best
        } else if passed {
            self.final_value(b)
        } else {
            -self.as_opponent(|w| w.solve3(&b.pass(), -alpha - 1, s, true))
        }
    }

    /// Two empties `x` and `y`.
    fn solve2(&mut self, b: &Board, alpha: i32, x: usize, y: usize, passed: bool) -> i32 {
        self.local += 1;
        let mut best = -INF;
        if NEIGHBOURS[x] & b.opponent != 0 {
            let f = flips(b.player, b.opponent, x);
            if f != 0 {
                best = -self.as_opponent(|w| w.last(&b.play_flips(x, f), y));
                if best > alpha {
                    return best;
                }
            }
        }
        if NEIGHBOURS[y] & b.opponent != 0 {
            let f = flips(b.player, b.opponent, y);
            if f != 0 {
                return best.max(-self.as_opponent(|w| w.last(&b.play_flips(y, f), x)));
            }
        }
        if best > -INF {
            best
        } else if passed {
            self.final_value(b)
        } else {
            -self.as_opponent(|w| w.solve2(&b.pass(), -alpha - 1, x, y, true))
        }
    }

    /// One empty square `s`: whoever can play it does, then the board is full.
    #[inline]
    fn last(&mut self, b: &Board, s: usize) -> i32 {
        self.local += 1;
        let pc = b.player.count_ones() as i32;
        let f = last_flip_count(b.player, s) as i32;
        if f > 0 {
            return score_diff(2 * pc + 2 * f - 62, self.tie);
        }
        let f2 = last_flip_count(b.opponent, s) as i32;
        if f2 > 0 {
            return score_diff(2 * pc - 2 * f2 - 64, self.tie);
        }
        self.final_value(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The networks sort every order of distinct values, and with ties.
    #[test]
    fn sort_networks_sort() {
        fn check<const N: usize>() {
            // Every N-digit number in base N: all permutations, and ties.
            for mut x in 0..N.pow(N as u32) {
                let mut c = [0u32; N];
                for v in c.iter_mut() {
                    *v = (x % N) as u32;
                    x /= N;
                }
                let mut want = c;
                want.sort_unstable();
                sort_network(&mut c);
                assert_eq!(c, want);
            }
        }
        check::<4>();
        check::<5>();
    }

    /// `parity_order` lists the squares as the parity sets and classes
    /// say, looped over one by one.
    #[test]
    fn parity_order_matches_the_sets_and_classes() {
        let mut rng = crate::rng::Rng::new(0x0bad_5eed_0f0d);
        for i in 0..20_000 {
            // 1-12 empties anywhere on the board.
            let mut empty = 0u64;
            for _ in 0..1 + i % 12 {
                empty |= 1u64 << (rng.next_u64() % 64);
            }
            let odd = odd_squares(empty);
            let single = single_squares(empty);
            let mut want = Vec::new();
            for set in [single, odd & !single, empty & !odd] {
                for class in SQUARE_CLASSES {
                    let mut e = set & class;
                    while e != 0 {
                        want.push(e.trailing_zeros() as u8);
                        e &= e - 1;
                    }
                }
            }
            let (sq, n) = parity_order::<64>(empty);
            assert_eq!(&sq[..n], &want[..], "{empty:#x}");
            let (sq, n) = parity_order::<4>(empty);
            assert_eq!(n, want.len().min(4));
            if want.len() <= 4 {
                assert_eq!(&sq[..n], &want[..], "{empty:#x}");
            }
            if want.len() <= 4 {
                let (sq, n) = parity_network::<4>(empty);
                let got: Vec<u8> = sq[..n].iter().map(|&s| s as u8).collect();
                assert_eq!(got, want, "{empty:#x}");
            }
            if want.len() <= 5 {
                let (sq, n) = parity_network::<5>(empty);
                let got: Vec<u8> = sq[..n].iter().map(|&s| s as u8).collect();
                assert_eq!(got, want, "{empty:#x}");
            }
        }
    }
}
