//! The endgame solver (flips-all rules): exact values by fail-soft
//! null-window search (`nws_end`) and PVS at PV nodes (`pvs_end`).
//!
//! - Below `tt_min_empties`: `shallow` (no move list, no table; parity
//!   and square-class order), down to the last 1-4 empties (see `shallow`).
//! - From `sort_min_empties`: fastest-first ordering (fewest replies for
//!   the opponent, corners counted twice), parity as a tie-break, the hash
//!   move first; from `end_shallow_min_empties` plus the child's value (see
//!   `end_moves`).
//! - From `stability_min_empties`: stability cutoffs (the opponent's
//!   stable discs bound the final score from above).
//! - From `tt_min_empties` (`tt_deep_min_empties` where the search's root
//!   has `tt_deep_root_empties` or more): the shared table; solved entries
//!   are used at any depth, midgame entries only for their move.
//! - From `etc_min_empties`: enhanced transposition cutoffs (a child's
//!   stored bound cuts the node), and moves whose children are stored as
//!   failing low are not searched again. The children's buckets are
//!   prefetched first; up to `etc_order_max_empties` a node without a hash
//!   move computes its move order while they load. Nodes without ETC
//!   prefetch their children's buckets too, where those probe.
//! - From `split_min_empties` with several threads: split points (see
//!   `parallel`).
//! - At every node with a table (and below it, in `shallow`): a move that
//!   turns all the opponent's discs ends the game, and decides the node
//!   at once when its value is above the window (exact at 64 discs).
//!
//! WLD is the same search in the window `(-1, 1)`.
//!
//! Selective passes (before an exact solve from `sel_min_empties`): the
//! same search with ProbCut from `probcut_min_empties` (a midgame search
//! of about `probcut_depth_pct`% of the empties decides a null window when
//! its value lands `t` sigmas beyond it). Their results are not exact: the
//! table keeps them unsolved, tagged with the pass's level, and only
//! passes of that level or higher take them; the exact pass uses their
//! moves for ordering.

use super::endorder::{EndMoves, Order, legal_flips};
use super::history;
use super::stability::stable_discs;
use super::tt::TtBound;
use super::worker::Worker;
use super::{DISC, INF};
use crate::board::Board;
use crate::moves::Move;
use crate::position::Outcome;
use crate::square::Square;

/// The children's keys and squares of a node, for ETC.
struct EtcKeys {
    keys: [(u64, u8); 36],
    len: usize,
}

/// The largest final value: a 64-disc win (ties count half a disc, so
/// they stay inside).
pub(crate) const WIPEOUT: i32 = 64 * DISC;

/// The highest final value a side can still reach when the other side
/// owns `stable` discs that nothing can turn.
#[inline]
fn max_with(stable: i32) -> i32 {
    match 64 - 2 * stable {
        0 => DISC / 2,
        d => d * DISC,
    }
}

/// Table depth of a selective pass's entry: `SEL_DEPTH * level + empties`
/// (midgame entries stay below 64, solved ones are flagged).
pub(crate) const SEL_DEPTH: u32 = 64;

/// Value of a full-board (or one-empty, both blocked) disc difference for
/// a side to move whose tie sign is `tie`.
#[inline]
pub(crate) fn score_diff(diff: i32, tie: i32) -> i32 {
    Outcome { discs: diff, tie }.value(DISC)
}

