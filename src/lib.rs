//! Annex: an Othello/Reversi engine.
//!
//! Modules are listed lowest layer first; a module uses only those above it
//! in this list.
#![warn(missing_docs)]

pub mod bitboard; // u64 helpers: rays, shifts, symmetries
pub mod board; // Board {player, opponent}: legal moves, flips, scores
pub mod moves; // Move, MoveList, rule-aware move generation and play
pub mod perft;
pub mod position; // Position (absolute side), board strings, transcripts, OBF
pub mod rules; // the rule options of RULES.md
pub mod square; // squares a1..h8 and the 8 directions // leaf counting under three pass conventions
