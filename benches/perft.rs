//! Perft benchmark: counts from the start position, checked against the
//! reference file before any rate is reported.
//!
//! `cargo bench --bench perft [-- DEPTH [THREADS]]` (default depth 11).

use annex::perft::{perft_with, Convention, PerftOptions};
use annex::position::Position;
use annex::rules::RuleSet;
use std::time::Instant;

fn reference(depth: u32) -> Option<u64> {
    let dir = std::env::var("ANNEX_DATA").unwrap_or_else(|_| "../shared/data".into());
    let text = std::fs::read_to_string(format!("{dir}/perft/perft_start_position.tsv")).ok()?;
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|f| f.first().and_then(|d| d.parse::<u32>().ok()) == Some(depth))
        .and_then(|f| f.get(2)?.parse().ok())
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let depth: u32 = args.first().and_then(|s| s.parse().ok()).unwrap_or(11);
    let threads: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let r = RuleSet::default();
    let b = Position::start(&r).board;
    let expected = reference(depth).expect("reference count (set ANNEX_DATA to shared/data)");
    let mut times = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        let n = perft_with(
            &b,
            &r,
            depth,
            PerftOptions {
                convention: Convention::Oeis,
                threads,
                hash_mb: 256,
            },
        );
        let s = t.elapsed().as_secs_f64();
        assert_eq!(n, expected, "perft({depth}) count is wrong");
        times.push(s);
    }
    times.sort_by(|a, b| a.total_cmp(b));
    let med = times[1];
    println!(
        "perft({depth}) threads {threads}: {expected} leaves, median {med:.3} s of 3, {:.3e} leaves/s",
        expected as f64 / med
    );
}
