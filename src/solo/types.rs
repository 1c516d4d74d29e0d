//! Tiles, layouts and moves of the solo puzzle.

use crate::bitboard::Squares;
use crate::board::Color;
use crate::square::Square;
use std::fmt;
use std::str::FromStr;

/// `0` for Black (X), `1` for White (O).
#[inline]
pub(crate) const fn ci(c: Color) -> usize {
    match c {
        Color::Black => 0,
        Color::White => 1,
    }
}

/// Number of tiles in a full game.
pub const TILES: usize = 24;
/// Number of distinct tile kinds: 2 colours × (10 numbers + blank).
pub const KINDS: usize = 22;
/// The default tile squares of `RULES.md`.
pub const DEFAULT_LAYOUT: &str =
    "c1 f1 b2 d2 e2 g2 a3 c3 f3 h3 b4 g4 b5 g5 a6 c6 f6 h6 b7 d7 e7 g7 c8 f8";

/// A tile kind: a colour and a number `1..=10`, or blank (number 0).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Tile(u8);

impl Tile {
    /// The tile of `color` with number `value` (`0` = blank, `1..=10`).
    pub const fn new(color: Color, value: u8) -> Option<Tile> {
        if value > 10 {
            return None;
        }
        Some(Tile(ci(color) as u8 * 11 + value))
    }

    /// The kind with index `i` (`0..KINDS`).
    pub const fn from_index(i: usize) -> Option<Tile> {
        if i < KINDS { Some(Tile(i as u8)) } else { None }
    }

    /// Index `0..KINDS`.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The tile's colour; a disc of the *other* colour wins it.
    pub const fn color(self) -> Color {
        if self.0 < 11 {
            Color::Black
        } else {
            Color::White
        }
    }

    /// The number, `0` for a blank.
    pub const fn value(self) -> u8 {
        self.0 % 11
    }

    /// Whether the tile is blank.
    pub const fn is_blank(self) -> bool {
        self.value() == 0
    }

    /// All kinds, in index order.
    pub fn all() -> impl Iterator<Item = Tile> {
        (0..KINDS as u8).map(Tile)
    }
}

/// `x7`, `o10`; a blank is `x-` / `o-`.
impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = match self.color() {
            Color::Black => 'x',
            Color::White => 'o',
        };
        if self.is_blank() {
            write!(f, "{c}-")
        } else {
            write!(f, "{c}{}", self.value())
        }
    }
}

/// Count of each tile kind (index [`Tile::index`]).
pub type TileCounts = [u8; KINDS];

/// The 24 tiles of a game: numbers 1–10 once and the blank twice, per colour.
pub fn full_set() -> TileCounts {
    let mut c = [1u8; KINDS];
    c[0] = 2;
    c[11] = 2;
    c
}

/// Sum of the numbers of `won`, doubled when all four blanks are in it.
pub fn variant_score(won: &TileCounts) -> u32 {
    let sum: u32 = Tile::all()
        .map(|t| u32::from(won[t.index()]) * u32::from(t.value()))
        .sum();
    if won[0] == 2 && won[11] == 2 {
        2 * sum
    } else {
        sum
    }
}

/// What the player maximises.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub enum Objective {
    /// Number of tiles won (the base game).
    #[default]
    Tiles,
    /// Sum of the numbers, doubled with all four blanks (the variant).
    Variant,
}

/// Error from parsing a layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// A word that is not a square name.
    BadSquare(String),
    /// Not 24 squares.
    Count(usize),
    /// A square named twice.
    Duplicate(Square),
    /// A square holding a start disc.
    OnDisc(Square),
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::BadSquare(s) => write!(f, "invalid square '{s}' in layout"),
            LayoutError::Count(n) => write!(f, "a layout needs 24 squares, got {n}"),
            LayoutError::Duplicate(s) => write!(f, "square {s} named twice in layout"),
            LayoutError::OnDisc(s) => write!(f, "layout square {s} holds a start disc"),
        }
    }
}

impl std::error::Error for LayoutError {}

/// The 24 squares that receive tiles at the start.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Layout(u64);

