//! Parallel search: young-brothers-wait split points on the engine's rayon
//! pool, in the endgame (`nws_split`) and the midgame (`pvs_split`).
//!
//! At a null-window endgame node with at least `split_min_empties` empties
//! (a midgame null-window node with at least `split_min_depth` plies)
//! the first (best-ordered) move (in the endgame, then those that the
//! order's guess says probably cut) is searched alone; if it does not cut
//! off, the remaining moves are searched as rayon tasks. A task that fails
//! high raises the split point's `cut` flag; every task below a split point
//! carries the flags of all split points above it and gives up at its next
//! counter flush once one is raised, so a cutoff stops the whole subtree.
//! An aborted task's result is discarded, never stored in the table.
//!
//! PV nodes (from `split_pv_min_empties` in the endgame and the solve's
//! root; in the midgame and its root from `split_pv_wide_depth` with at
//! least `split_pv_wide_threads` threads; with fewer, one by one) search
//! their first move alone with the
//! full window, then the others in rounds (`pv_rest`): all of them in
//! parallel at the null window, the first that fails high stops the round
//! and is searched again alone with the full window, and the rest go on at
//! the raised alpha. 16 threads, FFO #40-#52: 23.8-25.5 s -> 16.9-17.3 s.
//!
//! Waiting is done by `rayon::scope`, which keeps the waiting thread busy
//! stealing tasks: no rayon worker ever blocks on a channel or a lock held
//! across a search. With one thread there is no pool and no split point,
//! which keeps 1-thread searches deterministic.

use super::INF;
use super::endorder::EndMoves;
use super::parstats::{self, *};
use super::worker::{Child, Worker};
use crate::board::Board;
use crate::moves::Move;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering::Relaxed};

impl<'a> Worker<'a> {
    /// Whether this node may split.
    #[inline]
    pub(crate) fn can_split(&self) -> bool {
        self.job.pool.is_some()
    }

    /// Whether a midgame PV node (or the root) of `depth` plies splits:
    /// only with many threads (`split_pv_wide_threads`), where the idle
    /// threads are worth the speculation, from `split_pv_wide_depth`.
    #[inline]
    pub(crate) fn splits_pv(&self, depth: i32) -> bool {
        self.job.pool.as_ref().is_some_and(|p| {
            p.current_num_threads() >= self.cfg.split_pv_wide_threads as usize
                && depth >= self.cfg.split_pv_wide_depth
        })
    }

    /// Searches `moves` of `b` at null window `alpha`, the first alone and
    /// the rest in parallel. Returns the best value and its square.
    pub(crate) fn nws_split(&mut self, b: &Board, alpha: i32, moves: &EndMoves) -> (i32, u8) {
        // The first move alone (young brothers wait; the second too idled
        // the threads, `docs/parallel.md`), and after it up to
        // `split_cut_max` more while the order's guess of the next move's
        // value beats `alpha`: a node that probably cuts is searched in
        // order, so that its later moves are not searched in parallel for
        // nothing.
        let serial = moves.len.min(1);
        let probable = (serial..moves.len)
            .take(self.cfg.split_cut_max as usize)
            .take_while(|&i| moves.guess[i] > alpha)
            .count();
        let serial = serial + probable;
        let mut best = (-INF, moves.sq[0]);
        for i in 0..serial {
            let child = b.play_flips(moves.sq[i] as usize, moves.flips_of(i));
            self.expect_all = self.expects_cut(moves.guess[i], alpha);
            let v = self.nws_reply(&child, alpha);
            if self.stopped {
                return (0, moves.sq[0]);
            }
            if v > best.0 {
                best = (v, moves.sq[i]);
                if v > alpha {
                    parstats::add(SERIAL_CUT, 1);
                    return best;
                }
            }
        }
        if serial == moves.len {
            return best;
        }
        parstats::add(SPLIT_END + b.empties() as usize, 1);
        let rest: Vec<((Board, bool), u8)> = (serial..moves.len)
            .map(|i| {
                let child = b.play_flips(moves.sq[i] as usize, moves.flips_of(i));
                let all = self.expects_cut(moves.guess[i], alpha);
                ((child, all), moves.sq[i])
            })
            .collect();
        self.split_rest(&rest, best, alpha, |w, &(child, all)| {
            w.expect_all = all;
            w.nws_reply(&child, alpha)
        })
    }

