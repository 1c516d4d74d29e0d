//! Integration tests: one target, modules per concept.

mod util;

mod perft;
mod reference;
mod games;
mod notation;
mod endgame;
mod search;
