//! The solo puzzle of `RULES.md` (Reiner Knizia's "Solospiel", rulebook
//! `000_…`): one person plays both colours and tries to win 24 tiles.
//!
//! # Rules, as implemented
//! - 24 tile squares ([`Layout`], default
//!   `c1 f1 b2 d2 e2 g2 a3 c3 f3 h3 b4 g4 b5 g5 a6 c6 f6 h6 b7 d7 e7 g7 c8 f8`)
//!   hold 12 tiles of each colour, numbered 1–10 plus two blanks, shuffled
//!   face down. The centre discs stand as in the `diagonal` start.
//! - A move ([`SoloMove`]) is a colour and an empty square (no disc, no
//!   tile). In order: the disc is placed; every bracketed line of discs of
//!   the other colour turns (a tile ends a line like an empty square); every
//!   face-up tile of the other colour lying directly between the new disc
//!   and a disc of its colour (disc–tile–disc, no gap, 8 directions, several
//!   at once) is won and its square becomes empty; then every face-down tile
//!   orthogonally next to the new disc is turned face up. A move is legal
//!   when it turns at least one disc or wins at least one tile.
//! - The game ends when every tile is won or no move is left; the player
//!   may stop at any time. Score: tiles won ([`Objective::Tiles`]); variant
//!   score: the sum of their numbers, doubled when all four blanks were won
//!   ([`Objective::Variant`]).
//!
//! The order "turn, then take" cannot change an outcome: the disc beyond a
//! won tile lies two steps from the new disc in the tile's direction, and a
//! disc turned by the same move lies on a line whose first step is a disc,
//! not a tile. The code still follows the rulebook order.
//!
//! # Information
//! [`SoloState`] is what the player sees: discs, tile squares, the identity
//! of face-up tiles, the multiset of tiles still face down and the tiles
//! won. [`Deal`] is the hidden truth (which tile lies on each square);
//! [`SoloGame`] pairs the two and reveals tiles from the deal. Since tiles
//! are turned up by position only, every arrangement of the hidden
//! multiset on the face-down squares is equally likely given what the
//! player saw ([`Deal::sample`]).
//!
//! ```
//! use annex::solo::{Layout, SoloGame, SoloMove};
//! let mut g = SoloGame::deal(&Layout::default(), 1);
//! assert_eq!(g.state().legal_moves().len(), 8); // 4 per colour
//! let m: SoloMove = "x d3".parse().unwrap();
//! let fx = g.play(m).unwrap();
//! assert_eq!(fx.flipped.count_ones(), 1);
//! assert_eq!(fx.revealed.count_ones(), 2); // c3 and d2
//! ```

mod game;
pub mod player;
pub mod cli;
mod types;

pub use game::{Deal, SoloGame};
pub use types::{
    DEFAULT_LAYOUT, KINDS, Layout, LayoutError, Objective, ParseSoloMoveError, SoloMove, TILES,
    Tile, TileCounts, full_set, variant_score,
};

use crate::bitboard::{Squares, shift};
use crate::board::{Color, flips, legal_moves};
use crate::rules::Start;
use crate::square::{Direction, Square};
use std::fmt;
use types::ci;

const ORTHO: [Direction; 4] = [Direction::N, Direction::E, Direction::S, Direction::W];

/// The four orthogonal neighbours of the squares of `b`.
#[inline]
fn ortho(b: u64) -> u64 {
    ORTHO.iter().fold(0, |acc, &d| acc | shift(b, d))
}

/// What a move did, as bitboards.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct MoveEffect {
    /// Discs turned.
    pub flipped: u64,
    /// Squares whose tiles were won.
    pub captured: u64,
    /// Squares whose tiles were turned face up.
    pub revealed: u64,
}

/// Why a move or a setup was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SoloError {
    /// The square holds a disc or a tile.
    Occupied(SoloMove),
    /// The move turns no disc and wins no tile.
    NoEffect(SoloMove),
    /// The game is over.
    GameOver,
    /// A revealed tile is not among the hidden tiles, or a setup is
    /// inconsistent.
    Inconsistent(String),
}

