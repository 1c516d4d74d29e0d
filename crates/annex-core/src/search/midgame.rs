//! Midgame search: fail-soft principal variation search (null windows off
//! the first move), transposition table, move ordering by hash move, then
//! shallow searches (deep nodes) or the static evaluation of the child
//! (which weighs mobility). Works under every rule option; once the depth
//! covers the empties of a node, flips-all positions go to the endgame
//! solver and other rules search to the end of the game, so the value is
//! exact.

use super::tt::TtBound;
use super::worker::{Child, Worker};
use super::{DISC, INF};
use crate::board::Board;
use crate::moves::Move;

/// Standard deviation, in hundredths of a disc, of a deep search's value
/// minus the value of a search of depth `d` (the index) with the same
/// parity (measured: depth 4 vs 2: 3.96 discs, 8 vs 4: 3.93, 10 vs 6:
/// 2.69, 9 vs 5: 2.85, 10 vs 8: 2.30).
const MIDCUT_SIGMA: [i32; 9] = [450, 430, 400, 390, 390, 290, 250, 230, 230];

impl Worker<'_> {
    /// The value of `b` for the side to move, searched `depth` plies within
    /// `(alpha, beta)`; fills `pv` at PV nodes. Returns 0 when stopped (the
    /// caller must check `self.stopped`).
    pub(crate) fn pvs(
        &mut self,
        b: &Board,
        alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        pv: &mut Vec<Move>,
    ) -> i32 {
        pv.clear();
        let pv_node = beta - alpha > 1;
        let empties = b.empties() as i32;
        if depth >= empties && self.fast_at(b) {
            return if pv_node {
                self.pvs_end(b, alpha, beta, pv)
            } else {
                self.nws_end(b, alpha)
            };
        }
        if self.tick() {
            return 0;
        }
        if depth <= 0 {
            if empties == 0 {
                return self.final_value(b);
            }
            return self.eval(b);
        }
        let solved = depth >= empties;
        let key = self.key(b);
        let mut hash_move = None;
        if let Some(e) = self.job.tt.probe(key) {
            hash_move = e.mv;
            if !pv_node
                && (e.solved || (!solved && e.depth as i32 >= depth))
                && let Some(v) = e.cut(alpha, beta)
            {
                return v;
            }
        }
        if !pv_node
            && !solved
            && self.cfg.midcut_t > 0
            // From depth 2 at least: at depth 1 the probe would be the node itself.
            && depth >= (self.cfg.midcut_min_depth as i32).max(2)
            && let Some(v) = self.mid_probcut(b, alpha, depth, ply)
        {
            return v;
        }
        let mut kids = self.take_buf(ply);
        self.children(b, &mut kids);
        if kids.is_empty() {
            self.put_buf(ply, kids);
            return self.pass_value(b, alpha, beta, depth, ply, pv);
        }
        // The hash move goes first, at the frontier and below.
        let hash_first = match hash_move.and_then(|m| kids.iter().position(|c| c.mv == m)) {
            Some(i) => {
                kids.swap(0, i);
                true
            }
            None => false,
        };
        if depth == 1 && !solved {
            let v = self.frontier(&kids, key, beta, pv_node, empties, pv);
            self.put_buf(ply, kids);
            return v;
        }
        let found = self.search_kids(&mut kids, hash_first, alpha, beta, depth, ply, pv);
        self.put_buf(ply, kids);
        let Some((best, best_move)) = found else {
            return 0;
        };
        let bound = if best >= beta {
            TtBound::Lower
        } else if best > alpha {
            TtBound::Exact
        } else {
            TtBound::Upper
        };
        let d = if solved { empties } else { depth };
        self.job
            .tt
            .store(key, Some(best_move), best, d as u32, bound, solved);
        best
    }

    /// [`Worker::pvs`] at a node where the side to move has no move: the
    /// final value when the opponent has none either, else the value after
    /// a pass (which takes no depth).
    fn pass_value(
        &mut self,
        b: &Board,
        alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        pv: &mut Vec<Move>,
    ) -> i32 {
        let passed = b.pass();
        if !self.can_move(&passed) {
            return self.final_value(b);
        }
        let mut child_pv = Vec::new();
        let v = -self.as_opponent(|w| w.pvs(&passed, -beta, -alpha, depth, ply + 1, &mut child_pv));
        if beta - alpha > 1 {
            pv.push(Move::PASS);
            pv.extend(child_pv);
        }
        v
    }

    /// A frontier node (one ply left, not solved): the children's static
    /// values, no recursion. A PV node evaluates every child (an exact
    /// depth-1 value); a null window stops at the first child that reaches
    /// beta (from `frontier_cut_min_empties`). Stores the value in the table.
    fn frontier(
        &mut self,
        kids: &[Child],
        key: u64,
        beta: i32,
        pv_node: bool,
        empties: i32,
        pv: &mut Vec<Move>,
    ) -> i32 {
        let cut = !pv_node && empties >= self.cfg.frontier_cut_min_empties as i32;
        let mut best = -INF;
        let mut best_move = kids[0].mv;
        let mut n = 0;
        for c in kids.iter() {
            n += 1;
            let v = if c.same_side {
                self.eval(&c.board)
            } else {
                -self.eval(&c.board)
            };
            if v > best {
                best = v;
                best_move = c.mv;
                if cut && v >= beta {
                    break;
                }
            }
        }
        self.local += n;
        if pv_node {
            pv.push(best_move);
        }
        let bound = if !cut || best < beta {
            TtBound::Exact
        } else {
            TtBound::Lower
        };
        self.job
            .tt
            .store(key, Some(best_move), best, 1, bound, false);
        best
    }

    /// The move loop of [`Worker::pvs`] over `kids` (the hash move first
    /// when `hash_first`): PVS with null windows behind the first move, or
    /// a split point at a deep enough null-window node. Returns the best
    /// value and move (fail-soft), or `None` when stopped.
    #[allow(clippy::too_many_arguments)]
    fn search_kids(
        &mut self,
        kids: &mut [Child],
        hash_first: bool,
        mut alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        pv: &mut Vec<Move>,
    ) -> Option<(i32, Move)> {
        let pv_node = beta - alpha > 1;
        // Behind the hash move, the others are ordered only if it does not
        // cut (or before a split), which saves their evaluations.
        let mut ordered = if hash_first {
            kids.len() <= 2
        } else {
            self.order(kids, depth, ply);
            true
        };
        if !pv_node && depth >= self.cfg.split_min_depth && self.can_split() {
            if !ordered {
                self.order(&mut kids[1..], depth, ply);
            }
            let found = self.pvs_split(kids, alpha, depth, ply);
            return (!self.stopped).then_some(found);
        }
        let mut best = -INF;
        let mut best_move = kids[0].mv;
        let mut child_pv = Vec::new();
        let split = pv_node && self.splits_pv(depth);
        for i in 0..kids.len() {
            if i == 1 && !ordered {
                self.order(&mut kids[1..], depth, ply);
                ordered = true;
            }
            if i == 1 && split {
                self.pv_rest(
                    kids,
                    alpha,
                    beta,
                    |w, c, a| w.child_value(c, a, a + 1, depth, ply, &mut Vec::new()),
                    |w, c, a, v, line| w.child_value(c, v.max(a), beta, depth, ply, line),
                    |i, v, a, line| {
                        if v > best {
                            (best, best_move) = (v, kids[i].mv);
                        }
                        if v > a {
                            pv.clear();
                            pv.push(kids[i].mv);
                            pv.extend_from_slice(line);
                        }
                    },
                );
                if self.stopped {
                    return None;
                }
                break;
            }
            let c = &kids[i];
            let v = if i == 0 {
                self.child_value(c, alpha, beta, depth, ply, &mut child_pv)
            } else if !pv_node {
                self.nws_child(c, i, alpha, depth, ply)
            } else {
                let v = self.child_value(c, alpha, alpha + 1, depth, ply, &mut child_pv);
                if v > alpha && v < beta && !self.stopped {
                    self.child_value(c, v.max(alpha), beta, depth, ply, &mut child_pv)
                } else {
                    v
                }
            };
            if self.stopped {
                return None;
            }
            if v > best {
                best = v;
                best_move = c.mv;
                if v > alpha {
                    alpha = v;
                    if pv_node {
                        pv.clear();
                        pv.push(c.mv);
                        pv.extend_from_slice(&child_pv);
                    }
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        Some((best, best_move))
    }

    /// The value of child `c`, the `i`-th move (ordered) of a null-window
    /// node of `depth` at `alpha`. A late move (`mid_lmr_min_depth`,
    /// `mid_lmr_after`) is first searched `mid_lmr_r` plies shallower, and
    /// again at full depth only if that reaches the window.
    pub(crate) fn nws_child(
        &mut self,
        c: &Child,
        i: usize,
        alpha: i32,
        depth: i32,
        ply: usize,
    ) -> i32 {
        let mut scratch = Vec::new();
        let min = self.cfg.mid_lmr_min_depth;
        // Not near the end of the game: there a full-depth child is solved
        // (or nearly), and a shallower search would only be searched again
        // (solves run at depth 64, so their children are never reduced).
        if min > 0
            && depth >= min
            && i >= self.cfg.mid_lmr_after as usize
            && depth < c.board.empties() as i32
        {
            let r = self.cfg.mid_lmr_r;
            let v = self.child_value(c, alpha, alpha + 1, depth - r, ply, &mut scratch);
            if v <= alpha || self.stopped {
                return v;
            }
        }
        self.child_value(c, alpha, alpha + 1, depth, ply, &mut scratch)
    }

    /// ProbCut at a null-window node (Buro): a search of about half of
    /// `depth` (same parity) decides the window `(alpha, alpha + 1)`
    /// when its value lands `midcut_t` sigmas beyond it. Sigmas by shallow
    /// depth were measured on 140 XOT and FFO positions (`MIDCUT_SIGMA`);
    /// One sigma at every stage: shaping it by stage as measured played
    /// even against NTest (`docs/strength.md`).
    fn mid_probcut(&mut self, b: &Board, alpha: i32, depth: i32, ply: usize) -> Option<i32> {
        let d = (2 * (depth / 4) + (depth & 1)).max(1);
        let sigma = MIDCUT_SIGMA[(d as usize).min(MIDCUT_SIGMA.len() - 1)] * DISC / 100;
        let margin = sigma * self.cfg.midcut_t as i32 / 100;
        self.probcut(b, alpha, d, margin, ply, true)
    }

    /// The ProbCut test shared by the midgame and the selective endgame:
    /// searches of depth `d` at `alpha + 1 + margin` and `alpha - margin`
    /// (in that order when `high_first`). `Some(alpha + 1)` (a lower bound)
    /// or `Some(alpha)` (an upper bound) when one of them decides the null
    /// window at `alpha`; `Some(0)` when stopped.
    pub(crate) fn probcut(
        &mut self,
        b: &Board,
        alpha: i32,
        d: i32,
        margin: i32,
        ply: usize,
        high_first: bool,
    ) -> Option<i32> {
        let mut pv = Vec::new();
        let mut high = high_first;
        for _ in 0..2 {
            if high {
                let hi = alpha + 1 + margin;
                if hi < 64 * DISC {
                    let v = self.pvs(b, hi - 1, hi, d, ply, &mut pv);
                    if self.stopped {
                        return Some(0);
                    }
                    if v >= hi {
                        return Some(alpha + 1);
                    }
                }
            } else {
                let lo = alpha - margin;
                if lo > -64 * DISC {
                    let v = self.pvs(b, lo, lo + 1, d, ply, &mut pv);
                    if self.stopped {
                        return Some(0);
                    }
                    if v <= lo {
                        return Some(alpha);
                    }
                }
            }
            high = !high;
        }
        None
    }

    /// Value of child `c` for the parent's side, in the parent's window.
    pub(crate) fn child_value(
        &mut self,
        c: &Child,
        alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        pv: &mut Vec<Move>,
    ) -> i32 {
        if c.same_side {
            self.pvs(&c.board, alpha, beta, depth - 1, ply + 1, pv)
        } else {
            -self.as_opponent(|w| w.pvs(&c.board, -beta, -alpha, depth - 1, ply + 1, pv))
        }
    }

    /// Orders `kids` best first by a shallow search (deep nodes) or the
    /// static evaluation of the child.
    pub(crate) fn order(&mut self, kids: &mut [Child], depth: i32, ply: usize) {
        let shallow = if depth >= self.cfg.shallow_sort_depth {
            (depth / 4).clamp(1, 3)
        } else {
            0
        };
        let mut scratch = Vec::new();
        for k in kids.iter_mut() {
            let c = *k;
            k.key = if shallow > 0 {
                self.child_value(&c, -INF, INF, shallow + 1, ply, &mut scratch)
            } else if c.same_side {
                self.eval(&c.board)
            } else {
                -self.eval(&c.board)
            };
        }
        kids.sort_by_key(|c| std::cmp::Reverse(c.key));
    }
}
