//! Command-line tools behind `annex <subcommand>`; each returns a result
//! and writes its report on stdout (tools are not the protocol layer, but
//! their report is their whole output).

pub mod book;
pub mod solo;

/// `annex bench`: the search signature.
pub mod bench;
/// `annex solve`: exact / WLD solving of OBF suites.
pub mod solve;
/// `annex match`: engine-versus-engine games.
pub mod match_;
/// `annex analyze`: JSON lines for scripts.
pub mod analyze;
/// `annex train` and `annex eval-measure`.
pub mod train;
