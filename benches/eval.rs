//! Evaluation speed: evaluations per second of the simple and the pattern
//! evaluations (embedded weights, and both feature sets) over positions of
//! random games, all stages.
//!
//! `cargo bench --bench eval`

use annex::board::{Board, flips, legal_moves};
use annex::eval::pattern::FeatureSet;
use annex::eval::{Evaluator, PatternEval, Weights};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

fn positions(n: usize) -> Vec<Board> {
    let mut rng = annex::rng::Rng::new(0x2545_f491_4f6c_dd1d);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut b = Board::start();
        loop {
            let mut m = legal_moves(b.player, b.opponent);
            if m == 0 {
                b = b.pass();
                m = legal_moves(b.player, b.opponent);
                if m == 0 {
                    break;
                }
            }
            out.push(b);
            let sq = rng.pick_bit(m);
            b = b.play_flips(sq, flips(b.player, b.opponent, sq));
        }
    }
    out
}

fn rate(name: &str, e: &Evaluator, pos: &[Board]) {
    let mut best = f64::MAX;
    let mut sum = 0i64;
    for _ in 0..5 {
        let t = Instant::now();
        for b in pos {
            sum += e.evaluate(black_box(b)) as i64;
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    black_box(sum);
    println!(
        "{name:28} {:6.1} ns/eval  {:6.2} M evals/s",
        best * 1e9 / pos.len() as f64,
        pos.len() as f64 / best / 1e6
    );
}

fn main() {
    let pos = positions(1_000_000);
    rate("simple", &Evaluator::Simple, &pos);
    rate("pattern (embedded)", &Evaluator::default(), &pos);
    for set in [
        FeatureSet::Patterns,
        FeatureSet::PatternsMobility,
        FeatureSet::Extended,
    ] {
        let p = PatternEval::new(&Weights::zeros(set));
        rate(
            &format!("pattern {set:?}"),
            &Evaluator::Pattern(Arc::new(p)),
            &pos,
        );
    }
}
