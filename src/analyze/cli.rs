//! `annex analyze`: positions from a file or stdin, one JSON object per
//! line on stdout (schema: [`crate::analyze`]).

use crate::analyze::{AnalyzeOptions, Analyzer};
use crate::cli::{RuleFlags, ToolError, ToolResult, args};
use crate::engine::Engine;
use crate::search::{Limits, SolveMode};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `annex analyze`.
#[derive(clap::Args)]
pub struct AnalyzeArgs {
    /// Input file (one board string, OBF line or transcript per line; a
    /// regular file of at most 256 MiB); `-` or nothing reads stdin.
    file: Option<PathBuf>,
    /// Depth limit, 1-60 (default 12 when no other limit is given).
    #[arg(long, value_parser = args::depth())]
    depth: Option<u32>,
    /// Time per position in milliseconds (at least 1).
    #[arg(long, value_parser = args::millis())]
    movetime: Option<u64>,
    /// Node limit per position (at least 1).
    #[arg(long, value_parser = args::positive_u64())]
    nodes: Option<u64>,
    /// Solve exactly (the proven final disc difference).
    #[arg(long, conflicts_with = "wld")]
    solve: bool,
    /// Solve win/loss/draw only.
    #[arg(long)]
    wld: bool,
    /// Score the best N moves, 1-64 (adds the `moves` key).
    #[arg(long, default_value_t = 1, value_parser = args::multipv())]
    multipv: usize,
    /// Score every legal move (adds the `moves` key).
    #[arg(long)]
    all: bool,
    /// Search threads (1-256).
    #[arg(long, default_value_t = 1, value_parser = args::threads())]
    threads: usize,
    /// Hash table size in MiB (1-65536).
    #[arg(long, value_parser = args::hash_mb())]
    hash: Option<usize>,
    #[command(flatten)]
    rules: RuleFlags,
}

/// Input lines that `annex analyze` could not read (each is reported in
/// its output; the exit status says so).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0} input line(s) could not be read")]
pub struct UnreadableLines(pub usize);

/// Runs `annex analyze`.
///
/// # Errors
/// Bad arguments, an unreadable input file, or input lines that could not
/// be read (they are reported in the output, and the exit status says so),
/// or output that could not be written.
pub fn run(a: &AnalyzeArgs) -> ToolResult {
    let rules = a.rules.rules();
    let mut limits = Limits {
        depth: a.depth,
        nodes: a.nodes,
        movetime: a.movetime.map(Duration::from_millis),
        solve: if a.solve {
            Some(SolveMode::Exact)
        } else if a.wld {
            Some(SolveMode::Wld)
        } else {
            None
        },
        multipv: a.multipv,
        ..Limits::default()
    };
    if limits.depth.is_none()
        && limits.nodes.is_none()
        && limits.movetime.is_none()
        && limits.solve.is_none()
    {
        limits.depth = Some(12);
    }
    let (tx, events) = crossbeam_channel::unbounded();
    let mut engine = Engine::new(tx);
    engine.set_threads(a.threads)?;
    engine.set_rules(rules)?;
    if let Some(h) = a.hash {
        engine.set_hash(h)?;
    }
    let options = AnalyzeOptions {
        limits,
        all_moves: a.all,
    };
    let mut analyzer = Analyzer::new(options, engine, events);
    let input: Box<dyn BufRead> = match &a.file {
        Some(p) if p.as_os_str() != "-" => Box::new(BufReader::new(
            crate::fileio::open_regular(p, crate::fileio::MAX_TEXT_BYTES).map_err(|source| {
                ToolError::Read {
                    path: p.clone(),
                    source,
                }
            })?,
        )),
        _ => Box::new(BufReader::new(std::io::stdin())),
    };
    let stdout = std::io::stdout();
    // A write error ends the run; `main` ends quietly on a closed pipe.
    let errors = analyzer.run(input, &mut |line| {
        let mut out = stdout.lock();
        writeln!(out, "{line}")?;
        out.flush()
    })?;
    if errors > 0 {
        return Err(UnreadableLines(errors).into());
    }
    Ok(())
}
