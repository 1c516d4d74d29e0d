//! Tests of the exact solver (`endgame.rs`): work-saving settings and
//! flags change the work, never the values.

use super::super::tt::Table;
use super::super::{Config, Job, final_value};
use super::*;
use crate::position::Position;
use crate::rules::RuleSet;

/// A position of a random game with `empties` empty squares (or the
/// game's end, if it ends first).
fn random_position(rng: &mut crate::rng::Rng, empties: u32) -> Board {
    let mut b = Position::start(&RuleSet::default()).board;
    while b.empties() > empties {
        match super::super::random_step(rng, &b) {
            Some(next) => b = next,
            None => break,
        }
    }
    b
}

/// A worker of `job` whose root's side to move wins a tie (tie sign 1,
/// White under `tie second`), so that drawn lines are worth half a disc.
fn tie_worker(job: &Job) -> Worker<'_> {
    let mut w = Worker::new(job);
    w.tie = 1;
    w
}

/// Positions of 24 random games (seed `seed`) at 12-15 empties, those
/// with a move and at least 12 empties.
fn test_positions(seed: u64) -> Vec<Board> {
    let mut rng = crate::rng::Rng::new(seed);
    (0..24u32)
        .map(|i| random_position(&mut rng, 12 + i % 4))
        .filter(|b| b.legal_moves() != 0 && b.empties() >= 12)
        .collect()
}

/// An expected all-node (`end_all_margin`) lists every move once in
/// its cost order and computes no values for it; searched as one, a
/// node decides each null window as it does otherwise: the flag changes
/// the work, never the result. Positions of random games, 12-15
/// empties, each with its own fresh table.
#[test]
fn expected_all_nodes_change_work_not_values() {
    let mut differed = 0;
    for b in test_positions(0xa11_0de5) {
        let legal = b.legal_moves();
        let job = Job::for_test(Config::default(), None);
        let mut w = tie_worker(&job);
        let fl = legal_flips(&b, legal);
        let cost = w.end_moves(&b, legal, 64, Order::Cost, &fl);
        let valued = w.end_moves(&b, legal, 64, Order::Value(0), &fl);
        let listed = |m: &EndMoves| m.sq[..m.len].iter().fold(0u64, |a, &s| a | 1 << s);
        assert_eq!(
            (cost.len, listed(&cost)),
            (legal.count_ones() as usize, legal)
        );
        assert_eq!(listed(&valued), legal);
        assert!(cost.guess[..cost.len].iter().all(|&g| g == -INF));
        assert!(valued.guess[..valued.len].iter().all(|&g| g > -INF));

        let mut pv = Vec::new();
        let exact = w.pvs_end(&b, -INF, INF, &mut pv);
        for alpha in [exact - DISC, exact, exact + DISC] {
            let mut nodes = [0u64; 2];
            let mut decided = [false; 2];
            for (k, all) in [false, true].into_iter().enumerate() {
                let job = Job::for_test(Config::default(), None);
                let mut w = tie_worker(&job);
                w.expect_all = all;
                let v = w.nws_end(&b, alpha);
                assert!(!w.expect_all, "the search takes the flag");
                assert!(if v > alpha { v <= exact } else { v >= exact });
                decided[k] = v > alpha;
                nodes[k] = w.total + w.local;
            }
            assert_eq!(decided, [exact > alpha; 2], "alpha {alpha}, exact {exact}");
            differed += usize::from(nodes[0] != nodes[1]);
        }
    }
    assert!(differed > 0, "the flag never changed the search");
}

/// The exact value of `b` with `cfg` (a table of 8 MiB of its own),
/// whether null windows just around it fail high (the table kept across
/// the windows), and the nodes of all of it.
fn values_and_work(cfg: &Config, b: &Board) -> (i32, Vec<bool>, u64) {
    let mut job = Job::for_test(cfg.clone(), None);
    job.tt = std::sync::Arc::new(Table::new(4));
    let mut w = tie_worker(&job);
    let exact = w.pvs_end(b, -INF, INF, &mut Vec::new());
    let decided = [exact - DISC, exact - 1, exact, exact + DISC]
        .into_iter()
        .map(|alpha| w.nws_end(b, alpha) > alpha)
        .collect();
    (exact, decided, w.total + w.local)
}

