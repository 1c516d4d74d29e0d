//! Integration tests: one target, modules per concept.

mod util;

mod perft;
mod match_;
