//! Iterative deepening at the root: aspiration windows, multi-PV, the
//! switch from midgame iterations to the exact (or WLD) solve, and the
//! result of an interrupted iteration.
//!
//! Iterations: with `solve`, midgame depths up to
//! `min(presolve_depth, empties - solve_margin)` (they fill the table and
//! order the root) and then the solve. With a depth limit, depths 1..=limit;
//! a limit that covers the empties asks for the exact value: midgame depths
//! as without a limit (at least `presolve_depth`), then the solve.
//! Otherwise depths 1, 2, … until `depth + solve_margin >= empties`, then
//! the exact solve.

use super::endgame::WIPEOUT;
use super::parstats;
use super::worker::{Child, Worker};
use super::{BestMove, Bound, DISC, INF, Info, Job, SolveMode, WorkerMsg, to_discs};
use crate::moves::Move;
use crate::rules::FastPath;
use crossbeam_channel::Sender;
use std::sync::atomic::Ordering::Relaxed;

struct RootMove {
    child: Child,
    score: i32,
    pv: Vec<Move>,
    /// Searched in the current iteration.
    done: bool,
    bound: Bound,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Mid(u32),
    /// Selective exact-style pass: level, ProbCut width (hundredths of sigma).
    Sel(u32, u32),
    Solve(SolveMode),
}

/// Runs the search of `job` and returns its best move (`None` when the
/// root has no move). Sends one [`WorkerMsg::Iteration`] per completed
/// iteration on `tx`. With a pool in `job`, split points below spread the
/// work over its threads (see `parallel`).
pub fn run_worker(job: &Job, tx: &Sender<WorkerMsg>) -> Option<BestMove> {
    let stats =
        job.pool.is_some() && log::log_enabled!(target: "annex::parstats", log::Level::Info);
    let before = stats.then(parstats::snapshot);
    let mut w = Worker::new(job);
    let mut rm = root_moves(&mut w)?;
    let empties = job.position.board.empties();
    let multipv = job.limits.multipv.clamp(1, rm.len());
    let mut last: Option<(Kind, Vec<Info>)> = None;
    let mut prev = rm[0].score;
    for kind in iterations(job, empties, multipv) {
        let (best, alpha, beta) = iterate(&mut w, &mut rm, kind, prev, multipv);
        if w.stopped {
            break;
        }
        prev = best;
        // Moves left unsearched after a fail high keep their order, below;
        // an upper bound goes after a value it ties (the parallel root
        // searches later moves at the raised alpha before earlier ones).
        rm.sort_by_key(|r| std::cmp::Reverse((r.done, r.score, r.bound != Bound::Upper)));
        let infos = make_infos(&mut w, &rm, kind, empties, multipv, alpha, beta);
        let _ = tx.send(WorkerMsg::Iteration(infos.clone()));
        last = Some((kind, infos));
    }
    w.flush();
    parstats::add(parstats::NODES_WASTED, w.sub_wasted);
    if let Some(before) = before {
        let nodes = job.shared.nodes.load(std::sync::atomic::Ordering::Relaxed);
        let d = parstats::snapshot().since(&before);
        log::info!(target: "annex::parstats", "{} empties, {nodes} nodes: {}", empties, d.line(nodes));
    }
    Some(best_move(job, &rm, last, w.stopped, empties))
}

/// The root moves (restricted to `searchmoves` when any of them is
/// legal), best static value first; `None` when there is no move.
fn root_moves(w: &mut Worker<'_>) -> Option<Vec<RootMove>> {
    let job = w.job;
    let limits = &job.limits;
    let mut kids = Vec::new();
    w.children(&job.position.board, &mut kids);
    if !limits.searchmoves.is_empty() {
        let restricted: Vec<Child> = kids
            .iter()
            .copied()
            .filter(|c| limits.searchmoves.contains(&c.mv))
            .collect();
        if !restricted.is_empty() {
            kids = restricted;
        }
    }
    if kids.is_empty() {
        return None;
    }
    let mut rm: Vec<RootMove> = kids
        .iter()
        .map(|c| {
            let e = w.eval(&c.board);
            RootMove {
                child: *c,
                score: if c.same_side { e } else { -e },
                pv: vec![c.mv],
                done: false,
                bound: Bound::Upper,
            }
        })
        .collect();
    rm.sort_by_key(|r| std::cmp::Reverse(r.score));
    Some(rm)
}

