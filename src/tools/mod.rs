//! Command-line tools behind `annex <subcommand>`; each returns a result
//! and writes its report on stdout (tools are not the protocol layer, but
//! their report is their whole output).

pub mod book;
pub mod solo;
