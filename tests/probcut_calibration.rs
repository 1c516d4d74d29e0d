//! Calibration of the endgame solver's ProbCut `#[ignore]`d:
//! positions of PlayOK 2023 online games (never trained on, not in the
//! FFO or hard-20 suites; in the full data sets, `$ANNEX_DATA` or
//! `../shared/data` beside the checkout, not in `data/`) at `n` empties are solved exactly by the engine
//! and searched to the midgame depths `d` ProbCut uses (the parity of
//! `n`); the error `exact - search(d)` is fitted as `bias = b0 + bn*n +
//! bd*d` (least squares over the positions) and `sigma = s0 + sn*n + sd*d`
//! (least squares over the standard deviations of the `(n, d)` groups,
//! weighted by their size). The fitted constants are printed on stdout:
//!
//! ```sh
//! cargo test --release probcut_calibration -- --ignored --nocapture
//! ANNEX_CALIB_PER_N=8 ANNEX_CALIB_MAX_N=20 cargo test --release probcut_calibration -- --ignored --nocapture
//! ```
//!
//! `ANNEX_CALIB_PER_N` (positions per number of empties up to 22, default
//! 24), `ANNEX_CALIB_PER_N_DEEP` (the same from 23 empties, default 6),
//! `ANNEX_CALIB_MIN_N` / `ANNEX_CALIB_MAX_N` (default 12 / 26),
//! `ANNEX_CALIB_MAX_D` (deepest search, default 10). One thread; about
//! 20 minutes with the defaults on the 2-core machine. The exact values at
//! 12-13 empties are checked against the independent plain alpha-beta
//! solver of `tests/util.rs`.

use crate::util::full_data;
use annex::board::{Board, Color};
use annex::engine::{Engine, EngineEvent};
use annex::position::Position;
use annex::search::{Limits, SolveMode};
use annex::train::data::{read_wthor, replay};
use std::time::Instant;

fn env_u32(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One calibration position: its empties, exact value and the midgame
/// values by depth (index `d`, discs; `None` where not searched).
struct Sample {
    n: u32,
    exact: i32,
    mid: Vec<Option<i32>>,
}

/// Positions with `n` empties (`per_n(n)` of them) and a legal move for
/// the side to move, one per game, from games spread evenly through the
/// file.
fn positions(
    path: &std::path::Path,
    min_n: u32,
    max_n: u32,
    per_n: impl Fn(u32) -> u32 + Copy,
) -> Vec<Board> {
    let games = read_wthor(&std::fs::read(path).unwrap()).unwrap();
    let most = (min_n..=max_n).map(&per_n).max().unwrap_or(0);
    let slots: Vec<u32> = (0..most)
        .flat_map(|k| (min_n..=max_n).filter(move |&n| k < per_n(n)))
        .collect();
    let step = games.len() / slots.len().max(1);
    assert!(step >= 1, "too few games for {} positions", slots.len());
    slots
        .iter()
        .enumerate()
        .filter_map(|(slot, &n)| {
            (slot * step..(slot + 1) * step).find_map(|g| {
                replay(&games[g])?
                    .into_iter()
                    .map(|p| p.board)
                    .find(|b| b.empties() == n && b.legal_moves() != 0)
            })
        })
        .collect()
}

/// The engine's exact value of `b` and its midgame values at depths
/// `1..=max_d` (iterative deepening from an empty table).
fn label(
    engine: &mut Engine,
    rx: &crossbeam_channel::Receiver<EngineEvent>,
    b: &Board,
    max_d: u32,
) -> Sample {
    let pos = Position {
        board: *b,
        side: Color::Black,
    };
    let n = b.empties();
    engine.new_game();
    let exact = engine
        .search_sync(
            pos,
            Limits {
                solve: Some(SolveMode::Exact),
                ..Limits::default()
            },
        )
        .score;
    let max_d = max_d.min(n - 4);
    engine.new_game();
    while rx.try_recv().is_ok() {}
    engine.search_sync(
        pos,
        Limits {
            depth: Some(max_d),
            ..Limits::default()
        },
    );
    let mut mid = vec![None; max_d as usize + 1];
    for ev in rx.try_iter() {
        if let EngineEvent::Info(i) = ev
            && i.depth <= max_d
        {
            mid[i.depth as usize] = Some(i.score);
        }
    }
    Sample { n, exact, mid }
}

/// Solves the normal equations of weighted least squares `y ~ x . c` for
/// three coefficients.
fn lsq3(rows: &[([f64; 3], f64, f64)]) -> [f64; 3] {
    let mut a = [[0.0f64; 4]; 3];
    for (x, y, w) in rows {
        for i in 0..3 {
            for j in 0..3 {
                a[i][j] += w * x[i] * x[j];
            }
            a[i][3] += w * x[i] * y;
        }
    }
    // Gauss-Jordan with partial pivoting.
    for c in 0..3 {
        let p = (c..3)
            .max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))
            .unwrap();
        a.swap(c, p);
        assert!(a[c][c].abs() > 1e-12, "singular fit");
        for r in 0..3 {
            if r != c {
                let f = a[r][c] / a[c][c];
                let pivot = a[c];
                for (x, p) in a[r].iter_mut().zip(pivot).skip(c) {
                    *x -= f * p;
                }
            }
        }
    }
    [a[0][3] / a[0][0], a[1][3] / a[1][1], a[2][3] / a[2][2]]
}

