//! Measuring an evaluation: accuracy against exact scores, speed, and
//! strength in self-play.
//!
//! Strength against an external GTP engine (e.g. GRhino's `gtp-rhino`)
//! goes through the match client of [`crate::matchplay`].
//!
//! Every search here is the engine's (the [`Engine`] facade, one thread,
//! no book): the fixed-depth scores of the accuracy figures, the exact
//! solves that label held-out positions, and the moves of the matches,
//! whose games [`crate::play::play_out`] plays.

use crate::board::{Board, Color};
use crate::engine::Engine;
use crate::eval::{Evaluator, SCALE};
use crate::matchplay::client::{Client, MoveLimit, MoveRequest, Protocol};
use crate::matchplay::{EngineSpec, connect};
use crate::moves::Move;
use crate::play::{EnginePlayer, Player, Stop, play_out};
use crate::position::{ObfLine, Position};
use crate::record::game::Game;
use crate::rules::RuleSet;
use crate::search::Limits;
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
    /// Counts a game that the first side ended `discs` ahead.
    pub fn add(&mut self, discs: i32) {
        self.discs += i64::from(discs);
        match discs.signum() {
            1 => self.wins += 1,
            0 => self.draws += 1,
            _ => self.losses += 1,
        }
    }

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

/// One engine per evaluation (one thread, no book), for engine games and
/// scores.
fn engine_with(e: &Evaluator) -> Engine {
    let (tx, _) = crossbeam_channel::unbounded();
    let mut engine = Engine::new(tx);
    // Turning the book off is always accepted while no search runs.
    let _ = engine.set_own_book(false);
    engine.set_evaluator(e.clone());
    engine
}

/// Score (discs, side to move), nodes and seconds of an engine search of
/// `pos`.
pub fn engine_search(engine: &mut Engine, pos: &Position, limits: Limits) -> (i32, u64, f64) {
    let bm = engine.search_sync(*pos, limits);
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
                let limits = Limits {
                    depth: Some(depth),
                    ..Default::default()
                };
                engine_search(eng, &position(x.board), limits).0 * SCALE
            },
        )
        .collect()
}

/// The exact scores of `boards` (the side to move's view), by the engine's
/// solver, in order.
pub fn solve_exact(boards: &[Board]) -> Vec<Exact> {
    boards
        .par_iter()
        .map_init(
            || engine_with(&Evaluator::default()),
            |eng, b| {
                eng.new_game();
                let score = engine_search(eng, &position(*b), Limits::exact()).0;
                Exact { board: *b, score }
            },
        )
        .collect()
}

/// `board` as a position with Black to move (the rules are symmetric).
pub(crate) fn position(board: Board) -> Position {
    Position {
        board,
        side: Color::Black,
    }
}

/// The limits of the fixed-depth match: `depth` plies, exact from
/// `solve_empties` empties on.
pub fn depth_limits(depth: u32, solve_empties: u32) -> impl Fn(&Position) -> Limits + Copy {
    move |p: &Position| {
        if p.board.empties() <= solve_empties {
            Limits::exact()
        } else {
            Limits::to_depth(depth)
        }
    }
}

/// Plays one game from `start` between the engines `first` and `second`
/// (tables cleared), each searching under `limits`; `first` plays the
/// side to move of `start` when `first_moves`. Returns the final disc
/// difference for `first`.
///
/// # Errors
/// An engine answered a move that is not legal (a bug).
pub fn engine_game(
    [first, second]: [&mut Engine; 2],
    start: Position,
    first_moves: bool,
    limits: impl Fn(&Position) -> Limits + Copy,
) -> Result<i32, TrainError> {
    first.new_game();
    second.new_game();
    let rules = RuleSet::default();
    let first_color = if first_moves {
        start.side
    } else {
        start.side.other()
    };
    let mut a = EnginePlayer::new(first, limits);
    let mut b = EnginePlayer::new(second, limits);
    let mut seats = if first_color == Color::Black {
        [&mut a, &mut b]
    } else {
        [&mut b, &mut a]
    };
    let mut game = Game::from_position(start, rules);
    match play_out(&mut game, &mut seats) {
        Ok(()) => Ok(game.current().final_score_for(rules.scoring, first_color)),
        Err(Stop::Failed { error, .. }) => match error {},
        Err(Stop::Illegal { chosen, .. }) => Err(TrainError::AnnexMove(format!(
            "{chosen} in {}",
            game.current()
        ))),
    }
}

/// A match between two engines that differ only in their evaluation, each
/// searching under `limits`, over `openings` (positions after the opening
/// line), each played twice with colours swapped.
///
/// # Errors
/// An engine answered a move that is not legal (a bug).
pub fn play_match(
    first: &Evaluator,
    second: &Evaluator,
    openings: &[Position],
    limits: impl Fn(&Position) -> Limits + Copy + Sync,
) -> Result<MatchResult, TrainError> {
    let diffs: Vec<Result<i32, TrainError>> = openings
        .par_iter()
        .flat_map_iter(|&p| [(p, true), (p, false)])
        .map_init(
            || (engine_with(first), engine_with(second)),
            |(ea, eb), (start, first_moves)| engine_game([ea, eb], start, first_moves, limits),
        )
        .collect();
    let mut r = MatchResult::default();
    for d in diffs {
        r.add(d?);
    }
    Ok(r)
}

