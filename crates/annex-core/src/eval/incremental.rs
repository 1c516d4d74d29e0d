//! The incremental form of the pattern evaluation: a position's
//! per-side coefficient sums (see [`super::coefs`]) kept with it during a
//! search, and a nearby position's indices derived from them by the
//! squares whose state differs (a move: the placed square and the
//! flipped ones) instead of the 16 row look-ups of a full computation.
//!
//! A state is the board with the indices of every pattern instance read
//! from either side (`u16` lanes, wrapping): digit 1 for the side to
//! move and 2 for the opponent (the evaluation's), and the other way
//! round. After a move on square `s` flipping `F`, the new side to move
//! (the old opponent) reads `theirs + C(F) + 2 C(s)` and the other side
//! `mine − C(F) + C(s)`, `C` being the sum of the squares' coefficient
//! vectors; a pass swaps the two. Both are cases of one rule that holds
//! between any two positions: each square adds its coefficients times
//! the change of its digit (read with the sides matched so that the
//! fewest squares change). The indices are exact
//! (below `3^10`, so the wrapping sums end where the full computation
//! does), so a value from a state is the full evaluation's, bit for bit;
//! positions far apart (more than [`MAX_CHANGED`] squares) are computed
//! from scratch, which is cheaper there.

use super::PatternEval;
use super::coefs::{ALL_LANES, BASE_LANES, Coefs, Lanes, SPAN_ALL, SPAN_BASE, combine};
use crate::board::{Board, legal_moves};

/// Squares of changed state above which a state or an evaluation is
/// computed from scratch: an update costs one or two coefficient vectors
/// a square, a full computation 16 row look-ups.
pub const MAX_CHANGED: u32 = 10;

/// A position with the pattern indices of every instance read from
/// either side: the base from which [`PatternEval::evaluate_from`]
/// evaluates nearby positions.
///
/// Every state is consistent (its indices are those of its board), the
/// default one included (the empty board, all indices zero), so a state
/// that is not the parent of the position evaluated only costs time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalState {
    board: Board,
    /// The indices hold the extra patterns' lanes (4 vectors, the
    /// extended set) or not (3 vectors; the fourth stays zero).
    extra: bool,
    /// The indices with the side to move's discs as digit 1 and the
    /// opponent's as 2 (`[0]`, those the evaluation reads), and with
    /// the sides the other way round (`[1]`).
    views: [Lanes<4>; 2],
}

impl Default for EvalState {
    fn default() -> EvalState {
        EvalState {
            board: Board::new(0, 0),
            extra: false,
            views: [[[0; 16]; 4]; 2],
        }
    }
}

impl EvalState {
    /// The position of the state.
    pub fn board(&self) -> &Board {
        &self.board
    }
}

/// How `b` differs from `base`'s position, the sides matched so that the
/// fewest squares change: the index (0 or 1) of the base's view that is
/// `b`'s side to move's, and the base's discs of that side and of the
/// other. `None` when the states are of different feature sets or more
/// than [`MAX_CHANGED`] squares change.
#[inline(always)]
fn orient(base: &EvalState, b: &Board, extra: bool) -> Option<(usize, u64, u64)> {
    let (bp, bo) = (base.board.player, base.board.opponent);
    let same = ((b.player ^ bp) | (b.opponent ^ bo)).count_ones();
    let swap = ((b.player ^ bo) | (b.opponent ^ bp)).count_ones();
    if base.extra != extra || same.min(swap) > MAX_CHANGED {
        None
    } else if swap <= same {
        Some((1, bo, bp))
    } else {
        Some((0, bp, bo))
    }
}

/// The first `V` vectors of `x`.
#[inline(always)]
fn head<const V: usize>(x: &Lanes<4>) -> Lanes<V> {
    let mut h = [[0; 16]; V];
    h.copy_from_slice(&x[..V]);
    h
}

/// `x` padded with zero vectors to 4.
#[inline(always)]
fn pad<const V: usize>(x: &Lanes<V>) -> Lanes<4> {
    let mut p = [[0; 16]; 4];
    p[..V].copy_from_slice(x);
    p
}