/// The iterations of the search, in order (see the module comment).
fn iterations(job: &Job, empties: u32, multipv: usize) -> Vec<Kind> {
    let limits = &job.limits;
    let cfg = &job.config;
    // Selective passes before an exact solve (the bitboard solver's only).
    let sel: Vec<Kind> = if job.rules.fast_path() == FastPath::Bitboard
        && empties >= cfg.sel_min_empties
        && multipv == 1
    {
        [cfg.sel_t1, cfg.sel_t2]
            .into_iter()
            .filter(|&t| t > 0)
            .enumerate()
            .map(|(i, t)| Kind::Sel(i as u32 + 1, t))
            .collect()
    } else {
        Vec::new()
    };
    let solve_with = |mode: SolveMode| -> Vec<Kind> {
        let mut v = sel.clone();
        if mode == SolveMode::Wld {
            v.clear();
        }
        v.push(Kind::Solve(mode));
        v
    };
    let presolve = || {
        cfg.presolve_depth
            .min(empties.saturating_sub(cfg.solve_margin))
    };
    if let Some(mode) = limits.solve {
        (1..=presolve())
            .map(Kind::Mid)
            .chain(solve_with(mode))
            .collect()
    } else if let Some(d) = limits.depth {
        let d = d.max(1);
        if d >= empties {
            // The midgame depths go on as without a limit before the solve,
            // so that a far-off solve (an analysis to depth 60 from the
            // opening) deepens its hints instead of starting a hopeless
            // solve after depth 10; at most 18 empties this is `presolve`.
            let last = presolve().max(empties.saturating_sub(cfg.solve_margin + 1));
            (1..=last)
                .map(Kind::Mid)
                .chain(solve_with(SolveMode::Exact))
                .collect()
        } else {
            (1..=d).map(Kind::Mid).collect()
        }
    } else {
        // Depth 1 at least comes before the solve: a search that the
        // clock stops during the solve (the generic solver under
        // `flips one-line` is slower) still has a score and a PV to report.
        let last = empties.saturating_sub(cfg.solve_margin).min(empties).max(2);
        (1..last)
            .map(Kind::Mid)
            .chain(solve_with(SolveMode::Exact))
            .collect()
    }
}

/// One iteration of kind `kind`: root searches in an aspiration window
/// around `prev` that widens on each fail until the value lands inside.
/// Returns the value and the last window.
fn iterate(
    w: &mut Worker<'_>,
    rm: &mut [RootMove],
    kind: Kind,
    prev: i32,
    multipv: usize,
) -> (i32, i32, i32) {
    let job = w.job;
    let cfg = &job.config;
    let depth = match kind {
        Kind::Mid(d) => d as i32,
        Kind::Sel(..) | Kind::Solve(_) => 64,
    };
    (w.sel_level, w.sel_t) = match kind {
        Kind::Sel(level, t) => (level, t),
        _ => (0, 0),
    };
    let (mut alpha, mut beta) = match kind {
        Kind::Solve(SolveMode::Wld) => (-1, 1),
        Kind::Mid(d) if d >= 4 && multipv == 1 => (prev - cfg.aspiration, prev + cfg.aspiration),
        Kind::Sel(..) | Kind::Solve(SolveMode::Exact)
            if multipv == 1 && cfg.solve_aspiration > 0 =>
        {
            solve_window(prev, cfg.solve_aspiration as i32 * DISC)
        }
        _ => (-INF, INF),
    };
    let mut delta = match kind {
        Kind::Sel(..) | Kind::Solve(_) => cfg.solve_aspiration as i32 * DISC,
        Kind::Mid(_) => cfg.aspiration,
    };
    loop {
        let v = root_search(w, rm, depth, alpha, beta, multipv);
        if w.stopped || kind == Kind::Solve(SolveMode::Wld) {
            return (v, alpha, beta);
        }
        if v <= alpha && alpha > -INF {
            alpha = (alpha - delta).max(-INF);
            delta *= 2;
        } else if v >= beta && beta < INF {
            beta = (beta + delta).min(INF);
            delta *= 2;
        } else {
            return (v, alpha, beta);
        }
    }
}

