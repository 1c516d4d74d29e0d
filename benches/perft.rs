//! Perft benchmark: counts from the start position, checked against the
//! reference file before any rate is reported.
//!
//! `cargo bench --bench perft [-- DEPTH [THREADS [RUNS]]]` (default depth 11,
//! 1 thread, 3 runs): the hashed counter of `annex perft`, median time.
//!
//! `cargo bench --bench perft -- options [DEPTH]` (default 10): the cost of
//! the rule options on the default path. It counts the same tree, without
//! a table, twice: with the rule-aware move list (`MoveList::generate` and
//! `play_unchecked`, which check the `start` and `flips` options) and with
//! a plain loop over the bitboard functions that knows no options.

use annex::board::Board;
use annex::perft::{Convention, PerftOptions, perft_general, perft_with};
use annex::position::Position;
use annex::rules::RuleSet;
use std::hint::black_box;
use std::time::Instant;

fn reference(depth: u32) -> Option<u64> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/perft/perft_start_position.tsv"
    );
    let text = std::fs::read_to_string(path).ok()?;
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|f| f.first().and_then(|d| d.parse::<u32>().ok()) == Some(depth))
        .and_then(|f| f.get(2)?.parse().ok())
}

/// Median wall time of `runs` calls of `f`, each checked against `want`.
fn median(runs: usize, want: u64, what: &str, mut f: impl FnMut() -> u64) -> f64 {
    let mut times: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            let n = f();
            let s = t.elapsed().as_secs_f64();
            assert_eq!(n, want, "{what}: the count is wrong");
            s
        })
        .collect();
    times.sort_by(|a, b| a.total_cmp(b));
    times[times.len() / 2]
}

/// Leaves of the start tree (oeis convention) with the bitboard functions
/// alone: no rule options, no table, last ply counted in bulk.
fn plain(b: Board, depth: u32) -> u64 {
    let moves = b.legal_moves();
    if moves == 0 {
        let passed = b.pass();
        return if passed.legal_moves() == 0 {
            0
        } else if depth == 1 {
            1
        } else {
            plain(passed, depth - 1)
        };
    }
    if depth == 1 {
        return moves.count_ones() as u64;
    }
    let mut n = 0;
    let mut m = moves;
    while m != 0 {
        let sq = m.trailing_zeros() as usize;
        m &= m - 1;
        n += plain(b.play_square(sq), depth - 1);
    }
    n
}

fn options_overhead(depth: u32) {
    let r = RuleSet::default();
    let b = Position::start(&r).board;
    let want = reference(depth).expect("reference count (data/perft/perft_start_position.tsv)");
    // black_box: the start board is a constant the optimiser could
    // otherwise count at compile time.
    let with_rules = median(5, want, "rule-aware", || {
        perft_general(&black_box(b), &black_box(r), depth, Convention::Oeis)
    });
    let without = median(5, want, "plain", || plain(black_box(b), depth));
    println!(
        "perft({depth}) without table: rule-aware move list {with_rules:.3} s, plain bitboard \
         loop {without:.3} s, ratio {:.2} (median of 5)",
        with_rules / without
    );
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if args.first().map(String::as_str) == Some("options") {
        let depth = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10);
        options_overhead(depth);
        return;
    }
    let depth: u32 = args.first().and_then(|s| s.parse().ok()).unwrap_or(11);
    let threads: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let runs: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let r = RuleSet::default();
    let b = Position::start(&r).board;
    let expected = reference(depth).expect("reference count (data/perft/perft_start_position.tsv)");
    let opt = PerftOptions {
        convention: Convention::Oeis,
        threads,
        hash_mb: 256,
    };
    let med = median(runs, expected, "perft", || perft_with(&b, &r, depth, opt));
    println!(
        "perft({depth}) threads {threads}: {expected} leaves, median {med:.3} s of {runs}, \
         {:.3e} leaves/s",
        expected as f64 / med
    );
}
