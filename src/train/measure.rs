//! Measuring an evaluation: accuracy against exact scores, speed, and
//! strength in self-play.
//!
//! Strength against an external GTP engine (e.g. GRhino's `gtp-rhino`)
//! goes through the match client of [`crate::matchplay`].
//!
//! The searches here are deliberately small and independent of the
//! engine's search: a fixed-depth alpha-beta (for the "depth-N search"
//! accuracy and the fixed-depth matches) and an exact endgame solver (for
//! labelling held-out game positions), both with plain move ordering. They
//! measure evaluations against each other on equal terms; they are not the
//! engine.

use crate::board::{Board, Color, flips, legal_moves};
use crate::engine::Engine;
use crate::eval::{Evaluator, SCALE};
use crate::matchplay::client::{Client, MoveLimit, MoveRequest, Protocol};
use crate::matchplay::{EngineSpec, connect};
use crate::moves::Move;
use crate::position::{ObfLine, Position};
use crate::rules::RuleSet;
use crate::search::Limits;
use crate::square::Square;
use crate::train::TrainError;
use rayon::prelude::*;
use std::path::Path;
use std::time::{Duration, Instant};

/// A position with its exact score (discs, side to move).
#[derive(Clone, Copy, Debug)]
pub struct Exact {
    /// The position.
    pub board: Board,
    /// Exact disc difference for the side to move under perfect play.
    pub score: i32,
}

/// Reads FFO `ffo_1_59.tsv` (id, empties, side, best score, moves, board, …).
///
/// # Errors
/// The file cannot be read, or a board or score does not parse.
pub fn read_ffo_tsv(path: &Path) -> Result<Vec<Exact>, TrainError> {
    let text = crate::fileio::read_string_bounded(path, crate::fileio::MAX_TEXT_BYTES).map_err(
        |source| TrainError::Read {
            path: path.to_path_buf(),
            source,
        },
    )?;
    let mut out = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 6 || f[0] == "id" {
            continue;
        }
        let pos: Position =
            format!("{} {}", f[5], f[2])
                .parse()
                .map_err(|source| TrainError::Position {
                    path: path.to_path_buf(),
                    source,
                })?;
        let score = f[3]
            .trim_start_matches('+')
            .parse()
            .map_err(|_| TrainError::Score {
                path: path.to_path_buf(),
                score: f[3].to_string(),
            })?;
        out.push(Exact {
            board: pos.board,
            score,
        });
    }
    Ok(out)
}

/// Reads an OBF file; the best listed score is the exact score.
///
/// # Errors
/// The file cannot be read, or a line is not OBF.
pub fn read_obf(path: &Path) -> Result<Vec<Exact>, TrainError> {
    let text = crate::fileio::read_string_bounded(path, crate::fileio::MAX_TEXT_BYTES).map_err(
        |source| TrainError::Read {
            path: path.to_path_buf(),
            source,
        },
    )?;
    let mut out = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('%'))
    {
        let o: ObfLine = line.parse().map_err(|source| TrainError::Position {
            path: path.to_path_buf(),
            source,
        })?;
        if let Some(score) = o.best_score() {
            out.push(Exact {
                board: o.position.board,
                score,
            });
        }
    }
    Ok(out)
}

#[inline]
fn final_diff(b: &Board) -> i32 {
    let p = b.player.count_ones() as i32;
    let o = b.opponent.count_ones() as i32;
    let e = 64 - p - o;
    if p > o {
        p - o + e
    } else if p < o {
        p - o - e
    } else {
        0
    }
}

