//! The opening book: positions (in symmetry-canonical form) with scored
//! moves, a compact binary file format, lookup, and building from games
//! ([`build`]).
//!
//! File format (little endian), version 1:
//! `b"ANXBOOK\0"`, `u32` version, `u32` position count, then per position
//! `u64` player, `u64` opponent (canonical form, side to move first),
//! `u8` move count, and per move `u8` square (in the canonical
//! orientation), `i8` score (discs, for the side to move, negamaxed
//! through the book), `u32` number of games that played it.
//!
//! The book is built for the default (Othello) rules and is consulted only
//! under them.
//!
//! ```
//! use annex_core::book::Book;
//! let book = Book::default_book();
//! let start = annex_core::position::Position::start(&Default::default());
//! // Every first move is equivalent by symmetry: the book knows one.
//! assert!(book.best_move(&start.board).is_some());
//! ```

pub mod build;

use crate::bitboard::symmetry_square;
use crate::board::Board;
use crate::moves::Move;
use crate::square::Square;
use std::collections::HashMap;
use std::fmt;

const MAGIC: &[u8; 8] = b"ANXBOOK\0";
/// The largest book file read: 64 MiB, two million positions or more,
/// decoded in well under a second.
pub const MAX_BOOK_BYTES: u64 = 64 << 20;
const VERSION: u32 = 1;

/// The committed default book (see `book/README.md`).
static DEFAULT_BOOK: &[u8] = include_bytes!("../../../../book/annex.book");

/// One book move as stored (canonical orientation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// Square index in the canonical orientation.
    pub sq: u8,
    /// Score in discs for the side to move.
    pub score: i8,
    /// Games that played it.
    pub games: u32,
}

/// A move of the book, mapped back to the queried board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookChoice {
    /// The move on the queried board.
    pub mv: Move,
    /// Score in discs for the side to move.
    pub score: i32,
    /// Games that played it.
    pub games: u32,
}

/// Error from loading a book file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BookError {
    /// Not a book file.
    Magic,
    /// A version this build does not read.
    Version(u32),
    /// The file ends inside an entry.
    Truncated,
    /// An entry whose board or move is impossible.
    Corrupt(String),
    /// The file could not be read.
    Io(String),
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Magic => write!(f, "not an Annex book file (bad magic)"),
            BookError::Version(v) => {
                write!(f, "book version {v} not supported (expected {VERSION})")
            }
            BookError::Truncated => write!(f, "book file is truncated"),
            BookError::Corrupt(s) => write!(f, "book file is corrupt: {s}"),
            BookError::Io(s) => write!(f, "cannot read book: {s}"),
        }
    }
}

impl std::error::Error for BookError {}

/// An opening book.
#[derive(Clone, Debug, Default)]
pub struct Book {
    entries: HashMap<Board, Vec<BookMove>>,
}

/// The square `t` such that symmetry `s` maps `t` to `sq`.
fn inverse_square(sq: u8, s: u8) -> Square {
    Square::all()
        .find(|&t| symmetry_square(t, s).index() == sq as usize)
        .unwrap_or(Square::from_index_unchecked(0))
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], BookError> {
        let s = self
            .b
            .get(self.at..self.at + N)
            .ok_or(BookError::Truncated)?;
        self.at += N;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }
}

impl Book {
    /// The embedded default book.
    pub fn default_book() -> Book {
        // The committed file is checked by a unit test; an error here would
        // only mean an empty book, never a crash.
        Book::from_bytes(DEFAULT_BOOK).unwrap_or_else(|e| {
            log::error!("embedded book: {e}");
            Book::default()
        })
    }