impl fmt::Display for SoloError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SoloError::Occupied(m) => write!(f, "illegal move '{m}': the square is not empty"),
            SoloError::NoEffect(m) => {
                write!(f, "illegal move '{m}': it turns no disc and wins no tile")
            }
            SoloError::GameOver => write!(f, "the game is over"),
            SoloError::Inconsistent(s) => write!(f, "inconsistent tiles: {s}"),
        }
    }
}

impl std::error::Error for SoloError {}

/// What the player knows: everything but the identity of face-down tiles.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct SoloState {
    discs: [u64; 2],
    tiles: u64,
    up: [u64; 2],
    up_kind: [Option<Tile>; 64],
    hidden: TileCounts,
    won: TileCounts,
}

impl SoloState {
    /// The start of a game: diagonal centre discs, all tiles face down.
    pub fn new(layout: &Layout) -> SoloState {
        SoloState::with_start(layout, Start::Diagonal).expect("diagonal start")
    }

    /// The start of a game with the centre discs of `start` (`diagonal` or
    /// `parallel`; the `free` start has no centre discs, so no first move).
    ///
    /// # Errors
    /// The `free` start.
    pub fn with_start(layout: &Layout, start: Start) -> Result<SoloState, SoloError> {
        if start == Start::Free {
            return Err(SoloError::Inconsistent(
                "the solo puzzle starts with four centre discs (start diagonal or parallel)".into(),
            ));
        }
        let b = crate::board::Board::start_for(start);
        Ok(SoloState {
            discs: [b.player, b.opponent],
            tiles: layout.bits(),
            up: [0; 2],
            up_kind: [None; 64],
            hidden: full_set(),
            won: [0; KINDS],
        })
    }

    /// A position from its parts: discs per colour (Black, White), the tiles
    /// on the board with `face_up` marking those turned up. The tiles not on
    /// the board count as won; the face-down ones form the hidden multiset.
    ///
    /// # Errors
    /// Overlapping squares, a face-up square without a tile, or more tiles
    /// of a kind than a game has.
    pub fn from_parts(
        discs: [u64; 2],
        tiles: &[(Square, Tile)],
        face_up: u64,
    ) -> Result<SoloState, SoloError> {
        let bad = |s: String| Err(SoloError::Inconsistent(s));
        if discs[0] & discs[1] != 0 {
            return bad("a square holds discs of both colours".into());
        }
        let mut s = SoloState {
            discs,
            tiles: 0,
            up: [0; 2],
            up_kind: [None; 64],
            hidden: [0; KINDS],
            won: full_set(),
        };
        for &(sq, t) in tiles {
            if (s.tiles | discs[0] | discs[1]) & sq.bit() != 0 {
                return bad(format!("square {sq} holds two things"));
            }
            if s.won[t.index()] == 0 {
                return bad(format!("too many {t} tiles"));
            }
            s.won[t.index()] -= 1;
            s.tiles |= sq.bit();
            if face_up & sq.bit() != 0 {
                s.up[ci(t.color())] |= sq.bit();
                s.up_kind[sq.index()] = Some(t);
            } else {
                s.hidden[t.index()] += 1;
            }
        }
        if face_up & !s.tiles != 0 {
            return bad("a face-up square holds no tile".into());
        }
        Ok(s)
    }

    /// Discs of `c`.
    pub const fn discs(&self, c: Color) -> u64 {
        self.discs[ci(c)]
    }

    /// Squares holding a tile (face up or down).
    pub const fn tiles(&self) -> u64 {
        self.tiles
    }

    /// Squares holding a face-up tile of colour `c`.
    pub const fn face_up(&self, c: Color) -> u64 {
        self.up[ci(c)]
    }

    /// Squares holding a face-down tile.
    pub const fn face_down(&self) -> u64 {
        self.tiles & !(self.up[0] | self.up[1])
    }

    /// Squares with neither a disc nor a tile.
    pub const fn empty(&self) -> u64 {
        !(self.discs[0] | self.discs[1] | self.tiles)
    }

    /// The face-up tile on `sq`, if any.
    pub fn tile_at(&self, sq: Square) -> Option<Tile> {
        self.up_kind[sq.index()]
    }