impl Layout {
    /// A layout from a bitboard of exactly 24 squares, none in the centre.
    ///
    /// # Errors
    /// Wrong count, or a centre square.
    pub fn from_bits(b: u64) -> Result<Layout, LayoutError> {
        if let Some(sq) = Squares(b & crate::bitboard::CENTRE).next() {
            return Err(LayoutError::OnDisc(sq));
        }
        if b.count_ones() as usize != TILES {
            return Err(LayoutError::Count(b.count_ones() as usize));
        }
        Ok(Layout(b))
    }

    /// The squares as a bitboard.
    pub const fn bits(self) -> u64 {
        self.0
    }
}

impl Default for Layout {
    fn default() -> Layout {
        DEFAULT_LAYOUT.parse().expect("default layout")
    }
}

/// Square names separated by spaces or commas, in any order.
impl FromStr for Layout {
    type Err = LayoutError;
    fn from_str(s: &str) -> Result<Layout, LayoutError> {
        let mut b = 0u64;
        let mut n = 0;
        for w in s.split([' ', ',', '\t']).filter(|w| !w.is_empty()) {
            let sq: Square = w.parse().map_err(|_| LayoutError::BadSquare(w.into()))?;
            if b & sq.bit() != 0 {
                return Err(LayoutError::Duplicate(sq));
            }
            b |= sq.bit();
            n += 1;
        }
        if n != TILES {
            return Err(LayoutError::Count(n));
        }
        Layout::from_bits(b)
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = Squares(self.0).map(|s| s.to_string()).collect();
        f.write_str(&names.join(" "))
    }
}

/// A move: a disc of `color` on `square`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct SoloMove {
    /// Colour of the new disc.
    pub color: Color,
    /// Where it goes.
    pub square: Square,
}

/// Error from parsing a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSoloMoveError(pub String);

impl fmt::Display for ParseSoloMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid move '{}' (expected a colour and a square, e.g. 'x f4' or 'o c5')",
            self.0
        )
    }
}

impl std::error::Error for ParseSoloMoveError {}

/// `x f4`, `O c5`, `xf4` (colour `x`/`b`/`*` or `o`/`w`, then a square).
impl FromStr for SoloMove {
    type Err = ParseSoloMoveError;
    fn from_str(s: &str) -> Result<SoloMove, ParseSoloMoveError> {
        let err = || ParseSoloMoveError(s.trim().to_string());
        let t = s.trim();
        let mut ch = t.chars();
        let color = match ch.next().map(|c| c.to_ascii_lowercase()) {
            Some('x' | 'b' | '*') => Color::Black,
            Some('o' | 'w') => Color::White,
            _ => return Err(err()),
        };
        let square = ch.as_str().trim().parse().map_err(|_| err())?;
        Ok(SoloMove { color, square })
    }
}

impl fmt::Display for SoloMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = match self.color {
            Color::Black => 'x',
            Color::White => 'o',
        };
        write!(f, "{c} {}", self.square)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_and_layout() {
        assert_eq!(full_set().iter().map(|&n| u32::from(n)).sum::<u32>(), 24);
        let mut all = full_set();
        assert_eq!(variant_score(&all), 220);
        all[0] = 1;
        assert_eq!(variant_score(&all), 110);
        let l = Layout::default();
        assert_eq!(l.to_string().parse::<Layout>().unwrap(), l);
        for s in 0..8 {
            assert_eq!(crate::bitboard::symmetry(l.bits(), s), l.bits());
        }
        assert!(matches!(
            "a1 a1".parse::<Layout>(),
            Err(LayoutError::Duplicate(_))
        ));
        assert!(matches!("a1".parse::<Layout>(), Err(LayoutError::Count(1))));
        let t = Tile::new(Color::White, 0).unwrap();
        assert_eq!(t.to_string(), "o-");
        assert_eq!(Tile::new(Color::Black, 10).unwrap().to_string(), "x10");
    }

    #[test]
    fn move_parse() {
        let m: SoloMove = "X F4".parse().unwrap();
        assert_eq!(m.to_string(), "x f4");
        assert_eq!("of4".parse::<SoloMove>().unwrap().to_string(), "o f4");
        for bad in ["", "x", "f4", "x i9", "z f4", "x f4 e3"] {
            assert!(bad.parse::<SoloMove>().is_err(), "{bad}");
        }
    }
}
