//! The game corpus (`.agc`): a run's self-play games as move lists with
//! their labels, about 3 bytes a position instead of the 24 of a data
//! file's records, small enough to commit to the repository. `annex
//! datagen corpus` (or a run's `--corpus FILE`) writes one from a complete
//! data file; `annex train --datagen` reads either kind, expanding each
//! game into its positions with the labels, flags, search scores and game
//! indices the data file's records have (byte for byte the same records).
//!
//! A file is a 64-byte header and then one entry per game of the run's
//! games `first..end`, in order, all little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `ANNEXGC1` |
//! | 8..12 | `u32` format version (1) |
//! | 12..16 | `u32` reserved, 0 |
//! | 16..24 | `u64` fingerprint of the run's settings (as in the data file) |
//! | 24..32 | `u64` games in the whole run |
//! | 32..40 | `u64` the file's first game |
//! | 40..48 | `u64` the game after its last |
//! | 48..56 | `u64` positions the games expand to |
//! | 56..64 | `u64` FNV-1a hash of the game entries (the bytes after the header) |
//!
//! A game entry:
//!
//! | bytes | field |
//! |---|---|
//! | 1 | `u8` n: positions recorded (0-60; 0 ends the entry: a game that ended in its random moves) |
//! | 16 | `u64` discs of the side to move and `u64` of the other side at the first recorded position (the position after the random moves: the random part is not recorded) |
//! | n-1 | the move played from each recorded position to the next, one byte each (square 0-63, a1 = 0, h8 = 63; a pass is implied when the side to move has none) |
//! | 1 | `i8` the exact final disc difference from the game's first solved position, for the side to move at the first position (the label of every unsolved position; without a solved position, the game's final result) |
//! | 1 | `u8` the empties at which the solve started (the first solved position's; 0: none solved): the positions with at most that many empties are solved, their label is the exact value (the same result, for their side to move) |
//! | k | `i8` the search score in whole discs of each unsolved position, in order (-128: not searched) |
//! | s | only when bit 7 of the solve byte is set: `i8` the exact value of each solved position, in order, for its side to move |
//!
//! The last field is for the rare game whose solved positions' values
//! disagree with its result (the engine's exact search and its play from
//! there disagreed: about 1 game in 10,000 of a run at depth 10, exact
//! from 20); their records keep the values the solver gave, and so does
//! the corpus.
//!
//! The moves after the last recorded position lead to no recorded
//! position (it is solved; the label gives the result), so they are not
//! stored. A game is written only when it reads back as exactly its
//! records; anything else (records that do not follow each other by one
//! move, unsolved labels that are not the result) is refused.

use super::format::{FLAG_SOLVED, FormatError, HEADER_SIZE, Header, NO_SCORE, Record};
use crate::board::Board;
use crate::search::DISC;
use std::path::{Path, PathBuf};

/// The first 8 bytes of a corpus file.
pub const MAGIC: &[u8; 8] = b"ANNEXGC1";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
/// The largest corpus a tool reads: 4 GiB (about 50 million games).
pub const MAX_FILE_BYTES: u64 = 4 << 30;
/// Bit of the solve byte: the solved positions' own labels follow the
/// search scores.
const OWN_SOLVED_VALUES: u8 = 0x80;
/// The search score byte meaning "not searched".
const NO_SCORE_BYTE: i8 = i8::MIN;

/// Why a corpus cannot be written or read (the message without the
/// file's name).
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// A game whose records a corpus entry cannot hold exactly.
    #[error("game {game}: {why}; a corpus holds whole self-play games only")]
    Game {
        /// The game's index.
        game: u32,
        /// What is wrong.
        why: String,
    },
    /// Not a corpus file of this version.
    #[error("not an annex game corpus of version {VERSION} (bad magic or version)")]
    Magic,
    /// A header cut short or with fields that contradict each other.
    #[error("damaged header")]
    Header,
    /// Game bytes that do not match the header's hash.
    #[error("damaged: the games' bytes do not match the header's hash")]
    Hash,
    /// A game entry that does not decode.
    #[error("damaged: game {game}: {why}")]
    Entry {
        /// The game's index.
        game: u64,
        /// What is wrong.
        why: &'static str,
    },
    /// The games expand to another count of positions than the header's.
    #[error("damaged: its header says {want} positions, its games hold {got}")]
    Count {
        /// Positions the header declares.
        want: u64,
        /// Positions the games expand to.
        got: u64,
    },
}

