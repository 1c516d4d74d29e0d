//! The state of one search task (the root search, or a task of a split
//! point): node counter, stop flag, move buffers.

use super::shallow_cache::{self, ShallowCache};
use super::tt::Table;
use super::{Config, Job, final_value, tt_key};
use crate::bitboard::SQUARE_CLASSES;
use crate::board::Board;
use crate::moves::{Move, MoveList, fast_path, play_unchecked};
use crate::rules::{FastPath, RuleSet, Scoring};
use crate::square::Square;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Nodes counted locally before they are added to the shared counter and
/// the stop flag is read.
pub(crate) const FLUSH: u64 = 1024;

/// A move with the position after it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Child {
    pub mv: Move,
    pub board: Board,
    /// The same side moves again (first placement ply of `start free`):
    /// the child is seen from the parent's side, not negated.
    pub same_side: bool,
    pub key: i32,
}

/// Depths of the order's shallow searches that keep a killer move (the
/// deepest is `end_sort_d4_empties`'s depth 4).
pub(crate) const SORT_KILLER_DEPTHS: usize = 5;

/// A search task.
pub(crate) struct Worker<'a> {
    pub job: &'a Job,
    pub rules: RuleSet,
    pub scoring: Scoring,
    pub cfg: Config,
    /// Nodes not yet flushed.
    pub local: u64,
    /// All nodes of this worker.
    pub total: u64,
    /// Nodes of the tasks spawned below this worker's split points, their
    /// own split points' tasks included (`parstats`).
    pub sub_nodes: u64,
    /// The part of `sub_nodes` that a serial search would not have
    /// searched (`parstats::NODES_WASTED`).
    pub sub_wasted: u64,
    pub stopped: bool,
    /// What equal discs at the end are worth to the side to move of the
    /// node being searched ([`Position::tie_sign`](crate::position::Position::tie_sign)):
    /// the root's, turned over for the length of each search of a child
    /// of the other side ([`Worker::as_opponent`]).
    pub tie: i32,
    /// Cutoff flags of the split points above this task (parallel endgame).
    pub cuts: Vec<&'a AtomicBool>,
    /// Selective endgame pass: 0 for exact; else its level (1, 2, ...),
    /// which tags its table entries (see `endgame`).
    pub sel_level: u32,
    /// ProbCut width of the selective pass, in hundredths of a sigma.
    pub sel_t: u32,
    /// Set by a parent just before `nws_end` on a child its order expects
    /// to be an all-node (see `end_all_margin`); taken by that call.
    pub expect_all: bool,
    /// The move that last refuted or was best at each depth of the order's
    /// shallow searches (`sort_value`), tried first there (64: none).
    pub sort_killer: [u8; SORT_KILLER_DEPTHS],
    /// The key shift of positions with at most `tt_near_empties` empties
    /// (see [`Worker::key`]).
    near_shift: u32,
    /// The key shift and offset of the middle region (`tt_mid_empties`).
    mid_shift: u32,
    mid_base: u64,
    bufs: Vec<Vec<Child>>,
    /// This thread's cache of the table-free search (always `Some` until
    /// the worker ends, when it goes back to the thread's pool).
    pub scache: Option<ShallowCache>,
}

impl Drop for Worker<'_> {
    fn drop(&mut self) {
        if let Some(c) = self.scache.take() {
            shallow_cache::give_back(c);
        }
    }
}

