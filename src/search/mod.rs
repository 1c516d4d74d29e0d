//! The search: iterative-deepening PVS in the midgame, an exact and
//! win/loss/draw solver in the endgame, a shared transposition table and
//! lazy-SMP threads. Nothing here prints: results leave as [`Info`] and
//! [`BestMove`] values through the engine facade (`crate::engine`).
//!
//! Units. Inside the search a score is in 1/[`DISC`] disc (the evaluation's
//! [`SCALE`]), for the side to move. An exact final score of `d` discs is
//! `d * DISC`; under `tie second` a tie is `+DISC/2` for the side that wins
//! it and `-DISC/2` for the other, so a tie win is preferred to any loss and
//! any win to a tie win. [`Info::score`] is in whole discs.
//!
//! Modules: [`tt`] (the table), `midgame` (PVS, ordering), `endgame`
//! (solver, last 1-4 empties, stability), `root` (iterative deepening,
//! aspiration, multi-PV), `parallel` (split points of the endgame), [`time`]
//! (time allocation).

mod endgame;
mod midgame;
mod parallel;
mod root;
mod shallow;
mod stability;
mod worker;
pub mod time;
pub mod tt;

use crate::board::Board;
use crate::eval::{Evaluator, SCALE};
use crate::moves::Move;
use crate::position::Position;
use crate::rules::{Flips, RuleSet, Scoring};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

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

/// Search tunables, in one place.
#[derive(Clone, Debug)]
pub struct Config {
    /// Without a depth limit, solve exactly once `depth + solve_margin >= empties`.
    pub solve_margin: u32,
    /// Deepest midgame iteration run before a requested solve.
    pub presolve_depth: u32,
    /// Midgame: shallow-search move ordering from this depth (below it,
    /// children are ordered by their static value, which measured faster).
    pub shallow_sort_depth: i32,
    /// Midgame: a null-window frontier node stops at the first child that
    /// reaches beta from this many empties (below, it values every child,
    /// whose exact values and best moves the endgame solver's ordering uses).
    pub frontier_cut_min_empties: u32,
    /// Endgame: transposition table from this many empties.
    pub tt_min_empties: u32,
    /// Endgame: fastest-first ordering from this many empties.
    pub sort_min_empties: u32,
    /// Endgame: stability cutoffs from this many empties.
    pub stability_min_empties: u32,
    /// Parallel endgame: split points from this many empties.
    pub split_min_empties: u32,
    /// Parallel midgame: split points from this depth.
    pub split_min_depth: i32,
    /// Initial aspiration half-window (search units).
    pub aspiration: i32,
    /// Exact solve: initial half-window around the last midgame score,
    /// in discs (0: full window).
    pub solve_aspiration: u32,
    /// Endgame ordering: weight of the opponent's mobility (corners twice).
    pub end_mobility_weight: i32,
    /// Endgame ordering: weight of the opponent's potential mobility.
    pub end_potential_weight: i32,
    /// Endgame ordering: bonus of a move into an odd quadrant.
    pub end_parity_weight: i32,
    /// Endgame ordering by a shallow midgame search from this many empties
    /// (64: never; measured slower than mobility ordering alone).
    pub end_shallow_min_empties: u32,
    /// Endgame: enhanced transposition cutoffs (children probed in the
    /// table before any is searched) from this many empties.
    pub etc_min_empties: u32,
    /// Exact solves from this many empties start with selective passes.
    pub sel_min_empties: u32,
    /// ProbCut widths of the selective passes, in hundredths of a sigma
    /// (0: no such pass).
    pub sel_t1: u32,
    /// Second selective pass (wider; 0: none).
    pub sel_t2: u32,
    /// Selective passes: ProbCut from this many empties.
    pub probcut_min_empties: u32,
    /// ProbCut search depth, in percent of the empties.
    pub probcut_depth_pct: u32,
    /// ProbCut sigma at depth 0, in discs.
    pub probcut_sigma0: u32,
    /// ProbCut sigma decrease per ply of depth, in hundredths of a disc.
    pub probcut_sigma_slope: u32,
    /// Midgame ProbCut width, in hundredths of a sigma (0: off).
    pub midcut_t: u32,
    /// Midgame ProbCut from this depth.
    pub midcut_min_depth: u32,
    /// Parallel endgame: moves searched alone before a split point opens.
    pub split_serial: u32,
}

impl Config {
    /// The tunables as `(name, value)`, for `set` and logs.
    pub fn names(&self) -> Vec<(&'static str, i64)> {
        vec![
            ("solve_margin", self.solve_margin as i64),
            ("presolve_depth", self.presolve_depth as i64),
            ("shallow_sort_depth", self.shallow_sort_depth as i64),
            (
                "frontier_cut_min_empties",
                self.frontier_cut_min_empties as i64,
            ),
            ("tt_min_empties", self.tt_min_empties as i64),
            ("sort_min_empties", self.sort_min_empties as i64),
            ("stability_min_empties", self.stability_min_empties as i64),
            ("split_min_empties", self.split_min_empties as i64),
            ("split_min_depth", self.split_min_depth as i64),
            ("aspiration", self.aspiration as i64),
            ("solve_aspiration", self.solve_aspiration as i64),
            ("end_mobility_weight", self.end_mobility_weight as i64),
            ("end_potential_weight", self.end_potential_weight as i64),
            ("end_parity_weight", self.end_parity_weight as i64),
            (
                "end_shallow_min_empties",
                self.end_shallow_min_empties as i64,
            ),
            ("etc_min_empties", self.etc_min_empties as i64),
            ("sel_min_empties", self.sel_min_empties as i64),
            ("sel_t1", self.sel_t1 as i64),
            ("sel_t2", self.sel_t2 as i64),
            ("probcut_min_empties", self.probcut_min_empties as i64),
            ("probcut_depth_pct", self.probcut_depth_pct as i64),
            ("probcut_sigma0", self.probcut_sigma0 as i64),
            ("probcut_sigma_slope", self.probcut_sigma_slope as i64),
            ("midcut_t", self.midcut_t as i64),
            ("midcut_min_depth", self.midcut_min_depth as i64),
            ("split_serial", self.split_serial as i64),
        ]
    }