/// How long a GTP engine may take for one move.
const GTP_MOVE_TIMEOUT: Duration = Duration::from_secs(60);

/// How a game against a GTP engine stopped early.
enum GtpStop {
    /// The GTP engine answered no move: it forfeits (the answer).
    Forfeit(String),
    /// The GTP engine failed.
    Failed(TrainError),
}

/// Annex and a GTP engine as the two sides of a game: Annex searches under
/// `limits`; the GTP engine is asked with the game so far. The GTP
/// engine's seconds and moves are added to `think`.
struct GtpSeats<'a> {
    gtp: &'a mut dyn Client,
    engine: &'a mut Engine,
    annex: Color,
    limits: &'a Limits,
    think: &'a mut (f64, u64),
}

impl Player for GtpSeats<'_> {
    type Error = GtpStop;

    fn choose(&mut self, game: &Game) -> Result<Move, GtpStop> {
        let pos = game.current();
        if pos.side == self.annex {
            return Ok(self.engine.search_sync(pos, self.limits.clone()).best);
        }
        let t = Instant::now();
        let times = vec![0.0; game.moves().len()];
        let req = MoveRequest {
            start: &game.start(),
            moves: game.moves(),
            times: &times,
            position: &pos,
            clocks: [None, None],
            limit: &MoveLimit::default(),
            deadline: t + GTP_MOVE_TIMEOUT,
        };
        let r = self
            .gtp
            .go(&req)
            .map_err(|f| GtpStop::Failed(TrainError::Engine(f)))?;
        self.think.0 += t.elapsed().as_secs_f64();
        self.think.1 += 1;
        r.text.parse().map_err(|_| GtpStop::Forfeit(r.text))
    }
}

/// Plays one game against a GTP engine (the match client,
/// [`crate::matchplay`]) from the opening `moves` (from the start
/// position); Annex plays Black when `annex_black`. Returns the final disc
/// difference for Annex (a forfeit by the GTP engine counts +64, logged);
/// adds the GTP engine's seconds and moves to `think`.
fn play_gtp_game(
    gtp: &mut dyn Client,
    engine: &mut Engine,
    opening: &[Move],
    annex_black: bool,
    limits: &Limits,
    think: &mut (f64, u64),
) -> Result<i32, TrainError> {
    let rules = RuleSet::default();
    let mut game = Game::new(rules);
    gtp.new_game(&game.start()).map_err(TrainError::NewGame)?;
    engine.new_game();
    for &m in opening {
        game.play(m)
            .map_err(|e| TrainError::AnnexMove(format!("opening move {m}: {e}")))?;
    }
    let annex = if annex_black {
        Color::Black
    } else {
        Color::White
    };
    let mut seats = GtpSeats {
        gtp,
        engine,
        annex,
        limits,
        think,
    };
    match play_out(&mut game, &mut seats) {
        Ok(()) => Ok(game.current().final_score_for(rules.scoring, annex)),
        Err(Stop::Illegal { side, chosen, .. }) if side == annex => Err(TrainError::AnnexMove(
            format!("{chosen} on {}", game.current()),
        )),
        Err(Stop::Illegal { chosen, .. }) => {
            log::warn!(
                "GTP engine played '{chosen}' (illegal) on {}: forfeit",
                game.current()
            );
            Ok(64)
        }
        Err(Stop::Failed {
            error: GtpStop::Forfeit(text),
            ..
        }) => {
            log::warn!(
                "GTP engine played '{}' (not a move) on {}: forfeit",
                crate::protocol::quote_token(&text),
                game.current()
            );
            Ok(64)
        }
        Err(Stop::Failed {
            error: GtpStop::Failed(e),
            ..
        }) => Err(e),
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
    openings: &[Vec<Move>],
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
            r.add(d);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The first position with at most `empties` empties on the line of
    /// first legal moves from the start (passes played).
    fn after(empties: u32) -> Position {
        let rules = RuleSet::default();
        let mut p = Position::start(&rules);
        while p.board.empties() > empties {
            let m = p.legal_moves(&rules).iter().next().unwrap_or(Move::PASS);
            p = p.play_unchecked(&rules, m);
        }
        p
    }

    #[test]
    fn engine_games_score_for_the_first_side() {
        // From 10 empties, solved: the first side's result is the exact
        // value for the side to move when it moves first, else its negation.
        let start = after(10);
        assert!(!start.board.is_game_over() && start.board.empties() == 10);
        let exact = solve_exact(&[start.board])[0].score;
        let e = Evaluator::Simple;
        let (mut a, mut b) = (engine_with(&e), engine_with(&e));
        let limits = depth_limits(1, 12);
        let first = engine_game([&mut a, &mut b], start, true, limits).unwrap();
        let second = engine_game([&mut a, &mut b], start, false, limits).unwrap();
        assert_eq!((first, second), (exact, -exact));
    }

    #[test]
    fn a_match_of_one_evaluation_against_itself_is_even() {
        let openings = [after(52), after(49)];
        let e = Evaluator::Simple;
        let r = play_match(&e, &e, &openings, depth_limits(2, 8)).unwrap();
        assert_eq!(r.games(), 4);
        // Deterministic engines: each opening's two games are one game
        // with the colours swapped.
        assert_eq!((r.wins, r.discs), (r.losses, 0), "{}", r.summary());
    }
}
