//! Self-play training data (`annex datagen`): games played by the engine
//! from varied openings, every position labelled with the result of good
//! play from it. The file format is in [`format`](mod@format); the command line in
//! [`cli`]; the parallel, ordered writer in [`run`]; the output file
//! (lock, resume, completeness marker) in [`output`]; the game corpus
//! (whole games, a few bytes a position, for committing) in [`corpus`];
//! the openings no match uses in [`openings`], and the check that a data
//! set holds no match-opening position in [`disjoint`].
//!
//! Game `g` of a run is a pure function of the seed, `g` and the
//! [`Settings`]: a generator seeded from `(seed, g)` picks the opening (a
//! line of the openings list, or the start position) and then plays
//! `random_moves` uniformly random moves (with [`Openings::Random`], a
//! count drawn from its range); from there a one-thread engine
//! with a table cleared for the game plays every move at a fixed depth or
//! node budget, and exactly (an exact solve, the best move played) from
//! `solve_empties` empties on. The positions from the first engine move on
//! are recorded; the opening's and the random moves' positions only with
//! `keep_opening` (without a search score: the move played from them was
//! not a good one, so the game's result is a poorer label for them).
//! Positions where the side to move must pass are not recorded.
//!
//! Labels, for the side to move, empties to the winner: a solved position
//! gets its own exact value; an earlier one the exact value of the game's
//! first solved position (the game's result under perfect play from
//! there), or the final result when nothing was solved. Search scores are
//! the engine's score in whole discs times 32 (the facade reports whole
//! discs).

pub mod cli;
pub mod corpus;
pub mod disjoint;
pub mod format;
pub mod merge;
pub mod openings;
pub mod output;
pub mod run;

use crate::board::{Board, Color};
use crate::engine::{Engine, OptionError};
use crate::eval::Evaluator;
use crate::play::{EnginePlayer, Stop, play_out};
use crate::position::Position;
use crate::record::game::Game;
use crate::rng::{self, Rng};
use crate::rules::RuleSet;
use crate::search::DISC;
use crate::search::Limits;
use format::{FLAG_SOLVED, NO_SCORE, Record};

/// How hard the engine thinks on a move before the solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// Iterative deepening to this depth.
    Depth(u32),
    /// At most this many nodes (deterministic: one thread).
    Nodes(u64),
}

/// Where games start.
#[derive(Clone, Debug)]
pub enum Openings {
    /// The start position (random moves make the variety).
    Start,
    /// The start position and then a number of uniformly random moves
    /// drawn for each game from a range ([`openings`]); the settings'
    /// `random_moves` is not used. No match opening list is involved.
    Random(openings::RandomRange),
    /// Lines to draw from (an XOT list, or any openings file): each the
    /// positions of the line, its start first (passes left out).
    List(Vec<Vec<Position>>),
}

/// Everything a game depends on besides its index.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The run's seed.
    pub seed: u64,
    /// The engine's budget per move.
    pub budget: Budget,
    /// Solve exactly from this many empties on (0: never).
    pub solve_empties: u32,
    /// Uniformly random moves after the opening.
    pub random_moves: u32,
    /// Table size per worker in MiB.
    pub hash_mb: usize,
    /// Record the opening's and the random moves' positions too (without
    /// a search score).
    pub keep_opening: bool,
    /// The evaluation the engine plays with.
    pub evaluator: Evaluator,
}

