//! Search behaviour through the engine facade: legal moves under every rule
//! option, passes and finished games, reproducibility, stop, ponder,
//! multi-PV, and WLD against exact results.

use annex::board::Board;
use annex::engine::{Engine, EngineEvent};
use annex::moves::{Move, play_unchecked};
use annex::position::Position;
use annex::rng::Rng;
use annex::rules::RuleSet;
use annex::search::{Limits, SolveMode};
use crossbeam_channel::Receiver;
use std::time::{Duration, Instant};

fn engine() -> (Engine, Receiver<EngineEvent>) {
    let (tx, rx) = crossbeam_channel::unbounded();
    let mut e = Engine::new(tx);
    e.set_option("Hash", "8").unwrap();
    (e, rx)
}

fn depth(d: u32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

/// Random positions of a game under `rules`, with `plies` plies played.
fn random_position(rules: &RuleSet, plies: usize, rng: &mut Rng) -> Position {
    let mut p = Position::start(rules);
    for _ in 0..plies {
        let l = p.legal_moves(rules);
        if l.is_empty() {
            if p.is_game_over(rules) {
                break;
            }
            p = p.play_unchecked(rules, Move::PASS);
            continue;
        }
        let m = l.as_slice()[rng.index(l.len())];
        p = p.play_unchecked(rules, m);
    }
    p
}

/// Every rule option: the search returns a legal move (or a pass exactly
/// when there is none), at midgame depths, in the placement plies of the
/// free start, and solving the end of the game.
#[test]
fn legal_moves_under_every_rule_option() {
    let opts: [(&str, &[&str]); 4] = [
        ("start", &["diagonal", "parallel", "free"]),
        ("flips", &["all", "one-line"]),
        ("tie", &["draw", "second"]),
        ("scoring", &["wof", "count"]),
    ];
    let mut rng = Rng::new(0x1234_5678_9abc_def1);
    for (name, values) in opts {
        for v in values.iter() {
            let (mut e, _rx) = engine();
            e.set_option(name, v).unwrap();
            let rules = e.rules();
            for plies in [0, 1, 2, 3, 4, 5, 20, 44, 50, 56, 60] {
                let pos = random_position(&rules, plies, &mut rng);
                let legal = pos.legal_moves(&rules);
                let r = e.search_sync(pos, depth(4));
                if legal.is_empty() {
                    assert_eq!(r.best, Move::PASS, "{name} {v} ply {plies}");
                } else {
                    assert!(
                        legal.contains(r.best),
                        "{name} {v}: {} illegal in {pos}",
                        r.best
                    );
                }
            }
        }
    }
}

/// The final score of a finished game, and a pass when the side to move
/// has no move.
#[test]
fn passes_and_finished_games() {
    let (mut e, _rx) = engine();
    let rules = e.rules();
    // X to move has no move; O has one (b1 X, a1 O: O plays c1).
    let pass_pos = Position::from_colors(2, 1, annex::board::Color::Black);
    assert!(pass_pos.must_pass(&rules));
    let r = e.search_sync(pass_pos, depth(5));
    assert_eq!(r.best, Move::PASS);
    // Game over: X a1 b1 c1, O h8, 60 empty: X wins 62 under wof.
    let over = Position::from_colors(7, 1 << 63, annex::board::Color::White);
    assert!(over.is_game_over(&rules));
    let r = e.search_sync(over, depth(5));
    assert_eq!(r.best, Move::PASS);
    assert!(r.exact);
    assert_eq!(r.score, -62);
    e.set_option("Scoring", "count").unwrap();
    let r = e.search_sync(over, depth(5));
    assert_eq!(r.score, -2);
}

/// Exact score by brute-force minimax (independent of the search), for
/// small endgames under any rule set; tie=second handled as the search
/// documents (tie = ±half a disc for the side to move).
fn brute(b: &Board, rules: &RuleSet, o_to_move: bool) -> i32 {
    let list = annex::moves::MoveList::generate(b, rules);
    if list.is_empty() {
        let passed = b.pass();
        if annex::moves::MoveList::generate(&passed, rules).is_empty() {
            let d = b.final_score(rules.scoring) * 2;
            if d == 0 && rules.tie == annex::rules::Tie::Second {
                return if o_to_move { 1 } else { -1 };
            }
            return d;
        }
        return -brute(&passed, rules, !o_to_move);
    }
    list.iter()
        .map(|m| -brute(&play_unchecked(b, rules, m), rules, !o_to_move))
        .max()
        .unwrap()
}

/// Exact solves of 9-10 empties agree with brute force under every
/// flips/tie/scoring combination, and WLD agrees in sign.
#[test]
fn exact_and_wld_match_brute_force() {
    let mut rng = Rng::new(77);
    for flips in ["all", "one-line"] {
        for tie in ["draw", "second"] {
            for scoring in ["wof", "count"] {
                let (mut e, _rx) = engine();
                e.set_option("flips", flips).unwrap();
                e.set_option("tie", tie).unwrap();
                e.set_option("scoring", scoring).unwrap();
                let rules = e.rules();
                for _ in 0..4 {
                    let pos = random_position(&rules, 51, &mut rng);
                    if pos.legal_moves(&rules).is_empty() {
                        continue;
                    }
                    let o = pos.side == annex::board::Color::White;
                    let want = brute(&pos.board, &rules, o);
                    let exact = Limits {
                        solve: Some(SolveMode::Exact),
                        ..Limits::default()
                    };
                    let r = e.search_sync(pos, exact);
                    assert!(r.exact);
                    let got = 2 * r.score
                        + match r.tie {
                            Some(true) => 1,
                            Some(false) => -1,
                            None => 0,
                        };
                    assert_eq!(got, want, "{flips} {tie} {scoring} {pos}");
                    let child = pos.play(&rules, r.best).unwrap().1;
                    assert_eq!(
                        -brute(&child.board, &rules, !o),
                        want,
                        "best move {}",
                        r.best
                    );
                    e.new_game();
                    let wld = Limits {
                        solve: Some(SolveMode::Wld),
                        ..Limits::default()
                    };
                    let w = e.search_sync(pos, wld);
                    assert!(w.wld);
                    let sign = 2 * w.score
                        + match w.tie {
                            Some(true) => 1,
                            Some(false) => -1,
                            None => 0,
                        };
                    assert_eq!(
                        sign.signum(),
                        want.signum(),
                        "WLD {flips} {tie} {scoring} {pos}"
                    );
                }
            }
        }
    }
}

/// `go nodes` on one thread: same move and node count twice in a row and
/// after a new game (Stockfish's reprosearch).
#[test]
fn node_limited_search_is_reproducible() {
    let rules = RuleSet::default();
    let positions = [
        Position::from_transcript("f5d6c3d3c4f4", &rules).unwrap(),
        Position::from_transcript("f5f6e6f4e3c5c4e7", &rules).unwrap(),
    ];
    let run = |e: &mut Engine| -> Vec<(Move, u64)> {
        let mut out = Vec::new();
        for n in [5_000u64, 20_000, 60_000] {
            for p in positions {
                let r = e.search_sync(
                    p,
                    Limits {
                        nodes: Some(n),
                        ..Limits::default()
                    },
                );
                out.push((r.best, r.nodes));
            }
        }
        out
    };
    let (mut e, _rx) = engine();
    e.new_game();
    let a = run(&mut e);
    e.new_game();
    let b = run(&mut e);
    assert_eq!(a, b);
    let (mut e2, _rx2) = engine();
    assert_eq!(run(&mut e2), a);
}

/// `stop` ends a deep search promptly, with a legal move; infinite and
/// ponder searches hold their BestMove until stop / ponderhit.
#[test]
fn stop_and_hold() {
    let (mut e, rx) = engine();
    let rules = e.rules();
    let pos = Position::from_transcript("f5d6c3d3c4f4f6f3e6e7", &rules).unwrap();
    e.go(
        pos,
        Limits {
            infinite: true,
            ..Limits::default()
        },
    );
    // The search is under way once it reports.
    rx.iter()
        .find(|ev| matches!(ev, EngineEvent::Info(_)))
        .expect("an Info event");
    assert!(e.is_searching());
    assert!(
        !rx.try_iter()
            .any(|ev| matches!(ev, EngineEvent::BestMove(_)))
    );
    let t = Instant::now();
    e.stop_handle().stop();
    let ev = rx
        .iter()
        .find(|ev| matches!(ev, EngineEvent::BestMove(_)))
        .unwrap();
    let waited = t.elapsed();
    assert!(waited < Duration::from_secs(2), "stop took {waited:?}");
    if let EngineEvent::BestMove(b) = ev {
        assert!(pos.legal_moves(&rules).contains(b.best));
    }
    e.wait();
    assert!(!e.is_searching());
    // Ponder: a shallow search finishes but holds until ponderhit.
    e.go(
        pos,
        Limits {
            ponder: true,
            depth: Some(2),
            ..Limits::default()
        },
    );
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        !rx.try_iter()
            .any(|ev| matches!(ev, EngineEvent::BestMove(_)))
    );
    e.ponderhit();
    let got = rx.recv_timeout(Duration::from_secs(5));
    let mut seen = matches!(got, Ok(EngineEvent::BestMove(_)));
    while !seen {
        match rx.recv_timeout(Duration::from_secs(5)) {
            Ok(EngineEvent::BestMove(_)) => seen = true,
            Ok(_) => {}
            Err(_) => panic!("no BestMove after ponderhit"),
        }
    }
    e.wait();
    // Options cannot change during a search (an infinite one runs until
    // stopped, so the refusal is certain), and can again after it.
    let before = e.hash_bytes();
    e.go(
        pos,
        Limits {
            infinite: true,
            ..Limits::default()
        },
    );
    assert!(e.is_searching());
    assert!(e.set_option("Hash", "2").is_err());
    assert_eq!(e.hash_bytes(), before);
    e.stop_handle().stop();
    e.wait();
    e.set_option("Hash", "2").unwrap();
    assert_eq!(e.hash_bytes(), 2 << 20);
    // A movetime is obeyed.
    e.go(
        pos,
        Limits {
            movetime: Some(Duration::from_millis(200)),
            ..Limits::default()
        },
    );
    let t = Instant::now();
    e.wait();
    assert!(t.elapsed() < Duration::from_secs(3));
}

