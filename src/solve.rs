//! `annex solve <file.obf> [--threads N] [--hash MB] [--wld] [--eval FILE]`: solves every
//! position of an OBF file and checks the listed scores (Edax's `-solve`).
//!
//! One line per position: index, empties, best move (`pass` when the side
//! to move must pass, `none` when the game is over), score, expected best
//! score (`?` when the file lists none), `ok`/`FAIL`, seconds, nodes; then
//! `solved <ok>/<total> correct, <seconds> s, <nodes> nodes, <nodes/s> nodes/s`.
//! With `--wld` only the sign is checked. The table is cleared before each
//! position. Returns an error (non-zero exit) when a score is wrong.

use crate::cli::{ToolError, ToolResult, args};
use crate::engine::{Engine, EngineEvent};
use crate::moves::Move;
use crate::position::{ObfLine, ParsePositionError, Position};
use crate::rules::RuleSet;
use crate::search::{BestMove, Config, Limits, SolveMode};
use std::io::Write;
use std::time::Instant;

/// Arguments of `annex solve`.
#[derive(clap::Args, Clone, Debug)]
pub struct SolveArgs {
    /// OBF file: `<board> <side>; <move>:<score>; ...` per line (a regular
    /// file of at most 256 MiB).
    pub file: std::path::PathBuf,
    /// Search threads (1-256).
    #[arg(long, default_value_t = 1, value_parser = args::threads())]
    pub threads: usize,
    /// Transposition table size in MiB (1-65536).
    #[arg(long, default_value_t = 64, value_parser = args::hash_mb())]
    pub hash: usize,
    /// Solve win/loss/draw only.
    #[arg(long)]
    pub wld: bool,
    /// Only positions with these 1-based indexes (e.g. `1-5,9`).
    #[arg(long)]
    pub only: Option<String>,
    /// Evaluation (it orders the solver's moves): a weights file of
    /// `annex train`, `embedded` or `simple`.
    #[arg(long, default_value = "embedded")]
    pub eval: String,
}

/// Why `annex solve` failed.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// An `--only` range that is not `A` or `A-B` with numbers.
    #[error("bad range '{0}'")]
    RangeSyntax(String),
    /// An `--only` range from 0 or backwards.
    #[error("bad range '{0}' (indexes start at 1, the first not above the last)")]
    RangeOrder(String),
    /// A line that is no OBF position.
    #[error("line {index}: {source} in '{line}'")]
    Line {
        /// The line's 1-based index among the position lines.
        index: usize,
        /// The line.
        line: String,
        /// Why it is no position.
        source: ParsePositionError,
    },
    /// The engine ended a search without a result.
    #[error("the engine sent no result")]
    NoResult,
    /// Scores that differ from the file's.
    #[error("{0} wrong result(s)")]
    Wrong(usize),
}

fn parse_ranges(s: &str) -> Result<Vec<(usize, usize)>, SolveError> {
    s.split(',')
        .map(|p| {
            let (a, b) = p.split_once('-').unwrap_or((p, p));
            let syntax = |_| SolveError::RangeSyntax(p.to_string());
            let a: usize = a.trim().parse().map_err(syntax)?;
            let b: usize = b.trim().parse().map_err(syntax)?;
            if a == 0 || b < a {
                return Err(SolveError::RangeOrder(p.to_string()));
            }
            Ok((a, b))
        })
        .collect()
}

