//! Parallel search: young-brothers-wait split points on the engine's rayon
//! pool, in the endgame (`nws_split`) and the midgame (`pvs_split`).
//!
//! At a null-window endgame node with at least `split_min_empties` empties
//! (a midgame null-window node with at least `split_min_depth` plies)
//! the first (best-ordered) move (in the endgame, the first
//! `split_serial` moves, then those that the order's guess says probably
//! cut) is searched alone; if it does not cut
//! off, the remaining moves are searched as rayon tasks. A task that fails
//! high raises the split point's `cut` flag; every task below a split point
//! carries the flags of all split points above it and gives up at its next
//! counter flush once one is raised, so a cutoff stops the whole subtree.
//! An aborted task's result is discarded, never stored in the table.
//!
//! Waiting is done by `rayon::scope`, which keeps the waiting thread busy
//! stealing tasks: no rayon worker ever blocks on a channel or a lock held
//! across a search. With one thread there is no pool and no split point,
//! which keeps 1-thread searches deterministic.

use super::INF;
use super::endgame::EndMoves;
use super::worker::{Child, Worker};
use crate::board::Board;
use crate::moves::Move;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

impl<'a> Worker<'a> {
    /// Whether this node may split.
    #[inline]
    pub(crate) fn can_split(&self) -> bool {
        self.job.pool.is_some()
    }

    /// Searches `moves` of `b` at null window `alpha`, the first alone and
    /// the rest in parallel. Returns the best value and its square.
    pub(crate) fn nws_split(
        &mut self,
        b: &Board,
        alpha: i32,
        tie: i32,
        moves: &EndMoves,
    ) -> (i32, u8) {
        // The first `split_serial` moves alone (young brothers wait), and
        // after them up to `split_cut_max` more while the order's guess of
        // the next move's value beats `alpha - split_cut_margin`: a node that
        // probably cuts is searched in order, so that its later moves are
        // not searched in parallel for nothing.
        let margin = self.cfg.split_cut_margin as i32;
        let serial = (self.cfg.split_serial.max(1) as usize).min(moves.len);
        let probable = (serial..moves.len)
            .take(self.cfg.split_cut_max as usize)
            .take_while(|&i| moves.guess[i] > alpha - margin)
            .count();
        let serial = serial + probable;
        let mut best = (-INF, moves.sq[0]);
        for i in 0..serial {
            let child = b.play_flips(moves.sq[i] as usize, moves.flips[i]);
            let v = -self.nws_end(&child, -alpha - 1, -tie);
            if self.stopped {
                return (0, moves.sq[0]);
            }
            if v > best.0 {
                best = (v, moves.sq[i]);
                if v > alpha {
                    return best;
                }
            }
        }
        if serial == moves.len {
            return best;
        }
        let rest = (serial..moves.len).map(|i| {
            let child = b.play_flips(moves.sq[i] as usize, moves.flips[i]);
            (child, moves.sq[i])
        });
        self.split_rest(rest, best, alpha, |w, child| {
            -w.nws_end(child, -alpha - 1, -tie)
        })
    }

    /// Midgame counterpart of [`Worker::nws_split`]: the children `kids`
    /// (ordered) of a null-window node at `alpha`, `depth` plies.
    pub(crate) fn pvs_split(
        &mut self,
        kids: &[Child],
        alpha: i32,
        depth: i32,
        tie: i32,
        ply: usize,
    ) -> (i32, Move) {
        let mut scratch = Vec::new();
        let v = self.child_value(&kids[0], alpha, alpha + 1, depth, tie, ply, &mut scratch);
        if self.stopped || v > alpha || kids.len() == 1 {
            return (v, kids[0].mv);
        }
        let rest = kids[1..].iter().map(|c| (*c, c.mv));
        self.split_rest(rest, (v, kids[0].mv), alpha, |w, c| {
            w.child_value(c, alpha, alpha + 1, depth, tie, ply, &mut Vec::new())
        })
    }

    /// The parallel part of a split point: each `(task, move)` of `rest` is
    /// searched by `search` (its value for this node, null window at
    /// `alpha`) as a rayon task on a fresh worker carrying this worker's
    /// cutoff chain and selective pass. Returns the best of `best` and the
    /// finished tasks.
    fn split_rest<T: Send, M: Copy + Send>(
        &mut self,
        rest: impl Iterator<Item = (T, M)> + Send,
        best: (i32, M),
        alpha: i32,
        search: impl Fn(&mut Worker<'_>, &T) -> i32 + Sync,
    ) -> (i32, M) {
        let cut = AtomicBool::new(false);
        let result = Mutex::new(best);
        let mut chain: Vec<&AtomicBool> = self.cuts.clone();
        chain.push(&cut);
        let job = self.job;
        let (sel_level, sel_t) = (self.sel_level, self.sel_t);
        let chain = &chain;
        let cut_ref = &cut;
        let result_ref = &result;
        let search = &search;
        rayon::scope_fifo(|s| {
            for (task, m) in rest {
                s.spawn_fifo(move |_| {
                    if cut_ref.load(Relaxed) || job.shared.stop.load(Relaxed) {
                        return;
                    }
                    let mut w = Worker::new(job);
                    w.cuts = chain.clone();
                    w.sel_level = sel_level;
                    w.sel_t = sel_t;
                    let v = search(&mut w, &task);
                    w.flush();
                    if w.stopped {
                        return;
                    }
                    let mut r = result_ref.lock().unwrap_or_else(|e| e.into_inner());
                    if v > r.0 {
                        *r = (v, m);
                    }
                    if v > alpha {
                        cut_ref.store(true, Relaxed);
                    }
                });
            }
        });
        if self.job.shared.stop.load(Relaxed) || self.cuts.iter().any(|c| c.load(Relaxed)) {
            self.stopped = true;
        }
        *result.lock().unwrap_or_else(|e| e.into_inner())
    }
}