/// Multi-PV: lines best first, each an exact score of its first move.
#[test]
fn multipv_lines() {
    let (mut e, _rx) = engine();
    let rules = e.rules();
    let pos = Position::from_transcript("f5d6c3d3c4f4f6f3e6e7", &rules).unwrap();
    let r = e.search_sync(
        pos,
        Limits {
            depth: Some(5),
            multipv: 3,
            ..Limits::default()
        },
    );
    assert_eq!(r.lines.len(), 3);
    assert!(r.lines.windows(2).all(|w| w[0].score >= w[1].score));
    let firsts: Vec<Move> = r.lines.iter().map(|l| l.pv[0]).collect();
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2]);
    assert_eq!(r.best, firsts[0]);
}

/// Two threads (split points in the midgame and endgame): legal moves, and
/// the same exact score as one thread.
#[test]
fn two_threads_agree() {
    let (mut e1, _r1) = engine();
    let (mut e2, _r2) = engine();
    e2.set_option("Threads", "2").unwrap();
    let rules = e1.rules();
    let mut rng = Rng::new(4242);
    for plies in [20, 30, 44, 46, 48] {
        let pos = random_position(&rules, plies, &mut rng);
        let legal = pos.legal_moves(&rules);
        if legal.is_empty() {
            continue;
        }
        let lim = if plies >= 44 {
            Limits {
                solve: Some(SolveMode::Exact),
                ..Limits::default()
            }
        } else {
            depth(7)
        };
        let a = e1.search_sync(pos, lim.clone());
        let b = e2.search_sync(pos, lim);
        assert!(legal.contains(a.best) && legal.contains(b.best));
        if plies >= 44 {
            assert!(a.exact && b.exact);
            assert_eq!(a.score, b.score, "{pos}");
        }
    }
}

