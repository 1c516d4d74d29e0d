//! The search: iterative-deepening PVS in the midgame, an exact and
//! win/loss/draw solver in the endgame, a shared transposition table and,
//! with several threads, young-brothers-wait split points on the engine's
//! rayon pool (`parallel`). Nothing here prints: results leave as [`Info`] and
//! [`BestMove`] values through the engine facade (`crate::engine`).
//!
//! Units. Inside the search a score is in 1/[`DISC`] disc (the evaluation's
//! [`SCALE`]), for the side to move. An exact final score of `d` discs is
//! `d * DISC`; under `tie second` a tie is `+DISC/2` for the side that wins
//! it and `-DISC/2` for the other, so a tie win is preferred to any loss and
//! any win to a tie win ([`Outcome::value`], the one definition). The
//! search carries the tie sign of the side to move in its worker, turned
//! over around the search of every child of the other side (moves and
//! passes; not the placements of `start free` that keep the mover).
//! [`Info::score`] is in whole discs.
//!
//! Modules: `config` (the tunables), [`tt`] (the table), `midgame` (PVS,
//! ordering), `endgame` (solver, last 1-4 empties, stability), `endorder`
//! (the endgame's move ordering), `root`
//! (iterative deepening, aspiration, multi-PV), `parallel` (split points of
//! the endgame and the midgame), [`time`] (time allocation).

mod config;
mod endgame;
mod endorder;
mod history;
mod lastflip;
mod midgame;
mod parallel;
pub mod parstats;
mod root;
mod shallow;
mod shallow_cache;
mod sortsearch;
mod stability;
mod worker;
pub mod time;
pub mod tt;
mod tt_memory;

use crate::board::Board;
use crate::eval::{Evaluator, SCALE};
use crate::moves::Move;
use crate::position::{Outcome, Position};
use crate::rules::{RuleSet, Scoring};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

pub use config::{Config, ConfigError};
pub use root::run_worker;
pub use stability::stable_discs;
pub use tt::Table;

/// Search units per disc.
pub const DISC: i32 = SCALE;
/// Largest score magnitude (a 64-disc win).
pub const SCORE_MAX: i32 = 64 * DISC + DISC / 2;
/// Beyond every score: the open window is `(-INF, INF)`.
pub const INF: i32 = SCORE_MAX + 1;

/// What a solve proves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolveMode {
    /// The exact final disc difference.
    Exact,
    /// Only win, loss or draw.
    Wld,
}

/// Limits of one search. All `None`/empty: search until stopped or solved.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Maximum depth in plies.
    pub depth: Option<u32>,
    /// Maximum nodes (checked every 1024 nodes).
    pub nodes: Option<u64>,
    /// Fixed time for this move.
    pub movetime: Option<Duration>,
    /// Remaining clock of Black (X) and White (O).
    pub time: [Option<Duration>; 2],
    /// Increment per move of Black and White.
    pub inc: [Duration; 2],
    /// Moves to the next time control.
    pub movestogo: Option<u32>,
    /// Search until `stop`.
    pub infinite: bool,
    /// Ponder: no time limit until `ponderhit`; the best move is held.
    pub ponder: bool,
    /// Solve exactly or win/loss/draw (ignores `depth`).
    pub solve: Option<SolveMode>,
    /// Number of principal variations (0 or 1: one).
    pub multipv: usize,
    /// Restrict the root moves (empty: all).
    pub searchmoves: Vec<Move>,
}

impl Limits {
    /// An exact solve, nothing else limited.
    pub fn exact() -> Limits {
        Limits {
            solve: Some(SolveMode::Exact),
            ..Limits::default()
        }
    }

    /// A search of `depth` plies, nothing else limited.
    pub fn to_depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }
}

/// How a reported score bounds the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The score is the value of the search.
    Exact,
    /// The value is at least the score (fail high).
    Lower,
    /// The value is at most the score (fail low).
    Upper,
}

/// One completed iteration (one per line in multi-PV).
#[derive(Clone, Debug)]
pub struct Info {
    /// Depth in plies (the number of empties when solved).
    pub depth: u32,
    /// Selectivity percent; `None`: no selective pruning.
    pub selectivity: Option<u32>,
    /// Discs for the side to move, under the rule set's scoring.
    pub score: i32,
    /// `tie second` only, score 0 and proven: whether the side to move wins the tie.
    pub tie: Option<bool>,
    /// How `score` bounds the value.
    pub bound: Bound,
    /// The score is the proven game value.
    pub exact: bool,
    /// The sign of the score is proven (win/loss/draw), not its size.
    pub wld: bool,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Time since the search started.
    pub time: Duration,
    /// Transposition table use, per mille.
    pub hashfull: u32,
    /// 1-based line number in multi-PV.
    pub multipv: usize,
    /// Principal variation (passes included as `Move::PASS`).
    pub pv: Vec<Move>,
}

