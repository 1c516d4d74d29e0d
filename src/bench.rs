//! `annex bench`: the search signature. A fixed set of 40 positions (32
//! midgame positions searched to a fixed depth, 8 endgames solved exactly),
//! one thread, the table cleared before each; the last line is
//! `<nodes> nodes <nps> nps`. The node count must be the same on every run
//! and build; commits that change it say `Bench: <nodes>`.
//!
//! The positions come from fixed pseudo-random games (a xorshift generator
//! with fixed seeds over the legal move lists), so they need no data file.
//! Bench drives the engine facade directly; replaying protocol lines would
//! also exercise the protocol parser (planned once the protocol lands).

use crate::cli::{ToolResult, args};
use crate::engine::Engine;
use crate::moves::Move;
use crate::position::Position;
use crate::rules::RuleSet;
use crate::search::Limits;
use std::io::Write;
use std::time::Instant;

/// Arguments of `annex bench`.
#[derive(clap::Args, Clone, Debug)]
pub struct BenchArgs {
    /// Depth of the midgame positions (1-60).
    #[arg(long, default_value_t = 9, value_parser = args::depth())]
    pub depth: u32,
    /// Transposition table size in MiB (1-65536).
    #[arg(long, default_value_t = 16, value_parser = args::hash_mb())]
    pub hash: usize,
    /// Print one line per position.
    #[arg(long)]
    pub verbose: bool,
}

/// The bench positions and their search depth (a depth at least the number
/// of empties is an exact solve).
pub fn positions(depth: u32) -> Vec<(Position, u32)> {
    let rules = RuleSet::default();
    let mut out = Vec::new();
    for k in 0..40u64 {
        let mut seed = 0x2545_f491_4f6c_dd1d ^ (k + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let (plies, d) = if k < 32 {
            (10 + (k % 8) * 5, depth)
        } else {
            (44 + k % 3, 64)
        };
        let mut p = Position::start(&rules);
        for _ in 0..plies {
            let l = p.legal_moves(&rules);
            if l.is_empty() {
                if p.is_game_over(&rules) {
                    break;
                }
                p = p.play_unchecked(&rules, Move::PASS);
                continue;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            p = p.play_unchecked(&rules, l.as_slice()[(seed % l.len() as u64) as usize]);
        }
        out.push((p, d));
    }
    out
}

/// Runs the bench and returns the total node count.
///
/// # Errors
/// An invalid option value, or the report could not be written.
pub fn run(a: &BenchArgs) -> ToolResult<u64> {
    let (tx, rx) = crossbeam_channel::unbounded();
    let mut engine = Engine::new(tx);
    engine.set_threads(1).map_err(|e| e.to_string())?;
    engine.set_hash(a.hash).map_err(|e| e.to_string())?;
    let mut out = std::io::stdout().lock();
    let start = Instant::now();
    let mut nodes = 0;
    for (i, (pos, depth)) in positions(a.depth).into_iter().enumerate() {
        engine.new_game();
        let r = engine.search_sync(
            pos,
            Limits {
                depth: Some(depth),
                ..Limits::default()
            },
        );
        while rx.try_recv().is_ok() {}
        nodes += r.nodes;
        if a.verbose {
            writeln!(
                out,
                "{:>2} {} depth {:>2} best {} score {:+} nodes {}",
                i + 1,
                pos,
                r.depth,
                r.best,
                r.score,
                r.nodes
            )?;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    writeln!(
        out,
        "{nodes} nodes {:.0} nps",
        nodes as f64 / secs.max(1e-9)
    )?;
    out.flush()?;
    Ok(nodes)
}
