//! `annex perft <depth>`: counts the leaves of the game tree from the start
//! position (or `--board`, then `--moves`) under the rule flags; with
//! `--divide`, the count below each move first. The last line is
//! `<total> leaves, depth <d>, <convention>, <s> s, <n> leaves/s`.

use crate::cli::{RuleFlags, ToolResult, args};
use crate::perft::{Convention, PerftOptions, divide, perft_with};
use crate::position::Position;
use std::io::Write;
use std::time::Instant;

/// Arguments of `annex perft`.
#[derive(clap::Args)]
pub struct PerftArgs {
    /// Depth in plies (0-20).
    #[arg(value_parser = args::perft_depth())]
    depth: u32,
    /// Print the count below each move.
    #[arg(long)]
    divide: bool,
    /// Pass convention: oeis, carry or nopass.
    #[arg(long, default_value = "oeis")]
    convention: String,
    /// Threads (1-256).
    #[arg(long, default_value_t = 1, value_parser = args::threads())]
    threads: usize,
    /// Count table size in MiB (1-65536).
    #[arg(long, default_value_t = 256, value_parser = args::hash_mb())]
    hash: usize,
    /// Start from this board: "<64 chars> <X|O>".
    #[arg(long, allow_hyphen_values = true)]
    board: Option<String>,
    /// Then play this transcript.
    #[arg(long, allow_hyphen_values = true)]
    moves: Option<String>,
    #[command(flatten)]
    rules: RuleFlags,
}

/// Runs `annex perft` and prints its report on stdout.
///
/// # Errors
/// An invalid rule flag, convention, board or transcript, or a write error.
pub fn run(a: &PerftArgs) -> ToolResult {
    let rules = a.rules.rules();
    let conv: Convention = a.convention.parse()?;
    let mut pos = match &a.board {
        Some(b) => b.parse::<Position>()?,
        None => Position::start(&rules),
    };
    if let Some(m) = &a.moves {
        pos = pos.play_transcript(m, &rules)?.0;
    }
    let depth = a.depth;
    let t = Instant::now();
    let opt = PerftOptions {
        convention: conv,
        threads: a.threads,
        hash_mb: a.hash,
    };
    let mut out = std::io::stdout().lock();
    let total = if depth == 0 {
        1
    } else if pos.is_game_over(&rules) {
        perft_with(&pos.board, &rules, depth, opt)
    } else {
        let parts = divide(&pos.board, &rules, depth, opt);
        if a.divide {
            for (m, n) in &parts {
                writeln!(out, "{m} {n}")?;
            }
        }
        parts.iter().map(|x| x.1).sum()
    };
    let s = t.elapsed().as_secs_f64();
    writeln!(
        out,
        "{total} leaves, depth {depth}, {conv}, {s:.3} s, {:.0} leaves/s",
        total as f64 / s.max(1e-9)
    )?;
    out.flush()?;
    Ok(())
}