    /// The disc on `sq`, if any.
    pub fn disc_at(&self, sq: Square) -> Option<Color> {
        if self.discs[0] & sq.bit() != 0 {
            Some(Color::Black)
        } else if self.discs[1] & sq.bit() != 0 {
            Some(Color::White)
        } else {
            None
        }
    }

    /// How many of each kind are still face down.
    pub const fn hidden(&self) -> &TileCounts {
        &self.hidden
    }

    /// How many of each kind have been won.
    pub const fn won(&self) -> &TileCounts {
        &self.won
    }

    /// Number of tiles won.
    pub fn tiles_won(&self) -> u32 {
        self.won.iter().map(|&n| u32::from(n)).sum()
    }

    /// The variant score of the tiles won so far.
    pub fn variant_score(&self) -> u32 {
        variant_score(&self.won)
    }

    /// The score under `obj`.
    pub fn score(&self, obj: Objective) -> u32 {
        match obj {
            Objective::Tiles => self.tiles_won(),
            Objective::Variant => self.variant_score(),
        }
    }

    /// Squares where a disc of `c` would win at least one face-up tile.
    #[inline]
    pub fn capture_squares(&self, c: Color) -> u64 {
        let p = self.discs[ci(c)];
        let prey = self.up[ci(c.other())];
        let mut m = 0;
        for d in Direction::ALL {
            m |= shift(shift(p, d) & prey, d);
        }
        m & self.empty()
    }

    /// Squares where a disc of `c` is legal.
    #[inline]
    pub fn legal_squares(&self, c: Color) -> u64 {
        let p = self.discs[ci(c)];
        let o = self.discs[ci(c.other())];
        (legal_moves(p, o) | self.capture_squares(c)) & self.empty()
    }

    /// Whether any move is legal.
    pub fn has_move(&self) -> bool {
        self.legal_squares(Color::Black) | self.legal_squares(Color::White) != 0
    }

    /// All legal moves, Black's first, each colour by square.
    pub fn legal_moves(&self) -> Vec<SoloMove> {
        let mut v = Vec::new();
        for color in [Color::Black, Color::White] {
            v.extend(Squares(self.legal_squares(color)).map(|square| SoloMove { color, square }));
        }
        v
    }

    /// Whether `m` is legal.
    pub fn is_legal(&self, m: SoloMove) -> bool {
        self.legal_squares(m.color) & m.square.bit() != 0
    }

    /// The tiles a disc of `c` on `sq` would win, given the discs of `c`
    /// after the move's turns (`own`).
    #[inline]
    fn captures_with(&self, c: Color, sq: Square, own: u64) -> u64 {
        let prey = self.up[ci(c.other())];
        let b = sq.bit();
        let mut m = 0;
        for d in Direction::ALL {
            let t = shift(b, d) & prey;
            if shift(t, d) & own != 0 {
                m |= t;
            }
        }
        m
    }

    /// What `m` would do, without the reveals (they need the deal): the
    /// discs it turns and the tiles it wins. Both zero when illegal.
    pub fn effect(&self, m: SoloMove) -> (u64, u64) {
        if self.empty() & m.square.bit() == 0 {
            return (0, 0);
        }
        let c = ci(m.color);
        let f = flips(self.discs[c], self.discs[1 - c], m.square.index());
        let own = self.discs[c] | f | m.square.bit();
        (f, self.captures_with(m.color, m.square, own))
    }

    /// Plays a legal move; `reveal` names the tile on each square turned up.
    /// Unchecked: `m` must be legal and every revealed tile must be hidden.
    pub fn play_unchecked(
        &mut self,
        m: SoloMove,
        mut reveal: impl FnMut(Square) -> Tile,
    ) -> MoveEffect {
        let c = ci(m.color);
        let b = m.square.bit();
        // 1. place, 2. turn discs.
        let flipped = flips(self.discs[c], self.discs[1 - c], m.square.index());
        self.discs[c] |= b | flipped;
        self.discs[1 - c] &= !flipped;
        // 3. take tiles.
        let captured = self.captures_with(m.color, m.square, self.discs[c]);
        for sq in Squares(captured) {
            let t = self.up_kind[sq.index()].take().expect("face-up tile");
            self.won[t.index()] += 1;
        }
        self.tiles &= !captured;
        self.up[1 - c] &= !captured;
        // 4. turn up orthogonal neighbours.
        let revealed = ortho(b) & self.face_down();
        for sq in Squares(revealed) {
            let t = reveal(sq);
            debug_assert!(self.hidden[t.index()] > 0);
            self.hidden[t.index()] -= 1;
            self.up[ci(t.color())] |= sq.bit();
            self.up_kind[sq.index()] = Some(t);
        }
        MoveEffect {
            flipped,
            captured,
            revealed,
        }
    }

