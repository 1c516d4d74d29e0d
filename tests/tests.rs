//! Integration tests: one target, modules per concept.

mod util;

mod perft;
mod reference;
mod games;
mod notation;
mod endgame;
mod search;
mod fuzz;
mod protocol;
mod protocol_gtp;
mod protocol_nboard;
mod solo;
mod book;
mod eval;
mod train_sources;
mod matchplay;
mod analyze;
mod hardening_engine;
mod hardening_protocol;
mod hardening_tools;
mod hardening_match;
mod match_hostile;
mod hardening_nboard_gtp;
mod serve;
mod datagen;
mod probcut_calibration;
mod files_datagen;
mod files_readers;
mod files_write;
mod serve_hostile;
mod data_folder;
mod readme_examples;
