//! Squares and directions of the 8×8 board.
//!
//! Squares are numbered `0..64` as `a1, b1, …, h1, a2, …, h8`: bit `i` of a
//! bitboard is square `i`. Columns `a`–`h` run left to right, rows `1`–`8`
//! top to bottom (the Othello convention of `RULES.md`).
//!
//! ```
//! use annex_core::square::Square;
//! let f5: Square = "F5".parse().unwrap();
//! assert_eq!(f5.to_string(), "f5");
//! assert_eq!(f5.index(), 37);
//! ```

use std::fmt;
use std::str::FromStr;

/// One of the 64 squares.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Square(u8);

impl Square {
    /// The square with index `i` (`0..64`), or `None`.
    #[inline]
    pub const fn new(i: u8) -> Option<Square> {
        if i < 64 { Some(Square(i)) } else { None }
    }

    /// The square at column `col` and row `row`, both `0..8`.
    #[inline]
    pub const fn from_coords(col: u8, row: u8) -> Option<Square> {
        if col < 8 && row < 8 {
            Some(Square(row * 8 + col))
        } else {
            None
        }
    }

    /// The square with index `i`, without a range check beyond a debug assert.
    #[inline]
    pub const fn from_index_unchecked(i: u8) -> Square {
        debug_assert!(i < 64);
        Square(i)
    }

    /// Index `0..64` (`a1` = 0, `h8` = 63).
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Column `0..8` (`a` = 0).
    #[inline]
    pub const fn col(self) -> u8 {
        self.0 & 7
    }

    /// Row `0..8` (row `1` = 0).
    #[inline]
    pub const fn row(self) -> u8 {
        self.0 >> 3
    }

    /// The single-bit bitboard of this square.
    #[inline]
    pub const fn bit(self) -> u64 {
        1u64 << self.0
    }

    /// The neighbour one step in `dir`, or `None` off the board.
    pub fn step(self, dir: Direction) -> Option<Square> {
        let (dc, dr) = dir.delta();
        let c = self.col() as i8 + dc;
        let r = self.row() as i8 + dr;
        if (0..8).contains(&c) && (0..8).contains(&r) {
            Some(Square((r * 8 + c) as u8))
        } else {
            None
        }
    }

    /// All 64 squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

/// Error from parsing a square name; carries the offending text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSquareError(pub String);

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid square '{}' (expected a1..h8)", self.0)
    }
}

impl std::error::Error for ParseSquareError {}

impl FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return Err(ParseSquareError(s.to_string()));
        }
        let c = b[0].to_ascii_lowercase();
        let r = b[1];
        if !(b'a'..=b'h').contains(&c) || !(b'1'..=b'8').contains(&r) {
            return Err(ParseSquareError(s.to_string()));
        }
        Ok(Square((r - b'1') * 8 + (c - b'a')))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = (b'a' + self.col()) as char;
        let r = (b'1' + self.row()) as char;
        write!(f, "{c}{r}")
    }
}

/// The eight directions; `N` points towards row 1.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
pub enum Direction {
    /// Towards row 1.
    N = 0,
    /// Towards row 1 and column h.
    NE = 1,
    /// Towards column h.
    E = 2,
    /// Towards row 8 and column h.
    SE = 3,
    /// Towards row 8.
    S = 4,
    /// Towards row 8 and column a.
    SW = 5,
    /// Towards column a.
    W = 6,
    /// Towards row 1 and column a.
    NW = 7,
}

impl Direction {
    /// All eight, in the order `n ne e se s sw w nw`.
    pub const ALL: [Direction; 8] = [
        Direction::N,
        Direction::NE,
        Direction::E,
        Direction::SE,
        Direction::S,
        Direction::SW,
        Direction::W,
        Direction::NW,
    ];

    /// The direction with index `i` (`0..8`).
    pub fn from_index(i: u8) -> Option<Direction> {
        Direction::ALL.get(i as usize).copied()
    }

    /// Index `0..8`.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// (column step, row step).
    pub const fn delta(self) -> (i8, i8) {
        match self {
            Direction::N => (0, -1),
            Direction::NE => (1, -1),
            Direction::E => (1, 0),
            Direction::SE => (1, 1),
            Direction::S => (0, 1),
            Direction::SW => (-1, 1),
            Direction::W => (-1, 0),
            Direction::NW => (-1, -1),
        }
    }

    /// Lower-case name (`n`, `ne`, …).
    pub const fn name(self) -> &'static str {
        match self {
            Direction::N => "n",
            Direction::NE => "ne",
            Direction::E => "e",
            Direction::SE => "se",
            Direction::S => "s",
            Direction::SW => "sw",
            Direction::W => "w",
            Direction::NW => "nw",
        }
    }
}

/// Error from parsing a direction name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseDirectionError(pub String);

impl fmt::Display for ParseDirectionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid direction '{}' (expected n, ne, e, se, s, sw, w or nw)",
            self.0
        )
    }
}

impl std::error::Error for ParseDirectionError {}

impl FromStr for Direction {
    type Err = ParseDirectionError;
    fn from_str(s: &str) -> Result<Direction, ParseDirectionError> {
        let l = s.to_ascii_lowercase();
        Direction::ALL
            .iter()
            .copied()
            .find(|d| d.name() == l)
            .ok_or_else(|| ParseDirectionError(s.to_string()))
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_round_trip() {
        for sq in Square::all() {
            let s = sq.to_string();
            assert_eq!(s.parse::<Square>().unwrap(), sq);
            assert_eq!(s.to_uppercase().parse::<Square>().unwrap(), sq);
        }
        for bad in ["", "a", "a9", "i1", "a0", "a11", "é1"] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
    }

    #[test]
    fn direction_round_trip() {
        for d in Direction::ALL {
            assert_eq!(d.name().parse::<Direction>().unwrap(), d);
        }
        assert!("x".parse::<Direction>().is_err());
        let a1: Square = "a1".parse().unwrap();
        assert_eq!(a1.step(Direction::N), None);
        assert_eq!(a1.step(Direction::SE).unwrap().to_string(), "b2");
    }
}