/// Rapid go/stop cycles, a go that replaces a running search, and stops
/// with no search running: exactly one BestMove per go, never a hang.
#[test]
fn one_best_move_per_go() {
    let (mut e, rx) = engine();
    let rules = e.rules();
    let pos = Position::from_transcript("f5d6c3d3c4f4f6f3e6e7", &rules).unwrap();
    e.stop();
    let inf = Limits {
        infinite: true,
        ..Limits::default()
    };
    for i in 0..20 {
        e.go(pos, inf.clone());
        if i % 3 == 0 {
            std::thread::sleep(Duration::from_millis(5));
        }
        if i % 2 == 0 {
            e.stop();
        } else {
            // A new go stops the running one first.
            e.go(pos, depth(2));
        }
        e.wait();
    }
    let n = rx
        .try_iter()
        .filter(|ev| matches!(ev, EngineEvent::BestMove(_)))
        .count();
    assert_eq!(n, 30);
    assert!(!e.is_searching());
    e.set_option("Threads", "2").unwrap();
    e.set_option("Hash", "1").unwrap();
    assert!(e.set_option("Hash", "0").is_err());
    assert!(e.set_option("Nonsense", "1").is_err());
    assert!(e.set_option("Tie", "sometimes").is_err());
    assert_eq!(e.rules(), rules);
    let r = e.search_sync(pos, depth(3));
    assert!(pos.legal_moves(&rules).contains(r.best));
}