/// The first window of a selective pass or an exact solve after the value
/// `prev`: `a` on either side, except at a 64-disc win or loss, where only
/// whether it holds is asked (nothing lies beyond it, and a window reaching
/// further in makes every PV node under it find the exact value of its
/// lesser moves: FFO #59, 34 empties, 1.66e8 nodes against 1.15e8).
fn solve_window(prev: i32, a: i32) -> (i32, i32) {
    if prev >= WIPEOUT {
        (WIPEOUT - DISC, WIPEOUT + a)
    } else if prev <= -WIPEOUT {
        (-WIPEOUT - a, -WIPEOUT + DISC)
    } else {
        (prev - a, prev + a)
    }
}

/// The result: the last completed iteration's best line, unless the
/// search was `stopped` in an iteration where another move already beat
/// the previous best one (which counts when the best move was searched);
/// with no completed iteration, the best move by static value.
fn best_move(
    job: &Job,
    rm: &[RootMove],
    last: Option<(Kind, Vec<Info>)>,
    stopped: bool,
    empties: u32,
) -> BestMove {
    let mut pick = 0;
    if stopped && rm[0].done {
        for (i, r) in rm.iter().enumerate() {
            if r.done && r.score > rm[pick].score && r.bound != Bound::Upper {
                pick = i;
            }
        }
    }
    let nodes = job.shared.nodes.load(Relaxed);
    let time = job.start.elapsed();
    match last {
        Some((kind, infos)) => {
            let first = &infos[0];
            let (pv, score, tie_flag) = if pick == 0 {
                (first.pv.clone(), first.score, first.tie)
            } else {
                let (s, t) = to_discs(rm[pick].score, false);
                (rm[pick].pv.clone(), s, t)
            };
            BestMove {
                best: pv[0],
                ponder: pv.get(1).copied(),
                score,
                tie: tie_flag,
                exact: first.exact && pick == 0,
                wld: first.wld && pick == 0,
                depth: match kind {
                    Kind::Mid(d) => d,
                    Kind::Sel(..) | Kind::Solve(_) => empties,
                },
                nodes,
                time,
                pv,
                lines: infos,
            }
        }
        None => {
            let r = &rm[pick];
            BestMove {
                best: r.child.mv,
                ponder: None,
                score: to_discs(r.score, false).0,
                tie: None,
                exact: false,
                wld: false,
                depth: 0,
                nodes,
                time,
                pv: vec![r.child.mv],
                lines: Vec::new(),
            }
        }
    }
}

/// One pass over the root moves in `(alpha, beta)`. Returns the best value
/// (fail-soft). Multi-PV keeps the first `multipv` moves exact.
#[allow(clippy::needless_range_loop)]
fn root_search(
    w: &mut Worker<'_>,
    rm: &mut [RootMove],
    depth: i32,
    alpha: i32,
    beta: i32,
    multipv: usize,
) -> i32 {
    for r in rm.iter_mut() {
        r.done = false;
    }
    let mut best = -INF;
    let mut cpv = Vec::new();
    let mut scores: Vec<i32> = Vec::new();
    // The root splits like a PV node (`split_pv_min_empties`, `splits_pv`).
    let split = multipv == 1
        && if depth == 64 {
            w.can_split() && w.job.position.board.empties() >= w.cfg.split_pv_min_empties
        } else {
            w.splits_pv(depth)
        };
    for i in 0..rm.len() {
        if i == 1 && split {
            return root_split(w, rm, depth, best.max(alpha), beta, best);
        }
        let c = rm[i].child;
        let a = if multipv > 1 {
            if scores.len() >= multipv {
                scores[multipv - 1].max(alpha)
            } else {
                alpha
            }
        } else {
            best.max(alpha)
        };
        let mut v;
        if i == 0 || a == alpha && multipv > 1 && scores.len() < multipv {
            v = w.child_value(&c, a, beta, depth, 0, &mut cpv);
        } else {
            v = w.child_value(&c, a, a + 1, depth, 0, &mut cpv);
            if v > a && v < beta && !w.stopped {
                v = w.child_value(&c, a, beta, depth, 0, &mut cpv);
            } else {
                cpv.clear();
            }
        }
        if w.stopped {
            return best;
        }
        set_root(&mut rm[i], v, bound_of(v, a, beta), &cpv);
        let pos = scores.partition_point(|&s| s >= v);
        scores.insert(pos, v);
        if v > best {
            best = v;
            if v >= beta && multipv == 1 {
                break;
            }
        }
    }
    if multipv > 1 && alpha == -INF && beta == INF {
        exact_lines(w, rm, depth, multipv);
    }
    best
}

