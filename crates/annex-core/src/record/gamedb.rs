//! Readers for game databases: WTHOR (`.wtb`) files and Logistello's
//! `logbook.gam` lines. They only decode; replaying the moves (and finding
//! the implicit passes) is the rules code's job.
//!
//! WTHOR: a 16-byte header (bytes 4..8: number of games, u32 LE; byte 12:
//! board size; byte 14: depth of the theoretical score), then 68-byte
//! records: tournament u16, black player u16, white player u16, black's
//! discs at the end (u8), theoretical score (u8), 60 move bytes
//! `10 * row + col` (1-based), `0` past the last move.
//!
//! ```
//! use annex_core::record::gamedb::parse_logbook_line;
//! let g = parse_logbook_line("+d3-c3+c4: +02 10").unwrap();
//! assert_eq!(g.moves.len(), 3);
//! assert_eq!(g.black_minus_white, Some(2));
//! ```

use crate::moves::Move;
use crate::square::Square;
use std::fmt;

/// One game of a database (WTHOR, Logistello): its moves (passes left
/// out) and the results the database stores. (A finished match game with
/// its `games.txt` line is [`crate::record::game_record::GameRecord`].)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DbGame {
    /// The moves, passes left out.
    pub moves: Vec<Move>,
    /// WTHOR: black's discs at the end (empties to the winner by the
    /// WTHOR convention).
    pub black_discs: Option<u8>,
    /// WTHOR: black's discs under perfect play from `theoretical_depth`
    /// empties on.
    pub theoretical: Option<u8>,
    /// Logistello: black minus white discs on the final board (empties not
    /// given to anybody).
    pub black_minus_white: Option<i32>,
}

/// Error from decoding a game file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameDbError {
    /// The file is shorter than its header says or not a whole number of
    /// records.
    Size(usize),
    /// A move byte or token that is no square.
    BadMove(String),
    /// A result field that is no number.
    BadResult(String),
}

impl fmt::Display for GameDbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameDbError::Size(n) => write!(f, "WTHOR file size {n} is not 16 + 68 * games"),
            GameDbError::BadMove(m) => write!(f, "invalid move '{m}' in game record"),
            GameDbError::BadResult(r) => write!(f, "invalid result '{r}' in game record"),
        }
    }
}

impl std::error::Error for GameDbError {}

/// A decoded WTHOR file.
#[derive(Clone, Debug)]
pub struct Wthor {
    /// Empties from which the theoretical score is exact (header byte 14).
    pub theoretical_depth: u8,
    /// The games.
    pub games: Vec<DbGame>,
}

/// The largest WTHOR file the tools read (64 MiB: a year of the
/// database is under 1 MiB).
pub const MAX_WTHOR_BYTES: u64 = 64 << 20;

/// Decodes a WTHOR `.wtb` file.
///
/// # Errors
/// A size that is not `16 + 68 * n`, or a move byte that is no square.
pub fn parse_wthor(bytes: &[u8]) -> Result<Wthor, GameDbError> {
    if bytes.len() < 16 || !(bytes.len() - 16).is_multiple_of(68) {
        return Err(GameDbError::Size(bytes.len()));
    }
    let mut games = Vec::with_capacity((bytes.len() - 16) / 68);
    for rec in bytes[16..].chunks_exact(68) {
        let mut moves = Vec::with_capacity(60);
        for &b in &rec[8..68] {
            if b == 0 {
                break;
            }
            let (row, col) = (b / 10, b % 10);
            let sq = if (1..=8).contains(&row) && (1..=8).contains(&col) {
                Square::from_coords(col - 1, row - 1)
            } else {
                None
            };
            let sq = sq.ok_or_else(|| GameDbError::BadMove(b.to_string()))?;
            moves.push(Move::square(sq));
        }
        games.push(DbGame {
            moves,
            black_discs: Some(rec[6]),
            theoretical: Some(rec[7]),
            black_minus_white: None,
        });
    }
    Ok(Wthor {
        theoretical_depth: bytes[14],
        games,
    })
}

/// Decodes one line of Logistello's `logbook.gam`: `+d3-c3…: -04 10`.
///
/// # Errors
/// A move token that is no square or a result that is no number.
pub fn parse_logbook_line(line: &str) -> Result<DbGame, GameDbError> {
    let (moves_part, rest) = line.split_once(':').unwrap_or((line, ""));
    let bytes = moves_part.trim().as_bytes();
    let mut moves = Vec::with_capacity(60);
    for tok in bytes.chunks(3) {
        let t = std::str::from_utf8(tok).unwrap_or("?");
        if tok.len() != 3 || !(tok[0] == b'+' || tok[0] == b'-') {
            return Err(GameDbError::BadMove(t.to_string()));
        }
        let sq: Square = t[1..]
            .parse()
            .map_err(|_| GameDbError::BadMove(t.to_string()))?;
        moves.push(Move::square(sq));
    }
    let result = match rest.split_whitespace().next() {
        None => None,
        Some(r) => Some(
            r.trim_start_matches('+')
                .parse::<i32>()
                .map_err(|_| GameDbError::BadResult(r.to_string()))?,
        ),
    };
    Ok(DbGame {
        moves,
        black_discs: None,
        theoretical: None,
        black_minus_white: result,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wthor_records() {
        let mut f = vec![0u8; 16];
        f[14] = 22;
        let mut rec = vec![0u8; 68];
        rec[6] = 40;
        rec[7] = 36;
        rec[8] = 56; // f5 = row 5, col 6
        rec[9] = 64; // d6
        f.extend(&rec);
        let w = parse_wthor(&f).unwrap();
        assert_eq!(w.theoretical_depth, 22);
        let g = &w.games[0];
        assert_eq!(g.moves.len(), 2);
        assert_eq!(g.moves[0].to_string(), "f5");
        assert_eq!(g.moves[1].to_string(), "d6");
        assert_eq!(g.black_discs, Some(40));
        assert!(parse_wthor(&f[..50]).is_err());
        f[16 + 10] = 99;
        assert_eq!(
            parse_wthor(&f).unwrap_err(),
            GameDbError::BadMove("99".into())
        );
    }

    #[test]
    fn logbook_lines() {
        assert!(parse_logbook_line("+d3-c9: +00 10").is_err());
        assert!(parse_logbook_line("+d3: x 10").is_err());
        assert!(parse_logbook_line("d3c4").is_err());
        let g = parse_logbook_line("+d3-c3+c4-e3: -12 10").unwrap();
        assert_eq!(g.black_minus_white, Some(-12));
        assert_eq!(g.moves[3].to_string(), "e3");
    }
}