/// `stop` ends a deep exact solve (FFO #38, 24 empties) promptly, with
/// two threads (split points must all unwind).
#[test]
fn stop_ends_an_exact_solve() {
    let (mut e, rx) = engine();
    e.set_option("Threads", "2").unwrap();
    let rules = e.rules();
    let pos: Position = "--OOOO----OOOO---XOXXOOXOOXOOOOX-OOOOOXXXOOXXXXX--X-X----------- X"
        .parse()
        .unwrap();
    assert_eq!(pos.board.empties(), 24);
    e.go(
        pos,
        Limits {
            solve: Some(SolveMode::Exact),
            ..Limits::default()
        },
    );
    // The solve is under way once it reports (its midgame iterations).
    rx.iter()
        .find(|ev| matches!(ev, EngineEvent::Info(_)))
        .expect("an Info event");
    assert!(e.is_searching(), "a 24-empties solve takes far longer");
    let t = Instant::now();
    e.stop();
    e.wait();
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "stop took {:?}",
        t.elapsed()
    );
    let best = rx.try_iter().find_map(|ev| match ev {
        EngineEvent::BestMove(b) => Some(b),
        _ => None,
    });
    let best = best.expect("a BestMove");
    assert!(pos.legal_moves(&rules).contains(best.best));
}

/// Late-move reductions (`mid_lmr_*`, on by default, set aggressively
/// here) shrink a midgame tree but never a search that reaches the end of
/// the game: under one-line flips (no endgame solver, the midgame search
/// goes to the end) a depth covering the empties still gives the
/// brute-force value; and turning them off gives a larger tree.
#[test]
fn late_move_reductions_keep_solved_values() {
    let lmr = "mid_lmr_min_depth=2,mid_lmr_after=1,mid_lmr_r=2";
    let mut rng = Rng::new(4242);
    let (mut e, _rx) = engine();
    e.set_option("flips", "one-line").unwrap();
    let mut c = e.config().clone();
    c.apply(lmr).unwrap();
    e.set_config(c);
    let rules = e.rules();
    let mut checked = 0;
    while checked < 6 {
        let pos = random_position(&rules, 52, &mut rng);
        if pos.legal_moves(&rules).is_empty() {
            continue;
        }
        let o = pos.side == annex::board::Color::White;
        let want = brute(&pos.board, &rules, o);
        e.new_game();
        let r = e.search_sync(pos, depth(pos.board.empties()));
        assert_eq!(2 * r.score, want, "{pos}");
        checked += 1;
    }
    // And they do reduce: a midgame search of the same depth takes fewer
    // nodes with them than without.
    let rules = RuleSet::default();
    let pos = Position::from_transcript("f5d6c3d3c4f4f6f3e6e7", &rules).unwrap();
    let nodes = |spec: &str| {
        let (mut e, _rx) = engine();
        let mut c = e.config().clone();
        c.apply(spec).unwrap();
        e.set_config(c);
        e.search_sync(pos, depth(10)).nodes
    };
    let (on, off) = (nodes(lmr), nodes("mid_lmr_min_depth=0"));
    assert!(on < off, "{on} nodes with reductions, {off} without");
}