/// The root moves after the first in parallel rounds ([`Worker::pv_rest`]);
/// `best` is the first move's value. Returns the best value.
fn root_split(
    w: &mut Worker<'_>,
    rm: &mut [RootMove],
    depth: i32,
    alpha: i32,
    beta: i32,
    mut best: i32,
) -> i32 {
    let kids: Vec<Child> = rm.iter().map(|r| r.child).collect();
    w.pv_rest(
        &kids,
        alpha,
        beta,
        |w, c, a| w.child_value(c, a, a + 1, depth, 0, &mut Vec::new()),
        |w, c, a, _, line| w.child_value(c, a, beta, depth, 0, line),
        |i, v, a, line| {
            set_root(&mut rm[i], v, bound_of(v, a, beta), line);
            best = best.max(v);
        },
    );
    best
}

/// What value `v` of a search in `(alpha, beta)` proves.
fn bound_of(v: i32, alpha: i32, beta: i32) -> Bound {
    if v <= alpha {
        Bound::Upper
    } else if v >= beta {
        Bound::Lower
    } else {
        Bound::Exact
    }
}

/// Records root move `r`'s value `v` and line (`r`'s move then `cpv`).
fn set_root(r: &mut RootMove, v: i32, bound: Bound, cpv: &[Move]) {
    r.score = v;
    r.done = true;
    r.bound = bound;
    r.pv.clear();
    r.pv.push(r.child.mv);
    r.pv.extend_from_slice(cpv);
}

/// Multi-PV reports a value for each of the best `multipv` moves: one that
/// is only a bound there (a null-window fail that ties the last line, or a
/// re-search that fell back) is searched again with the full window.
fn exact_lines(w: &mut Worker<'_>, rm: &mut [RootMove], depth: i32, multipv: usize) {
    let mut cpv = Vec::new();
    loop {
        let mut order: Vec<usize> = (0..rm.len()).filter(|&i| rm[i].done).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(rm[i].score));
        let Some(&i) = order
            .iter()
            .take(multipv)
            .find(|&&i| rm[i].bound != Bound::Exact)
        else {
            return;
        };
        let c = rm[i].child;
        let v = w.child_value(&c, -INF, INF, depth, 0, &mut cpv);
        if w.stopped {
            return;
        }
        let r = &mut rm[i];
        r.score = v;
        r.bound = Bound::Exact;
        r.pv.clear();
        r.pv.push(c.mv);
        r.pv.extend_from_slice(&cpv);
    }
}

fn make_infos(
    w: &mut Worker<'_>,
    rm: &[RootMove],
    kind: Kind,
    empties: u32,
    multipv: usize,
    alpha: i32,
    beta: i32,
) -> Vec<Info> {
    w.flush();
    let job = w.job;
    let nodes = job.shared.nodes.load(Relaxed);
    let time = job.start.elapsed();
    let nps = (nodes as f64 / time.as_secs_f64().max(1e-6)) as u64;
    let hashfull = job.tt.hashfull();
    let (depth, proven_exact, wld) = match kind {
        Kind::Mid(d) => (d, d >= empties, false),
        Kind::Sel(..) => (empties, false, false),
        Kind::Solve(SolveMode::Exact) => (empties, true, false),
        Kind::Solve(SolveMode::Wld) => (empties, false, true),
    };
    let selectivity = match kind {
        Kind::Sel(_, t) => Some(confidence(t)),
        _ => None,
    };
    rm.iter()
        .take(multipv)
        .enumerate()
        .map(|(i, r)| {
            let bound = if r.score <= alpha {
                Bound::Upper
            } else if r.score >= beta {
                Bound::Lower
            } else {
                r.bound
            };
            let (score, tie) = if wld {
                wld_discs(r.score)
            } else {
                // A tie is named only when the value is proven to be one.
                to_discs(r.score, proven_exact && bound == Bound::Exact)
            };
            Info {
                depth,
                selectivity,
                score,
                tie,
                bound,
                exact: proven_exact && bound == Bound::Exact,
                wld,
                nodes,
                nps,
                time,
                hashfull,
                multipv: i + 1,
                pv: r.pv.clone(),
            }
        })
        .collect()
}

