//! The bitboard position relative to the side to move.
//!
//! [`Board`] holds two `u64`: the discs of the player to move and those of
//! the opponent. Everything here is rule-independent except where a
//! [`RuleSet`] option is passed explicitly; the
//! rule-aware move list lives in [`crate::moves`].
//!
//! ```
//! use annex_core::board::Board;
//! let b = Board::start();
//! assert_eq!(b.legal_moves().count_ones(), 4);
//! let f5: annex_core::square::Square = "f5".parse().unwrap();
//! let next = b.play_square(f5.index());
//! assert_eq!(next.opponent.count_ones(), 4); // X now has 4 discs
//! ```

use crate::bitboard::{RAYS, symmetry};
use crate::rules::{RuleSet, Scoring, Start};
use crate::square::Direction;
use std::fmt;

/// A disc colour. `Black` (`X`) moves first in a normal game.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Color {
    /// `X`, the first player.
    Black,
    /// `O`, the second player.
    White,
}

impl Color {
    /// The other colour.
    #[inline]
    pub const fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// `'X'` or `'O'`.
    pub const fn to_char(self) -> char {
        match self {
            Color::Black => 'X',
            Color::White => 'O',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_char())
    }
}

/// Player and opponent discs, relative to the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub struct Board {
    /// Discs of the side to move.
    pub player: u64,
    /// Discs of the other side.
    pub opponent: u64,
}

/// Squares from which a direction's ray is followed: the moves of one
/// direction, for legal move generation (Kogge–Stone doubling).
#[inline(always)]
fn moves_dir(p: u64, mask: u64, s: u32) -> u64 {
    let mut fl = mask & (p << s);
    let mut fr = mask & (p >> s);
    fl |= mask & (fl << s);
    fr |= mask & (fr >> s);
    let pl = mask & (mask << s);
    let pr = pl >> s;
    let s2 = s * 2;
    fl |= pl & (fl << s2);
    fr |= pr & (fr >> s2);
    fl |= pl & (fl << s2);
    fr |= pr & (fr >> s2);
    (fl << s) | (fr >> s)
}

/// Legal move squares of `p` against `o` (flips = all, no placement phase).
#[inline(always)]
pub fn legal_moves(p: u64, o: u64) -> u64 {
    let mask = o & 0x7e7e_7e7e_7e7e_7e7e;
    let m =
        moves_dir(p, mask, 1) | moves_dir(p, o, 8) | moves_dir(p, mask, 7) | moves_dir(p, mask, 9);
    m & !(p | o)
}

/// Flips along the ray `ray` going to higher bit indices.
#[inline(always)]
fn flip_up(ray: u64, p: u64, o: u64) -> u64 {
    let x = ray & !o;
    let first = x & x.wrapping_neg();
    (ray & first.wrapping_sub(1)) & ((first & p != 0) as u64).wrapping_neg()
}

/// Flips along the ray `ray` going to lower bit indices.
#[inline(always)]
fn flip_down(ray: u64, p: u64, o: u64) -> u64 {
    let x = ray & !o;
    // The highest square of the ray that is not O. When there is none,
    // the shift wraps to bit 63 and nothing above it is in the ray, so the
    // result is 0 without a branch.
    let first = (1u64 << 63).wrapping_shr(x.leading_zeros());
    let run = ray & !(first | first.wrapping_sub(1));
    run & ((first & p != 0) as u64).wrapping_neg()
}

/// The discs a move by `p` on square `sq` turns in direction `dir` alone.
#[inline]
pub fn flips_dir(p: u64, o: u64, sq: usize, dir: Direction) -> u64 {
    let ray = RAYS[sq][dir.index()];
    match dir {
        Direction::E | Direction::SE | Direction::S | Direction::SW => flip_up(ray, p, o),
        _ => flip_down(ray, p, o),
    }
}

/// The discs a move by `p` on empty square `sq` turns (all lines).
/// Zero when the move does not bracket anything.
#[inline(always)]
pub fn flips(p: u64, o: u64, sq: usize) -> u64 {
    let r = &RAYS[sq];
    flip_down(r[0], p, o)
        | flip_down(r[1], p, o)
        | flip_up(r[2], p, o)
        | flip_up(r[3], p, o)
        | flip_up(r[4], p, o)
        | flip_up(r[5], p, o)
        | flip_down(r[6], p, o)
        | flip_down(r[7], p, o)
}

impl Board {
    /// A board from the two disc sets (they must not overlap).
    #[inline]
    pub const fn new(player: u64, opponent: u64) -> Board {
        Board { player, opponent }
    }

    /// The Othello start position, X (player) to move.
    pub const fn start() -> Board {
        Board::new(0x0000_0008_1000_0000, 0x0000_0010_0800_0000)
    }

    /// The start position of a `start` option, first player to move.
    pub const fn start_for(start: Start) -> Board {
        match start {
            Start::Diagonal => Board::start(),
            // d5, e5 X; d4, e4 O.
            Start::Parallel => Board::new(0x0000_0018_0000_0000, 0x0000_0000_1800_0000),
            Start::Free => Board::new(0, 0),
        }
    }