/// FNV-1a of `bytes`.
fn fnv(bytes: &[u8]) -> u64 {
    super::output::fnv(super::output::FNV_OFFSET, bytes)
}

/// The move from `a` to `b` (positions before a move, side to move
/// first): the square, when `b` follows `a` by one move (and a pass of
/// the side that cannot move).
fn move_between(a: &Board, b: &Board) -> Option<u8> {
    let mut moves = a.legal_moves();
    while moves != 0 {
        let sq = moves.trailing_zeros() as usize;
        moves &= moves - 1;
        if next_position(a, sq) == *b {
            return Some(sq as u8);
        }
    }
    None
}

/// The position after `sq` is played on `a`, passing when the side to
/// move then has no move (and the game is not over).
fn next_position(a: &Board, sq: usize) -> Board {
    let b = a.play_square(sq);
    if b.legal_moves() == 0 && !b.is_game_over() {
        b.pass()
    } else {
        b
    }
}

/// Whether the side to move changes from `a` to the position after `sq`.
fn side_changes(a: &Board, sq: usize) -> bool {
    let b = a.play_square(sq);
    b.legal_moves() != 0 || b.is_game_over()
}

/// Appends the entry of game `game` (its records, in order) to `out`.
///
/// # Errors
/// The records are not a game a corpus entry holds exactly.
pub fn encode_game(game: u32, recs: &[Record], out: &mut Vec<u8>) -> Result<(), CorpusError> {
    let bad = |why: String| CorpusError::Game { game, why };
    let Some(first) = recs.first() else {
        out.push(0);
        return Ok(());
    };
    if recs.len() > 60 {
        return Err(bad(format!("{} positions (at most 60)", recs.len())));
    }
    let start = out.len();
    out.push(recs.len() as u8);
    out.extend_from_slice(&first.player.to_le_bytes());
    out.extend_from_slice(&first.opponent.to_le_bytes());
    let board = |r: &Record| Board::new(r.player, r.opponent);
    for (i, w) in recs.windows(2).enumerate() {
        let sq = move_between(&board(&w[0]), &board(&w[1]))
            .ok_or_else(|| bad(format!("position {} does not follow position {i}", i + 1)))?;
        out.push(sq);
    }
    // The result for the first position's side, from the first solved
    // position's label (or any unsolved label: they all carry it).
    let mut same = true;
    let mut result = None;
    for (i, r) in recs.iter().enumerate() {
        if result.is_none() && (r.solved() || i + 1 == recs.len()) {
            result = Some(if same { r.label } else { -r.label });
        }
        if let Some(w) = recs.get(i + 1) {
            let sq = move_between(&board(r), &board(w)).expect("checked above");
            same ^= side_changes(&board(r), sq as usize);
        }
    }
    let solve = recs.iter().find(|r| r.solved()).map_or(0, |r| r.empties());
    out.push(result.expect("a record") as u8);
    out.push(solve as u8);
    for r in recs.iter().filter(|r| !r.solved()) {
        let s = match r.search {
            NO_SCORE => NO_SCORE_BYTE,
            v if v % DISC as i16 == 0 && (-64..=64).contains(&(v / DISC as i16)) => {
                (v / DISC as i16) as i8
            }
            v => return Err(bad(format!("search score {v} is not whole discs"))),
        };
        out.push(s as u8);
    }
    // Solved values that disagree with the result (the engine's solve
    // and its play disagreed): the solved labels are stored too.
    let mut back = Vec::with_capacity(recs.len());
    let mut at = start;
    decode_game(out, &mut at, u64::from(game), &mut back)
        .map_err(|e| bad(format!("does not read back ({e})")))?;
    if back != recs && solve > 0 {
        out[start + 1 + 16 + recs.len()] |= OWN_SOLVED_VALUES;
        out.extend(recs.iter().filter(|r| r.solved()).map(|r| r.label as u8));
        back.clear();
        at = start;
        decode_game(out, &mut at, u64::from(game), &mut back)
            .map_err(|e| bad(format!("does not read back ({e})")))?;
    }
    // Written only when it reads back as exactly the records.
    if back != recs {
        let i = back.iter().zip(recs).position(|(a, b)| a != b).unwrap_or(0);
        return Err(bad(format!(
            "position {i}'s label, flags or score do not follow from the game's result"
        )));
    }
    Ok(())
}

