//! `annex analyze`: positions from a file or stdin, one JSON object per
//! line on stdout (schema: [`crate::analyze`]).

use crate::analyze::{AnalyzeOptions, Analyzer};
use crate::cli::RuleFlags;
use crate::search::{Limits, SolveMode};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `annex analyze`.
#[derive(clap::Args)]
pub struct AnalyzeArgs {
    /// Input file (one board string, OBF line or transcript per line);
    /// `-` or nothing reads stdin.
    file: Option<PathBuf>,
    /// Depth limit (default 12 when no other limit is given).
    #[arg(long)]
    depth: Option<u32>,
    /// Time per position in milliseconds.
    #[arg(long)]
    movetime: Option<u64>,
    /// Node limit per position.
    #[arg(long)]
    nodes: Option<u64>,
    /// Solve exactly (the proven final disc difference).
    #[arg(long, conflicts_with = "wld")]
    solve: bool,
    /// Solve win/loss/draw only.
    #[arg(long)]
    wld: bool,
    /// Score the best N moves (adds the `moves` key).
    #[arg(long, default_value_t = 1)]
    multipv: usize,
    /// Score every legal move (adds the `moves` key).
    #[arg(long)]
    all: bool,
    /// Search threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Hash table size in MiB.
    #[arg(long)]
    hash: Option<usize>,
    #[command(flatten)]
    rules: RuleFlags,
}

/// Runs `annex analyze`.
///
/// # Errors
/// Bad arguments, an unreadable input file, or input lines that could not
/// be read (they are reported in the output, and the exit status says so).
pub fn run(a: &AnalyzeArgs) -> Result<(), String> {
    let rules = a.rules.rules()?;
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
        multipv: a.multipv.max(1),
        ..Limits::default()
    };
    if limits.depth.is_none()
        && limits.nodes.is_none()
        && limits.movetime.is_none()
        && limits.solve.is_none()
    {
        limits.depth = Some(12);
    }
    let mut engine_options: Vec<(&str, String)> = vec![
        ("Threads", a.threads.max(1).to_string()),
        ("Start", rules.start.to_string()),
        ("Flips", rules.flips.to_string()),
        ("Tie", rules.tie.to_string()),
        ("Scoring", rules.scoring.to_string()),
    ];
    if let Some(h) = a.hash {
        engine_options.push(("Hash", h.to_string()));
    }
    let options = AnalyzeOptions {
        limits,
        all_moves: a.all,
    };
    let mut analyzer = Analyzer::new(options, &engine_options)?;
    let input: Box<dyn BufRead> = match &a.file {
        Some(p) if p.as_os_str() != "-" => Box::new(BufReader::new(
            std::fs::File::open(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?,
        )),
        _ => Box::new(BufReader::new(std::io::stdin())),
    };
    let stdout = std::io::stdout();
    let mut broken = false;
    let errors = analyzer.run(input, &mut |line| {
        if broken {
            return;
        }
        let mut out = stdout.lock();
        // A closed pipe (`| head`) ends the output quietly.
        if writeln!(out, "{line}").and_then(|_| out.flush()).is_err() {
            broken = true;
        }
    });
    if errors > 0 {
        return Err(format!("{errors} input line(s) could not be read"));
    }
    Ok(())
}