/// Why self-play stopped.
#[derive(Debug, thiserror::Error)]
pub enum DatagenError {
    /// The engine refused a setting (the table size).
    #[error("{0}")]
    Option(#[from] OptionError),
    /// The engine answered a move that is not legal (a bug).
    #[error("game {game}: the engine answered {answer} (not legal)")]
    IllegalMove {
        /// The game's index.
        game: u64,
        /// The move it answered.
        answer: String,
    },
    /// Every worker ended before the run was done.
    #[error("the workers stopped before game {0}")]
    WorkersStopped(u64),
    /// The records could not be written.
    #[error("cannot write the output: {0}")]
    Write(#[source] std::io::Error),
}

/// A one-thread engine for playing games; events are dropped.
pub struct Player {
    engine: Engine,
}

impl Player {
    /// An engine with `settings`' table and evaluation, no book.
    ///
    /// # Errors
    /// The table size is refused.
    pub fn new(settings: &Settings) -> Result<Player, DatagenError> {
        let (tx, _) = crossbeam_channel::unbounded();
        let mut engine = Engine::new(tx);
        engine.set_own_book(false)?;
        engine.set_hash(settings.hash_mb)?;
        engine.set_evaluator(settings.evaluator.clone());
        Ok(Player { engine })
    }
}

/// The generator of game `g` under `seed`.
pub fn game_rng(seed: u64, g: u64) -> Rng {
    Rng::new(rng::hash(
        seed ^ rng::mix(g.wrapping_add(0x6461_7461_6765_6e21)),
    ))
}

/// The side to move passes, or plays square `sq`.
fn advance(pos: Position, sq: Option<usize>) -> Position {
    let board = match sq {
        Some(sq) => pos.board.play_square(sq),
        None => pos.board.pass(),
    };
    Position {
        board,
        side: pos.side.other(),
    }
}

/// The opening and random moves of game `g`: the positions where the
/// side to move has a move, in order, and the position where the engine
/// takes over.
pub fn start_of_game(
    settings: &Settings,
    openings: &Openings,
    g: u64,
) -> (Vec<Position>, Position) {
    let mut rng = game_rng(settings.seed, g);
    let mut random_moves = settings.random_moves;
    let mut before = match openings {
        Openings::List(v) if !v.is_empty() => v[rng.index(v.len())].clone(),
        Openings::Random(range) => {
            random_moves = range.draw(&mut rng);
            vec![Position::start(&Default::default())]
        }
        _ => vec![Position::start(&Default::default())],
    };
    let mut pos = before.pop().expect("a line has a position");
    before.retain(|p| p.board.legal_moves() != 0);
    let mut played = 0;
    while played < random_moves && !pos.board.is_game_over() {
        let moves = pos.board.legal_moves();
        if moves == 0 {
            pos = advance(pos, None);
            continue;
        }
        before.push(pos);
        pos = advance(pos, Some(rng.pick_bit(moves)));
        played += 1;
    }
    (before, pos)
}

/// One recorded position before its label is known.
struct Ply {
    board: Board,
    side: Color,
    /// Exact value for the side to move, when solved.
    exact: Option<i32>,
    /// Search score in discs (`None`: not searched).
    score: Option<i32>,
}

/// The engine's limits in `pos`: exact from `settings.solve_empties`
/// empties on, else the budget.
fn limits_for(pos: &Position, solve_empties: u32, budget: Budget) -> Limits {
    if pos.board.empties() <= solve_empties {
        return Limits::exact();
    }
    match budget {
        Budget::Depth(d) => Limits::to_depth(d),
        Budget::Nodes(n) => Limits {
            nodes: Some(n),
            ..Limits::default()
        },
    }
}

/// Plays game `g` and returns its records.
///
/// # Errors
/// The engine answered a move that is not legal (a bug).
pub fn play_game(
    player: &mut Player,
    settings: &Settings,
    openings: &Openings,
    g: u64,
) -> Result<Vec<Record>, DatagenError> {
    let (before, start) = start_of_game(settings, openings, g);
    player.engine.new_game();
    let (solve_empties, budget) = (settings.solve_empties, settings.budget);
    let mut engine = EnginePlayer::new(&mut player.engine, |p: &Position| {
        limits_for(p, solve_empties, budget)
    });
    let mut game = Game::from_position(start, RuleSet::default());
    if let Err(stop) = play_out(&mut game, &mut engine) {
        let answer = match stop {
            Stop::Illegal { chosen, .. } => chosen.to_string(),
            Stop::Failed { error, .. } => match error {},
        };
        return Err(DatagenError::IllegalMove { game: g, answer });
    }
    let mut plies = Vec::with_capacity(60);
    if settings.keep_opening {
        plies.extend(before.iter().map(|p| Ply {
            board: p.board,
            side: p.side,
            exact: None,
            score: None,
        }));
    }
    let positions = game.positions();
    plies.extend(engine.searches.iter().map(|(ply, bm)| {
        let p = positions[*ply];
        let solved = p.board.empties() <= solve_empties;
        Ply {
            board: p.board,
            side: p.side,
            exact: solved.then_some(bm.score),
            score: Some(bm.score),
        }
    }));
    Ok(label(plies, &game.current(), g))
}

/// Labels the plies of a game that ended in `last`.
fn label(plies: Vec<Ply>, last: &Position, g: u64) -> Vec<Record> {
    let black = |side: Color, v: i32| if side == Color::Black { v } else { -v };
    let played = black(last.side, last.board.final_score(Default::default()));
    let first_solved = plies.iter().find_map(|p| p.exact.map(|v| black(p.side, v)));
    if let Some(v) = first_solved
        && v != played
    {
        log::warn!("game {g}: solved value {v} but the game ended {played} (for Black)");
    }
    let result = first_solved.unwrap_or(played);
    plies
        .iter()
        .map(|p| {
            let l = p.exact.unwrap_or_else(|| black(p.side, result));
            Record {
                player: p.board.player,
                opponent: p.board.opponent,
                label: l.clamp(-64, 64) as i8,
                flags: if p.exact.is_some() { FLAG_SOLVED } else { 0 },
                search: p
                    .score
                    .map_or(NO_SCORE, |v| (v.clamp(-64, 64) * DISC) as i16),
                game: g as u32,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings {
            seed: 3,
            budget: Budget::Depth(1),
            solve_empties: 8,
            random_moves: 20,
            hash_mb: 1,
            keep_opening: false,
            evaluator: Evaluator::Simple,
        }
    }

    #[test]
    fn a_game_is_a_function_of_seed_and_index() {
        let s = settings();
        let mut p = Player::new(&s).unwrap();
        let a = play_game(&mut p, &s, &Openings::Start, 5).unwrap();
        let b = play_game(&mut p, &s, &Openings::Start, 5).unwrap();
        let c = play_game(&mut p, &s, &Openings::Start, 6).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        // 20 random moves, then the engine: at most 40 positions, the
        // last few solved, all of game 5.
        assert!(a.len() <= 40 && a.len() > 8, "{}", a.len());
        assert!(a.iter().all(|r| r.game == 5));
        assert!(a.last().unwrap().solved() && !a[0].solved());
        assert_eq!(a[0].empties(), 40);
        // With the opening kept: the 20 random moves' positions come
        // first, unsearched, labelled with the game's result.
        let k = Settings {
            keep_opening: true,
            ..s.clone()
        };
        let kept = play_game(&mut p, &k, &Openings::Start, 5).unwrap();
        assert_eq!(kept.len(), a.len() + 20);
        assert_eq!(kept[20..], a[..]);
        assert_eq!(kept[0].empties(), 60);
        assert!(kept[..20].iter().all(|r| r.search == NO_SCORE));
        assert_eq!(kept[0].label, a[0].label);
    }
}
