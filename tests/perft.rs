//! Perft counts from the start position against the reference file.

use crate::util::read_data;
use annex::perft::{Convention, perft};
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
    check(12, 1);
}

#[test]
fn start_position_two_threads() {
    check(12, 2);
}

#[test]
#[ignore = "deep (about a minute per convention on 2 cores): \
            cargo test --release -- --ignored perft_deep"]
fn perft_deep() {
    check(14, 2);
}

/// Runs the real `annex` binary; returns (exit success, stdout, stderr).
fn annex(args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_annex"))
        .args(args)
        .output()
        .expect("run annex");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The leaf count at the start of the last line of `annex perft …`.
fn cli_count(args: &[&str]) -> u64 {
    let mut all = vec!["perft"];
    all.extend_from_slice(args);
    let (ok, out, err) = annex(&all);
    assert!(ok, "annex {all:?} failed: {err}");
    let last = out.lines().last().unwrap_or_default();
    last.split_whitespace()
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("no count in last line {last:?}"))
}

#[test]
fn cli_perft_counts() {
    let rows = reference();
    let want = |depth: u32, col: usize| rows[depth as usize].1[col].unwrap();
    assert_eq!(rows[10].0, 10);
    // Defaults: oeis convention, start position.
    assert_eq!(cli_count(&["6"]), 8200);
    assert_eq!(cli_count(&["0"]), 1);
    assert_eq!(cli_count(&["10", "--threads", "2"]), want(10, 1));
    assert_eq!(cli_count(&["10", "--convention", "carry"]), want(10, 0));
    assert_eq!(cli_count(&["10", "--convention", "NOPASS"]), want(10, 2));
    assert_eq!(
        cli_count(&["10", "--convention", "oeis", "--hash", "8"]),
        want(10, 1)
    );
    // The start position as a board string, and after a move: the four
    // first moves are symmetric, so each has a quarter of perft(7).
    let start = Position::start(&RuleSet::default()).to_string();
    assert_eq!(cli_count(&["5", "--board", &start]), 1396);
    assert_eq!(cli_count(&["6", "--moves", "f5"]), 55092 / 4);
    assert_eq!(
        cli_count(&["6", "--board", &start, "--moves", "F5"]),
        55092 / 4
    );
    // Divide: one line per move, then the total.
    let (ok, out, _) = annex(&["perft", "3", "--divide"]);
    assert!(ok);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[..4], ["d3 14", "c4 14", "f5 14", "e6 14"]);
    assert!(lines[4].starts_with("56 "), "{out}");
    assert_eq!(lines.len(), 5);
}

#[test]
fn cli_perft_rule_options_match_reference() {
    use crate::reference::RefGame;
    use annex::rules::{Flips, Start};
    for s in Start::ALL {
        for f in Flips::ALL {
            let g = RefGame::new(*s, *f == Flips::OneLine);
            let want = g.perft(5, Convention::Oeis);
            let got = cli_count(&["5", "--start", s.name(), "--flips", f.name()]);
            assert_eq!(got, want, "--start {s} --flips {f}");
        }
    }
    // A pass at the root: X (b1) has no move; O (a1) has c1, which ends
    // the game at ply 2 (X has no disc left).
    let board = "OX".to_string() + &"-".repeat(62) + " X";
    for (depth, oeis, carry, nopass) in [(1, 1, 1, 1), (2, 1, 1, 1), (3, 0, 1, 1)] {
        let d = depth.to_string();
        assert_eq!(cli_count(&[&d, "--board", &board]), oeis);
        let c = cli_count(&[&d, "--board", &board, "--convention", "carry"]);
        assert_eq!(c, carry);
        let n = cli_count(&[&d, "--board", &board, "--convention", "nopass"]);
        assert_eq!(n, nopass);
    }
    let (ok, out, _) = annex(&["perft", "2", "--divide", "--board", &board]);
    assert!(ok && out.starts_with("pass 1\n"), "{out}");
    // A finished game: a leaf only at depth 0 under oeis.
    let over = "X".repeat(64) + " O";
    assert_eq!(cli_count(&["0", "--board", &over]), 1);
    assert_eq!(cli_count(&["3", "--board", &over]), 0);
    assert_eq!(
        cli_count(&["3", "--board", &over, "--convention", "carry"]),
        1
    );
}

#[test]
fn cli_perft_bad_arguments() {
    let start = Position::start(&RuleSet::default()).to_string();
    let bad_board = start.replacen('-', "?", 1);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["x"], "'x'"),
        (vec!["-1"], "-1"),
        (vec!["5", "--convention", "sideways"], "'sideways'"),
        (vec!["5", "--start", "round"], "'round'"),
        (vec!["5", "--flips", "none"], "'none'"),
        (vec!["5", "--tie", "first"], "'first'"),
        (vec!["5", "--threads", "two"], "'two'"),
        (vec!["5", "--board", "XO"], "2 squares"),
        (vec!["5", "--board", &bad_board], "'?'"),
        (vec!["5", "--moves", "f5f5"], "'f5'"),
        (vec!["5", "--moves", "f5zz"], "'zz'"),
        (vec!["5", "--bogus"], "--bogus"),
    ];
    for (args, shown) in cases {
        let mut all = vec!["perft"];
        all.extend(args.iter().copied());
        let (ok, out, err) = annex(&all);
        assert!(!ok, "{all:?} succeeded");
        assert!(out.is_empty(), "{all:?} wrote to stdout: {out}");
        assert!(!err.contains("panicked"), "{all:?} panicked: {err}");
        assert!(err.contains(shown), "{all:?}: {err}");
        let error_lines = err.lines().filter(|l| l.contains("error")).count();
        assert_eq!(error_lines, 1, "{all:?}: {err}");
    }
}
