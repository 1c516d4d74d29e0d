//! Game records, one home for reading and writing them:
//!
//! * [`game`]: the game a protocol session talks
//!   about (start position, moves, the positions on the way).
//! * [`ggf`]: the GGF reader (NBoard's `set game`).
//! * [`game_record`]: a finished match game ([`game_record::GameRecord`]):
//!   result, termination, the GGF writer (what `ggf` reads) and the
//!   `games.txt` lines.
//! * [`gamedb`]: readers for game databases (WTHOR,
//!   Logistello), each game a [`gamedb::DbGame`].
//!
//! Records use only the rules layers above them in `lib.rs` (up to
//! `position`).

pub mod game;
pub mod ggf;
pub mod game_record;
pub mod gamedb;
