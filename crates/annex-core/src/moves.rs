//! Moves under every rule option, move lists and move notation.
//!
//! A [`Move`] is a pass, a square (all bracketed lines turn, or a placement
//! ply of the `free` start), or a square plus a direction (`one-line` flips
//! when the square brackets several lines). Under `flips one-line` a square
//! that brackets exactly one line is written and stored as the plain square:
//! playing it turns that line, which is the same as turning "all" of them.
//!
//! ```
//! use annex_core::board::Board;
//! use annex_core::moves::{Move, MoveList};
//! use annex_core::rules::RuleSet;
//! let list = MoveList::generate(&Board::start(), &RuleSet::default());
//! let names: Vec<String> = list.iter().map(|m| m.to_string()).collect();
//! assert_eq!(names, ["d3", "c4", "f5", "e6"]);
//! ```

use crate::bitboard::{CENTRE, Squares};
use crate::board::{Board, flips, flips_dir};
use crate::rules::{FastPath, RuleSet};
use crate::square::{Direction, Square};
use std::fmt;

const PASS_SQ: u8 = 64;
const NO_DIR: u8 = 8;

/// A move: pass, square, or square + direction.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Move {
    sq: u8,
    dir: u8,
}

impl Move {
    /// The pass move.
    pub const PASS: Move = Move {
        sq: PASS_SQ,
        dir: NO_DIR,
    };

    /// A move on `sq` turning every bracketed line (or a placement).
    #[inline]
    pub const fn square(sq: Square) -> Move {
        Move {
            sq: sq.index() as u8,
            dir: NO_DIR,
        }
    }

    /// A one-line move on `sq` turning only the line towards `dir`.
    #[inline]
    pub const fn line(sq: Square, dir: Direction) -> Move {
        Move {
            sq: sq.index() as u8,
            dir: dir as u8,
        }
    }

    /// Whether this is the pass.
    #[inline]
    pub const fn is_pass(self) -> bool {
        self.sq == PASS_SQ
    }

    /// The square, `None` for a pass.
    #[inline]
    pub fn to_square(self) -> Option<Square> {
        Square::new(self.sq)
    }

    /// The direction of a one-line move.
    #[inline]
    pub fn direction(self) -> Option<Direction> {
        Direction::from_index(self.dir)
    }

    /// A compact 16-bit code (`sq | dir << 7`), for tables.
    #[inline]
    pub const fn to_u16(self) -> u16 {
        self.sq as u16 | (self.dir as u16) << 7
    }

    /// Inverse of [`Move::to_u16`]; `None` for codes no move has.
    pub fn from_u16(c: u16) -> Option<Move> {
        let sq = (c & 0x7f) as u8;
        let dir = (c >> 7) as u8;
        if sq > PASS_SQ || dir > NO_DIR || (sq == PASS_SQ && dir != NO_DIR) {
            None
        } else {
            Some(Move { sq, dir })
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.to_square(), self.direction()) {
            (None, _) => f.write_str("pass"),
            (Some(s), None) => write!(f, "{s}"),
            (Some(s), Some(d)) => write!(f, "{s}:{d}"),
        }
    }
}

/// The pass tokens accepted on input (`RULES.md`), compared case-insensitively.
pub const PASS_TOKENS: [&str; 5] = ["pass", "ps", "pa", "--", "@@"];

/// Whether `s` is one of the pass tokens.
pub fn is_pass_token(s: &str) -> bool {
    PASS_TOKENS.iter().any(|t| t.eq_ignore_ascii_case(s))
}

/// Error from parsing or checking a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The text is no move at all.
    Syntax(String),
    /// A well-formed move that is not legal here.
    Illegal(String),
    /// `f5` under one-line flips where f5 brackets several lines.
    Ambiguous(String),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax(t) => write!(
                f,
                "invalid move '{t}' (expected a square like f5, f5:ne, or pass)"
            ),
            MoveError::Illegal(t) => write!(f, "illegal move '{t}'"),
            MoveError::Ambiguous(t) => write!(
                f,
                "ambiguous move '{t}': it brackets several lines, add a direction such as {t}:n"
            ),
        }
    }
}

impl std::error::Error for MoveError {}

impl std::str::FromStr for Move {
    type Err = MoveError;
    /// Parses the syntax only (`f5`, `F5`, `f5:ne`, pass tokens); legality is
    /// checked by [`MoveList::find`].
    fn from_str(s: &str) -> Result<Move, MoveError> {
        let t = s.trim();
        if is_pass_token(t) {
            return Ok(Move::PASS);
        }
        let (sq, dir) = match t.split_once(':') {
            Some((a, b)) => (a, Some(b)),
            None => (t, None),
        };
        let sq: Square = sq.parse().map_err(|_| MoveError::Syntax(s.to_string()))?;
        match dir {
            None => Ok(Move::square(sq)),
            Some(d) => {
                let d: Direction = d.parse().map_err(|_| MoveError::Syntax(s.to_string()))?;
                Ok(Move::line(sq, d))
            }
        }
    }
}

