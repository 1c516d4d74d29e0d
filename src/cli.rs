//! Argument types shared by the command-line tools behind `annex
//! <subcommand>`. Each feature owns its own command-line face (its `cli`
//! module, or `bench`/`solve`); each returns a result and writes its report
//! on stdout (tools are not the protocol layer, but their report is their
//! whole output).
//!
//! Tools write through a locked stdout (`writeln!` into
//! [`std::io::StdoutLock`]) and pass write errors up as [`ToolError::Output`]:
//! `main` ends quietly (exit 0) on a closed pipe (`| head`) and with one
//! `annex: error: …` line on any other write error (a full disk).

/// Ranges of the numeric arguments.
pub mod args;
/// `annex book`: build, probe and show the opening book.
pub mod book;
/// `annex perft`: leaf counts under the rules and pass conventions.
pub mod perft;

use crate::engine::OptionError;
use crate::eval::{EvalError, WeightsError};
use crate::perft::ParseConventionError;
use crate::position::ParsePositionError;
use crate::rules::{Flips, ParseRuleError, RuleSet, Scoring, Start, Tie};
use crate::search::ConfigError;
use std::io;
use std::path::PathBuf;

/// The environment variable of the search tunables,
/// `ANNEX_CONFIG=name=value,...` (read by `main`).
pub const CONFIG_VAR: &str = "ANNEX_CONFIG";

/// An error of a command-line tool: the binary's edge, where the typed
/// errors of the features meet (each wrapped with `#[from]`, its message
/// unchanged) and `main` prints `annex: error: <message>`.
///
/// It names the features' error types, so it is the one item of this
/// module that points down the layers of `lib.rs`: the features return it
/// and it wraps theirs, as the executable's one error type.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// Arguments that clap cannot check alone (a combination of flags, a
    /// name among choices): what is wrong with them.
    #[error("{0}")]
    Usage(String),
    /// A file named on the command line that cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A file that cannot be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A line of a data file that cannot be read.
    #[error("{}: bad line '{line}'", path.display())]
    BadLine {
        /// The file.
        path: PathBuf,
        /// The line.
        line: String,
    },
    /// Writing the report to stdout failed.
    #[error("cannot write the output: {0}")]
    Output(#[from] io::Error),
    /// A worker or helper thread that cannot be started.
    #[error("cannot start a thread: {0}")]
    Thread(#[source] io::Error),
    /// The worker threads' pool cannot be built.
    #[error("cannot start the worker threads: {0}")]
    Pool(#[from] rayon::ThreadPoolBuildError),
    /// A bad `ANNEX_CONFIG` spec.
    #[error("{var}: {0}", var = CONFIG_VAR)]
    Config(#[from] ConfigError),
    /// A `--option NAME=VALUE` the engine refuses.
    #[error("--option '{given}': {source}")]
    EngineOption {
        /// The option as given.
        given: String,
        /// Why the engine refuses it.
        source: OptionError,
    },
    /// A setting the engine refuses (threads, table size, evaluation).
    #[error(transparent)]
    Option(#[from] OptionError),
    /// A rule flag with a bad value.
    #[error(transparent)]
    Rules(#[from] ParseRuleError),
    /// A board or transcript that cannot be read.
    #[error(transparent)]
    Position(#[from] ParsePositionError),
    /// An unknown pass convention (`annex perft`).
    #[error(transparent)]
    Convention(#[from] ParseConventionError),
    /// A weights file that cannot be read or written.
    #[error(transparent)]
    Weights(#[from] WeightsError),
    /// An evaluation that cannot be loaded.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// A data folder without a file the tool needs.
    #[error(transparent)]
    DataDir(#[from] crate::datadir::MissingData),
    /// `annex book`.
    #[error(transparent)]
    Book(#[from] book::BookCliError),
    /// `annex analyze`: input lines that could not be read.
    #[error(transparent)]
    Analyze(#[from] crate::analyze::cli::UnreadableLines),
    /// `annex match`: a match that cannot be set up or run.
    #[error(transparent)]
    Match(#[from] crate::matchplay::MatchError),
    /// `annex datagen`: a run that cannot start or stops.
    #[error(transparent)]
    Datagen(#[from] crate::datagen::cli::DatagenCliError),
    /// `annex datagen`: an output file that cannot be opened for a run.
    #[error(transparent)]
    DatagenOutput(#[from] crate::datagen::output::OutputError),
    /// `annex datagen merge`: shards that cannot be merged.
    #[error(transparent)]
    Merge(#[from] crate::datagen::merge::MergeError),
    /// `annex train`, `annex eval-measure`: data that cannot be read, a
    /// run that fails.
    #[error(transparent)]
    Train(#[from] crate::train::TrainError),
    /// `annex train`: arguments that do not fit the run.
    #[error(transparent)]
    TrainArgs(#[from] crate::train::cli::TrainArgsError),
    /// `annex solve`: a bad line or range, or wrong results.
    #[error(transparent)]
    Solve(#[from] crate::solve::SolveError),
    /// `annex bench`: the protocol loop failed the bench.
    #[error(transparent)]
    Bench(#[from] crate::bench::BenchError),
    /// `annex serve`: the server cannot start.
    #[error(transparent)]
    Serve(#[from] crate::serve::ServeError),
    /// `annex solo`: a bad layout, start or player.
    #[error(transparent)]
    Solo(#[from] crate::solo::cli::SoloCliError),
}

impl ToolError {
    /// Whether the reader went away (`| head`): the tool ends quietly.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, ToolError::Output(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// The result of a tool.
pub type ToolResult<T = ()> = Result<T, ToolError>;

/// The rule options `--start --flips --tie --scoring` shared by the
/// tools (`perft`, `match`, `analyze`); clap parses each into its rule enum
/// (a bad value is a usage error naming the flag and the accepted values).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct RuleFlags {
    /// Start position: diagonal, parallel or free.
    #[arg(long, default_value = "diagonal")]
    start: Start,
    /// Flips: all or one-line.
    #[arg(long, default_value = "all")]
    flips: Flips,
    /// Tie rule: draw or second.
    #[arg(long, default_value = "draw")]
    tie: Tie,
    /// Scoring: wof or count.
    #[arg(long, default_value = "wof")]
    scoring: Scoring,
}

impl RuleFlags {
    /// The rule set.
    pub fn rules(&self) -> RuleSet {
        RuleSet {
            start: self.start,
            flips: self.flips,
            tie: self.tie,
            scoring: self.scoring,
        }
    }
}

/// Writes `text` and a newline to stdout (locked, flushed).
///
/// # Errors
/// The write failed ([`ToolError::Output`]).
pub fn print_line(text: &str) -> ToolResult {
    use std::io::Write;
    let mut out = io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()?;
    Ok(())
}
