//! Annex's engine as a library: the rules of Othello/Reversi with every
//! option of `RULES.md`, bitboards, move generation, the pattern
//! evaluation, the search and endgame solver, the opening book, and the
//! [`engine::Engine`] facade (options, a search in the background, its
//! events). It depends on no command-line, HTTP or JSON crate: a GUI embeds
//! it as it is. The text protocols are the `annex-protocol` crate; the
//! `annex` executable and its tools sit on top of both.
//!
//! Modules are listed lowest layer first; a module uses only those above it
//! in this list (`rustfmt.toml` keeps this order).
#![warn(missing_docs)]

// The one small pseudo-random generator (SplitMix64).
pub mod rng;
// Files read within bounds (regular files of a stated size) and written
// whole (temporary file + rename).
pub mod fileio;
// Squares a1..h8 and the 8 directions.
pub mod square;
// The rule options of RULES.md.
pub mod rules;
// `u64` helpers: rays, shifts, symmetries.
pub mod bitboard;
// `Board {player, opponent}`: legal moves, flips, scores.
pub mod board;
// `Move`, `MoveList`, rule-aware move generation and play.
pub mod moves;
// `Position` (absolute side), board strings, transcripts, OBF.
pub mod position;
// Game records: the protocol's game, GGF, match records, game databases.
pub mod record;
// Static evaluation: interface and evaluators.
pub mod eval;
// Leaf counting under three pass conventions.
pub mod perft;
// The opening book: format, lookup, building.
pub mod book;
// Search: PVS, endgame solver, transposition table, threads.
pub mod search;
// The engine facade: options, non-blocking search, events.
pub mod engine;
// Games played to their end: the one game loop, the engine as a player.
pub mod play;
