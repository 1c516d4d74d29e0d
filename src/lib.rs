//! Annex: an Othello/Reversi engine.
//!
//! Modules are listed lowest layer first; a module uses only those above it
//! in this list (`rustfmt.toml` keeps this order). Each feature owns its
//! command-line face (`annex <subcommand>`), in its `cli` module or, for a
//! feature that is only a command, in its own file.
#![warn(missing_docs)]

// The core layers, square -> rules -> bitboard -> board -> moves ->
// position -> eval -> search -> engine -> protocol, and the modules that
// sit between them (the shared rule flags, records, perft, the book).

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
// What the command-line tools share: the rule flags, argument ranges, and
// `ToolError`, the binary's edge that wraps the features' typed errors.
pub mod cli;
// The tools' data folder: `--data`'s default (`$ANNEX_DATA`, else `data`).
pub mod datadir;
// Leaf counting under three pass conventions (`annex perft`).
pub mod perft;
// The opening book: format, lookup, building (`annex book`).
pub mod book;
// Search: PVS, endgame solver, transposition table, threads.
pub mod search;
// The engine facade: options, non-blocking search, events.
pub mod engine;
// The protocols: UCI-style, NBoard, GTP; the only stdout writer.
pub mod protocol;

// Tools on top of the core.

// `annex analyze`: positions in, JSON lines out.
pub mod analyze;
// Engine-versus-engine matches (`annex match`): protocol clients, referee,
// statistics.
pub mod matchplay;
// Self-play training data (`annex datagen`) and its file format.
pub mod datagen;
// Training the pattern evaluation from game records (`annex train`,
// `annex eval-measure`).
pub mod train;
// `annex solve`: exact / WLD solving of OBF suites.
pub mod solve;
// `annex bench`: the search signature.
pub mod bench;
// `annex serve`: a board in the browser (play, analysis) over HTTP.
pub mod serve;

// Separate games.

// The solo puzzle (Knizia, `annex solo`): a game of its own, not a layer
// of the engine. It uses only the lowest core layers (rng, square, rules,
// bitboard, board), and nothing uses it.
pub mod solo;
