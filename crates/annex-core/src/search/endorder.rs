//! Move ordering of the endgame solver's nodes with a move list (from
//! `sort_min_empties`): the hash move first, then fastest-first (the
//! opponent's replies, corners counted twice), potential mobility, the
//! mover's discs by the corners, parity (odd quadrants, and squares alone
//! in theirs) and, from
//! `end_shallow_min_empties`, the child's value by a static evaluation or a
//! shallow search (see [`Worker::end_moves`]).

use super::INF;
use super::history;
use super::worker::Worker;
use crate::bitboard::{CORNERS, around};
use crate::board::{Board, flips};

const QUADRANTS: [u64; 4] = [
    0x0000_0000_0f0f_0f0f,
    0x0000_0000_f0f0_f0f0,
    0x0f0f_0f0f_0000_0000,
    0xf0f0_f0f0_0000_0000,
];

/// Empty squares lying in quadrants with an odd number of empties.
#[inline]
pub(crate) fn odd_squares(empty: u64) -> u64 {
    let mut m = 0;
    for q in QUADRANTS {
        if (empty & q).count_ones() & 1 == 1 {
            m |= empty & q;
        }
    }
    m
}

/// Empty squares alone in their quadrant: a move there leaves the
/// opponent no reply in that region (the first of the odd squares).
#[inline]
pub(crate) fn single_squares(empty: u64) -> u64 {
    let mut m = 0;
    for q in QUADRANTS {
        if (empty & q).count_ones() == 1 {
            m |= empty & q;
        }
    }
    m
}

/// The discs of `me` on a corner or on an edge square next to a corner
/// that `me` holds: discs that no move can turn (a cheap part of the
/// stable discs, as in Edax's move order).
#[inline]
pub(crate) fn corner_stable(me: u64) -> u32 {
    let c = me & CORNERS;
    // Along the edges from a1, h1, a8 and h8: b1 and b8, g1 and g8, a2 and
    // h2, a7 and h7 (masks against the shifts that leave a corner's edge).
    let next = (c << 1 & 0x0200_0000_0000_0002)
        | (c >> 1 & 0x4000_0000_0000_0040)
        | (c << 8 & 0x0000_0000_0000_8100)
        | (c >> 8 & 0x0081_0000_0000_0000);
    ((c | next) & me).count_ones()
}

/// The flips of each move of `legal` in `b`, by square (0 elsewhere).
#[inline]
pub(crate) fn legal_flips(b: &Board, legal: u64) -> [u64; 64] {
    let mut fl = [0u64; 64];
    let mut l = legal;
    while l != 0 {
        let s = l.trailing_zeros() as usize;
        l &= l - 1;
        fl[s] = flips(b.player, b.opponent, s);
    }
    fl
}

/// How [`Worker::end_moves`] orders a node's moves (after the hash move).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Order {
    /// Odd quadrants first (below `sort_min_empties`).
    Parity,
    /// By cost: the opponent's replies, potential mobility, parity and
    /// history (an expected all-node, where every move is searched).
    Cost,
    /// By cost and the child's value; the node's alpha (see `end_moves`).
    Value(i32),
}

/// A sorted move list of an endgame node.
pub(crate) struct EndMoves<'f> {
    pub sq: [u8; 64],
    /// The flips of each legal move of the node, by square.
    pub flips: &'f [u64; 64],
    /// Each move's value for the side to move by the ordering's shallow
    /// search or static value (`-INF` where the order computed none).
    pub guess: [i32; 64],
    pub len: usize,
}