/// Decodes the entry of game `game` at `bytes[*at..]` into `out` and
/// moves `at` past it.
///
/// # Errors
/// An entry cut short or that is not a game.
fn decode_game(
    bytes: &[u8],
    at: &mut usize,
    game: u64,
    out: &mut Vec<Record>,
) -> Result<(), CorpusError> {
    let err = |why| CorpusError::Entry { game, why };
    let mut take = |k: usize| -> Result<&[u8], CorpusError> {
        let s = bytes.get(*at..*at + k).ok_or(err("cut short"))?;
        *at += k;
        Ok(s)
    };
    let n = take(1)?[0] as usize;
    if n == 0 {
        return Ok(());
    }
    if n > 60 {
        return Err(err("more than 60 positions"));
    }
    let head = take(16)?;
    let u64_at = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().expect("8 bytes"));
    let mut b = Board::new(u64_at(0), u64_at(8));
    if b.player & b.opponent != 0 {
        return Err(err("not a position"));
    }
    let moves = take(n - 1)?.to_vec();
    let tail = take(2)?;
    let own = tail[1] & OWN_SOLVED_VALUES != 0;
    let (result, solve) = (tail[0] as i8, u32::from(tail[1] & !OWN_SOLVED_VALUES));
    if !(-64..=64).contains(&result) {
        return Err(err("result beyond 64 discs"));
    }
    let game32 = u32::try_from(game).map_err(|_| err("game index beyond u32"))?;
    let mut same = true;
    let first = out.len();
    for i in 0..n {
        if b.legal_moves() == 0 {
            return Err(err("a position without a move"));
        }
        let solved = b.empties() <= solve;
        let label = if same { result } else { -result };
        out.push(Record {
            player: b.player,
            opponent: b.opponent,
            label,
            flags: if solved { FLAG_SOLVED } else { 0 },
            search: if solved {
                i16::from(label) * DISC as i16
            } else {
                0
            },
            game: game32,
        });
        if let Some(&sq) = moves.get(i) {
            let sq = usize::from(sq);
            if sq >= 64 || b.legal_moves() >> sq & 1 == 0 {
                return Err(err("an illegal move"));
            }
            same ^= side_changes(&b, sq);
            b = next_position(&b, sq);
        }
    }
    let unsolved = out[first..].iter().filter(|r| !r.solved()).count();
    let scores = take(unsolved)?;
    for (r, &s) in out[first..].iter_mut().filter(|r| !r.solved()).zip(scores) {
        let s = s as i8;
        r.search = match s {
            NO_SCORE_BYTE => NO_SCORE,
            -64..=64 => i16::from(s) * DISC as i16,
            _ => return Err(err("search score beyond 64 discs")),
        };
    }
    if own {
        let solved = out.len() - first - unsolved;
        let values = take(solved)?;
        for (r, &v) in out[first..].iter_mut().filter(|r| r.solved()).zip(values) {
            let v = v as i8;
            if !(-64..=64).contains(&v) {
                return Err(err("solved value beyond 64 discs"));
            }
            r.label = v;
            r.search = i16::from(v) * DISC as i16;
        }
    }
    Ok(())
}

