//! Stable discs: discs that no sequence of moves can turn.
//!
//! A disc is stable when on each of the four axes (row, column, two
//! diagonals) its line is full, or one of its two neighbours on that axis is
//! off the board or a stable disc of its colour: a turn along an axis needs
//! the disc bracketed on both sides, with every disc between of its colour.
//! Starting from nothing, the rule is applied until no disc is added; the
//! result is a subset of the truly stable discs (never more), which is what
//! a cutoff needs.
//!
//! ```
//! use annex::search::stable_discs;
//! // A corner is stable, and an edge disc next to it.
//! assert_eq!(stable_discs(0b11, 0b100), 0b11);
//! ```

use crate::bitboard::{NOT_A, NOT_H};

const ROW_1: u64 = 0xff;
const ROW_8: u64 = 0xff << 56;
const COL_A: u64 = 0x0101_0101_0101_0101;
const COL_H: u64 = COL_A << 7;
const BORDER: u64 = ROW_1 | ROW_8 | COL_A | COL_H;

const fn diagonals(step_col: i32) -> [u64; 15] {
    // step_col = 1: a1-h8 direction; -1: h1-a8 direction.
    let mut out = [0u64; 15];
    let mut sq = 0;
    while sq < 64 {
        let c = sq % 8;
        let r = sq / 8;
        let d = if step_col == 1 { c - r + 7 } else { c + r };
        out[d as usize] |= 1u64 << sq;
        sq += 1;
    }
    out
}

static DIAG: [u64; 15] = diagonals(1);
static ANTI: [u64; 15] = diagonals(-1);

/// Squares whose line on each axis is full: (row, column, diagonal, anti-diagonal).
#[inline]
fn full_lines(occ: u64) -> (u64, u64, u64, u64) {
    let mut h = 0;
    let mut v = 0;
    for i in 0..8 {
        let row = ROW_1 << (8 * i);
        if occ & row == row {
            h |= row;
        }
        let col = COL_A << i;
        if occ & col == col {
            v |= col;
        }
    }
    let mut d = 0;
    let mut a = 0;
    for i in 0..15 {
        if occ & DIAG[i] == DIAG[i] {
            d |= DIAG[i];
        }
        if occ & ANTI[i] == ANTI[i] {
            a |= ANTI[i];
        }
    }
    (h, v, d, a)
}

/// Stable discs of `own` when `other` holds the opponent's discs.
pub fn stable_discs(own: u64, other: u64) -> u64 {
    let (fh, fv, fd, fa) = full_lines(own | other);
    let h0 = fh | COL_A | COL_H;
    let v0 = fv | ROW_1 | ROW_8;
    let d0 = fd | BORDER;
    let a0 = fa | BORDER;
    let mut st = 0u64;
    loop {
        let h = h0 | ((st << 1) & NOT_A) | ((st >> 1) & NOT_H);
        let v = v0 | (st << 8) | (st >> 8);
        let d = d0 | ((st << 9) & NOT_A) | ((st >> 9) & NOT_H);
        let a = a0 | ((st << 7) & NOT_H) | ((st >> 7) & NOT_A);
        let next = own & h & v & d & a;
        if next == st {
            return st;
        }
        st = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    /// Slow check: a disc reported stable is never turned in any line of
    /// play (random games from random boards).
    #[test]
    fn stable_discs_never_turn() {
        let mut rng = crate::rng::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut rnd = || rng.next_u64();
        for _ in 0..3000 {
            let a = rnd();
            let m = rnd() | rnd();
            let mut b = Board::new(a & m, !a & m);
            let s_p = stable_discs(b.player, b.opponent);
            let s_o = stable_discs(b.opponent, b.player);
            // Track colours absolutely: `x_is_player` says who `player` is.
            let (x_stable, o_stable) = (s_p, s_o);
            let mut x_is_player = true;
            for _ in 0..64 {
                let legal = b.legal_moves();
                if legal == 0 {
                    if b.pass().legal_moves() == 0 {
                        break;
                    }
                    b = b.pass();
                    x_is_player = !x_is_player;
                    continue;
                }
                let n = legal.count_ones() as u64;
                let mut pick = rnd() % n;
                let mut l = legal;
                while pick > 0 {
                    l &= l - 1;
                    pick -= 1;
                }
                b = b.play_square(l.trailing_zeros() as usize);
                x_is_player = !x_is_player;
                let (xs, os) = if x_is_player {
                    (b.player, b.opponent)
                } else {
                    (b.opponent, b.player)
                };
                assert_eq!(xs & x_stable, x_stable, "an X stable disc turned");
                assert_eq!(os & o_stable, o_stable, "an O stable disc turned");
            }
        }
        // A full board is all stable.
        assert_eq!(
            stable_discs(0xffff_0000_0000_0000, !0xffff_0000_0000_0000),
            0xffff_0000_0000_0000
        );
    }
}
