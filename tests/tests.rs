//! Integration tests: one target, modules per concept.

mod util;

mod perft;
mod endgame;
mod search;
mod match_;
mod analyze;