    /// The embedded default book, decoded once per process and shared.
    pub fn shared_default() -> std::sync::Arc<Book> {
        static DEFAULT: std::sync::OnceLock<std::sync::Arc<Book>> = std::sync::OnceLock::new();
        DEFAULT
            .get_or_init(|| std::sync::Arc::new(Book::default_book()))
            .clone()
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Adds or replaces the moves of a position (any orientation).
    pub fn insert(&mut self, board: &Board, moves: Vec<(Square, i8, u32)>) {
        let (key, s) = board.unique();
        let v = moves
            .into_iter()
            .map(|(sq, score, games)| BookMove {
                sq: symmetry_square(sq, s).index() as u8,
                score,
                games,
            })
            .collect();
        self.entries.insert(key, v);
    }

    /// The book moves of `board`, best score first (ties: more games).
    pub fn lookup(&self, board: &Board) -> Vec<BookChoice> {
        let (key, s) = board.unique();
        let Some(v) = self.entries.get(&key) else {
            return Vec::new();
        };
        let mut out: Vec<BookChoice> = v
            .iter()
            .map(|m| BookChoice {
                mv: Move::square(inverse_square(m.sq, s)),
                score: m.score as i32,
                games: m.games,
            })
            .collect();
        out.sort_by(|a, b| b.score.cmp(&a.score).then(b.games.cmp(&a.games)));
        out
    }

    /// Every book move of `board` with its symmetric images: where `board`
    /// is symmetric, a stored move stands for each square the board's
    /// symmetries map it to (at the start, f5 is also d3, c4 and e6), with
    /// the stored move's statistics. A square met twice keeps its first
    /// statistics, the stored orientation's first. Best score first (ties:
    /// more games, then the order found).
    pub fn lookup_all(&self, board: &Board) -> Vec<BookChoice> {
        let (key, s) = board.unique();
        let Some(v) = self.entries.get(&key) else {
            return Vec::new();
        };
        let mut out: Vec<BookChoice> = Vec::new();
        let same = (0..8u8).filter(|&t| t != s && board.symmetry(t) == key);
        for t in std::iter::once(s).chain(same) {
            for m in v {
                let mv = Move::square(inverse_square(m.sq, t));
                if out.iter().all(|c| c.mv != mv) {
                    out.push(BookChoice {
                        mv,
                        score: m.score as i32,
                        games: m.games,
                    });
                }
            }
        }
        out.sort_by(|a, b| b.score.cmp(&a.score).then(b.games.cmp(&a.games)));
        out
    }

    /// The best book move of `board`, if it is in the book.
    pub fn best_move(&self, board: &Board) -> Option<BookChoice> {
        self.lookup(board).into_iter().next()
    }

    /// Decodes a book file.
    ///
    /// # Errors
    /// Bad magic, unknown version, truncation, or impossible entries.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        let mut r = Reader { b: bytes, at: 0 };
        if &r.take::<8>().map_err(|_| BookError::Magic)? != MAGIC {
            return Err(BookError::Magic);
        }
        let version = u32::from_le_bytes(r.take()?);
        if version != VERSION {
            return Err(BookError::Version(version));
        }
        let n = u32::from_le_bytes(r.take()?) as usize;
        let mut entries = HashMap::with_capacity(n.min(1 << 22));
        for _ in 0..n {
            let p = u64::from_le_bytes(r.take()?);
            let o = u64::from_le_bytes(r.take()?);
            if p & o != 0 {
                return Err(BookError::Corrupt(format!(
                    "overlapping discs {p:#x} {o:#x}"
                )));
            }
            let k = r.take::<1>()?[0] as usize;
            let mut moves = Vec::with_capacity(k);
            for _ in 0..k {
                let [sq, score] = r.take::<2>()?;
                let games = u32::from_le_bytes(r.take()?);
                if sq >= 64 || (p | o) & (1 << sq) != 0 {
                    return Err(BookError::Corrupt(format!("move square {sq}")));
                }
                moves.push(BookMove {
                    sq,
                    score: score as i8,
                    games,
                });
            }
            entries.insert(Board::new(p, o), moves);
        }
        if r.at != bytes.len() {
            return Err(BookError::Corrupt("trailing bytes".into()));
        }
        Ok(Book { entries })
    }

    /// Reads a book file: the path must name a regular file of at most
    /// [`MAX_BOOK_BYTES`] (a FIFO or a device is refused before it is
    /// opened, so nothing blocks or grows without bound).
    ///
    /// # Errors
    /// I/O errors and those of [`Book::from_bytes`], all as
    /// [`BookError::Io`] naming the path: `cannot read book: <path>: …`.
    pub fn load(path: &std::path::Path) -> Result<Book, BookError> {
        let at = |e: &dyn fmt::Display| BookError::Io(format!("{}: {e}", path.display()));
        let b = crate::fileio::read_bounded(path, MAX_BOOK_BYTES).map_err(|e| at(&e))?;
        Book::from_bytes(&b).map_err(|e| at(&e))
    }