impl Worker<'_> {
    /// Stability cutoff: `Some(v)` when the opponent's stable discs alone
    /// keep the value at or below `alpha`. Only that side is tried: the
    /// mover's own stable discs (a lower bound) cut under 3% of the time
    /// and cost more than they save (`docs/endgame.md`).
    #[inline]
    pub(crate) fn stability_cut(&self, b: &Board, alpha: i32) -> Option<i32> {
        let opp = b.opponent.count_ones() as i32;
        if alpha >= (64 - 2 * opp) * DISC {
            let st = stable_discs(b.opponent, b.player).count_ones() as i32;
            let max = max_with(st);
            if max <= alpha {
                return Some(max);
            }
        }
        None
    }

    /// The value and square of a move among `legal` (flips `fl`) that turns
    /// every opponent disc, if there is one: the game ends there, so the
    /// value is exact, and every such move has the same one (the mover
    /// ends with all the discs).
    #[inline]
    fn wipeout(&self, b: &Board, legal: u64, fl: &[u64; 64]) -> Option<(i32, u8)> {
        let mut l = legal;
        while l != 0 {
            let s = l.trailing_zeros() as usize;
            l &= l - 1;
            if fl[s] == b.opponent {
                let v = self.child_final_value(&b.play_flips(s, fl[s]));
                return Some((v, s as u8));
            }
        }
        None
    }

    /// Calls `f` with the key and square of each child of `b` after the
    /// moves `legal` (flips `fl`), its bucket prefetched first so that the
    /// children's cache misses overlap.
    #[inline(always)]
    fn prefetch_children(&self, b: &Board, legal: u64, fl: &[u64; 64], mut f: impl FnMut(u64, u8)) {
        let mut l = legal;
        while l != 0 {
            let s = l.trailing_zeros() as usize;
            l &= l - 1;
            let key = self.child_key(&b.play_flips(s, fl[s]));
            self.job.tt.prefetch(key);
            f(key, s as u8);
        }
    }

    /// The children's keys and squares for ETC into `keys`, their buckets
    /// prefetched. (More than 36 legal moves does not occur in play; any
    /// beyond are just not probed.) The caller owns the list: returned, it
    /// was copied (584 bytes) at every node with ETC.
    #[inline(always)]
    fn etc_prefetch(&self, keys: &mut EtcKeys, b: &Board, legal: u64, fl: &[u64; 64]) {
        keys.len = 0;
        self.prefetch_children(b, legal, fl, |key, s| {
            if keys.len < keys.keys.len() {
                keys.keys[keys.len] = (key, s);
                keys.len += 1;
            }
        });
    }

    /// Enhanced transposition cutoff over the children `keys`: a child
    /// whose stored upper bound proves a value above `alpha` for this node
    /// (`Err`); otherwise the moves whose children's stored lower bounds
    /// already prove that they fail low, and the best value they prove
    /// (`-INF` with none).
    fn etc_probe(&self, keys: &EtcKeys, alpha: i32) -> Result<(u64, i32, u8), i32> {
        let (mut failed, mut best, mut best_sq) = (0u64, -INF, 64u8);
        for &(key, s) in &keys.keys[..keys.len] {
            if let Some(e) = self.job.tt.probe(key)
                && e.solved
            {
                if -e.upper > alpha {
                    return Err(-e.upper);
                }
                if -e.lower <= alpha {
                    failed |= 1u64 << s;
                    if -e.lower > best {
                        (best, best_sq) = (-e.lower, s);
                    }
                }
            }
        }
        Ok((failed, best, best_sq))
    }

    /// The value for this node of `child`, a position after its move or
    /// pass, by [`Worker::nws_end`] at this node's null window `alpha`.
    #[inline]
    pub(crate) fn nws_reply(&mut self, child: &Board, alpha: i32) -> i32 {
        -self.as_opponent(|w| w.nws_end(child, -alpha - 1))
    }

    /// The value for this node of `child`, a position after its move or
    /// pass, by [`Worker::pvs_end`] in this node's window `(alpha, beta)`.
    #[inline]
    fn pvs_reply(&mut self, child: &Board, alpha: i32, beta: i32, pv: &mut Vec<Move>) -> i32 {
        -self.as_opponent(|w| w.pvs_end(child, -beta, -alpha, pv))
    }

    /// Null-window exact search: the value if it is at most `alpha` (an
    /// upper bound) or above it (a lower bound). Returns 0 when stopped.
    pub(crate) fn nws_end(&mut self, b: &Board, alpha: i32) -> i32 {
        let expect_all = std::mem::take(&mut self.expect_all);
        // Windows beyond the largest value are decided without a search
        // (proving that nothing beats a wipeout would search every move).
        if alpha >= WIPEOUT {
            return WIPEOUT;
        }
        if alpha < -WIPEOUT {
            return -WIPEOUT;
        }
        let empty = b.empty();
        let n = empty.count_ones();
        if n <= 4 {
            return self.solve_small(b, alpha);
        }
        if n < self.cfg.tt_min_empties {
            if n + 1 == self.cfg.tt_min_empties {
                return self.shallow_tt(b, alpha, n);
            }
            return self.shallow(b, alpha);
        }
        if self.tick() {
            return 0;
        }
        if n >= self.cfg.stability_min_empties
            && let Some(v) = self.stability_cut(b, alpha)
        {
            return v;
        }
        let key = self.key(b);
        let hash_sq = match self.end_probe(key, alpha) {
            Ok(sq) => sq,
            Err(v) => return v,
        };
        let legal = b.legal_moves();
        if legal == 0 {
            let passed = b.pass();
            if passed.legal_moves() == 0 {
                return self.final_value(b);
            }
            return self.nws_reply(&passed, alpha);
        }
        if self.sel_level > 0
            && n >= self.cfg.probcut_min_empties
            && let Some(v) = self.end_probcut(b, alpha, n)
        {
            return v;
        }
        let (best, best_sq) = match self.nws_children(b, alpha, legal, hash_sq, expect_all) {
            Ok(r) => r,
            Err(v) => return v,
        };
        if self.stopped {
            return 0;
        }
        let bound = if best > alpha {
            TtBound::Lower
        } else {
            TtBound::Upper
        };
        self.end_store(key, best_sq, best, n, bound);
        best
    }

    /// The children of the null-window node `b` (moves `legal`, not all
    /// passes) searched until one cuts: ETC (`Err` with the value where a
    /// child's stored bound decides the node), the hash move alone, then
    /// the others in order. Returns the best value and its square (64 when
    /// every move was proven to fail low by the table alone).
    fn nws_children(
        &mut self,
        b: &Board,
        alpha: i32,
        legal: u64,
        hash_sq: u8,
        expect_all: bool,
    ) -> Result<(i32, u8), i32> {
        let n = b.empties();
        let fl = legal_flips(b, legal);
        // A move that ends the game beyond alpha decides the node at once.
        if let Some((v, _)) = self.wipeout(b, legal, &fl)
            && v > alpha
        {
            return Err(v);
        }
        let order = if n < self.cfg.sort_min_empties {
            Order::Parity
        } else if expect_all {
            Order::Cost
        } else {
            Order::Value(alpha)
        };
        // Moves already proven to fail low are not searched again.
        let (mut best, mut best_sq) = (-INF, 64u8);
        let mut rest = legal;
        let mut moves = EndMoves::new(&fl);
        let mut early = false;
        let etc = n >= self.cfg.etc_min_empties && !expect_all;
        if etc {
            let mut keys = EtcKeys {
                keys: [(0, 0); 36],
                len: 0,
            };
            self.etc_prefetch(&mut keys, b, legal, &fl);
            if hash_sq >= 64 && n <= self.cfg.etc_order_max_empties {
                self.end_moves_into(&mut moves, b, legal, 64, order);
                early = true;
            }
            let (failed, v, sq) = self.etc_probe(&keys, alpha)?;
            rest &= !failed;
            (best, best_sq) = (v, sq);
        } else {
            // Without ETC the children's buckets are fetched here, before
            // any child is searched (the children of a node at the table's
            // lowest empties probe it too: `shallow_tt`).
            self.prefetch_children(b, legal, &fl, |_, _| {});
        }
        // The hash move alone first: the order of the others is computed
        // only when it does not cut.
        if hash_sq < 64 && rest & (1u64 << hash_sq) != 0 {
            let v = self.nws_hash_move(b, (hash_sq, fl[hash_sq as usize]), alpha);
            if v > best {
                (best, best_sq) = (v, hash_sq);
            }
            if self.stopped {
                return Ok((0, best_sq));
            }
            rest &= !(1u64 << hash_sq);
        }
        if best <= alpha && rest != 0 {
            if early {
                moves.retain(rest);
            } else {
                self.end_moves_into(&mut moves, b, rest, 64, order);
            }
            let (v, sq) = if n >= self.cfg.split_min_empties && self.can_split() {
                self.nws_split(b, alpha, &moves)
            } else {
                self.nws_moves(b, alpha, &moves)
            };
            if v > best {
                (best, best_sq) = (v, sq);
            }
        }
        Ok((best, best_sq))
    }

    /// The table's entry for a null-window node of `n` empties (key
    /// `key`): `Err` with the value where a stored bound decides the
    /// window at `alpha`; else the hash move (see [`Self::trust_move`]),
    /// 64 for none.
    #[inline]
    fn end_probe(&self, key: u64, alpha: i32) -> Result<u8, i32> {
        let mut hash_sq = 64u8;
        if let Some(e) = self.job.tt.probe(key) {
            if let Some(s) = e.mv.and_then(|m| m.to_square())
                && self.trust_move(&e)
            {
                hash_sq = s.index() as u8;
            }
            if (e.solved || (self.sel_level > 0 && e.depth >= SEL_DEPTH * self.sel_level))
                && let Some(v) = e.cut(alpha, alpha + 1)
            {
                return Err(v);
            }
        }
        Ok(hash_sq)
    }

    /// The value of the hash move `(sq, flips)` of a null-window node,
    /// searched alone, with its cut noted in the history.
    #[inline]
    fn nws_hash_move(&mut self, b: &Board, (sq, f): (u8, u64), alpha: i32) -> i32 {
        let child = b.play_flips(sq as usize, f);
        let v = self.nws_reply(&child, alpha);
        if self.cfg.end_history_weight > 0 {
            history::note(b.empties(), sq, v > alpha, self.cfg.end_history_weight);
        }
        v
    }

    /// Whether the exact pass takes the move of entry `e` as its hash
    /// move: a solved entry's, and one of the last selective pass; not the
    /// moves of earlier passes or of the midgame search, which are ordered
    /// with the others (trusting every stored move measured +9% nodes on
    /// FFO #40-#48 and +29% on #49-#52 at 1 thread, `docs/endgame.md`).
    /// The selective passes take every move.
    #[inline]
    fn trust_move(&self, e: &super::tt::TtEntry) -> bool {
        let cfg = &self.cfg;
        if e.solved || self.sel_level > 0 {
            return true;
        }
        let last = [cfg.sel_t1, cfg.sel_t2].iter().filter(|&&t| t > 0).count() as u32;
        last > 0 && e.depth >= SEL_DEPTH * last
    }

    /// Whether a move whose order value is `guess` probably beats `alpha`
    /// by so much that its child is an all-node (`end_all_margin`).
    #[inline]
    pub(crate) fn expects_cut(&self, guess: i32, alpha: i32) -> bool {
        let m = self.cfg.end_all_margin as i32;
        m > 0 && guess > -INF && guess > alpha.saturating_add(m)
    }

    /// Searches `moves` of `b` in order at null window `alpha` until one
    /// cuts. Returns the best value and its square (0 when stopped).
    fn nws_moves(&mut self, b: &Board, alpha: i32, moves: &EndMoves) -> (i32, u8) {
        let mut best = -INF;
        let mut best_sq = moves.sq[0];
        let n = b.empties();
        for i in 0..moves.len {
            let child = b.play_flips(moves.sq[i] as usize, moves.flips_of(i));
            self.expect_all = self.expects_cut(moves.guess[i], alpha);
            let v = self.nws_reply(&child, alpha);
            if self.stopped {
                return (0, best_sq);
            }
            if self.cfg.end_history_weight > 0 {
                history::note(n, moves.sq[i], v > alpha, self.cfg.end_history_weight);
            }
            if v > best {
                best = v;
                best_sq = moves.sq[i];
                if v > alpha {
                    break;
                }
            }
        }
        (best, best_sq)
    }

    /// [`Worker::shallow`] behind a table probe, one empty below
    /// `tt_min_empties`: solved bounds cut, and the result is stored (no
    /// move). Inside the near region this pays: FFO #49-#52 -3.8% nodes
    /// and about 5% less time (`docs/table.md`).
    fn shallow_tt(&mut self, b: &Board, alpha: i32, n: u32) -> i32 {
        let key = self.key(b);
        if let Some(e) = self.job.tt.probe(key)
            && e.solved
            && let Some(v) = e.cut(alpha, alpha + 1)
        {
            return v;
        }
        let v = self.shallow(b, alpha);
        if self.stopped {
            return 0;
        }
        let bound = if v > alpha {
            TtBound::Lower
        } else {
            TtBound::Upper
        };
        self.job.tt.store(key, None, v, n, bound, true);
        v
    }

    /// Stores an endgame result: solved, or tagged with the selective
    /// level (never taken for solved). Below `probcut_min_empties` a
    /// selective pass searches exactly (no ProbCut in the subtree, whose
    /// entries are all solved), so its results are stored solved.
    #[inline]
    fn end_store(&self, key: u64, sq: u8, score: i32, n: u32, bound: TtBound) {
        let mv = Some(Move::square(Square::from_index_unchecked(sq)));
        if self.sel_level == 0 || n < self.cfg.probcut_min_empties {
            self.job.tt.store(key, mv, score, n, bound, true);
        } else {
            let depth = SEL_DEPTH * self.sel_level + n;
            self.job.tt.store(key, mv, score, depth, bound, false);
        }
    }

    /// ProbCut in a selective pass: a shallow midgame search decides the
    /// null window at `alpha` when it lands `t` sigmas beyond it; sigma is
    /// linear in the empties and the depth (see `probcut_sigma0`).
    fn end_probcut(&mut self, b: &Board, alpha: i32, n: u32) -> Option<i32> {
        let cfg = &self.cfg;
        let d = (2 * (n * cfg.probcut_depth_pct / 200) + (n & 1)) as i32;
        let d = d.clamp(1, n as i32 - 4);
        let sigma = (cfg.probcut_sigma0 as i32 * DISC / 100
            - cfg.probcut_sigma_slope as i32 * DISC * d / 100)
            .max(2 * DISC);
        let margin = sigma * self.sel_t as i32 / 100;
        let high_first = self.eval(b) > alpha;
        self.probcut(b, alpha, d, margin, 60, high_first)
    }

    /// Exact search with a window and a principal variation. Returns 0
    /// when stopped.
    pub(crate) fn pvs_end(
        &mut self,
        b: &Board,
        mut alpha: i32,
        beta: i32,
        pv: &mut Vec<Move>,
    ) -> i32 {
        pv.clear();
        if self.tick() {
            return 0;
        }
        let n = b.empties();
        let key = self.key(b);
        let mut hash_sq = 64u8;
        if let Some(e) = self.job.tt.probe(key)
            && let Some(s) = e.mv.and_then(|m| m.to_square())
        {
            hash_sq = s.index() as u8;
        }
        let legal = b.legal_moves();
        if legal == 0 {
            let passed = b.pass();
            if passed.legal_moves() == 0 {
                return self.final_value(b);
            }
            let mut cpv = Vec::new();
            let v = self.pvs_reply(&passed, alpha, beta, &mut cpv);
            pv.push(Move::PASS);
            pv.extend(cpv);
            return v;
        }
        let fl = legal_flips(b, legal);
        // A move that ends the game at or beyond beta, or with the largest
        // value, is the node's value (exact in the second case).
        if let Some((v, s)) = self.wipeout(b, legal, &fl)
            && (v >= beta || v >= WIPEOUT)
        {
            pv.push(Move::square(Square::from_index_unchecked(s)));
            let bound = if v >= WIPEOUT {
                TtBound::Exact
            } else {
                TtBound::Lower
            };
            self.end_store(key, s, v, n, bound);
            return v;
        }
        let moves = self.end_moves(b, legal, hash_sq, Order::Value(alpha), &fl);
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_sq = moves.sq[0];
        let mut cpv = Vec::new();
        let split = n >= self.cfg.split_pv_min_empties && self.can_split();
        for i in 0..moves.len {
            if i == 1 && split {
                let kids: Vec<Board> = (0..moves.len)
                    .map(|i| b.play_flips(moves.sq[i] as usize, moves.flips_of(i)))
                    .collect();
                self.pv_rest(
                    &kids,
                    alpha,
                    beta,
                    |w, c, a| w.nws_reply(c, a),
                    |w, c, a, _, line| w.pvs_reply(c, a, beta, line),
                    |i, v, a, line| {
                        if v > best {
                            (best, best_sq) = (v, moves.sq[i]);
                        }
                        if v > a {
                            pv.clear();
                            pv.push(Move::square(Square::from_index_unchecked(moves.sq[i])));
                            pv.extend_from_slice(line);
                        }
                    },
                );
                if self.stopped {
                    return 0;
                }
                break;
            }
            let child = b.play_flips(moves.sq[i] as usize, moves.flips_of(i));
            let mut v;
            if i == 0 {
                v = self.pvs_reply(&child, alpha, beta, &mut cpv);
            } else {
                self.expect_all = self.expects_cut(moves.guess[i], alpha);
                v = self.nws_reply(&child, alpha);
                if v > alpha && v < beta && !self.stopped {
                    v = self.pvs_reply(&child, alpha, beta, &mut cpv);
                } else {
                    cpv.clear();
                }
            }
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                best_sq = moves.sq[i];
                if v > alpha {
                    alpha = v;
                    pv.clear();
                    pv.push(Move::square(Square::from_index_unchecked(best_sq)));
                    pv.extend_from_slice(&cpv);
                    if v >= beta || v >= WIPEOUT {
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta && best < WIPEOUT {
            TtBound::Lower
        } else if best > alpha0 {
            TtBound::Exact
        } else {
            TtBound::Upper
        };
        self.end_store(key, best_sq, best, n, bound);
        best
    }
}

#[cfg(test)]
#[path = "endgame_tests.rs"]
mod tests;