/// Fits and prints bias and sigma over the groups `(n, d)` with `d` of
/// the parity of `n` (those ProbCut searches); returns `(bias, sigma)`.
fn fit(samples: &[Sample]) -> ([f64; 3], [f64; 3]) {
    let mut bias_rows = Vec::new();
    let mut groups: Vec<(u32, u32, Vec<f64>)> = Vec::new();
    for s in samples {
        for (d, v) in s.mid.iter().enumerate() {
            let Some(v) = v else { continue };
            let d = d as u32;
            if d == 0 || d % 2 != s.n % 2 {
                continue;
            }
            let e = f64::from(s.exact - v);
            bias_rows.push(([1.0, f64::from(s.n), f64::from(d)], e, 1.0));
            match groups.iter_mut().find(|g| g.0 == s.n && g.1 == d) {
                Some(g) => g.2.push(e),
                None => groups.push((s.n, d, vec![e])),
            }
        }
    }
    groups.sort_by_key(|g| (g.0, g.1));
    let bias = lsq3(&bias_rows);
    let mut sigma_rows = Vec::new();
    println!("   n  d count   mean     sd   fit-mean fit-sd");
    for (n, d, es) in &groups {
        let k = es.len() as f64;
        let mean = es.iter().sum::<f64>() / k;
        let sd = (es.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (k - 1.0).max(1.0)).sqrt();
        sigma_rows.push(([1.0, f64::from(*n), f64::from(*d)], sd, k));
        println!("{n:4} {d:2} {:5} {mean:6.2} {sd:6.2}", es.len());
    }
    let sigma = lsq3(&sigma_rows);
    println!(
        "bias  = {:.3} + {:.4} n + {:.4} d (discs)",
        bias[0], bias[1], bias[2]
    );
    println!(
        "sigma = {:.3} + {:.4} n + {:.4} d (discs)",
        sigma[0], sigma[1], sigma[2]
    );
    for (n, d, es) in &groups {
        let at = |c: &[f64; 3]| c[0] + c[1] * f64::from(*n) + c[2] * f64::from(*d);
        let (b, s) = (at(&bias), at(&sigma));
        let out = es.iter().filter(|e| (*e - b).abs() > 2.0 * s).count();
        println!(
            "fit n {n:2} d {d:2}: bias {b:5.2} sigma {s:5.2}, beyond 2 sigma {out}/{}",
            es.len()
        );
    }
    (bias, sigma)
}

#[test]
fn lsq3_recovers_a_plane() {
    let rows: Vec<([f64; 3], f64, f64)> = (0..20)
        .map(|i| {
            let (n, d) = (f64::from(10 + i % 7), f64::from(i % 5));
            (
                [1.0, n, d],
                1.5 + 0.25 * n - 0.5 * d,
                1.0 + f64::from(i % 3),
            )
        })
        .collect();
    let c = lsq3(&rows);
    for (got, want) in c.iter().zip([1.5, 0.25, -0.5]) {
        assert!((got - want).abs() < 1e-9, "{c:?}");
    }
}

#[test]
#[ignore = "about 20 minutes: cargo test --release probcut_calibration -- --ignored --nocapture"]
fn probcut_calibration() {
    // The PlayOK games are in the full data sets (ANNEX_DATA), not in data/.
    let Some(games) = full_data(
        "probcut_calibration::probcut_calibration",
        "online_games/playok/PLAYOK_2023.wtb",
    ) else {
        return;
    };
    let per_n = env_u32("ANNEX_CALIB_PER_N", 24);
    let per_n_deep = env_u32("ANNEX_CALIB_PER_N_DEEP", 6);
    let min_n = env_u32("ANNEX_CALIB_MIN_N", 12).max(10);
    let max_n = env_u32("ANNEX_CALIB_MAX_N", 26).max(min_n);
    let max_d = env_u32("ANNEX_CALIB_MAX_D", 10);
    let (tx, rx) = crossbeam_channel::unbounded();
    let mut engine = Engine::new(tx);
    engine.set_option("Hash", "64").unwrap();
    engine.set_option("OwnBook", "false").unwrap();
    let boards = positions(&games, min_n, max_n, |n| {
        if n <= 22 { per_n } else { per_n_deep }
    });
    let t = Instant::now();
    let mut samples = Vec::new();
    for (i, b) in boards.iter().enumerate() {
        let s = label(&mut engine, &rx, b, max_d);
        if s.n <= 13 {
            let plain = crate::util::plain_solve(b, -65, 65);
            assert_eq!(s.exact, plain, "engine and plain solver disagree on {b:?}");
        }
        eprintln!(
            "{}/{} n {} exact {} {:.0}s",
            i + 1,
            boards.len(),
            s.n,
            s.exact,
            t.elapsed().as_secs_f64()
        );
        samples.push(s);
    }
    println!(
        "{} positions (PlayOK 2023), {min_n}-{max_n} empties",
        samples.len()
    );
    let (_, sigma) = fit(&samples);
    assert!(sigma[0] + sigma[1] * f64::from(min_n) > 0.0);
}
