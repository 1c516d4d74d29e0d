//! Integration tests: one target, modules per concept.

mod util;

mod perft;
mod eval;
