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

use crate::eval::{EvalError, WeightsError};
use crate::rules::{Flips, ParseRuleError, RuleSet, Scoring, Start, Tie};
use std::io;

/// An error of a command-line tool: the binary's edge, where the typed
/// errors of the features meet (each wrapped with `#[from]`, its message
/// unchanged) and `main` prints `annex: error: <message>`.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// A message for the user: bad arguments or input, a wrong result.
    #[error("{0}")]
    Msg(String),
    /// Writing the report to stdout failed.
    #[error("cannot write the output: {0}")]
    Output(#[from] io::Error),
    /// A rule flag with a bad value.
    #[error(transparent)]
    Rules(#[from] ParseRuleError),
    /// A weights file that cannot be read or written.
    #[error(transparent)]
    Weights(#[from] WeightsError),
    /// An evaluation that cannot be loaded.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// The typed error of a feature above this module (the book, analyze,
    /// …), kept whole ([`ToolError::feature`]; a `#[from]` here would make
    /// this module and the feature import each other).
    #[error(transparent)]
    Feature(Box<dyn std::error::Error + Send + Sync>),
}

impl ToolError {
    /// Wraps the typed error of a feature above this module.
    pub fn feature(e: impl std::error::Error + Send + Sync + 'static) -> ToolError {
        ToolError::Feature(Box::new(e))
    }

    /// Whether the reader went away (`| head`): the tool ends quietly.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, ToolError::Output(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl From<String> for ToolError {
    fn from(s: String) -> ToolError {
        ToolError::Msg(s)
    }
}

impl From<&str> for ToolError {
    fn from(s: &str) -> ToolError {
        ToolError::Msg(s.to_string())
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
