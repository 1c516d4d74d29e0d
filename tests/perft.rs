//! Perft counts from the start position against the reference file.

use crate::util::read_data;
use annex::perft::{perft, Convention};
use annex::position::Position;
use annex::rules::RuleSet;

/// (depth, carry, oeis, nopass) rows of the reference file.
fn reference() -> Vec<(u32, [Option<u64>; 3])> {
    read_data("perft/perft_start_position.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("depth"))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let v = |i: usize| f.get(i).and_then(|s| s.trim().parse().ok());
            (f[0].parse().unwrap(), [v(1), v(2), v(3)])
        })
        .collect()
}

fn check(max_depth: u32, threads: usize) {
    let r = RuleSet::default();
    let b = Position::start(&r).board;
    let rows = reference();
    assert!(rows.len() >= 14, "reference file too short");
    for (depth, counts) in rows.into_iter().filter(|x| x.0 <= max_depth) {
        for (conv, want) in [Convention::Carry, Convention::Oeis, Convention::NoPass]
            .into_iter()
            .zip(counts)
        {
            if let Some(want) = want {
                assert_eq!(
                    perft(&b, &r, depth, conv, threads),
                    want,
                    "depth {depth} {conv}"
                );
            }
        }
    }
}

#[test]
fn start_position_all_conventions() {
    check(11, 1);
}

#[test]
fn start_position_two_threads() {
    check(11, 2);
}

#[test]
#[ignore = "deep: cargo test --release -- --ignored perft_deep"]
fn perft_deep() {
    check(14, 2);
}
