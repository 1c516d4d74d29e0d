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
mod engine_resources;
mod protocol_input;
mod tools_input;
mod match_errors;
mod match_hostile;
mod protocol_nboard_gtp_input;
mod serve;
mod serve_browser;
mod ggf_rules;
mod datagen;
mod probcut_calibration;
mod files_datagen;
mod files_readers;
mod files_write;
mod serve_hostile;
mod protocol_edges;
mod data_folder;
mod readme_examples;
