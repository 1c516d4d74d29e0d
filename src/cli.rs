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

use crate::rules::RuleSet;
use std::fmt;
use std::io;

/// An error of a command-line tool.
#[derive(Debug)]
pub enum ToolError {
    /// A message for the user: bad arguments or input, a wrong result.
    Msg(String),
    /// Writing the report to stdout failed.
    Output(io::Error),
}

impl ToolError {
    /// Whether the reader went away (`| head`): the tool ends quietly.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, ToolError::Output(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::Msg(s) => f.write_str(s),
            ToolError::Output(e) => write!(f, "cannot write the output: {e}"),
        }
    }
}

impl std::error::Error for ToolError {}

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

impl From<io::Error> for ToolError {
    fn from(e: io::Error) -> ToolError {
        ToolError::Output(e)
    }
}

/// The result of a tool.
pub type ToolResult<T = ()> = Result<T, ToolError>;

/// The rule options `--start --flips --tie --scoring` shared by the
/// tools (`perft`, `match`, `analyze`).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct RuleFlags {
    /// Start position: diagonal, parallel or free.
    #[arg(long, default_value = "diagonal")]
    start: String,
    /// Flips: all or one-line.
    #[arg(long, default_value = "all")]
    flips: String,
    /// Tie rule: draw or second.
    #[arg(long, default_value = "draw")]
    tie: String,
    /// Scoring: wof or count.
    #[arg(long, default_value = "wof")]
    scoring: String,
}

impl RuleFlags {
    /// The rule set.
    ///
    /// # Errors
    /// An invalid value.
    pub fn rules(&self) -> Result<RuleSet, String> {
        let mut r = RuleSet::default();
        for (k, v) in [
            ("start", &self.start),
            ("flips", &self.flips),
            ("tie", &self.tie),
            ("scoring", &self.scoring),
        ] {
            r.set(k, v).map_err(|e| e.to_string())?;
        }
        Ok(r)
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