/// The score of a win/loss/draw solve in discs: only its sign is proven.
/// Under `tie second` a bound of a half disc is a win or a loss, not a
/// proven tie (the game may end by several discs), so it shows as `±1`.
fn wld_discs(v: i32) -> (i32, Option<bool>) {
    let (d, _) = to_discs(v, false);
    let d = match v.signum() {
        1 => d.max(1),
        -1 => d.min(-1),
        _ => 0,
    };
    (d, None)
}

/// Two-sided normal confidence of a ProbCut width of `t` hundredths of a
/// sigma, in percent (Edax's convention: 1.1 sigma is 73%).
fn confidence(t: u32) -> u32 {
    // Abramowitz-Stegun 7.1.26 for erf(x), x = t / sqrt(2); error < 2e-7.
    let x = t as f64 / 100.0 / std::f64::consts::SQRT_2;
    let k = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = k
        * (0.254_829_592
            + k * (-0.284_496_736
                + k * (1.421_413_741 + k * (-1.453_152_027 + k * 1.061_405_429))));
    let erf = 1.0 - poly * (-x * x).exp();
    (erf * 100.0).floor().clamp(0.0, 99.0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::search::Config;

    /// A first window of ±64 discs asks only whether that value holds;
    /// any other is `a` on either side.
    #[test]
    fn solve_window_stops_at_the_largest_value() {
        let a = 3 * DISC;
        assert_eq!(solve_window(10 * DISC, a), (7 * DISC, 13 * DISC));
        assert_eq!(solve_window(WIPEOUT, a), (WIPEOUT - DISC, WIPEOUT + a));
        assert_eq!(solve_window(-WIPEOUT, a), (-WIPEOUT - a, -WIPEOUT + DISC));
        assert_eq!(solve_window(62 * DISC, a), (59 * DISC, 65 * DISC));
    }

    /// The exact solve after a previous value of +64 or -64 discs lands on
    /// the exact value wherever it is (the window widens from the
    /// narrow one): positions of random games at 10-13 empties, and ones
    /// where the other side threatens a move that turns all the mover's
    /// discs, each checked against a full-window search of a fresh worker.
    #[test]
    fn solve_after_a_64_disc_value_is_exact() {
        let mut rng = crate::rng::Rng::new(0x64_d15c);
        let (mut checked, mut at_max) = (0, 0);
        for i in 0..200u32 {
            let mut b = crate::position::Position::start(&crate::rules::RuleSet::default()).board;
            while b.empties() > 10 + i % 4 {
                match super::super::random_step(&mut rng, &b) {
                    Some(next) => b = next,
                    None => break,
                }
            }
            let legal = b.legal_moves();
            if legal == 0 {
                continue;
            }
            if i % 2 == 1 {
                let f = crate::board::flips(b.player, b.opponent, legal.trailing_zeros() as usize);
                b = Board::new(b.player | (b.opponent & !f), f).pass();
                if b.legal_moves() == 0 {
                    continue;
                }
            }
            let mut job = Job::for_test(Config::default(), None);
            job.position.board = b;
            let want = Worker::new(&job).pvs_end(&b, -INF, INF, &mut Vec::new());
            at_max += usize::from(want.abs() == WIPEOUT);
            for prev in [WIPEOUT, -WIPEOUT] {
                job.tt.clear();
                let mut w = Worker::new(&job);
                let mut rm = root_moves(&mut w).expect("a move");
                let kind = Kind::Solve(SolveMode::Exact);
                let (v, alpha, beta) = iterate(&mut w, &mut rm, kind, prev, 1);
                assert_eq!(v, want, "{b:?} after {prev}");
                assert!(alpha < v && v < beta, "{b:?}: {v} in ({alpha}, {beta})");
                checked += 1;
            }
        }
        assert!(checked >= 300 && at_max >= 10, "{checked} {at_max}");
    }
}