/// Ordering between ETC's prefetches and probes changes no value, and
/// up to 11 empties (where the order has no side effects: no
/// evaluation, no killers) not even the tree; from 12 it may.
#[test]
fn early_order_changes_no_value() {
    let configs = [0, 11, 64].map(|m| Config {
        etc_order_max_empties: m,
        ..Config::default()
    });
    let mut rng = crate::rng::Rng::new(0x0e7c_0de5);
    let positions = (0..8u32).map(|i| random_position(&mut rng, 15 + i % 4));
    let mut searched = 0;
    for b in positions.filter(|b| b.legal_moves() != 0 && b.empties() >= 15) {
        let found: Vec<_> = configs.iter().map(|c| values_and_work(c, &b)).collect();
        assert_eq!((found[1].0, &found[1].1), (found[0].0, &found[0].1));
        assert_eq!((found[2].0, &found[2].1), (found[0].0, &found[0].1));
        assert_eq!(found[1].2, found[0].2, "the same tree up to 11 empties");
        searched += 1;
    }
    assert!(searched >= 4, "{searched}");
}

/// The table's settings change the work, never the values: exact
/// values and null-window decisions with the defaults (keys of few
/// empties in a near region, here 1 MiB of a table of 4, those of a few
/// more in a middle region of 2 MiB after it; the table probed one empty
/// below it) agree with those without either region and without the
/// probe, and with the table from fewer empties.
/// Positions of random games, 18-20 empties, large
/// enough to fill the region (one table per position and setting,
/// kept across windows).
#[test]
fn table_settings_change_work_not_values() {
    let base = Config {
        tt_near_mb: 1,
        tt_mid_mb: 2,
        ..Config::default()
    };
    assert!(base.tt_near_empties > 0);
    assert!(base.tt_mid_empties > base.tt_near_empties);
    let configs = [
        base.clone(),
        Config {
            tt_near_empties: 0,
            ..base.clone()
        },
        Config {
            tt_mid_empties: 0,
            ..base.clone()
        },
        // The table from `tt_min_empties` (8) instead of
        // `tt_deep_min_empties` (11, the test job's root being the start
        // position).
        Config {
            tt_deep_root_empties: 64,
            ..base.clone()
        },
    ];
    let mut differed = [0; 4];
    let mut rng = crate::rng::Rng::new(0x4ea2_ba5e);
    let positions = (0..8u32).map(|i| random_position(&mut rng, 18 + i % 3));
    for b in positions.filter(|b| b.legal_moves() != 0 && b.empties() >= 18) {
        let found: Vec<_> = configs.iter().map(|c| values_and_work(c, &b)).collect();
        for (k, f) in found.iter().enumerate() {
            assert_eq!((f.0, &f.1), (found[0].0, &found[0].1), "setting {k}");
            differed[k] += usize::from(f.2 != found[0].2);
        }
        assert_eq!(found[0].1, [true, true, false, false]);
    }
    assert!(differed[1..].iter().all(|&d| d > 0), "{differed:?}");
}

/// A worker takes the deep roots' table threshold from
/// `tt_deep_root_empties` empties at its job's root, the other one below.
#[test]
fn deep_roots_start_the_table_later() {
    let cfg = Config::default();
    assert!(cfg.tt_deep_min_empties > cfg.tt_min_empties);
    let mut rng = crate::rng::Rng::new(0xdee9_7007);
    let deep = cfg.tt_deep_root_empties;
    for empties in [12, deep - 1, deep, deep + 8, 40] {
        let mut job = Job::for_test(cfg.clone(), None);
        job.position.board = random_position(&mut rng, empties);
        // Both sides of the threshold are checked: no game ended early.
        assert_eq!(job.position.board.empties(), empties);
        let want = if empties >= deep {
            cfg.tt_deep_min_empties
        } else {
            cfg.tt_min_empties
        };
        assert_eq!(Worker::new(&job).cfg.tt_min_empties, want, "{empties}");
    }
}