/// Updates `view`, the indices of a side whose discs were `mine` and
/// `theirs` and are now `now_mine` and `now_theirs`: each square adds
/// its coefficients times its change of digit (0 empty, 1 mine, 2
/// theirs).
#[inline(always)]
fn update<const V: usize>(
    c: &Coefs,
    view: &mut Lanes<V>,
    (mine, theirs): (u64, u64),
    (now_mine, now_theirs): (u64, u64),
) {
    let (was_empty, now_empty) = (!(mine | theirs), !(now_mine | now_theirs));
    c.add_squares(view, (now_mine & was_empty) | (now_theirs & mine), 1);
    c.add_squares(view, now_theirs & was_empty, 2);
    c.add_squares(view, (mine & now_empty) | (theirs & now_mine), u16::MAX);
    c.add_squares(view, theirs & now_empty, u16::MAX - 1);
}

impl PatternEval {
    /// The state of `b`, computed from scratch.
    pub fn state(&self, b: &Board) -> EvalState {
        if self.feature_set().extra() {
            self.state_full::<4>(b)
        } else {
            self.state_full::<3>(b)
        }
    }

    /// The state of `b`, updated from `base` by the squares that differ
    /// (from scratch when they are many).
    #[inline]
    pub fn state_from(&self, base: &EvalState, b: &Board) -> EvalState {
        if self.feature_set().extra() {
            self.state_update::<4>(base, b)
        } else {
            self.state_update::<3>(base, b)
        }
    }

    /// The score of `b` (equal to [`Self::evaluate`]), its indices
    /// updated from those of `base` by the squares that differ (from
    /// scratch when they are many).
    #[inline]
    pub fn evaluate_from(&self, base: &EvalState, b: &Board) -> i32 {
        if self.feature_set().extra() {
            self.evaluate_update::<4, ALL_LANES, SPAN_ALL>(base, b)
        } else {
            self.evaluate_update::<3, BASE_LANES, SPAN_BASE>(base, b)
        }
    }

    fn state_full<const V: usize>(&self, b: &Board) -> EvalState {
        let p = self.coefs.side_sum::<V>(b.player);
        let o = self.coefs.side_sum::<V>(b.opponent);
        EvalState {
            board: *b,
            extra: V == 4,
            views: [pad(&combine(&p, &o)), pad(&combine(&o, &p))],
        }
    }

    #[inline(always)]
    fn state_update<const V: usize>(&self, base: &EvalState, b: &Board) -> EvalState {
        let Some((k, old1, old2)) = orient(base, b, V == 4) else {
            return self.state_full::<V>(b);
        };
        let (new1, new2) = (b.player, b.opponent);
        let mut v1 = head::<V>(&base.views[k]);
        update(&self.coefs, &mut v1, (old1, old2), (new1, new2));
        let mut v2 = head::<V>(&base.views[1 - k]);
        update(&self.coefs, &mut v2, (old2, old1), (new2, new1));
        EvalState {
            board: *b,
            extra: V == 4,
            views: [pad(&v1), pad(&v2)],
        }
    }

    #[inline(always)]
    fn evaluate_update<const V: usize, const L: usize, const N: usize>(
        &self,
        base: &EvalState,
        b: &Board,
    ) -> i32 {
        let Some((k, old1, old2)) = orient(base, b, V == 4) else {
            return self.evaluate(b);
        };
        let (new1, new2) = (b.player, b.opponent);
        let mut idx = head::<V>(&base.views[k]);
        // As `update`, the usual case without a branch: a move seen by
        // the new side to move, whose up to 4 flipped discs (`F`) turn to
        // its digit 2 from 1 and the placed one from empty to 2.
        let c = &self.coefs;
        let (was_empty, now_empty) = (!(old1 | old2), !(new1 | new2));
        let more = c.add_first::<V, 4>(&mut idx, (new1 & was_empty) | (new2 & old1), 1);
        let more2 = c.add_first::<V, 1>(&mut idx, new2 & was_empty, 2);
        let minus = (old1 & now_empty) | (old2 & new1);
        let minus2 = old2 & now_empty;
        if more | more2 | minus | minus2 != 0 {
            c.add_squares(&mut idx, more, 1);
            c.add_squares(&mut idx, more2, 2);
            c.add_squares(&mut idx, minus, u16::MAX);
            c.add_squares(&mut idx, minus2, u16::MAX - 1);
        }
        self.value_of::<V, L, N>(b, legal_moves(new1, new2), &idx)
    }
}
