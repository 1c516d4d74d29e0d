//! Annex: an Othello/Reversi engine, the `annex` executable's library: the
//! tools (`analyze`, `match`, `datagen`, `train`, `solve`, `bench`, `serve`,
//! `solo`) over the engine library `annex-core` and the protocols
//! `annex-protocol`, which it re-exports.
//!
//! Modules are listed lowest layer first; a module uses only those above it
//! in this list (`rustfmt.toml` keeps this order). Each feature owns its
//! command-line face (`annex <subcommand>`), in its `cli` module or, for a
//! feature that is only a command, in its own file.
#![warn(missing_docs)]

// The engine library (`crates/annex-core`) and the protocols
// (`crates/annex-protocol`), re-exported under their module names so that
// `annex::board`, `annex::engine` or `annex::protocol` name them here too.
pub use annex_core::{
    bitboard, board, book, engine, eval, fileio, moves, perft, play, position, record, rng, rules,
    search, square,
};
pub use annex_protocol as protocol;

// What the command-line tools share: the rule flags, argument ranges, the
// command-line faces of the engine's own features (`perft`, `book`), and
// `ToolError`, the binary's edge that wraps the features' typed errors.
pub mod cli;
// The tools' data folder: `--data`'s default (`$ANNEX_DATA`, else `data`).
pub mod datadir;
// The dates the tools stamp on their records (GGF's `DT[…]`).
pub mod date;

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