/// Most moves a position can have: 60 squares × 8 lines bounds one-line
/// flips (in practice far fewer); 64 covers every flips-all position.
pub const MAX_MOVES: usize = 256;

/// A fixed-capacity list of legal moves.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList {
            moves: [Move::PASS; MAX_MOVES],
            len: 0,
        }
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl MoveList {
    /// The legal moves of `board` under `rules`. Empty when the side to move
    /// must pass (or the game is over); the pass is never listed.
    pub fn generate(board: &Board, rules: &RuleSet) -> MoveList {
        let mut list = MoveList::default();
        if board.is_placement(rules) {
            for sq in Squares(CENTRE & board.empty()) {
                list.push(Move::square(sq));
            }
            return list;
        }
        let legal = board.legal_moves();
        match rules.fast_path() {
            // Flips all: one plain move per square.
            FastPath::Bitboard => {
                for sq in Squares(legal) {
                    list.push(Move::square(sq));
                }
            }
            // Flips one-line: a move per bracketed line.
            FastPath::General => {
                for sq in Squares(legal) {
                    let first = list.len;
                    for d in Direction::ALL {
                        if flips_dir(board.player, board.opponent, sq.index(), d) != 0 {
                            list.push(Move::line(sq, d));
                        }
                    }
                    if list.len - first == 1 {
                        list.moves[first] = Move::square(sq);
                    }
                }
            }
        }
        list
    }

    #[inline]
    fn push(&mut self, m: Move) {
        self.moves[self.len] = m;
        self.len += 1;
    }

    /// Number of moves.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no move (a pass or the end of the game).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The moves as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    /// Iterates over the moves.
    pub fn iter(&self) -> impl Iterator<Item = Move> + '_ {
        self.as_slice().iter().copied()
    }

    /// Whether `m` is in the list.
    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }

    /// The legal move meant by `m` (as parsed), or why there is none. Under
    /// one-line flips, `f5` alone is ambiguous when it brackets several lines.
    /// A pass is accepted exactly when the list is empty. `f5:ne` naming
    /// the single line of a plain `f5` needs the board: see
    /// [`MoveList::find_on`].
    ///
    /// # Errors
    /// [`MoveError::Illegal`] or [`MoveError::Ambiguous`].
    pub fn find(&self, m: Move) -> Result<Move, MoveError> {
        if m.is_pass() {
            return if self.is_empty() {
                Ok(m)
            } else {
                Err(MoveError::Illegal(m.to_string()))
            };
        }
        if self.contains(m) {
            return Ok(m);
        }
        let sq = m.sq;
        let same_sq = self.iter().filter(|x| x.sq == sq).count();
        if m.dir == NO_DIR && same_sq > 1 {
            return Err(MoveError::Ambiguous(m.to_string()));
        }
        Err(MoveError::Illegal(m.to_string()))
    }

    /// Like [`MoveList::find`], also resolving `f5:ne` to `f5` when f5
    /// brackets only the line towards ne on `board` (under either flips
    /// option; a direction that is not the only bracketed line is illegal).
    ///
    /// # Errors
    /// As [`MoveList::find`].
    pub fn find_on(&self, board: &Board, m: Move) -> Result<Move, MoveError> {
        match self.find(m) {
            Ok(x) => Ok(x),
            Err(e) => {
                if let (Some(sq), Some(d)) = (m.to_square(), m.direction()) {
                    let plain = Move::square(sq);
                    // Only when that line is all the plain move turns: under
                    // flips all, f5:ne must not stand for an f5 that turns
                    // other lines too.
                    let (p, o, i) = (board.player, board.opponent, sq.index());
                    let line = flips_dir(p, o, i, d);
                    if self.contains(plain) && line != 0 && line == flips(p, o, i) {
                        return Ok(plain);
                    }
                }
                Err(e)
            }
        }
    }
}

/// Plays move `m`, which must be legal on `board` under `rules` (a pass
/// only when there is no move). Handles placements of the `free` start:
/// X places twice, then O twice; the side to move switches after the
/// second and fourth disc.
#[inline]
pub fn play_unchecked(board: &Board, rules: &RuleSet, m: Move) -> Board {
    let Some(sq) = m.to_square() else {
        return board.pass();
    };
    let i = sq.index();
    if board.is_placement(rules) {
        let placed = Board::new(board.player | sq.bit(), board.opponent);
        return if placed.occupied().count_ones().is_multiple_of(2) {
            placed.pass()
        } else {
            placed
        };
    }
    let f = match m.direction() {
        None => flips(board.player, board.opponent, i),
        Some(d) => flips_dir(board.player, board.opponent, i, d),
    };
    board.play_flips(i, f)
}

