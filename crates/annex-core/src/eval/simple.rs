//! A hand-written evaluation: mobility, potential mobility, corners and
//! X/C-squares, parity. Used until the trained pattern evaluation is
//! loaded, and as the baseline it is measured against.

use super::{MAX_EVAL, SCALE};
use crate::bitboard::{CORNERS, shift};
use crate::board::{Board, legal_moves};
use crate::square::Direction;

/// The simple evaluation (stateless).
#[derive(Clone, Copy, Debug, Default)]
pub struct SimpleEval;

/// X-squares (diagonally next to a corner), with the corner they belong to.
const X_SQUARES: [(u64, u64); 4] = [
    (1 << 9, 1 << 0),
    (1 << 14, 1 << 7),
    (1 << 49, 1 << 56),
    (1 << 54, 1 << 63),
];

/// C-squares (orthogonally next to a corner), with their corner.
const C_SQUARES: [(u64, u64); 4] = [
    ((1 << 1) | (1 << 8), 1 << 0),
    ((1 << 6) | (1 << 15), 1 << 7),
    ((1 << 48) | (1 << 57), 1 << 56),
    ((1 << 55) | (1 << 62), 1 << 63),
];

/// Empty squares next to a disc of `b`.
fn frontier(b: u64, empty: u64) -> u64 {
    let mut n = 0;
    for d in Direction::ALL {
        n |= shift(b, d);
    }
    n & empty
}

impl SimpleEval {
    /// Score for the side to move, in 1/SCALE disc.
    pub fn evaluate(board: &Board) -> i32 {
        let (p, o) = (board.player, board.opponent);
        let empty = board.empty();
        let n_empty = empty.count_ones() as i32;
        // Weight of the positional terms fades towards the end, where the
        // disc count matters.
        let stage = 60 - n_empty.min(60); // 0 at the start, 60 at the end
        let pm = legal_moves(p, o).count_ones() as i32;
        let om = legal_moves(o, p).count_ones() as i32;
        let mobility = (pm - om) * 3 * SCALE / 2;
        // Potential mobility: empty squares next to the opponent's discs.
        let ppot = frontier(o, empty).count_ones() as i32;
        let opot = frontier(p, empty).count_ones() as i32;
        let potential = (ppot - opot) * SCALE / 2;
        let corners =
            ((p & CORNERS).count_ones() as i32 - (o & CORNERS).count_ones() as i32) * 8 * SCALE;
        let mut xc = 0;
        for (x, c) in X_SQUARES {
            if c & empty != 0 {
                xc -= ((p & x).count_ones() as i32 - (o & x).count_ones() as i32) * 4 * SCALE;
            }
        }
        for (cs, c) in C_SQUARES {
            if c & empty != 0 {
                xc -= ((p & cs).count_ones() as i32 - (o & cs).count_ones() as i32) * SCALE;
            }
        }
        let discs = (p.count_ones() as i32 - o.count_ones() as i32) * SCALE * stage / 60;
        let parity = if n_empty % 2 == 1 { SCALE } else { -SCALE } / 2;
        let positional = (mobility + potential + corners + xc) * (80 - stage) / 80;
        (positional + discs + parity).clamp(-MAX_EVAL + 1, MAX_EVAL - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_and_bounded() {
        let b = Board::start();
        let v = SimpleEval::evaluate(&b);
        for s in 0..8 {
            assert_eq!(SimpleEval::evaluate(&b.symmetry(s)), v);
        }
        // A corner is worth having.
        let with_corner = Board::new(b.player | 1, b.opponent);
        assert!(SimpleEval::evaluate(&with_corner) > v);
    }
}