/// The bytes of a corpus of `records` (games `header.first..header.end`
/// in increasing order, as a complete data file holds them) under the
/// data file's `header`.
///
/// # Errors
/// A game a corpus entry cannot hold exactly, or records outside the
/// header's games.
pub fn encode(header: &Header, records: &[Record]) -> Result<Vec<u8>, CorpusError> {
    let mut body = Vec::with_capacity(records.len() * 3 + 64);
    let mut rest = records;
    for g in header.first..header.end {
        let g32 = u32::try_from(g).map_err(|_| CorpusError::Game {
            game: u32::MAX,
            why: "game index beyond u32".into(),
        })?;
        let n = rest.iter().take_while(|r| r.game == g32).count();
        encode_game(g32, &rest[..n], &mut body)?;
        rest = &rest[n..];
    }
    if let Some(r) = rest.first() {
        return Err(CorpusError::Game {
            game: r.game,
            why: format!("outside the games {}..{}", header.first, header.end),
        });
    }
    let mut bytes = Vec::with_capacity(HEADER_SIZE + body.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    bytes.extend_from_slice(&0u32.to_le_bytes());
    for v in [
        header.fingerprint,
        header.run_games,
        header.first,
        header.end,
        records.len() as u64,
        fnv(&body),
    ] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    bytes.extend_from_slice(&body);
    Ok(bytes)
}

/// Whether `bytes` start like a corpus file.
pub fn is_corpus(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Decodes a corpus file's bytes into its header (with the positions'
/// count and the completeness marker set) and its games' records.
///
/// # Errors
/// Not a corpus of this version, or a damaged one.
pub fn decode(bytes: &[u8]) -> Result<(Header, Vec<Record>), CorpusError> {
    if !is_corpus(bytes) || bytes.len() < 12 || bytes[8..12] != VERSION.to_le_bytes() {
        return Err(CorpusError::Magic);
    }
    if bytes.len() < HEADER_SIZE {
        return Err(CorpusError::Header);
    }
    let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
    let h = Header {
        fingerprint: u64_at(16),
        run_games: u64_at(24),
        first: u64_at(32),
        end: u64_at(40),
        positions: u64_at(48),
        complete: true,
    };
    let body = &bytes[HEADER_SIZE..];
    if h.first > h.end || h.end > h.run_games || h.end > 1 << 32 {
        return Err(CorpusError::Header);
    }
    // Every game takes at least a byte and every position too: a bound
    // before any allocation (the records take at most 24 times the bytes).
    if h.games() > body.len() as u64 || h.positions > body.len() as u64 {
        return Err(CorpusError::Header);
    }
    if fnv(body) != u64_at(56) {
        return Err(CorpusError::Hash);
    }
    let mut out = Vec::with_capacity(h.positions as usize);
    let mut at = 0;
    for g in h.first..h.end {
        decode_game(body, &mut at, g, &mut out)?;
    }
    if at != body.len() {
        return Err(CorpusError::Entry {
            game: h.end,
            why: "bytes after the last game",
        });
    }
    if out.len() as u64 != h.positions {
        return Err(CorpusError::Count {
            want: h.positions,
            got: out.len() as u64,
        });
    }
    Ok((h, out))
}

/// Reads a whole corpus file (a regular file of at most
/// [`MAX_FILE_BYTES`]).
///
/// # Errors
/// The file cannot be read, or is not a valid corpus.
pub fn read_file(path: &Path) -> Result<(Header, Vec<Record>), FormatError> {
    let name = || path.display().to_string();
    let bytes =
        crate::fileio::read_bounded(path, MAX_FILE_BYTES).map_err(|source| FormatError::Io {
            path: name(),
            source,
        })?;
    decode(&bytes).map_err(|why| FormatError::Corpus { path: name(), why })
}

/// Whether `path` can be opened and starts with the corpus magic.
pub fn file_is_corpus(path: &Path) -> bool {
    let mut head = [0u8; 8];
    crate::fileio::open_regular(path, MAX_FILE_BYTES)
        .and_then(|mut f| super::format::read_full(&mut f, &mut head))
        .is_ok_and(|n| n == 8 && is_corpus(&head))
}

/// Writes the corpus of complete data files `inputs` to `out` (whole or
/// not at all): one file, or shards of one run that follow each other
/// (in any order on the command line); the corpus covers their games.
/// Returns the corpus's header and size in bytes.
///
/// # Errors
/// An input cannot be read or is incomplete, the inputs are not adjacent
/// shards of one run, a game cannot be held, or the output cannot be
/// written.
pub fn convert(inputs: &[PathBuf], out: &Path) -> Result<(Header, u64), ConvertError> {
    let mut parts = Vec::with_capacity(inputs.len());
    for input in inputs {
        let mut reader = super::format::Reader::open(input, false)?;
        let header = reader
            .header()
            .ok_or_else(|| ConvertError::NoHeader(input.clone()))?;
        parts.push((header, input, reader.read_all()?));
    }
    parts.sort_by_key(|(h, _, _)| h.first);
    let (first, name) = match parts.first() {
        Some((h, path, _)) => (*h, (*path).clone()),
        None => return Err(ConvertError::NoInputs),
    };
    let mut header = Header {
        positions: 0,
        ..first
    };
    let mut records = Vec::new();
    for (h, path, recs) in parts {
        if (h.fingerprint, h.run_games) != (first.fingerprint, first.run_games) {
            return Err(ConvertError::OtherRun {
                path: path.clone(),
                first: name,
            });
        }
        if h.first != header.end && !records.is_empty() {
            return Err(ConvertError::Gap {
                path: path.clone(),
                first: h.first,
                end: h.end,
                before: header.end,
            });
        }
        header.end = h.end;
        records.extend(recs);
    }
    header.positions = records.len() as u64;
    let bytes =
        encode(&header, &records).map_err(|source| ConvertError::Encode { path: name, source })?;
    crate::fileio::write_bytes_atomic(out, &bytes).map_err(|source| ConvertError::Write {
        path: out.to_path_buf(),
        source,
    })?;
    Ok((header, bytes.len() as u64))
}

/// Why data files could not become a corpus ([`convert`]).
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    /// An input that cannot be read or is incomplete.
    #[error(transparent)]
    Read(#[from] FormatError),
    /// An input without a header.
    #[error("{}: no header", .0.display())]
    NoHeader(PathBuf),
    /// No input at all.
    #[error("no input files")]
    NoInputs,
    /// An input of another run than the first.
    #[error("{}: another run than {}", path.display(), first.display())]
    OtherRun {
        /// The input.
        path: PathBuf,
        /// The input of the first games.
        first: PathBuf,
    },
    /// An input whose games do not follow the games before it.
    #[error("{}: games {first}..{end} do not follow games ..{before}", path.display())]
    Gap {
        /// The input.
        path: PathBuf,
        /// Its first game.
        first: u64,
        /// The end of its games.
        end: u64,
        /// The end of the games before it.
        before: u64,
    },
    /// A game a corpus entry cannot hold.
    #[error("{}: {source}", path.display())]
    Encode {
        /// The input of the first games.
        path: PathBuf,
        /// What is wrong.
        source: CorpusError,
    },
    /// The corpus cannot be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The corpus file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagen::{Budget, Openings, Player, Settings, openings, play_game};
    use crate::eval::Evaluator;

    fn games(keep_opening: bool, solve_empties: u32) -> (Header, Vec<Record>) {
        let s = Settings {
            seed: 4,
            budget: Budget::Depth(1),
            solve_empties,
            random_moves: 0,
            hash_mb: 1,
            keep_opening,
            evaluator: Evaluator::Simple,
        };
        let mut p = Player::new(&s).unwrap();
        let o = Openings::Random(openings::RandomRange { min: 0, max: 40 });
        let mut recs = Vec::new();
        for g in 3..9 {
            recs.extend(play_game(&mut p, &s, &o, g).unwrap());
        }
        let h = Header {
            fingerprint: 7,
            run_games: 12,
            first: 2,
            end: 10,
            positions: recs.len() as u64,
            complete: true,
        };
        (h, recs)
    }

    #[test]
    fn games_round_trip_exactly() {
        for (keep, solve) in [(false, 8), (true, 10), (false, 0)] {
            let (h, recs) = games(keep, solve);
            let bytes = encode(&h, &recs).unwrap();
            let (back_h, back) = decode(&bytes).unwrap();
            assert_eq!(back_h, h);
            assert_eq!(back, recs);
            // A few bytes a position, not the 24 of a record.
            assert!(bytes.len() < HEADER_SIZE + 4 * recs.len() + 20 * 8);
        }
    }

    #[test]
    fn damage_and_foreign_records_are_refused() {
        let (h, recs) = games(false, 8);
        let bytes = encode(&h, &recs).unwrap();
        for cut in [0, 10, HEADER_SIZE - 1, bytes.len() - 1] {
            assert!(decode(&bytes[..cut]).is_err(), "{cut}");
        }
        let mut flipped = bytes.clone();
        flipped[HEADER_SIZE + 5] ^= 1;
        assert!(matches!(decode(&flipped), Err(CorpusError::Hash)));
        let mut huge = bytes.clone();
        huge[40..48].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(decode(&huge), Err(CorpusError::Header)));
        // A label that is not the game's result, a missing position, a
        // score that is not whole discs: refused when written.
        let mut wrong = recs.clone();
        wrong[0].label = if recs[0].label == 0 { 2 } else { 0 };
        assert!(encode(&h, &wrong).is_err());
        // A solved value that disagrees with the result is kept as it is.
        let mut odd = recs.clone();
        let i = odd.iter().rposition(|r| r.solved()).unwrap();
        odd[i].label = if odd[i].label == 0 { 2 } else { 0 };
        odd[i].search = i16::from(odd[i].label) * DISC as i16;
        let b = encode(&h, &odd).unwrap();
        assert_eq!(decode(&b).unwrap().1, odd);
        assert_eq!(
            b.len(),
            bytes.len()
                + odd
                    .iter()
                    .filter(|r| r.solved() && r.game == odd[i].game)
                    .count()
        );
        let mut gap = recs.clone();
        gap.remove(1);
        assert!(encode(&h, &gap).is_err());
        let mut frac = recs.clone();
        frac[0].search = 5;
        assert!(encode(&h, &frac).is_err());
    }
}