    /// Sets tunable `name` (see [`Config::names`]) to `value`.
    ///
    /// # Errors
    /// Unknown name or a value out of range (0..=1000).
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        let v: u32 = value
            .trim()
            .parse()
            .ok()
            .filter(|v| *v <= 1000)
            .ok_or_else(|| format!("invalid value '{value}' for tunable {name}"))?;
        match name.trim() {
            "solve_margin" => self.solve_margin = v,
            "presolve_depth" => self.presolve_depth = v,
            "shallow_sort_depth" => self.shallow_sort_depth = v as i32,
            "frontier_cut_min_empties" => self.frontier_cut_min_empties = v,
            "tt_min_empties" => self.tt_min_empties = v,
            "sort_min_empties" => self.sort_min_empties = v,
            "stability_min_empties" => self.stability_min_empties = v,
            "split_min_empties" => self.split_min_empties = v,
            "split_min_depth" => self.split_min_depth = v as i32,
            "aspiration" => self.aspiration = v as i32,
            "solve_aspiration" => self.solve_aspiration = v,
            "end_mobility_weight" => self.end_mobility_weight = v as i32,
            "end_potential_weight" => self.end_potential_weight = v as i32,
            "end_parity_weight" => self.end_parity_weight = v as i32,
            "end_shallow_min_empties" => self.end_shallow_min_empties = v,
            "etc_min_empties" => self.etc_min_empties = v,
            "sel_min_empties" => self.sel_min_empties = v,
            "sel_t1" => self.sel_t1 = v,
            "sel_t2" => self.sel_t2 = v,
            "probcut_min_empties" => self.probcut_min_empties = v,
            "probcut_depth_pct" => self.probcut_depth_pct = v,
            "probcut_sigma0" => self.probcut_sigma0 = v,
            "probcut_sigma_slope" => self.probcut_sigma_slope = v,
            "midcut_t" => self.midcut_t = v,
            "midcut_min_depth" => self.midcut_min_depth = v,
            "split_serial" => self.split_serial = v,
            _ => return Err(format!("unknown tunable '{name}'")),
        }
        Ok(())
    }

    /// Applies `name=value,name=value` settings.
    ///
    /// # Errors
    /// As [`Config::set`], or a missing `=`.
    pub fn apply(&mut self, spec: &str) -> Result<(), String> {
        for kv in spec.split(',').filter(|s| !s.trim().is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("expected name=value, got '{kv}'"))?;
            self.set(k, v)?;
        }
        Ok(())
    }
}

impl Default for Config {
    fn default() -> Config {
        Config {
            solve_margin: 8,
            presolve_depth: 10,
            shallow_sort_depth: 20,
            frontier_cut_min_empties: 30,
            tt_min_empties: 8,
            sort_min_empties: 8,
            stability_min_empties: 7,
            split_min_empties: 12,
            split_min_depth: 4,
            aspiration: 2 * DISC,
            solve_aspiration: 3,
            end_mobility_weight: 16,
            end_potential_weight: 2,
            end_parity_weight: 4,
            end_shallow_min_empties: 64,
            etc_min_empties: 12,
            sel_min_empties: 18,
            sel_t1: 100,
            sel_t2: 0,
            probcut_min_empties: 11,
            probcut_depth_pct: 25,
            probcut_sigma0: 6,
            probcut_sigma_slope: 30,
            midcut_t: 100,
            midcut_min_depth: 3,
            split_serial: 1,
        }
    }
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
}

impl Default for SearchShared {
    fn default() -> Self {
        SearchShared {
            stop: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            node_limit: AtomicU64::new(u64::MAX),
        }
    }
}

impl SearchShared {
    /// Resets for a new search.
    pub fn reset(&self, node_limit: Option<u64>) {
        self.stop.store(false, Relaxed);
        self.nodes.store(0, Relaxed);
        self.node_limit
            .store(node_limit.unwrap_or(u64::MAX), Relaxed);
    }
}

/// Everything a search thread needs.
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
    /// Number of threads searching.
    pub threads: usize,
    /// Start of the search.
    pub start: Instant,
    /// Pool for endgame split points (`None`: single thread).
    pub pool: Option<Arc<rayon::ThreadPool>>,
}

/// What a search thread sends to the controller.
#[derive(Debug)]
pub enum WorkerMsg {
    /// Thread 0 finished an iteration (one Info per multi-PV line).
    Iteration(Vec<Info>),
    /// A thread ended; thread 0 carries the result.
    Done {
        /// Thread index.
        id: usize,
        /// Thread 0's result.
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

/// Value of a finished game for the side to move.
#[inline]
pub(crate) fn final_value(b: &Board, scoring: Scoring, tie: i32) -> i32 {
    let d = b.final_score(scoring);
    if d == 0 { tie * (DISC / 2) } else { d * DISC }
}

/// Whether the fast (flips all) move generation applies to `rules`.
pub(crate) fn fast_rules(rules: &RuleSet) -> bool {
    rules.flips == Flips::All
}