/// The fast path at `board`: the rule set's ([`RuleSet::fast_path`]),
/// except during the placement plies of `start free`, whose moves are
/// placements that turn nothing. A board past them never returns to them.
#[inline]
pub fn fast_path(board: &Board, rules: &RuleSet) -> FastPath {
    if board.is_placement(rules) {
        FastPath::General
    } else {
        rules.fast_path()
    }
}

/// Checks `m` against the legal moves and plays it; returns the move as
/// normalised (see [`MoveList::find_on`]) and the new board.
///
/// # Errors
/// The move is illegal or ambiguous here.
pub fn play(board: &Board, rules: &RuleSet, m: Move) -> Result<(Move, Board), MoveError> {
    let list = MoveList::generate(board, rules);
    let m = list.find_on(board, m)?;
    if m.is_pass() {
        // A pass is legal only when the side to move has no move but the
        // opponent has one; at the end of the game there is nothing to play.
        if MoveList::generate(&board.pass(), rules).is_empty() {
            return Err(MoveError::Illegal(m.to_string()));
        }
    }
    Ok((m, play_unchecked(board, rules, m)))
}

/// Whether the game is over under `rules`: neither side can move.
pub fn is_game_over(board: &Board, rules: &RuleSet) -> bool {
    if board.is_placement(rules) {
        return false;
    }
    board.is_game_over()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for sq in Square::all() {
            for m in [Move::square(sq)]
                .into_iter()
                .chain(Direction::ALL.map(|d| Move::line(sq, d)))
            {
                assert_eq!(Move::from_u16(m.to_u16()), Some(m));
                assert_eq!(m.to_string().parse::<Move>().unwrap(), m);
            }
        }
        assert_eq!(Move::from_u16(Move::PASS.to_u16()), Some(Move::PASS));
        for t in ["pass", "PS", "pa", "--", "@@"] {
            assert_eq!(t.parse::<Move>().unwrap(), Move::PASS);
        }
        for bad in ["", "f9", "f5:", "f5:up", "z", "f5ne", "pas"] {
            assert!(bad.parse::<Move>().is_err(), "{bad}");
        }
    }

    #[test]
    fn free_start_placements() {
        let mut r = RuleSet::default();
        r.set("start", "free").unwrap();
        let mut b = Board::start_for(r.start);
        // X, X, O, O, then X moves normally.
        let seq = ["d4", "e5", "d5", "e4"];
        let mut x_is_player = true;
        let mut xs = 0u64;
        for (i, s) in seq.iter().enumerate() {
            let l = MoveList::generate(&b, &r);
            assert_eq!(l.len(), 4 - i);
            let (_, nb) = play(&b, &r, s.parse().unwrap()).unwrap();
            if i < 2 {
                xs |= s.parse::<Square>().unwrap().bit();
            }
            b = nb;
            if i == 1 || i == 3 {
                x_is_player = !x_is_player;
            }
        }
        assert!(x_is_player);
        assert_eq!(b.player, xs);
        assert!(!b.is_placement(&r));
        assert_eq!(MoveList::generate(&b, &r).len(), 4);
    }

    #[test]
    fn one_line_moves() {
        let mut r = RuleSet::default();
        r.set("flips", "one-line").unwrap();
        // X: a1, c1; O: b1, b2 ... construct a square bracketing two lines.
        // X on a3 and c3; O on b2 (between a3? no). Use: X at e1 and a5,
        // O at d2 ... simpler: X to move at d1 brackets d2 (S, X at d3) and
        // c1 (W, X at b1).
        let sq = |s: &str| s.parse::<Square>().unwrap().bit();
        let b = Board::new(sq("d3") | sq("b1"), sq("d2") | sq("c1"));
        let l = MoveList::generate(&b, &r);
        let d1 = "d1".parse::<Square>().unwrap();
        assert!(l.contains(Move::line(d1, Direction::S)));
        assert!(l.contains(Move::line(d1, Direction::W)));
        assert_eq!(
            l.find(Move::square(d1)),
            Err(MoveError::Ambiguous("d1".into()))
        );
        let (_, nb) = play(&b, &r, "d1:s".parse().unwrap()).unwrap();
        assert_eq!(nb.opponent, sq("d3") | sq("b1") | sq("d1") | sq("d2"));
        assert_eq!(nb.player, sq("c1"));
    }
}