impl<'a> Worker<'a> {
    pub fn new(job: &'a Job) -> Worker<'a> {
        if job.config.end_history_weight > 0 {
            super::history::prepare(job.shared.generation.load(Relaxed));
        }
        let mut cfg = job.config.clone();
        if job
            .pool
            .as_ref()
            .is_some_and(|p| p.current_num_threads() <= cfg.split_few_threads as usize)
        {
            cfg.split_min_empties = cfg.split_few_min_empties;
        }
        let root = job.position.board.empties();
        if root >= cfg.tt_deep_root_empties {
            cfg.tt_min_empties = cfg.tt_deep_min_empties;
        }
        let near_shift = job.tt.near_shift(cfg.tt_near_mb as usize);
        let mid_shift = job.tt.near_shift(cfg.tt_mid_mb as usize);
        let mid_base = Table::region_end(near_shift);
        if mid_shift == 0 {
            // The table is too small for a middle region.
            cfg.tt_mid_empties = 0;
        }
        let scache = Some(shallow_cache::take(
            cfg.shallow_cache_kb,
            job.shared.generation.load(Relaxed),
            job.rules.scoring,
        ));
        Worker {
            job,
            rules: job.rules,
            scoring: job.rules.scoring,
            cfg,
            local: 0,
            total: 0,
            sub_nodes: 0,
            sub_wasted: 0,
            stopped: false,
            tie: job.position.tie_sign(&job.rules),
            expect_all: false,
            sort_killer: [64; SORT_KILLER_DEPTHS],
            cuts: Vec::new(),
            sel_level: 0,
            sel_t: 0,
            near_shift,
            mid_shift,
            mid_base,
            bufs: Vec::new(),
            scache,
        }
    }

    /// The table key of `b`, a position of the node's side to move (see
    /// [`tt_key`]), shifted into the table's first `tt_near_mb` MiB when `b` has at
    /// most `tt_near_empties` empties
    /// ([`Table::near_shift`](super::tt::Table::near_shift)): the many
    /// small entries of an exact solve then share a few MiB that stay
    /// near the cores. Up to `tt_mid_empties` empties the key goes into
    /// the `tt_mid_mb` MiB after that region instead, fewer lines away
    /// than the whole table. A shift keeps a key distinct within its
    /// region.
    #[inline]
    pub fn key(&self, b: &Board) -> u64 {
        self.region_key(tt_key(b, self.tie), b.empties())
    }

    /// The table key of `child`, a position of the opponent's (as
    /// [`Worker::key`] gives it while searching `child`).
    #[inline]
    pub fn child_key(&self, child: &Board) -> u64 {
        self.region_key(tt_key(child, -self.tie), child.empties())
    }

    /// Key `k` of a position of `n` empties in the table region of `n`.
    #[inline]
    fn region_key(&self, k: u64, n: u32) -> u64 {
        if n <= self.cfg.tt_near_empties {
            k >> self.near_shift
        } else if n <= self.cfg.tt_mid_empties {
            (k >> self.mid_shift) + self.mid_base
        } else {
            k
        }
    }

    /// Runs `f` as the opponent of the node's side to move (the search of a
    /// child after a move or a pass): the tie sign is turned over while it
    /// runs.
    #[inline(always)]
    pub fn as_opponent<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        self.tie = -self.tie;
        let r = f(self);
        self.tie = -self.tie;
        r
    }

    /// The value of the finished game at `b` for the node's side to move.
    #[inline]
    pub fn final_value(&self, b: &Board) -> i32 {
        final_value(b, self.scoring, self.tie)
    }

    /// The value for the node's side to move of the finished game at
    /// `child`, a position after its move.
    #[inline]
    pub fn child_final_value(&self, child: &Board) -> i32 {
        -final_value(child, self.scoring, -self.tie)
    }

    /// Counts a node; returns whether the search must stop.
    #[inline]
    pub fn tick(&mut self) -> bool {
        self.local += 1;
        if self.local >= FLUSH {
            self.flush();
        }
        self.stopped
    }

    /// Adds the local count to the shared one and reads the stop flag.
    pub fn flush(&mut self) {
        let sh = &self.job.shared;
        let n = self.local;
        self.local = 0;
        self.total += n;
        let all = sh.nodes.fetch_add(n, Relaxed) + n;
        if all >= sh.node_limit.load(Relaxed) {
            sh.stop.store(true, Relaxed);
        }
        if sh.stop.load(Relaxed) || self.cuts.iter().any(|c| c.load(Relaxed)) {
            self.stopped = true;
        }
    }

    /// Static evaluation for the side to move.
    #[inline]
    pub fn eval(&self, b: &Board) -> i32 {
        self.job.evaluator.evaluate(b)
    }

    /// A move buffer for ply `ply` (returned with [`Worker::put_buf`]).
    pub fn take_buf(&mut self, ply: usize) -> Vec<Child> {
        // Only the plies in use allocate: a split task starts deep in the
        // tree and never touches the buffers of the plies above it.
        if self.bufs.len() <= ply {
            self.bufs.resize_with(ply + 1, Vec::new);
        }
        let mut buf = std::mem::take(&mut self.bufs[ply]);
        if buf.capacity() == 0 {
            buf.reserve(32);
        }
        buf
    }

