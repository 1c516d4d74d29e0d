//! Exact and WLD endgame solving against third-party suites: FFO #1-#39
//! (Edax `problem/`), a sample of Edax's "hard" 20-empties set, and FFO
//! #40-#59 (`#[ignore]`, long).

use crate::util::read_data;
use annex::engine::{Engine, EngineEvent};
use annex::position::ObfLine;
use annex::search::{Limits, SolveMode};
use std::time::Instant;

/// The positions of an OBF suite of the repository's `data/`.
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
    solve_lines_with(&mut engine(threads), lines);
}

fn solve_lines_with(e: &mut Engine, lines: &[(usize, ObfLine)]) {
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

/// The same with two threads (split points): results must not change.
#[test]
fn ffo_1_19_exact_two_threads() {
    let lines: Vec<_> = suite("endgame/ffo/fforum-1-19.obf")
        .into_iter()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .collect();
    solve_lines(&lines, 2);
}

/// Four threads with split points from 8 empties and parallel PV nodes
/// (the root's too) from 8 empties and midgame depth 2 (the many-threads
/// setting, `split_pv_wide_*`, lowered to four threads), probable cuts
/// searched in order at midgame split points, with selective
/// passes before the solve: the best move (a later move searched at a
/// raised alpha may tie the best value as a bound) and the exact score of
/// FFO #1-#29 must not change (three times: the threads race).
#[test]
fn ffo_1_29_exact_parallel_pv_nodes() {
    let mut e = engine(4);
    let mut c = e.config().clone();
    c.apply(
        "split_min_empties=8,split_pv_min_empties=8,split_pv_wide_threads=4,split_pv_wide_depth=2,\
         split_min_depth=2,sel_min_empties=14,presolve_depth=12",
    )
    .unwrap();
    e.set_config(c);
    let mut lines: Vec<_> = suite("endgame/ffo/fforum-1-19.obf")
        .into_iter()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .collect();
    let more = suite("endgame/ffo/fforum-20-39.obf");
    lines.extend(
        more.into_iter()
            .take(10)
            .enumerate()
            .map(|(i, l)| (i + 20, l)),
    );
    for _ in 0..3 {
        solve_lines_with(&mut e, &lines);
    }
}

/// Every 23rd position of Edax's hard 20-empties set (12 positions).
#[test]
fn edax_hard_20_sample() {
    let all = suite("endgame/edax_hard/hard-20.obf");
    assert!(all.len() >= 270);
    let lines: Vec<_> = all
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % 23 == 0)
        .map(|(i, l)| (i + 1, l))
        .collect();
    solve_lines(&lines, 1);
}

/// Selective passes with a reckless ProbCut (0.3, 0.6 and 0.9 sigma, from 10
/// empties, before every solve) must not change exact results: their
/// table entries are never taken as solved. Their iterations are reported
/// with a selectivity and not as exact.
#[test]
fn selective_passes_keep_solves_exact() {
    let (tx, rx) = crossbeam_channel::unbounded();
    let mut e = Engine::new(tx);
    e.set_option("Hash", "32").unwrap();
    let mut c = e.config().clone();
    c.apply("sel_min_empties=1,sel_t1=30,sel_t2=60,probcut_min_empties=10,solve_aspiration=1")
        .unwrap();
    e.set_config(c);
    let lines: Vec<_> = suite("endgame/ffo/fforum-1-19.obf")
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % 3 == 0)
        .map(|(i, l)| (i + 1, l))
        .collect();
    solve_lines_with(&mut e, &lines);
    let infos: Vec<_> = rx
        .try_iter()
        .filter_map(|ev| match ev {
            EngineEvent::Info(i) => Some(i),
            _ => None,
        })
        .collect();
    let sel: Vec<_> = infos.iter().filter(|i| i.selectivity.is_some()).collect();
    assert!(
        sel.len() >= 2 * lines.len(),
        "{} selective iterations",
        sel.len()
    );
    assert!(sel.iter().all(|i| !i.exact && i.selectivity.unwrap() < 100));
}

/// WLD solves agree with the listed exact scores (sign), FFO #1-#19.
#[test]
fn ffo_1_19_wld() {
    let mut e = engine(1);
    for (i, l) in suite("endgame/ffo/fforum-1-19.obf").iter().enumerate() {
        e.new_game();
        let r = e.search_sync(
            l.position,
            Limits {
                solve: Some(SolveMode::Wld),
                ..Limits::default()
            },
        );
        let want = l.best_score().unwrap();
        assert!(r.wld);
        assert_eq!(r.score.signum(), want.signum(), "#{}", i + 1);
        let s = l.scores.iter().find(|x| x.0 == r.best).map(|x| x.1);
        assert_eq!(
            s.map(i32::signum),
            Some(want.signum()),
            "#{} move {}",
            i + 1,
            r.best
        );
    }
}

/// FFO #20-#39 exact, 2 threads (about 10 s here). #39 is a 64-disc
/// wipeout: before the solver decided windows beyond the largest value
/// without searching, its proof that nothing beats +64 took 7.3e9 nodes.
#[test]
fn ffo_20_39_exact() {
    let lines: Vec<_> = suite("endgame/ffo/fforum-20-39.obf")
        .into_iter()
        .enumerate()
        .map(|(i, l)| (i + 20, l))
        .collect();
    solve_lines(&lines, 2);
}

/// FFO #40-#59 exact (very long: `cargo test --release -- --ignored ffo_40_59`).
#[test]
#[ignore = "very long: hours on a 2-core machine; `annex solve` reports times"]
fn ffo_40_59_exact() {
    let lines: Vec<_> = suite("endgame/ffo/fforum-40-59.obf")
        .into_iter()
        .enumerate()
        .map(|(i, l)| (i + 40, l))
        .collect();
    solve_lines(&lines, 2);
}
