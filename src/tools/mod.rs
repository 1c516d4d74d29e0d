//! Command-line tools behind the `annex` subcommands.

pub mod match_;
pub mod analyze;