    /// Plays `m` if legal, with `reveal` naming each tile turned up; the
    /// state is unchanged on error.
    ///
    /// # Errors
    /// An illegal move, or a revealed tile that is not hidden.
    pub fn play(
        &mut self,
        m: SoloMove,
        mut reveal: impl FnMut(Square) -> Tile,
    ) -> Result<MoveEffect, SoloError> {
        if self.empty() & m.square.bit() == 0 {
            return Err(SoloError::Occupied(m));
        }
        if !self.is_legal(m) {
            return Err(SoloError::NoEffect(m));
        }
        let to_reveal = ortho(m.square.bit()) & self.face_down();
        let mut left = self.hidden;
        let mut named = Vec::new();
        for sq in Squares(to_reveal) {
            let t = reveal(sq);
            if left[t.index()] == 0 {
                return Err(SoloError::Inconsistent(format!(
                    "{t} on {sq} is not among the hidden tiles"
                )));
            }
            left[t.index()] -= 1;
            named.push(t);
        }
        let mut it = named.into_iter();
        Ok(self.play_unchecked(m, |_| it.next().expect("named tile")))
    }

    /// The face-down tiles that `m` would turn up.
    pub fn reveals(&self, m: SoloMove) -> u64 {
        ortho(m.square.bit()) & self.face_down()
    }

    /// Tiles that no later move can win: on each of the 4 lines through
    /// the tile, one neighbour is off the board or both are discs (discs
    /// never leave the board).
    pub fn dead_tiles(&self) -> u64 {
        let free = !(self.discs[0] | self.discs[1]);
        let mut alive = 0;
        for (a, b) in [
            (Direction::N, Direction::S),
            (Direction::E, Direction::W),
            (Direction::NE, Direction::SW),
            (Direction::NW, Direction::SE),
        ] {
            let both = shift(!0, a) & shift(!0, b);
            alive |= both & (shift(free, a) | shift(free, b));
        }
        self.tiles & !alive
    }

    /// Whether the game is over: no tile left, or no legal move.
    pub fn is_over(&self) -> bool {
        self.tiles == 0 || !self.has_move()
    }

    /// Whether the score can no longer change: game over, or every tile left
    /// is dead (see [`SoloState::dead_tiles`]).
    pub fn is_settled(&self) -> bool {
        self.tiles == 0 || self.dead_tiles() == self.tiles || !self.has_move()
    }
}

/// The board: `X`/`O` discs, `.` empty, `##` a face-down tile, a face-up
/// tile by its name (`x7`, `o-`); then the tiles won.
impl fmt::Display for SoloState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "    a   b   c   d   e   f   g   h")?;
        for r in 0..8u8 {
            write!(f, "{}", r + 1)?;
            for c in 0..8u8 {
                let sq = Square::from_coords(c, r).expect("on board");
                let cell = match (self.disc_at(sq), self.tile_at(sq)) {
                    (Some(d), _) => d.to_char().to_string(),
                    (None, Some(t)) => t.to_string(),
                    (None, None) if self.tiles & sq.bit() != 0 => "##".into(),
                    _ => ".".into(),
                };
                write!(f, " {cell:>3}")?;
            }
            writeln!(f)?;
        }
        let won: Vec<String> = Tile::all()
            .flat_map(|t| std::iter::repeat_n(t.to_string(), self.won[t.index()].into()))
            .collect();
        write!(
            f,
            "won {} tiles (variant {}): {}",
            self.tiles_won(),
            self.variant_score(),
            if won.is_empty() {
                "-".into()
            } else {
                won.join(" ")
            }
        )
    }
}