    /// Occupied squares.
    #[inline]
    pub const fn occupied(&self) -> u64 {
        self.player | self.opponent
    }

    /// Empty squares.
    #[inline]
    pub const fn empty(&self) -> u64 {
        !(self.player | self.opponent)
    }

    /// Number of empty squares.
    #[inline]
    pub const fn empties(&self) -> u32 {
        self.empty().count_ones()
    }

    /// Legal move squares (flips = all, no placement phase).
    #[inline]
    pub fn legal_moves(&self) -> u64 {
        legal_moves(self.player, self.opponent)
    }

    /// The position after the side to move passes.
    #[inline]
    pub const fn pass(&self) -> Board {
        Board::new(self.opponent, self.player)
    }

    /// Neither side can move (flips = all, no placement phase).
    #[inline]
    pub fn is_game_over(&self) -> bool {
        self.legal_moves() == 0 && legal_moves(self.opponent, self.player) == 0
    }

    /// Plays a move that turns `flipped` (non-zero) at square `sq`.
    #[inline]
    pub const fn play_flips(&self, sq: usize, flipped: u64) -> Board {
        Board::new(
            self.opponent ^ flipped,
            self.player ^ flipped ^ (1u64 << sq),
        )
    }

    /// Plays a legal move on square `sq`, all lines turning. Unchecked: `sq`
    /// must be a legal move.
    #[inline]
    pub fn play_square(&self, sq: usize) -> Board {
        self.play_flips(sq, flips(self.player, self.opponent, sq))
    }

    /// Whether the `free` start's placement plies are still to be played:
    /// only under [`Start::Free`], while discs stand only in the centre and
    /// the centre is not full.
    #[inline]
    pub fn is_placement(&self, rules: &RuleSet) -> bool {
        use crate::bitboard::CENTRE;
        rules.start == Start::Free && self.occupied() & !CENTRE == 0 && self.occupied() != CENTRE
    }

    /// Final disc difference for the side to move, by `scoring`.
    pub fn final_score(&self, scoring: Scoring) -> i32 {
        let p = self.player.count_ones() as i32;
        let o = self.opponent.count_ones() as i32;
        let diff = p - o;
        match scoring {
            Scoring::Count => diff,
            Scoring::Wof => {
                let e = 64 - p - o;
                match diff.signum() {
                    1 => diff + e,
                    -1 => diff - e,
                    _ => 0,
                }
            }
        }
    }

    /// The board under symmetry `s` (`0..8`, see [`crate::bitboard::symmetry`]).
    pub const fn symmetry(&self, s: u8) -> Board {
        Board::new(symmetry(self.player, s), symmetry(self.opponent, s))
    }

    /// The least of the 8 symmetric boards (a canonical form) and the
    /// symmetry that gives it.
    pub fn unique(&self) -> (Board, u8) {
        let mut best = (*self, 0);
        for s in 1..8 {
            let b = self.symmetry(s);
            if b < best.0 {
                best = (b, s);
            }
        }
        best
    }

    /// A 64-bit hash of the board (well mixed; equal boards hash equal).
    #[inline]
    pub const fn hash(&self) -> u64 {
        let mut h = self.player.wrapping_mul(0x9e37_79b9_7f4a_7c15)
            ^ self
                .opponent
                .rotate_left(32)
                .wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
        h ^= h >> 29;
        h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^= h >> 32;
        h
    }

    /// No square holds both colours.
    pub fn is_valid(&self) -> bool {
        self.player & self.opponent == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitboard::shift;

    fn naive_flips(p: u64, o: u64, sq: usize) -> u64 {
        let mut all = 0;
        for d in Direction::ALL {
            let mut f = 0;
            let mut x = shift(1u64 << sq, d);
            while x & o != 0 {
                f |= x;
                x = shift(x, d);
            }
            if x & p != 0 {
                all |= f;
            }
        }
        all
    }

    #[test]
    fn start_and_flips() {
        let b = Board::start();
        assert_eq!(
            b.legal_moves(),
            (1 << 19) | (1 << 26) | (1 << 37) | (1 << 44)
        );
        let mut rng = crate::rng::Rng::new(0x1234_5678_9abc_def0);
        for _ in 0..20000 {
            let (a, b) = (rng.next_u64(), rng.next_u64());
            let p = a & b;
            let o = !a & b & !(1 << 27);
            let mut moves = 0;
            for sq in 0..64 {
                if (p | o) & (1 << sq) != 0 {
                    continue;
                }
                let f = naive_flips(p, o, sq);
                assert_eq!(flips(p, o, sq), f);
                if f != 0 {
                    moves |= 1 << sq;
                }
            }
            assert_eq!(legal_moves(p, o), moves);
        }
    }

    #[test]
    fn scores() {
        // 10 X, 6 O, 48 empty, X to move.
        let b = Board::new(0x3ff, 0x3f << 20);
        assert_eq!(b.final_score(Scoring::Count), 4);
        assert_eq!(b.final_score(Scoring::Wof), 52);
        assert_eq!(b.pass().final_score(Scoring::Wof), -52);
        assert_eq!(Board::new(3, 12).final_score(Scoring::Wof), 0);
    }
}