/// Moves whose children the table already proves to fail low are not
/// searched again (`etc`), and the node's fail-soft value stays a true
/// bound. Each child of a random position (12-15 empties) is solved
/// exactly into the table first, all of them or every other one; the
/// node's null window is then decided against its exact value, which
/// a fresh table computes. With every child stored, no child is
/// visited: one node.
#[test]
fn children_proven_to_fail_are_not_searched_again() {
    let mut checked = 0;
    for b in test_positions(0xe7c_5c1f) {
        let legal = b.legal_moves();
        let exact = {
            let job = Job::for_test(Config::default(), None);
            tie_worker(&job).pvs_end(&b, -INF, INF, &mut Vec::new())
        };
        let fl = legal_flips(&b, legal);
        for every in [1, 2] {
            for alpha in [exact - 2 * DISC, exact - 1, exact, exact + DISC] {
                let job = Job::for_test(Config::default(), None);
                let mut w = tie_worker(&job);
                let mut l = legal;
                let mut k = 0;
                while l != 0 {
                    let s = l.trailing_zeros() as usize;
                    l &= l - 1;
                    if k % every == 0 {
                        let child = b.play_flips(s, fl[s]);
                        w.as_opponent(|w| w.pvs_end(&child, -INF, INF, &mut Vec::new()));
                    }
                    k += 1;
                }
                let before = w.total + w.local;
                let v = w.nws_end(&b, alpha);
                assert!(if v > alpha { v <= exact } else { v >= exact });
                assert_eq!(v > alpha, exact > alpha, "alpha {alpha}, exact {exact}");
                if every == 1 {
                    assert_eq!(w.total + w.local - before, 1, "children searched again");
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 40, "too few positions: {checked}");
}

/// The table-free search's cache (`shallow_cache`) changes the work, never
/// the values: exact values and null-window decisions with it (the
/// default, a tiny one whose slots are taken over all the time, one up to
/// 9 empties, one without the cutoffs on children's slots) agree with
/// those without it, and the cutoffs change the work. The cache is kept
/// across the windows and across both tie signs, which must not share
/// entries.
/// Positions of random games, 12-15 empties, a few of them draws (where
/// the tie sign decides the value).
#[test]
fn shallow_cache_changes_work_not_values() {
    let base = Config::default();
    assert!(base.shallow_cache_min_empties <= base.shallow_cache_max_empties);
    let configs = [
        Config {
            shallow_cache_max_empties: 0,
            ..base.clone()
        },
        base.clone(),
        Config {
            shallow_cache_kb: 1,
            ..base.clone()
        },
        Config {
            shallow_cache_max_empties: 9,
            ..base.clone()
        },
        Config {
            shallow_cache_etc: false,
            ..base.clone()
        },
    ];
    let values = |cfg: &Config, b: &Board| {
        let mut job = Job::for_test(cfg.clone(), None);
        job.tt = std::sync::Arc::new(Table::new(8));
        let mut w = Worker::new(&job);
        let mut found = Vec::new();
        for tie in [1, -1] {
            w.tie = tie;
            let exact = w.pvs_end(b, -INF, INF, &mut Vec::new());
            found.push(exact);
            for alpha in [exact - DISC, exact - 1, exact, exact + DISC] {
                found.push(i32::from(w.nws_end(b, alpha) > alpha));
            }
        }
        (found, w.total + w.local)
    };
    let mut rng = crate::rng::Rng::new(0x5ca1_ab1e);
    let positions = (0..40u32).map(|i| random_position(&mut rng, 12 + i % 4));
    let (mut searched, mut draws, mut differed, mut etc_changed) = (0, 0, [0; 5], 0);
    for b in positions.filter(|b| b.legal_moves() != 0 && b.empties() >= 12) {
        let found: Vec<_> = configs.iter().map(|c| values(c, &b)).collect();
        draws += usize::from(found[0].0[0].abs() == DISC / 2);
        for (k, f) in found.iter().enumerate() {
            assert_eq!(f.0, found[0].0, "setting {k}");
            differed[k] += usize::from(f.1 != found[0].1);
        }
        etc_changed += usize::from(found[4].1 != found[1].1);
        searched += 1;
    }
    assert!(
        searched >= 20 && draws >= 2,
        "{searched} positions, {draws} draws"
    );
    assert!(differed[1..].iter().all(|&d| d > 0), "{differed:?}");
    assert!(
        etc_changed > 0,
        "the cutoffs on children's slots never changed the work"
    );
}

/// Drawn positions of 6-8 empties, searched by `shallow` in one worker
/// with both tie signs and windows on both sides of each tie's value:
/// the cache's entries of one tie sign never answer for the other (a
/// draw is worth +1/2 disc to one side and -1/2 to the other).
#[test]
fn shallow_cache_keeps_tie_signs_apart() {
    let off = Config {
        shallow_cache_max_empties: 0,
        ..Config::default()
    };
    let mut rng = crate::rng::Rng::new(0x7e_d1a3);
    let mut draws = 0;
    for i in 0..400u32 {
        let b = random_position(&mut rng, 6 + i % 3);
        if b.legal_moves() == 0 || b.empties() < 6 {
            continue;
        }
        let fresh = |tie, alpha| {
            let job = Job::for_test(off.clone(), None);
            let mut w = Worker::new(&job);
            w.tie = tie;
            w.shallow(&b, alpha)
        };
        if fresh(1, 0) != DISC / 2 {
            continue;
        }
        draws += 1;
        let job = Job::for_test(Config::default(), None);
        let mut w = Worker::new(&job);
        for tie in [1, -1, 1] {
            w.tie = tie;
            for alpha in [-DISC / 2 - 1, -DISC / 2, DISC / 2 - 1, DISC / 2] {
                let v = w.shallow(&b, alpha);
                assert_eq!(
                    v > alpha,
                    fresh(tie, alpha) > alpha,
                    "tie {tie}, alpha {alpha}"
                );
            }
        }
    }
    assert!(draws >= 5, "{draws}");
}

/// `b` with the opponent's discs cut down to those that the move on `m`
/// turns (the others become the mover's), so that `m` takes them all:
/// the runs that `m` turns still end on the mover's discs, and no other
/// run from `m` is left.
fn with_wipeout(b: &Board, m: usize) -> Board {
    let f = crate::board::flips(b.player, b.opponent, m);
    Board::new(b.player | (b.opponent & !f), f)
}

/// Plain negamax (no window, no table, no ordering): the exact value in
/// the solver's units.
fn negamax(b: &Board, scoring: crate::rules::Scoring, tie: i32) -> i32 {
    let legal = b.legal_moves();
    if legal == 0 {
        if b.pass().legal_moves() == 0 {
            return final_value(b, scoring, tie);
        }
        return -negamax(&b.pass(), scoring, -tie);
    }
    let mut best = -INF;
    let mut l = legal;
    while l != 0 {
        let s = l.trailing_zeros() as usize;
        l &= l - 1;
        best = best.max(-negamax(&b.play_square(s), scoring, -tie));
    }
    best
}

/// A move that turns every opponent disc ends the game: the solver takes
/// it at once with its exact value (64 discs, or the mover's discs when
/// empties are not counted). From 6 empties the node is decided before
/// any child is searched (one node); at 5 (parity order) the value is
/// the same. One ply before (the other side to move, the threat on the
/// board), the values are a plain negamax's.
#[test]
fn wipeout_moves_decide_at_once() {
    use crate::rules::Scoring;
    let mut rng = crate::rng::Rng::new(0x0d15_c5e7);
    let (mut tried, mut before) = (0, 0);
    for i in 0..300u32 {
        let n = 5 + i % 12;
        let b = random_position(&mut rng, n);
        let legal = b.legal_moves();
        if legal == 0 || b.empties() != n {
            continue;
        }
        let w = with_wipeout(&b, legal.trailing_zeros() as usize);
        for scoring in [Scoring::Wof, Scoring::Count] {
            let job = Job::for_test(Config::default(), None);
            let mut wk = Worker::new(&job);
            wk.tie = 1;
            wk.scoring = scoring;
            let m = legal.trailing_zeros() as usize;
            let value = -final_value(&w.play_square(m), scoring, -1);
            if scoring == Scoring::Wof {
                assert_eq!(value, WIPEOUT);
            }
            for alpha in [-INF + 1, -DISC, 0, value - DISC, value - 1] {
                let before_nodes = wk.total + wk.local;
                let v = wk.nws_end(&w, alpha);
                assert!(
                    v > alpha && v <= value,
                    "{w:?} alpha {alpha}: {v} vs {value}"
                );
                if n >= 6 {
                    // 0 where the window alone decides (below -64 discs).
                    assert!(wk.total + wk.local - before_nodes <= 1, "{w:?}");
                }
            }
            let mut pv = Vec::new();
            let exact = wk.pvs_end(&w, -INF, INF, &mut pv);
            assert!(exact >= value, "{w:?}");
            if scoring == Scoring::Wof {
                assert_eq!((exact, pv.len()), (WIPEOUT, 1), "{w:?}");
                let s = pv[0].to_square().expect("a square").index();
                assert_eq!(w.play_square(s).player, 0, "{w:?}: {s} takes every disc");
            }
            tried += 1;
            let threat = w.pass();
            if threat.empties() <= 9 && threat.legal_moves() != 0 {
                let want = negamax(&threat, scoring, 1);
                let mut pv = Vec::new();
                assert_eq!(wk.pvs_end(&threat, -INF, INF, &mut pv), want);
                for alpha in [want - DISC, want - 1, want] {
                    assert_eq!(wk.nws_end(&threat, alpha) > alpha, want > alpha);
                }
                before += 1;
            }
        }
    }
    assert!(tried >= 400 && before >= 100, "{tried} {before}");
}

/// A split point's tasks search with the tie sign of the split node, not
/// the root's: on two threads, `nws_split` decides null windows on both
/// sides of a tie's two values as the serial move loop does, at nodes
/// whose tie sign is the root's and at nodes whose sign is the other
/// (an odd ply below the root), the drawing moves among them.
#[test]
fn split_tasks_keep_the_tie_sign() {
    let mut cfg = Config::default();
    cfg.apply("split_cut_max=0").unwrap();
    let pool = std::sync::Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap(),
    );
    let mut job = Job::for_test(cfg.clone(), Some(pool));
    job.rules.tie = crate::rules::Tie::Second;
    job.position.side = crate::board::Color::White;
    let serial_job = Job::for_test(cfg, None);
    let mut rng = crate::rng::Rng::new(0x71e_5ec0);
    let (mut searched, mut decided_by_tie) = (0, 0);
    for i in 0..200u32 {
        let b = random_position(&mut rng, 9 + i % 3);
        let legal = b.legal_moves();
        if legal.count_ones() < 2 || b.empties() < 9 {
            continue;
        }
        let fl = legal_flips(&b, legal);
        for tie in [1, -1] {
            let decide = |job: &Job, alpha: i32, split: bool| {
                let mut w = Worker::new(job);
                w.tie = tie;
                let moves = w.end_moves(&b, legal, 64, Order::Cost, &fl);
                let (v, _) = if split {
                    w.nws_split(&b, alpha, &moves)
                } else {
                    w.nws_moves(&b, alpha, &moves)
                };
                v > alpha
            };
            for alpha in [-DISC / 2 - 1, -DISC / 2, 0, DISC / 2 - 1, DISC / 2] {
                let want = decide(&serial_job, alpha, false);
                assert_eq!(decide(&job, alpha, true), want, "tie {tie}, alpha {alpha}");
                searched += 1;
            }
            // Nodes whose value is a tie, where its sign decides the
            // windows between its two values.
            let mut w = Worker::new(&serial_job);
            w.tie = tie;
            let v = w.pvs_end(&b, -INF, INF, &mut Vec::new());
            decided_by_tie += usize::from(v.abs() == DISC / 2 && tie == 1);
        }
    }
    assert!(
        searched >= 500 && decided_by_tie >= 2,
        "{searched} windows, {decided_by_tie} tied nodes"
    );
}
