//! Annex: an Othello/Reversi engine.
//!
//! Modules are listed lowest layer first; a module uses only those above it
//! in this list (`rustfmt.toml` keeps this order).
#![warn(missing_docs)]

/// Squares a1..h8 and the 8 directions.
pub mod square;
/// The rule options of RULES.md.
pub mod rules;
/// `u64` helpers: rays, shifts, symmetries.
pub mod bitboard;
/// `Board {player, opponent}`: legal moves, flips, scores.
pub mod board;
/// `Move`, `MoveList`, rule-aware move generation and play.
pub mod moves;
/// `Position` (absolute side), board strings, transcripts, OBF.
pub mod position;
/// Leaf counting under three pass conventions.
pub mod perft;
/// Static evaluation: interface and evaluators.
pub mod eval;
/// Search: PVS, endgame solver, transposition table, threads.
pub mod search;
/// The engine facade: options, non-blocking search, events.
pub mod engine;
/// Training the pattern evaluation from game records.
pub mod train;
/// Command-line tools (`solve`, `bench`, ...).
pub mod tools;