/// The result of a search.
#[derive(Clone, Debug)]
pub struct BestMove {
    /// Move to play (`Move::PASS` when there is none).
    pub best: Move,
    /// Expected reply.
    pub ponder: Option<Move>,
    /// Discs for the side to move.
    pub score: i32,
    /// As [`Info::tie`].
    pub tie: Option<bool>,
    /// The score is exact.
    pub exact: bool,
    /// The result is proven as win/loss/draw.
    pub wld: bool,
    /// Depth of the last completed iteration.
    pub depth: u32,
    /// Total nodes.
    pub nodes: u64,
    /// Total time.
    pub time: Duration,
    /// Principal variation.
    pub pv: Vec<Move>,
    /// The last [`Info`] of each multi-PV line, best first.
    pub lines: Vec<Info>,
}

/// State shared by the threads of one search.
#[derive(Debug)]
pub struct SearchShared {
    /// Raised by anyone to end the search.
    pub stop: AtomicBool,
    /// Nodes of all threads (flushed every 1024 nodes).
    pub nodes: AtomicU64,
    /// Node limit (`u64::MAX`: none).
    pub node_limit: AtomicU64,
    /// Identifies the current search (unique in the process): per-thread
    /// state such as the solver's history is cleared when it changes.
    pub generation: AtomicU64,
}

/// Source of search generations.
static GENERATIONS: AtomicU64 = AtomicU64::new(1);

impl Default for SearchShared {
    fn default() -> Self {
        SearchShared {
            stop: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            node_limit: AtomicU64::new(u64::MAX),
            generation: AtomicU64::new(GENERATIONS.fetch_add(1, Relaxed)),
        }
    }
}

impl SearchShared {
    /// Resets for a new search.
    pub fn reset(&self, node_limit: Option<u64>) {
        self.stop.store(false, Relaxed);
        self.nodes.store(0, Relaxed);
        self.generation
            .store(GENERATIONS.fetch_add(1, Relaxed), Relaxed);
        self.node_limit
            .store(node_limit.unwrap_or(u64::MAX), Relaxed);
    }
}

/// Everything a search needs.
pub struct Job {
    /// Root position.
    pub position: Position,
    /// Rules.
    pub rules: RuleSet,
    /// Limits.
    pub limits: Limits,
    /// Tunables.
    pub config: Config,
    /// Evaluation.
    pub evaluator: Evaluator,
    /// Shared table.
    pub tt: Arc<Table>,
    /// Stop flag and counters.
    pub shared: Arc<SearchShared>,
    /// Start of the search.
    pub start: Instant,
    /// Pool for split points (`None`: one thread, no split point).
    pub pool: Option<Arc<rayon::ThreadPool>>,
}

/// A random game's next position (the tests of the search's parts): a
/// pass when the side to move has none, else a random legal move; `None`
/// once neither side can move.
#[cfg(test)]
pub(crate) fn random_step(rng: &mut crate::rng::Rng, b: &Board) -> Option<Board> {
    let legal = b.legal_moves();
    if legal == 0 {
        let passed = b.pass();
        return (passed.legal_moves() != 0).then_some(passed);
    }
    let mut l = legal;
    for _ in 0..rng.next_u64() % u64::from(legal.count_ones()) {
        l &= l - 1;
    }
    let s = l.trailing_zeros() as usize;
    Some(b.play_flips(s, crate::board::flips(b.player, b.opponent, s)))
}

#[cfg(test)]
impl Job {
    /// A job on the start position under the default rules and
    /// evaluation, with a 1-MiB table (the tests of the search's parts).
    pub(crate) fn for_test(config: Config, pool: Option<Arc<rayon::ThreadPool>>) -> Job {
        let rules = RuleSet::default();
        Job {
            position: Position::start(&rules),
            rules,
            limits: Limits::default(),
            config,
            evaluator: Evaluator::default(),
            tt: Arc::new(Table::new(1)),
            shared: Arc::new(SearchShared::default()),
            start: Instant::now(),
            pool,
        }
    }
}

/// What the search ([`run_worker`]) sends to the controller.
#[derive(Debug)]
pub enum WorkerMsg {
    /// An iteration finished (one Info per multi-PV line).
    Iteration(Vec<Info>),
    /// The search ended.
    Done {
        /// Its result (`None`: the root has no move, or it panicked).
        result: Option<BestMove>,
    },
}

/// Converts a search score to whole discs and the tie flag. `proven`:
/// the score is a game value (exact or solved bound), so a half-disc is a
/// won or lost tie.
pub fn to_discs(v: i32, proven: bool) -> (i32, Option<bool>) {
    if proven && v.abs() == DISC / 2 {
        return (0, Some(v > 0));
    }
    let d = if v >= 0 {
        (v + DISC / 2) / DISC
    } else {
        -((-v + DISC / 2) / DISC)
    };
    (d, None)
}

/// Search key of a board: the tie sign joins the hash so that the two
/// sides' views of one board under `tie second` never share an entry.
#[inline]
pub(crate) fn tt_key(b: &Board, tie: i32) -> u64 {
    let h = b.hash();
    if tie > 0 {
        h ^ 0x5bd1_e995_7a3c_96f1
    } else {
        h
    }
}

/// Value of a finished game for the side to move, whose tie sign is `tie`
/// ([`Position::outcome`](crate::position::Position::outcome)).
#[inline]
pub(crate) fn final_value(b: &Board, scoring: Scoring, tie: i32) -> i32 {
    Outcome {
        discs: b.final_score(scoring),
        tie,
    }
    .value(DISC)
}
