//! Integration tests: one target, modules per concept.

mod util;

mod perft;
mod endgame;
mod search;
mod fuzz;
mod protocol;
mod protocol_gtp;
mod protocol_nboard;
mod match_;
mod analyze;
