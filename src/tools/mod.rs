//! Command-line tools behind the `annex` subcommands (they print to stdout;
//! the engine protocol is not involved).

/// `annex bench`: the search signature.
pub mod bench;
/// `annex solve`: exact / WLD solving of OBF suites.
pub mod solve;