/// Fixed-depth alpha-beta on an evaluation; scores in 1/SCALE disc.
/// Counts nodes in `nodes`.
pub fn alphabeta(
    e: &Evaluator,
    b: &Board,
    depth: u32,
    mut alpha: i32,
    beta: i32,
    nodes: &mut u64,
) -> i32 {
    *nodes += 1;
    let mut moves = legal_moves(b.player, b.opponent);
    if moves == 0 {
        if legal_moves(b.opponent, b.player) == 0 {
            return final_diff(b) * SCALE;
        }
        return -alphabeta(e, &b.pass(), depth, -beta, -alpha, nodes);
    }
    if depth == 0 {
        return e.evaluate(b);
    }
    let mut best = i32::MIN + 1;
    while moves != 0 {
        let sq = moves.trailing_zeros() as usize;
        moves &= moves - 1;
        let c = b.play_flips(sq, flips(b.player, b.opponent, sq));
        let v = -alphabeta(e, &c, depth - 1, -beta, -alpha, nodes);
        if v > best {
            best = v;
            if v > alpha {
                alpha = v;
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    best
}

/// Best move square and score (1/SCALE disc) of a fixed-depth search, or
/// `None` when the side to move must pass.
pub fn best_move(e: &Evaluator, b: &Board, depth: u32, nodes: &mut u64) -> Option<(usize, i32)> {
    let mut moves = legal_moves(b.player, b.opponent);
    let mut best: Option<(usize, i32)> = None;
    while moves != 0 {
        let sq = moves.trailing_zeros() as usize;
        moves &= moves - 1;
        let c = b.play_flips(sq, flips(b.player, b.opponent, sq));
        let alpha = best.map_or(-i32::MAX + 1, |x| x.1);
        let v = -alphabeta(e, &c, depth.saturating_sub(1), -i32::MAX + 1, -alpha, nodes);
        if best.is_none_or(|x| v > x.1) {
            best = Some((sq, v));
        }
    }
    best
}

/// Exact score (discs, side to move) by alpha-beta to the end, ordering
/// moves by the opponent's mobility at 7+ empties.
pub fn solve(b: &Board, mut alpha: i32, beta: i32) -> i32 {
    let mut moves = legal_moves(b.player, b.opponent);
    if moves == 0 {
        if legal_moves(b.opponent, b.player) == 0 {
            return final_diff(b);
        }
        return -solve(&b.pass(), -beta, -alpha);
    }
    let mut best = -65;
    if b.empties() >= 7 {
        let mut list: Vec<(u32, Board)> = Vec::with_capacity(16);
        while moves != 0 {
            let sq = moves.trailing_zeros() as usize;
            moves &= moves - 1;
            let c = b.play_flips(sq, flips(b.player, b.opponent, sq));
            list.push((legal_moves(c.player, c.opponent).count_ones(), c));
        }
        list.sort_by_key(|x| x.0);
        for (_, c) in list {
            let v = -solve(&c, -beta, -alpha);
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
    } else {
        while moves != 0 {
            let sq = moves.trailing_zeros() as usize;
            moves &= moves - 1;
            let c = b.play_flips(sq, flips(b.player, b.opponent, sq));
            let v = -solve(&c, -beta, -alpha);
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
    }
    best
}

/// Mean absolute error in discs of `f(position)` (in 1/SCALE disc) against
/// the exact scores, grouped by `band` empties: `(lo, hi, count, mae)`.
pub fn mae_bands<F>(set: &[Exact], band: u32, f: F) -> Vec<(u32, u32, usize, f64)>
where
    F: Fn(&Board) -> i32 + Sync,
{
    let errs: Vec<(u32, f64)> = set
        .par_iter()
        .map(|x| {
            let v = f(&x.board) as f64 / SCALE as f64;
            (x.board.empties(), (v - x.score as f64).abs())
        })
        .collect();
    let mut out: Vec<(u32, u32, usize, f64)> = Vec::new();
    for lo in (0..=60).step_by(band as usize) {
        let hi = lo + band - 1;
        let v: Vec<f64> = errs
            .iter()
            .filter(|x| (lo..=hi).contains(&x.0))
            .map(|x| x.1)
            .collect();
        if !v.is_empty() {
            out.push((lo, hi, v.len(), v.iter().sum::<f64>() / v.len() as f64));
        }
    }
    let all: f64 = errs.iter().map(|x| x.1).sum::<f64>() / errs.len().max(1) as f64;
    out.push((0, 64, errs.len(), all));
    out
}

/// Result of a self-play match, from the first evaluation's side.
#[derive(Clone, Debug, Default)]
pub struct MatchResult {
    /// Games won, drawn and lost by the first evaluation.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
    /// Sum of disc differences.
    pub discs: i64,
}

impl MatchResult {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }
    /// Score fraction (win 1, draw ½).
    pub fn score(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games().max(1) as f64
    }
    /// Elo difference and its 95% margin (normal approximation on the
    /// per-game score variance).
    pub fn elo(&self) -> (f64, f64) {
        let n = self.games().max(1) as f64;
        let s = self.score().clamp(1e-3, 1.0 - 1e-3);
        let mean_sq = (self.wins as f64 + 0.25 * self.draws as f64) / n;
        let var = (mean_sq - s * s).max(0.0);
        let se = (var / n).sqrt();
        let elo = |x: f64| -400.0 * (1.0 / x.clamp(1e-3, 1.0 - 1e-3) - 1.0).log10();
        let lo = elo(s - 1.96 * se);
        let hi = elo(s + 1.96 * se);
        (elo(s), (hi - lo) / 2.0)
    }

    /// `+W =D -L, score S%, Elo E ± M, mean discs D`, as the reports print it.
    pub fn summary(&self) -> String {
        let (elo, margin) = self.elo();
        format!(
            "+{} ={} -{}, score {:.1}%, Elo {:+.0} ± {:.0}, mean discs {:+.2}",
            self.wins,
            self.draws,
            self.losses,
            100.0 * self.score(),
            elo,
            margin,
            self.discs as f64 / self.games().max(1) as f64
        )
    }
}

/// Plays one game from `start` (Black to move when `start` is a fresh
/// opening line) between `first` and `second`; `first` plays the side to
/// move of `start` when `first_moves` is true. Both search `depth` plies
/// and solve exactly from `solve_empties` empties. Returns the final disc
/// difference for `first`.
pub fn play_game(
    first: &Evaluator,
    second: &Evaluator,
    start: Board,
    first_moves: bool,
    depth: u32,
    solve_empties: u32,
) -> i32 {
    let mut b = start;
    let mut first_to_move = first_moves;
    let mut nodes = 0;
    loop {
        let mut moves = legal_moves(b.player, b.opponent);
        if moves == 0 {
            if legal_moves(b.opponent, b.player) == 0 {
                let d = final_diff(&b);
                return if first_to_move { d } else { -d };
            }
            b = b.pass();
            first_to_move = !first_to_move;
            continue;
        }
        let sq = if b.empties() <= solve_empties {
            let mut best = (64, -65);
            while moves != 0 {
                let sq = moves.trailing_zeros() as usize;
                moves &= moves - 1;
                let c = b.play_flips(sq, flips(b.player, b.opponent, sq));
                let v = -solve(&c, -64, -best.1);
                if v > best.1 {
                    best = (sq, v);
                }
            }
            best.0
        } else {
            let e = if first_to_move { first } else { second };
            best_move(e, &b, depth, &mut nodes).map_or(64, |x| x.0)
        };
        b = b.play_flips(sq, flips(b.player, b.opponent, sq));
        first_to_move = !first_to_move;
    }
}

/// A match over `openings` (boards after the opening line, with the side
/// to move), each played twice with colours swapped.
pub fn play_match(
    first: &Evaluator,
    second: &Evaluator,
    openings: &[Board],
    depth: u32,
    solve_empties: u32,
) -> MatchResult {
    let diffs: Vec<i32> = openings
        .par_iter()
        .flat_map_iter(|&b| {
            [true, false]
                .into_iter()
                .map(move |fm| play_game(first, second, b, fm, depth, solve_empties))
        })
        .collect();
    let mut r = MatchResult::default();
    for d in diffs {
        r.discs += d as i64;
        match d.signum() {
            1 => r.wins += 1,
            0 => r.draws += 1,
            _ => r.losses += 1,
        }
    }
    r
}

/// One engine per evaluation, for engine-vs-engine games.
fn engine_with(e: &Evaluator) -> crate::engine::Engine {
    let (tx, _) = crossbeam_channel::unbounded();
    let mut engine = crate::engine::Engine::new(tx);
    engine.set_evaluator(e.clone());
    engine
}

/// Score (discs, side to move) and nodes of an engine search of `b`.
pub fn engine_search(
    engine: &mut crate::engine::Engine,
    b: &Board,
    limits: crate::search::Limits,
) -> (i32, u64, f64) {
    let pos = Position {
        board: *b,
        side: crate::board::Color::Black,
    };
    let bm = engine.search_sync(pos, limits);
    (bm.score, bm.nodes, bm.time.as_secs_f64())
}

/// Engine at a fixed depth: exact scores are its own (the engine solves
/// when depth + its solve margin reaches the empties).
pub fn engine_depth_scores(e: &Evaluator, set: &[Exact], depth: u32) -> Vec<i32> {
    set.par_iter()
        .map_init(
            || engine_with(e),
            |eng, x| {
                eng.new_game();
                let limits = crate::search::Limits {
                    depth: Some(depth),
                    ..Default::default()
                };
                engine_search(eng, &x.board, limits).0 * SCALE
            },
        )
        .collect()
}

/// A match between two engines that differ only in their evaluation,
/// under `limits` per move, each opening twice with colours swapped.
pub fn engine_match(
    first: &Evaluator,
    second: &Evaluator,
    openings: &[Board],
    limits: &crate::search::Limits,
) -> MatchResult {
    let diffs: Vec<i32> = openings
        .par_iter()
        .flat_map_iter(|&b| [(b, true), (b, false)])
        .map_init(
            || (engine_with(first), engine_with(second)),
            |(ea, eb), (start, first_moves)| {
                ea.new_game();
                eb.new_game();
                let mut b = start;
                let mut first_to_move = first_moves;
                loop {
                    if legal_moves(b.player, b.opponent) == 0 {
                        if legal_moves(b.opponent, b.player) == 0 {
                            let d = final_diff(&b);
                            return if first_to_move { d } else { -d };
                        }
                        b = b.pass();
                        first_to_move = !first_to_move;
                        continue;
                    }
                    let eng = if first_to_move { &mut *ea } else { &mut *eb };
                    let pos = Position {
                        board: b,
                        side: crate::board::Color::Black,
                    };
                    let bm = eng.search_sync(pos, limits.clone());
                    let sq = match bm.best.to_square() {
                        Some(s) if legal_moves(b.player, b.opponent) >> s.index() & 1 != 0 => {
                            s.index()
                        }
                        // Never expected: fall back to the first legal move.
                        _ => legal_moves(b.player, b.opponent).trailing_zeros() as usize,
                    };
                    b = b.play_flips(sq, flips(b.player, b.opponent, sq));
                    first_to_move = !first_to_move;
                }
            },
        )
        .collect();
    let mut r = MatchResult::default();
    for d in diffs {
        r.discs += d as i64;
        match d.signum() {
            1 => r.wins += 1,
            0 => r.draws += 1,
            _ => r.losses += 1,
        }
    }
    r
}

/// How long a GTP engine may take for one move.
const GTP_MOVE_TIMEOUT: Duration = Duration::from_secs(60);

/// Plays one game against a GTP engine (the match client,
/// [`crate::matchplay`]) from the opening `moves` (squares from the start
/// position, no passes); Annex plays Black when `annex_black`. Returns the
/// final disc difference for Annex (a forfeit by the GTP engine counts
/// +64, logged); adds the GTP engine's seconds and moves to `think`.
fn play_gtp_game(
    gtp: &mut dyn Client,
    engine: &mut Engine,
    opening: &[Square],
    annex_black: bool,
    limits: &Limits,
    think: &mut (f64, u64),
) -> Result<i32, TrainError> {
    let start = Position::start(&RuleSet::default());
    gtp.new_game(&start).map_err(TrainError::NewGame)?;
    engine.new_game();
    let mut moves = Vec::new();
    let mut b = Board::start();
    let mut black = true;
    for &sq in opening {
        moves.push(Move::square(sq));
        b = b.play_flips(sq.index(), flips(b.player, b.opponent, sq.index()));
        black = !black;
    }
    loop {
        let annex_to_move = black == annex_black;
        let side = if black { Color::Black } else { Color::White };
        let lm = legal_moves(b.player, b.opponent);
        if lm == 0 {
            if legal_moves(b.opponent, b.player) == 0 {
                let d = final_diff(&b);
                return Ok(if annex_to_move { d } else { -d });
            }
            // A forced pass: the client tells the GTP engine before its
            // next move.
            moves.push(Move::PASS);
            b = b.pass();
            black = !black;
            continue;
        }
        let sq = if annex_to_move {
            let bm = engine.search_sync(Position { board: b, side }, limits.clone());
            bm.best
                .to_square()
                .filter(|s| lm >> s.index() & 1 != 0)
                .ok_or_else(|| TrainError::AnnexMove(format!("{} on {b:?}", bm.best)))?
        } else {
            let t = Instant::now();
            let times = vec![0.0; moves.len()];
            let req = MoveRequest {
                start: &start,
                moves: &moves,
                times: &times,
                position: &Position { board: b, side },
                clocks: [None, None],
                limit: &MoveLimit::default(),
                deadline: t + GTP_MOVE_TIMEOUT,
            };
            let r = gtp.go(&req).map_err(TrainError::Engine)?.text;
            think.0 += t.elapsed().as_secs_f64();
            think.1 += 1;
            match r.parse::<Square>() {
                Ok(s) if lm >> s.index() & 1 != 0 => s,
                _ => {
                    log::warn!("GTP engine played '{r}' (illegal) on {b:?}: forfeit");
                    return Ok(64);
                }
            }
        };
        moves.push(Move::square(sq));
        b = b.play_flips(sq.index(), flips(b.player, b.opponent, sq.index()));
        black = !black;
    }
}

/// A match against the GTP engine started by `program` over `openings`
/// (each twice, colours swapped); Annex uses `eval` under `limits`.
/// Returns the result and the GTP engine's mean seconds per move.
///
/// # Errors
/// The engine cannot be started, does not speak GTP, or fails during a
/// game (crash, timeout, refused command).
pub fn gtp_match(
    program: &str,
    eval: &Evaluator,
    openings: &[Vec<Square>],
    limits: &Limits,
) -> Result<(MatchResult, f64), TrainError> {
    let spec = EngineSpec {
        name: "gtp".into(),
        protocol: Some(Protocol::Gtp),
        command: program.to_string(),
        options: Vec::new(),
        limit: MoveLimit::default(),
    };
    let mut gtp =
        connect(&spec, &RuleSet::default(), &spec.name).map_err(|failure| TrainError::Start {
            program: program.to_string(),
            failure,
        })?;
    let mut engine = engine_with(eval);
    let mut r = MatchResult::default();
    let mut think = (0.0, 0);
    for (i, o) in openings.iter().enumerate() {
        for annex_black in [true, false] {
            let d = play_gtp_game(&mut *gtp, &mut engine, o, annex_black, limits, &mut think)?;
            r.discs += d as i64;
            match d.signum() {
                1 => r.wins += 1,
                0 => r.draws += 1,
                _ => r.losses += 1,
            }
        }
        eprintln!(
            "gtp match: {}/{} openings, +{} ={} -{}",
            i + 1,
            openings.len(),
            r.wins,
            r.draws,
            r.losses
        );
    }
    gtp.quit();
    Ok((r, think.0 / think.1.max(1) as f64))
}