    /// Midgame counterpart of [`Worker::nws_split`]: the children `kids`
    /// (ordered) of a null-window node at `alpha`, `depth` plies.
    pub(crate) fn pvs_split(
        &mut self,
        kids: &[Child],
        alpha: i32,
        depth: i32,
        ply: usize,
    ) -> (i32, Move) {
        // The first move alone (young brothers wait). Searching the next
        // ones alone too while the order's key says they probably cut took
        // a third of the nodes away at 16 threads but idled the threads:
        // 1.6x slower (`docs/parallel.md`).
        let first = &kids[0];
        let v = self.nws_child(first, 0, alpha, depth, ply);
        if self.stopped {
            return (v, first.mv);
        }
        let best = (v, first.mv);
        if v > alpha || kids.len() == 1 {
            return best;
        }
        parstats::add(SPLIT_MID + depth.clamp(0, 64) as usize, 1);
        let rest: Vec<((Child, usize), Move)> = (1..kids.len())
            .map(|i| ((kids[i], i), kids[i].mv))
            .collect();
        self.split_rest(&rest, best, alpha, |w, (c, i)| {
            w.nws_child(c, *i, alpha, depth, ply)
        })
    }

    /// The parallel part of a split point: each `(task, move)` of `rest` is
    /// searched by `search` (its value for this node, null window at
    /// `alpha`). Returns the best of `best` and the finished tasks.
    fn split_rest<T: Sync, M: Copy + Sync>(
        &mut self,
        rest: &[(T, M)],
        mut best: (i32, M),
        alpha: i32,
        search: impl Fn(&mut Worker<'_>, &T) -> i32 + Sync,
    ) -> (i32, M) {
        let all: Vec<usize> = (0..rest.len()).collect();
        let values = self.split_probe(rest, &all, alpha, |w, t| search(w, &t.0));
        for (v, t) in values.iter().zip(rest) {
            if let Some(v) = *v
                && v > best.0
            {
                best = (v, t.1);
            }
        }
        best
    }

    /// The tasks `tasks[i]` for each `i` of `pending`, searched by `search`
    /// (a value for this node, null window at `alpha`) as rayon tasks on
    /// fresh workers carrying this worker's cutoff chain, selective pass and
    /// tie sign.
    /// The first value above `alpha` stops the others. Returns each pending
    /// task's value, `None` where it did not finish; sets `stopped` when a
    /// cutoff above or the search's stop ended the wait.
    fn split_probe<T: Sync>(
        &mut self,
        tasks: &[T],
        pending: &[usize],
        alpha: i32,
        search: impl Fn(&mut Worker<'_>, &T) -> i32 + Sync,
    ) -> Vec<Option<i32>> {
        let cut = AtomicBool::new(false);
        // Each task's value; `UNSET` until it finishes (the scope's join
        // orders the stores before the reads below).
        const UNSET: i32 = i32::MIN;
        let values: Vec<AtomicI32> = pending.iter().map(|_| AtomicI32::new(UNSET)).collect();
        // Each task's subtree nodes and the part of them thrown away
        // (`parstats`); `STOPPED` in `lost` marks a stopped task.
        const STOPPED: u64 = u64::MAX;
        let subtree: Vec<AtomicU64> = pending.iter().map(|_| AtomicU64::new(0)).collect();
        let lost: Vec<AtomicU64> = pending.iter().map(|_| AtomicU64::new(0)).collect();
        let mut chain: Vec<&AtomicBool> = self.cuts.clone();
        chain.push(&cut);
        let job = self.job;
        let (sel_level, sel_t, tie) = (self.sel_level, self.sel_t, self.tie);
        let (chain, cut_ref, search) = (&chain, &cut, &search);
        rayon::scope_fifo(|s| {
            for (k, &i) in pending.iter().enumerate() {
                let task = &tasks[i];
                let (slot, sub, lost) = (&values[k], &subtree[k], &lost[k]);
                s.spawn_fifo(move |_| {
                    if cut_ref.load(Relaxed) || job.shared.stop.load(Relaxed) {
                        parstats::add(TASKS_SKIPPED, 1);
                        return;
                    }
                    let mut w = Worker::new(job);
                    w.cuts = chain.clone();
                    w.sel_level = sel_level;
                    w.sel_t = sel_t;
                    w.tie = tie;
                    let v = search(&mut w, task);
                    w.flush();
                    sub.store(w.total + w.sub_nodes, Relaxed);
                    parstats::add(NODES_TASKS, w.total);
                    if w.stopped {
                        lost.store(STOPPED, Relaxed);
                        return;
                    }
                    lost.store(w.sub_wasted, Relaxed);
                    slot.store(v, Relaxed);
                    if v > alpha {
                        cut_ref.store(true, Relaxed);
                    }
                });
            }
        });
        if self.job.shared.stop.load(Relaxed) || self.cuts.iter().any(|c| c.load(Relaxed)) {
            self.stopped = true;
        }
        self.account(&values, &subtree, &lost, alpha, cut.load(Relaxed));
        values
            .iter()
            .map(|v| Some(v.load(Relaxed)).filter(|&v| v != UNSET))
            .collect()
    }

    /// Adds a split point's tasks to this worker's subtree counts and to
    /// `parstats`: `subtree[k]` nodes under task `k`, `lost[k]` of them
    /// thrown away below it (`u64::MAX`: the task was stopped), `values`
    /// their results at null window `alpha`, `cut` whether one failed high.
    /// At a cut, the tasks after the first that failed high (in move
    /// order) and the stopped ones are work a serial search would not have
    /// done.
    fn account(
        &mut self,
        values: &[AtomicI32],
        subtree: &[AtomicU64],
        lost: &[AtomicU64],
        alpha: i32,
        cut: bool,
    ) {
        let first_cut = values
            .iter()
            .position(|v| {
                let v = v.load(Relaxed);
                v != i32::MIN && v > alpha
            })
            .unwrap_or(values.len());
        let mut stopped = 0;
        for (k, (sub, lost)) in subtree.iter().zip(lost).enumerate() {
            let (sub, lost) = (sub.load(Relaxed), lost.load(Relaxed));
            self.sub_nodes += sub;
            if lost == u64::MAX {
                stopped += 1;
                self.sub_wasted += sub;
            } else if cut && k > first_cut {
                self.sub_wasted += sub;
            } else {
                self.sub_wasted += lost;
            }
        }
        parstats::add(TASKS, values.len() as u64);
        parstats::add(TASKS_STOPPED, stopped);
        if cut {
            parstats::add(PAR_CUT, 1);
        }
    }

    /// One round of the parallel part of a PV node: the null-window values
    /// at `alpha` of `tasks[i]` for each `i` of `pending`, in parallel (see
    /// [`Worker::split_probe`]).
    pub(crate) fn pv_round<T: Sync>(
        &mut self,
        tasks: &[T],
        pending: &[usize],
        alpha: i32,
        search: impl Fn(&mut Worker<'_>, &T) -> i32 + Sync,
    ) -> PvRound {
        parstats::add(PV_ROUNDS, 1);
        let values = self.split_probe(tasks, pending, alpha, search);
        let mut round = PvRound {
            high: None,
            low: Vec::new(),
            left: Vec::new(),
        };
        for (&i, v) in pending.iter().zip(values) {
            match v {
                Some(v) if v <= alpha => round.low.push((i, v)),
                Some(v) if round.high.is_none() => round.high = Some((i, v)),
                _ => round.left.push(i),
            }
        }
        round
    }

    /// The children after the first of a PV node (`kids[1..]`, window
    /// `(alpha, beta)`) in rounds of [`Worker::pv_round`], `nws(w, kid, a)`
    /// giving a child's value at the null window `a`: a child that fails
    /// high is searched again alone by `full(w, kid, a, its value, line)`
    /// (skipped from `beta` on), and the undecided children go on at the
    /// raised alpha. `record(i, value, a, line)` gets each decided child,
    /// `a` being the alpha it was searched at (an upper bound when the
    /// value is at most `a`). Stops at `beta` or when `stopped`.
    pub(crate) fn pv_rest<T: Sync>(
        &mut self,
        kids: &[T],
        mut alpha: i32,
        beta: i32,
        nws: impl Fn(&mut Worker<'_>, &T, i32) -> i32 + Sync,
        mut full: impl FnMut(&mut Worker<'a>, &T, i32, i32, &mut Vec<Move>) -> i32,
        mut record: impl FnMut(usize, i32, i32, &[Move]),
    ) {
        let mut pending: Vec<usize> = (1..kids.len()).collect();
        let mut line = Vec::new();
        while !pending.is_empty() {
            let a = alpha;
            let round = self.pv_round(kids, &pending, a, |w, c| nws(w, c, a));
            for &(i, v) in &round.low {
                record(i, v, a, &[]);
            }
            let Some((i, mut v)) = round.high else {
                return;
            };
            if self.stopped {
                return;
            }
            line.clear();
            if v < beta {
                v = full(self, &kids[i], a, v, &mut line);
                if self.stopped {
                    return;
                }
            }
            record(i, v, a, &line);
            alpha = alpha.max(v);
            if v >= beta {
                return;
            }
            pending = round.left;
        }
    }
}

/// What one round of [`Worker::pv_round`] found.
pub(crate) struct PvRound {
    /// The first pending task (in order) whose value beat `alpha`, with
    /// that value (a lower bound): the caller searches it again with its
    /// full window.
    pub high: Option<(usize, i32)>,
    /// The tasks that ended at or below `alpha`, with their values (upper
    /// bounds).
    pub low: Vec<(usize, i32)>,
    /// The tasks left for the next round: stopped by the fail high, or a
    /// later one that also failed high.
    pub left: Vec<usize>,
}
