//! Game records for training: WTHOR `.wtb` files and Logistello's
//! `logbook.gam`, replayed into positions.

use crate::board::{Board, flips, legal_moves};

/// One game: its moves (square indices, passes implied) and results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// Moves as square indices `0..64`, passes not recorded.
    pub moves: Vec<u8>,
    /// Final disc difference for Black (empties to the winner).
    pub result: i32,
    /// Disc difference for Black under perfect play from the position
    /// with [`Game::theoretical_empties`] empties, when known.
    pub theoretical: Option<i32>,
    /// Empties of the position `theoretical` refers to.
    pub theoretical_empties: u32,
    /// Source of its positions in the fit ([`crate::train::fit::SOURCE_WTHOR`], ...).
    pub source: u8,
}

/// A position reached in a game, before a move was played there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GamePosition {
    /// Board relative to the side to move.
    pub board: Board,
    /// Whether Black is to move.
    pub black: bool,
}

/// Square indices of decoded moves (passes are never recorded).
fn squares(moves: &[crate::moves::Move]) -> Vec<u8> {
    moves
        .iter()
        .filter_map(|m| m.to_square())
        .map(|s| s.index() as u8)
        .collect()
}

/// Reads a WTHOR `.wtb` file (decoded by [`crate::record::gamedb::parse_wthor`]).
/// Games with impossible disc counts are skipped.
///
/// # Errors
/// The bytes are not a WTHOR file.
pub fn read_wthor(bytes: &[u8]) -> Result<Vec<Game>, crate::record::gamedb::GameDbError> {
    let w = crate::record::gamedb::parse_wthor(bytes)?;
    let depth = match w.theoretical_depth {
        0 => 24,
        d => d as u32,
    };
    Ok(w.games
        .iter()
        .filter_map(|g| {
            let black = g.black_discs? as i32;
            let theo = g.theoretical? as i32;
            if black > 64 || theo > 64 {
                return None;
            }
            // 0 often means "not computed": trust it only when it agrees
            // with a wipe-out.
            let theoretical = if theo == 0 && black != 0 {
                None
            } else {
                Some(2 * theo - 64)
            };
            Some(Game {
                moves: squares(&g.moves),
                result: 2 * black - 64,
                theoretical,
                theoretical_empties: depth,
                source: crate::train::fit::SOURCE_WTHOR,
            })
        })
        .collect())
}

/// Parses Logistello's `logbook.gam` text: one game a line,
/// `+d3-c3+c4…: -04 …` (`+` Black, `-` White; the number is Black's final
/// disc difference). Lines that do not parse are skipped; their count is
/// returned beside the games.
pub fn read_logbook(text: &str) -> (Vec<Game>, usize) {
    let mut games = Vec::new();
    let mut bad = 0;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match parse_logbook_line(line) {
            Some(g) => games.push(g),
            None => bad += 1,
        }
    }
    (games, bad)
}

fn parse_logbook_line(line: &str) -> Option<Game> {
    let g = crate::record::gamedb::parse_logbook_line(line).ok()?;
    let result = g.black_minus_white.filter(|r| (-64..=64).contains(r))?;
    Some(Game {
        moves: squares(&g.moves),
        result,
        theoretical: None,
        theoretical_empties: 0,
        source: crate::train::fit::SOURCE_LOGBOOK,
    })
}

/// Replays a game from the standard start position, inferring passes.
/// Returns the position before each move, or `None` if a move is illegal.
pub fn replay(game: &Game) -> Option<Vec<GamePosition>> {
    let mut board = Board::start();
    let mut black = true;
    let mut out = Vec::with_capacity(game.moves.len());
    for &m in &game.moves {
        if legal_moves(board.player, board.opponent) == 0 {
            board = board.pass();
            black = !black;
        }
        let sq = m as usize;
        if sq >= 64 || legal_moves(board.player, board.opponent) >> sq & 1 == 0 {
            return None;
        }
        out.push(GamePosition { board, black });
        board = board.play_flips(sq, flips(board.player, board.opponent, sq));
        black = !black;
    }
    Some(out)
}
