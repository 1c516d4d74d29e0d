//! Game records for training: WTHOR `.wtb` files and Logistello's
//! `logbook.gam`, replayed into positions.

use crate::board::{flips, legal_moves, Board};

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
}

/// A position reached in a game, before a move was played there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GamePosition {
    /// Board relative to the side to move.
    pub board: Board,
    /// Whether Black is to move.
    pub black: bool,
}

/// Parses a WTHOR `.wtb` file (16-byte header, 68-byte records).
pub fn read_wthor(bytes: &[u8]) -> Result<Vec<Game>, String> {
    if bytes.len() < 16 {
        return Err(format!("WTHOR file too short ({} bytes)", bytes.len()));
    }
    let n = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize;
    let depth = match bytes[14] {
        0 => 24,
        d => d as u32,
    };
    if bytes.len() < 16 + 68 * n {
        return Err(format!(
            "WTHOR file truncated: header says {n} games, {} bytes",
            bytes.len()
        ));
    }
    let mut games = Vec::with_capacity(n);
    for r in bytes[16..16 + 68 * n].chunks_exact(68) {
        let black = r[6] as i32;
        let theo = r[7] as i32;
        let result = 2 * black - 64;
        let mut moves = Vec::with_capacity(60);
        let mut ok = true;
        for &m in &r[8..68] {
            if m == 0 {
                break;
            }
            let (row, col) = (m / 10, m % 10);
            if !(1..=8).contains(&row) || !(1..=8).contains(&col) {
                ok = false;
                break;
            }
            moves.push((row - 1) * 8 + (col - 1));
        }
        if !ok || black > 64 || theo > 64 {
            continue;
        }
        // 0 often means "not computed": trust it only when it agrees with a wipe-out.
        let theoretical = if theo == 0 && black != 0 {
            None
        } else {
            Some(2 * theo - 64)
        };
        games.push(Game {
            moves,
            result,
            theoretical,
            theoretical_empties: depth,
        });
    }
    Ok(games)
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
    let (mv, rest) = line.split_once(':')?;
    let result: i32 = rest.split_whitespace().next()?.parse().ok()?;
    let b = mv.trim().as_bytes();
    if b.len() % 3 != 0 || !(-64..=64).contains(&result) {
        return None;
    }
    let mut moves = Vec::with_capacity(b.len() / 3);
    for c in b.chunks_exact(3) {
        if c[0] != b'+' && c[0] != b'-' {
            return None;
        }
        let col = c[1].to_ascii_lowercase().wrapping_sub(b'a');
        let row = c[2].wrapping_sub(b'1');
        if col >= 8 || row >= 8 {
            return None;
        }
        moves.push(row * 8 + col);
    }
    Some(Game {
        moves,
        result,
        theoretical: None,
        theoretical_empties: 0,
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