impl<'f> EndMoves<'f> {
    /// An empty list over the flips `flips` (of each legal move, by
    /// square), for [`Worker::end_moves_into`] to fill.
    #[inline(always)]
    pub(crate) fn new(flips: &'f [u64; 64]) -> EndMoves<'f> {
        EndMoves {
            sq: [0; 64],
            flips,
            guess: [-INF; 64],
            len: 0,
        }
    }

    /// The flips of the `i`-th move.
    #[inline]
    pub(crate) fn flips_of(&self, i: usize) -> u64 {
        self.flips[self.sq[i] as usize]
    }

    /// Keeps the moves on the squares of `keep`, in order.
    pub(crate) fn retain(&mut self, keep: u64) {
        let mut j = 0;
        for i in 0..self.len {
            if keep >> self.sq[i] & 1 == 1 {
                self.sq[j] = self.sq[i];
                self.guess[j] = self.guess[i];
                j += 1;
            }
        }
        self.len = j;
    }
}

impl Worker<'_> {
    /// Moves of `b` (flips all; `fl`: the flips of each move of `legal`, by
    /// square) best first: hash move, then (unless `order` is `Parity`) a
    /// key of the opponent's replies (corners twice), potential mobility,
    /// the mover's discs by the corners (`corner_stable`) and parity, plus
    /// with `Value(alpha)` the child's value from
    /// `end_shallow_min_empties`: its static value, or a table-free depth-2
    /// search (`sort_value`) from `end_sort_d2_empties`, depth 3 and 4 from
    /// `end_sort_d3_empties` and `end_sort_d4_empties` (exact only above
    /// `alpha - end_sort_window`; the replies then weigh
    /// `end_d2_mobility_weight`); with `Parity`, odd quadrants first. The
    /// hash move `hash_sq` (64: none) comes first.
    #[inline]
    pub(crate) fn end_moves<'f>(
        &mut self,
        b: &Board,
        legal: u64,
        hash_sq: u8,
        order: Order,
        fl: &'f [u64; 64],
    ) -> EndMoves<'f> {
        let mut m = EndMoves::new(fl);
        self.end_moves_into(&mut m, b, legal, hash_sq, order);
        m
    }

    /// [`Self::end_moves`] into `m` (whose flips are those of `b`'s moves),
    /// which it overwrites: the hot path's callers keep one list in place
    /// rather than move 328 bytes out of a returned one.
    #[inline]
    pub(crate) fn end_moves_into(
        &mut self,
        m: &mut EndMoves<'_>,
        b: &Board,
        legal: u64,
        hash_sq: u8,
        order: Order,
    ) {
        let n = b.empties();
        let odd = odd_squares(b.empty());
        let plan = self.order_plan(n, order, odd);
        m.len = 0;
        let fl = m.flips;
        let mut keys = [0i32; 64];
        let mut l = legal;
        while l != 0 {
            let s = l.trailing_zeros() as u8;
            l &= l - 1;
            let f = fl[s as usize];
            let bit = 1u64 << s;
            let mut guess = -INF;
            let key = if s == hash_sq {
                -1
            } else if order != Order::Parity {
                let (key, value) = self.cost_key(b, (s, f), &plan);
                if value > -INF {
                    guess = -value;
                }
                key
            } else if odd & bit != 0 {
                0
            } else {
                1
            };
            keys[m.len] = key;
            m.sq[m.len] = s;
            m.guess[m.len] = guess;
            m.len += 1;
        }
        // Sorted after every key is known, so that no branch on one
        // child's value waits before the next child's evaluation starts.
        // Insertion keeps equal keys in square order (deterministic).
        for j in 1..m.len {
            let (key, s, guess) = (keys[j], m.sq[j], m.guess[j]);
            let mut i = j;
            while i > 0 && keys[i - 1] > key {
                keys[i] = keys[i - 1];
                m.sq[i] = m.sq[i - 1];
                m.guess[i] = m.guess[i - 1];
                i -= 1;
            }
            keys[i] = key;
            m.sq[i] = s;
            m.guess[i] = guess;
        }
    }
}

/// What [`Worker::end_moves`] computes for each move of a node, from its
/// empties and [`Order`].
struct Plan {
    /// The upper end of the window of the child's value (see
    /// `end_sort_window`).
    sort_beta: i32,
    /// The depth of the table-free search for the child's value (0: none).
    sort_depth: i32,
    /// Else whether the child's static value counts.
    static_value: bool,
    mobility_weight: i32,
    /// The squares of the quadrants with an odd number of empties.
    odd: u64,
    /// The squares alone in their quadrant.
    single: u64,
    /// The node's empties.
    n: u32,
}