    /// Encodes the book (positions in a deterministic order).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut keys: Vec<&Board> = self.entries.keys().collect();
        keys.sort();
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(keys.len() as u32).to_le_bytes());
        for k in keys {
            let v = &self.entries[k];
            out.extend_from_slice(&k.player.to_le_bytes());
            out.extend_from_slice(&k.opponent.to_le_bytes());
            out.push(v.len().min(255) as u8);
            for m in v.iter().take(255) {
                out.push(m.sq);
                out.push(m.score as u8);
                out.extend_from_slice(&m.games.to_le_bytes());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moves::MoveList;
    use crate::rules::RuleSet;

    #[test]
    fn round_trip_and_symmetry() {
        let b = Board::start();
        let f5: Square = "f5".parse().unwrap();
        let mut book = Book::default();
        book.insert(&b, vec![(f5, 0, 10)]);
        let back = Book::from_bytes(&book.to_bytes()).unwrap();
        // Every symmetric image of the start position answers a move
        // equivalent to f5 (the start is itself symmetric, so several
        // images of f5 are right).
        let want = b.play_square(f5.index()).unique().0;
        for s in 0..8 {
            let bs = b.symmetry(s);
            let c = back.best_move(&bs).unwrap();
            let sq = c.mv.to_square().unwrap();
            assert_eq!(bs.play_square(sq.index()).unique().0, want, "symmetry {s}");
        }
        // An asymmetric position maps its move exactly.
        let after = b.play_square(f5.index());
        let d6: Square = "d6".parse().unwrap();
        book.insert(&after, vec![(d6, 1, 3)]);
        for s in 0..8 {
            let c = book.best_move(&after.symmetry(s)).unwrap();
            assert_eq!(c.mv, Move::square(symmetry_square(d6, s)));
        }
        let bytes = book.to_bytes();
        assert_eq!(
            Book::from_bytes(&bytes[..bytes.len() - 1]).unwrap_err(),
            BookError::Truncated
        );
        let mut bad = bytes.clone();
        bad[8] = 9;
        assert_eq!(Book::from_bytes(&bad).unwrap_err(), BookError::Version(9));
        assert_eq!(Book::from_bytes(b"nonsense").unwrap_err(), BookError::Magic);
    }

    #[test]
    fn lookup_all_lists_symmetric_images() {
        let b = Board::start();
        let sq = |s: &str| Move::square(s.parse::<Square>().unwrap());
        let mut book = Book::default();
        book.insert(&b, vec![("f5".parse().unwrap(), 0, 10)]);
        let mut got: Vec<Move> = book.lookup_all(&b).iter().map(|c| c.mv).collect();
        got.sort();
        let mut want = vec![sq("f5"), sq("d3"), sq("c4"), sq("e6")];
        want.sort();
        assert_eq!(got, want);
        assert!(book.lookup_all(&b).iter().all(|c| c.games == 10));
        // An asymmetric position lists exactly its stored moves.
        let after = b.play_square(sq("f5").to_square().unwrap().index());
        book.insert(&after, vec![("d6".parse().unwrap(), 1, 3)]);
        assert_eq!(book.lookup_all(&after), book.lookup(&after));
    }

    #[test]
    fn default_book_moves_are_legal() {
        let book = Book::from_bytes(DEFAULT_BOOK).expect("embedded book decodes");
        assert!(
            book.len() > 1000,
            "embedded book has {} positions",
            book.len()
        );
        let r = RuleSet::default();
        for (k, v) in book.entries.iter().take(5000) {
            let legal = MoveList::generate(k, &r);
            for m in v {
                let sq = Square::from_index_unchecked(m.sq);
                assert!(legal.contains(Move::square(sq)), "{k:?} {sq}");
            }
        }
    }
}