    /// Gives a buffer back.
    pub fn put_buf(&mut self, ply: usize, buf: Vec<Child>) {
        self.bufs[ply] = buf;
    }

    /// The legal moves of `b` under the rules, with their positions.
    /// Empty when the side to move must pass or the game is over. Under
    /// flips-all rules corners come first, then edges, inner squares, C-
    /// and X-squares: the frontier's null window stops at the first child
    /// that reaches beta, and this order finds it sooner (`annex bench`
    /// 0.5% fewer nodes than square order).
    pub fn children(&self, b: &Board, out: &mut Vec<Child>) {
        out.clear();
        if self.fast_at(b) {
            let legal = b.legal_moves();
            for class in SQUARE_CLASSES {
                let mut l = legal & class;
                while l != 0 {
                    let sq = l.trailing_zeros() as u8;
                    l &= l - 1;
                    out.push(Child {
                        mv: Move::square(Square::from_index_unchecked(sq)),
                        board: b.play_square(sq as usize),
                        same_side: false,
                        key: 0,
                    });
                }
            }
            return;
        }
        let placement = b.is_placement(&self.rules);
        for m in MoveList::generate(b, &self.rules).iter() {
            let nb = play_unchecked(b, &self.rules, m);
            let same_side = placement
                && m.to_square()
                    .is_some_and(|s| nb.player == b.player | s.bit());
            out.push(Child {
                mv: m,
                board: nb,
                same_side,
                key: 0,
            });
        }
    }

    /// Whether the side to move of `b` has a move (any rule option).
    #[inline]
    pub fn can_move(&self, b: &Board) -> bool {
        b.legal_moves() != 0 || b.is_placement(&self.rules)
    }

    /// Whether the bitboard fast path (the endgame solver) applies at `b`:
    /// see [`fast_path`].
    #[inline]
    pub fn fast_at(&self, b: &Board) -> bool {
        fast_path(b, &self.rules) == FastPath::Bitboard
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Split points start from `split_few_min_empties` with a pool of at
    /// most `split_few_threads` threads, from `split_min_empties` with a
    /// larger one, and a worker without a pool keeps the setting as given.
    #[test]
    fn split_depth_follows_the_thread_count() {
        let mut config = Config::default();
        config.set("split_min_empties", "13").unwrap();
        config.set("split_few_min_empties", "17").unwrap();
        config.set("split_few_threads", "2").unwrap();
        for (threads, want) in [(0, 13), (1, 17), (2, 17), (3, 13), (8, 13)] {
            let pool = (threads > 0).then(|| {
                Arc::new(
                    rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .unwrap(),
                )
            });
            let job = Job::for_test(config.clone(), pool);
            let w = Worker::new(&job);
            assert_eq!(w.cfg.split_min_empties, want, "{threads} threads");
        }
    }

    /// Under flips-all rules `children` lists every legal move once, with
    /// the position after it (checked against the board's own move
    /// generation), corners first and X-squares last.
    #[test]
    fn children_list_every_move_once_by_square_class() {
        let job = Job::for_test(Config::default(), None);
        let w = Worker::new(&job);
        let class = |sq: u8| SQUARE_CLASSES.iter().position(|&m| m >> sq & 1 == 1);
        let mut rng = crate::rng::Rng::new(0x0c1a_55e5);
        let mut kids = Vec::new();
        let mut checked = 0;
        for _ in 0..30 {
            let mut b = crate::position::Position::start(&w.rules).board;
            while let Some(next) = super::super::random_step(&mut rng, &b) {
                w.children(&b, &mut kids);
                let mut seen = 0u64;
                let mut last = 0;
                for c in &kids {
                    let sq = c.mv.to_square().expect("a square move").index() as u8;
                    assert_eq!(seen >> sq & 1, 0, "listed twice");
                    seen |= 1 << sq;
                    let f = crate::board::flips(b.player, b.opponent, sq as usize);
                    assert_eq!(c.board, b.play_flips(sq as usize, f));
                    let k = class(sq).expect("every square has a class");
                    assert!(k >= last, "class order");
                    last = k;
                }
                assert_eq!(seen, b.legal_moves());
                checked += kids.len();
                b = next;
            }
        }
        assert!(checked > 5000, "{checked}");
    }
}