impl Worker<'_> {
    /// The [`Plan`] of a node of `n` empties ordered by `order`, with the
    /// odd quadrants' squares `odd`.
    #[inline]
    fn order_plan(&self, n: u32, order: Order, odd: u64) -> Plan {
        // The child's window: its value is wanted exactly where the node's
        // is above `alpha - end_sort_window`.
        let sort_beta = match (order, self.cfg.end_sort_window) {
            (Order::Value(alpha), w) if w > 0 => (w as i32 - alpha).min(INF),
            _ => INF,
        };
        let valued = matches!(order, Order::Value(_));
        let sort_depth = if !valued {
            0
        } else if n >= self.cfg.end_sort_d4_empties {
            4
        } else if n >= self.cfg.end_sort_d3_empties {
            3
        } else if n >= self.cfg.end_sort_d2_empties {
            2
        } else {
            0
        };
        let static_value = valued && n >= self.cfg.end_shallow_min_empties;
        let mobility_weight = if sort_depth >= 2 {
            self.cfg.end_d2_mobility_weight
        } else {
            self.cfg.end_mobility_weight
        };
        Plan {
            sort_beta,
            sort_depth,
            static_value,
            mobility_weight,
            odd,
            single: single_squares(odd),
            n,
        }
    }

    /// The sort key of move `(s, f)` (square, flips) by cost and, as
    /// `plan` says, the child's value, which comes second (`-INF` where the
    /// plan computes none).
    #[inline(always)]
    fn cost_key(&mut self, b: &Board, (s, f): (u8, u64), plan: &Plan) -> (i32, i32) {
        let child = b.play_flips(s as usize, f);
        let om = child.legal_moves();
        let mob = (om.count_ones() + (om & CORNERS).count_ones()) as i32;
        let pot = (around(child.opponent) & child.empty()).count_ones() as i32;
        let corner = corner_stable(child.opponent) as i32;
        let value = if plan.sort_depth > 0 {
            self.as_opponent(|w| w.sort_value(&child, -INF, plan.sort_beta, plan.sort_depth))
        } else if plan.static_value {
            // The static value, as `pvs` at depth 0 gives it (one node),
            // with the child's moves already known.
            if self.tick() {
                0
            } else {
                self.job.evaluator.evaluate_with_moves(&child, om)
            }
        } else {
            -INF
        };
        let key = mob * plan.mobility_weight + pot * self.cfg.end_potential_weight
            - corner * self.cfg.end_corner_weight
            + if plan.odd >> s & 1 == 1 {
                0
            } else {
                self.cfg.end_parity_weight
            }
            - if plan.single >> s & 1 == 1 {
                self.cfg.end_single_weight
            } else {
                0
            }
            + if value > -INF { value } else { 0 }
            - if self.cfg.end_history_weight > 0 {
                history::bonus(plan.n, s)
            } else {
                0
            };
        (key, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Square by square: a held corner, and each of its two edge
    /// neighbours held too.
    fn corner_stable_slow(me: u64) -> u32 {
        let held = |r: i32, c: i32| me >> (8 * r + c) & 1 == 1;
        let mut n = 0;
        for (r, c, dr, dc) in [(0, 0, 1, 1), (0, 7, 1, -1), (7, 0, -1, 1), (7, 7, -1, -1)] {
            if held(r, c) {
                n += 1 + held(r + dr, c) as u32 + held(r, c + dc) as u32;
            }
        }
        n
    }

    /// Square by square: the empties of each 4x4 quadrant counted.
    #[test]
    fn single_and_odd_squares_match_counts() {
        let mut rng = crate::rng::Rng::new(0x0519_1e50_04d5);
        for _ in 0..20_000 {
            let empty = rng.next_u64() & rng.next_u64() & rng.next_u64();
            let quadrant = |s: u32| (s / 32) * 2 + (s % 8) / 4;
            let count = |q: u32| {
                (0..64)
                    .filter(|&t| empty >> t & 1 == 1 && quadrant(t) == q)
                    .count()
            };
            for s in 0..64u32 {
                let e = empty >> s & 1 == 1;
                let c = count(quadrant(s));
                assert_eq!(
                    single_squares(empty) >> s & 1 == 1,
                    e && c == 1,
                    "{empty:#x} {s}"
                );
                assert_eq!(
                    odd_squares(empty) >> s & 1 == 1,
                    e && c % 2 == 1,
                    "{empty:#x} {s}"
                );
            }
        }
    }

    /// `retain` keeps the listed moves on the given squares, in order,
    /// with their guesses and flips.
    #[test]
    fn retain_keeps_order_and_data() {
        let mut fl = [0u64; 64];
        for (s, f) in fl.iter_mut().enumerate() {
            *f = (s as u64 + 1) * 0x0101;
        }
        let order = [9u8, 3, 40, 17, 62, 0];
        let mut m = EndMoves::new(&fl);
        m.len = order.len();
        for (i, &s) in order.iter().enumerate() {
            m.sq[i] = s;
            m.guess[i] = 10 * i as i32;
        }
        m.retain((1 << 3) | (1 << 17) | (1 << 0) | (1 << 33));
        assert_eq!(&m.sq[..m.len], &[3, 17, 0]);
        assert_eq!(&m.guess[..m.len], &[10, 30, 50]);
        assert_eq!(
            (0..m.len).map(|i| m.flips_of(i)).collect::<Vec<_>>(),
            [4 * 0x0101, 18 * 0x0101, 0x0101]
        );
    }

    #[test]
    fn corner_stable_matches_square_by_square() {
        let mut rng = crate::rng::Rng::new(0xc0e2_57ab);
        for i in 0..20_000 {
            // Dense and sparse boards, and the corners' edges always held.
            let me = match i % 3 {
                0 => rng.next_u64(),
                1 => rng.next_u64() & rng.next_u64(),
                _ => rng.next_u64() | 0xc381_0000_0000_81c3,
            };
            assert_eq!(corner_stable(me), corner_stable_slow(me), "{me:#x}");
        }
        assert_eq!(corner_stable(!0), 12);
        assert_eq!(corner_stable(0x0000_0000_0000_0302), 0);
    }
}
