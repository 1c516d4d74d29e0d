//! Search-corrected labels (bootstrapping): a midgame position's game-derived
//! label carries every mistake played after it, so it is blended with the
//! value of a fixed-depth search of the position under an existing
//! evaluation: `label = (1 - w) · game + w · search`.
//!
//! The search is a plain fixed-depth alpha-beta ([`alphabeta`]: no table,
//! no ordering), so the new labels depend only on the positions, the
//! evaluation and the depth, never on the thread count or a table size.

use super::fit::Sample;
use crate::board::{Board, flips, legal_moves};
use crate::eval::{Evaluator, SCALE};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// How to relabel.
#[derive(Clone, Debug)]
pub struct RelabelConfig {
    /// Search depth (plies); 0 = the static evaluation.
    pub depth: u32,
    /// Weight of the search value in the blended label, `0.0..=1.0`.
    pub weight: f32,
    /// Only positions with at least this many empties are relabelled.
    pub min_empties: u32,
}

/// The blended label of one sample (disc difference for the side to move).
pub fn blend(label: i8, search: i32, weight: f32) -> i8 {
    let s = search as f32 / SCALE as f32;
    let v = (1.0 - weight) * label as f32 + weight * s;
    v.round().clamp(-64.0, 64.0) as i8
}

/// Final disc difference for the side to move, empties to the winner.
fn final_diff(b: &Board) -> i32 {
    let p = b.player.count_ones() as i32;
    let o = b.opponent.count_ones() as i32;
    let e = 64 - p - o;
    match p.cmp(&o) {
        std::cmp::Ordering::Greater => p - o + e,
        std::cmp::Ordering::Less => p - o - e,
        std::cmp::Ordering::Equal => 0,
    }
}

/// Fixed-depth alpha-beta on an evaluation; scores in 1/SCALE disc.
/// Counts nodes in `nodes`.
pub fn alphabeta(
    e: &Evaluator,
    b: &Board,
    depth: u32,
    mut alpha: i32,
    beta: i32,
    nodes: &mut u64,
) -> i32 {
    *nodes += 1;
    let mut moves = legal_moves(b.player, b.opponent);
    if moves == 0 {
        if legal_moves(b.opponent, b.player) == 0 {
            return final_diff(b) * SCALE;
        }
        return -alphabeta(e, &b.pass(), depth, -beta, -alpha, nodes);
    }
    if depth == 0 {
        return e.evaluate(b);
    }
    let mut best = i32::MIN + 1;
    while moves != 0 {
        let sq = moves.trailing_zeros() as usize;
        moves &= moves - 1;
        let c = b.play_flips(sq, flips(b.player, b.opponent, sq));
        let v = -alphabeta(e, &c, depth - 1, -beta, -alpha, nodes);
        if v > best {
            best = v;
            if v > alpha {
                alpha = v;
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    best
}

/// Relabels, in place, the samples of `by_empties` (indexed by empties)
/// with at least `cfg.min_empties` empties. Returns the nodes searched.
pub fn relabel(
    by_empties: &mut [Vec<Sample>],
    eval: &Evaluator,
    cfg: &RelabelConfig,
    progress: bool,
) -> u64 {
    let t = Instant::now();
    let nodes = AtomicU64::new(0);
    let total: usize = by_empties
        .iter()
        .enumerate()
        .filter(|(e, _)| *e as u32 >= cfg.min_empties)
        .map(|(_, v)| v.len())
        .sum();
    let mut done = 0usize;
    for (e, v) in by_empties.iter_mut().enumerate() {
        if (e as u32) < cfg.min_empties || v.is_empty() {
            continue;
        }
        v.par_chunks_mut(4096).for_each(|chunk| {
            let mut n = 0u64;
            for s in chunk.iter_mut() {
                let b = Board::new(s.player, s.opponent);
                let a = -65 * SCALE;
                let v = alphabeta(eval, &b, cfg.depth, a, -a, &mut n);
                s.label = blend(s.label, v, cfg.weight);
            }
            nodes.fetch_add(n, Ordering::Relaxed);
        });
        done += v.len();
        if progress {
            eprintln!(
                "train: relabelled {done}/{total} positions (to {e} empties), {:.0} s",
                t.elapsed().as_secs_f64()
            );
        }
    }
    nodes.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blend_weights_and_clamps() {
        assert_eq!(blend(10, 2 * SCALE, 0.0), 10);
        assert_eq!(blend(10, 2 * SCALE, 1.0), 2);
        assert_eq!(blend(10, 2 * SCALE, 0.5), 6);
        assert_eq!(blend(64, 70 * SCALE, 1.0), 64);
        assert_eq!(blend(-64, -70 * SCALE, 0.5), -64);
    }

    #[test]
    fn relabel_skips_positions_below_min_empties() {
        let b = Board::start();
        let mut by = vec![Vec::new(); 61];
        let s = Sample {
            player: b.player,
            opponent: b.opponent,
            label: 40,
            source: 0,
        };
        by[60].push(s);
        by[10].push(Sample { label: 40, ..s });
        let cfg = RelabelConfig {
            depth: 2,
            weight: 1.0,
            min_empties: 20,
        };
        relabel(&mut by, &Evaluator::Simple, &cfg, false);
        assert_eq!(by[10][0].label, 40);
        // The start position is about even for any sane evaluation.
        assert!(by[60][0].label.abs() < 10, "{}", by[60][0].label);
    }
}
