//! Exact and WLD endgame solving against third-party suites: FFO #1-#19
//! (Edax `problem/`), a sample of Edax's "hard" 20-empties set, and FFO
//! #40-#59 (`#[ignore]`, long).

use crate::util::read_data;
use annex::engine::Engine;
use annex::position::ObfLine;
use annex::search::{Limits, SolveMode};
use std::time::Instant;

fn suite(rel: &str) -> Vec<ObfLine> {
    read_data(rel)
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#') && !l.starts_with('%'))
        .map(|l| {
            l.parse()
                .unwrap_or_else(|e| panic!("bad OBF line {l}: {e}"))
        })
        .collect()
}

fn engine(threads: usize) -> Engine {
    let (tx, _rx) = crossbeam_channel::unbounded();
    // The receiver is dropped: events are discarded, search_sync returns the result.
    let mut e = Engine::new(tx);
    e.set_option("Hash", "32").unwrap();
    e.set_option("Threads", &threads.to_string()).unwrap();
    e
}

/// Solves each line exactly: the score must equal the listed best score and
/// the move must be one of the listed best moves.
fn solve_lines(lines: &[(usize, ObfLine)], threads: usize) {
    let mut e = engine(threads);
    for (i, l) in lines {
        e.new_game();
        let t = Instant::now();
        let limits = Limits {
            solve: Some(SolveMode::Exact),
            ..Limits::default()
        };
        let r = e.search_sync(l.position, limits);
        let want = l.best_score().unwrap();
        eprintln!(
            "#{i} empties {} best {} score {} want {want} nodes {} {:.2}s",
            l.position.board.empties(),
            r.best,
            r.score,
            r.nodes,
            t.elapsed().as_secs_f64()
        );
        assert!(r.exact, "#{i}: not exact");
        assert_eq!(r.score, want, "#{i}: wrong score");
        assert!(
            l.best_moves().contains(&r.best),
            "#{i}: {} not among {:?}",
            r.best,
            l.best_moves()
        );
    }
}

#[test]
fn ffo_1_19_exact() {
    let lines: Vec<_> = suite("endgame/ffo/fforum-1-19.obf")
        .into_iter()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .collect();
    assert_eq!(lines.len(), 19);
    solve_lines(&lines, 1);
}
