//! Annex: an Othello/Reversi engine.
//!
//! Modules are listed lowest layer first; a module uses only those above it
//! in this list (`rustfmt.toml` keeps this order).
#![warn(missing_docs)]

/// Squares a1..h8 and the 8 directions.
pub mod square;
/// The rule options of RULES.md.
pub mod rules;
/// Argument types shared by the command-line tools (the rule flags).
pub mod cli;
/// `u64` helpers: rays, shifts, symmetries.
pub mod bitboard;
/// `Board {player, opponent}`: legal moves, flips, scores.
pub mod board;
/// `Move`, `MoveList`, rule-aware move generation and play.
pub mod moves;
/// `Position` (absolute side), board strings, transcripts, OBF.
pub mod position;
/// Game records: the protocol's game, GGF, match records, game databases.
pub mod record;
/// The solo puzzle (Knizia): rules on bitboards, dealing, players.
pub mod solo;
/// Leaf counting under three pass conventions.
pub mod perft;
/// Static evaluation: interface and evaluators.
pub mod eval;
/// The opening book: format, lookup, building.
pub mod book;
/// Search: PVS, endgame solver, transposition table, threads.
pub mod search;
/// The engine facade: options, non-blocking search, events.
pub mod engine;
/// The protocols: UCI-style, NBoard, GTP; the only stdout writer.
pub mod protocol;
/// `annex analyze`: positions in, JSON lines out.
pub mod analyze;
/// Engine-versus-engine matches: protocol clients, referee, statistics.
pub mod matchplay;
/// Training the pattern evaluation from game records.
pub mod train;
/// `annex solve`: exact / WLD solving of OBF suites.
pub mod solve;
/// `annex bench`: the search signature.
pub mod bench;
