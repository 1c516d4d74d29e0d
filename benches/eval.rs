//! Evaluation speed: evaluations per second of the simple and the pattern
//! evaluations (embedded weights, and both feature sets) over positions of
//! random games, all stages.
//!
//! `cargo bench --bench eval`; the pattern rows also time the scalar path
//! (one look-up per instance and side) on the same positions, alternated.

use annex::board::{Board, flips, legal_moves};
use annex::eval::pattern::FeatureSet;
use annex::eval::{Evaluator, PatternEval, Weights};
use std::hint::black_box;
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

/// Best time of `rounds` passes of `f` over `pos`, in ns per call.
fn best_ns(pos: &[Board], rounds: usize, f: &dyn Fn(&Board) -> i32) -> f64 {
    let mut best = f64::MAX;
    let mut sum = 0i64;
    for _ in 0..rounds {
        let t = Instant::now();
        for b in pos {
            sum += f(black_box(b)) as i64;
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    black_box(sum);
    best * 1e9 / pos.len() as f64
}

fn rate(name: &str, e: &Evaluator, pos: &[Board]) {
    let ns = best_ns(pos, 5, &|b| e.evaluate(b));
    println!("{name:28} {ns:6.1} ns/eval  {:6.2} M evals/s", 1e3 / ns);
}

/// The coefficient path against the per-instance look-ups of the same
/// weights, alternated so that both see the same machine load.
fn versus_scalar(name: &str, p: &PatternEval, pos: &[Board]) {
    let (mut fast, mut slow) = (f64::MAX, f64::MAX);
    for _ in 0..5 {
        fast = fast.min(best_ns(pos, 1, &|b| p.evaluate(b)));
        slow = slow.min(best_ns(pos, 1, &|b| p.evaluate_scalar(b)));
    }
    println!(
        "{name:28} {fast:6.1} ns/eval, scalar path {slow:6.1} ns ({:.2}x)",
        slow / fast
    );
}

fn main() {
    let pos = positions(1_000_000);
    rate("simple", &Evaluator::Simple, &pos);
    rate("pattern (embedded)", &Evaluator::default(), &pos);
    let embedded = PatternEval::embedded().expect("embedded weights");
    versus_scalar("pattern (embedded)", &embedded, &pos);
    let hot: Vec<Board> = pos[..64].iter().cycle().take(pos.len()).copied().collect();
    versus_scalar("pattern (embedded, 64 positions)", &embedded, &hot);
    for set in [
        FeatureSet::Patterns,
        FeatureSet::PatternsMobility,
        FeatureSet::Extended,
    ] {
        let p = PatternEval::new(&Weights::zeros(set));
        versus_scalar(&format!("pattern {set:?} (zero weights)"), &p, &pos);
    }
}