/// Solves `pos` exactly (or WLD); at a forced pass the engine solves the
/// position after the pass and answers `pass` with its value.
fn solve_one(
    engine: &mut Engine,
    rx: &crossbeam_channel::Receiver<EngineEvent>,
    pos: Position,
    mode: SolveMode,
) -> Result<BestMove, SolveError> {
    let limits = Limits {
        solve: Some(mode),
        ..Limits::default()
    };
    engine.go(pos, limits);
    let mut result = None;
    for ev in rx.iter() {
        match ev {
            EngineEvent::Info(i) => log::info!(
                "depth {} score {:+} {:?} nodes {} time {:.3} pv {}",
                i.depth,
                i.score,
                i.bound,
                i.nodes,
                i.time.as_secs_f64(),
                i.pv.iter()
                    .map(|m| m.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            EngineEvent::BestMove(b) => {
                result = Some(b);
                break;
            }
            EngineEvent::Message(m) => log::warn!("{m}"),
            EngineEvent::Debug(m) => log::debug!("{m}"),
        }
    }
    engine.wait();
    result.ok_or(SolveError::NoResult)
}

/// The move column: `none` when the game is over (as `annex analyze`
/// says), else the move (`pass` when the side to move must pass).
fn move_name(obf: &ObfLine, best: Move) -> String {
    if obf.position.is_game_over(&RuleSet::default()) {
        "none".into()
    } else {
        best.to_string()
    }
}

/// Runs the tool.
///
/// # Errors
/// Unreadable file, bad line, bad option, or a wrong score.
pub fn run(a: &SolveArgs, config: &Config) -> ToolResult {
    let text = crate::fileio::read_string_bounded(&a.file, crate::fileio::MAX_TEXT_BYTES).map_err(
        |source| ToolError::Read {
            path: a.file.clone(),
            source,
        },
    )?;
    let ranges = a.only.as_deref().map(parse_ranges).transpose()?;
    let (tx, rx) = crossbeam_channel::unbounded();
    let mut engine = Engine::new(tx);
    engine.set_config(config.clone());
    engine.set_threads(a.threads)?;
    engine.set_hash(a.hash)?;
    engine.set_eval_file(&a.eval)?;
    let mode = if a.wld {
        SolveMode::Wld
    } else {
        SolveMode::Exact
    };
    let (mut ok, mut total, mut wrong, mut nodes) = (0usize, 0usize, 0usize, 0u64);
    let start = Instant::now();
    let lines = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#') && !l.starts_with('%'));
    let mut out = std::io::stdout().lock();
    writeln!(out, "  # empt move score  want result     time       nodes")?;
    for (i, line) in lines.enumerate() {
        let index = i + 1;
        if let Some(r) = &ranges
            && !r.iter().any(|&(lo, hi)| (lo..=hi).contains(&index))
        {
            continue;
        }
        let obf: ObfLine = line.parse().map_err(|source| SolveError::Line {
            index,
            line: line.to_string(),
            source,
        })?;
        engine.new_game();
        let t = Instant::now();
        let r = solve_one(&mut engine, &rx, obf.position, mode)?;
        let secs = t.elapsed().as_secs_f64();
        total += 1;
        nodes += r.nodes;
        let want = obf.best_score();
        let verdict = match want {
            None => "-",
            Some(w) => {
                let good = if a.wld {
                    r.score.signum() == w.signum() || (w == 0 && r.tie.is_some())
                } else {
                    r.score == w && (obf.best_moves().contains(&r.best) || obf.scores.len() <= 1)
                };
                if good {
                    ok += 1;
                    "ok"
                } else {
                    wrong += 1;
                    "FAIL"
                }
            }
        };
        writeln!(
            out,
            "{index:>3} {:>4} {:>4} {:>+5} {:>5} {verdict:>6} {secs:>8.3} {:>11}",
            obf.position.board.empties(),
            move_name(&obf, r.best),
            r.score,
            want.map_or("?".to_string(), |w| format!("{w:+}")),
            r.nodes
        )?;
    }
    let secs = start.elapsed().as_secs_f64();
    writeln!(
        out,
        "solved {ok}/{total} correct, {secs:.3} s, {nodes} nodes, {:.0} nodes/s",
        nodes as f64 / secs.max(1e-9)
    )?;
    out.flush()?;
    if wrong > 0 {
        return Err(SolveError::Wrong(wrong).into());
    }
    Ok(())
}
