//! The UCI-style protocol and its UGI dialect, driven over pipes
//! (`protocol.md`, section names in the test names).

use crate::util::{Annex, fixture};
use annex::board::Color;
use annex::moves::{Move, MoveList};
use annex::position::Position;
use annex::rules::RuleSet;
use std::time::{Duration, Instant};

pub use annex::rng::Rng;

/// A random game of `plies` moves from the start (stops at the end);
/// passes are written.
pub fn random_game(rng: &mut Rng, rules: &RuleSet, plies: usize) -> (Position, Vec<Move>) {
    let mut pos = Position::start(rules);
    let mut moves = Vec::new();
    for _ in 0..plies {
        if pos.is_game_over(rules) {
            break;
        }
        let list = pos.legal_moves(rules);
        let m = if list.is_empty() {
            Move::PASS
        } else {
            list.as_slice()[rng.index(list.len())]
        };
        pos = pos.play(rules, m).expect("legal").1;
        moves.push(m);
    }
    (pos, moves)
}

pub fn moves_text(moves: &[Move]) -> String {
    moves
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The move of a `bestmove` line.
fn best_of(line: &str) -> &str {
    line.split_whitespace().nth(1).unwrap_or("")
}

/// Asserts that `text` is a legal answer at `pos`: a legal move, `pass`
/// exactly when the side must pass, `none` exactly at the end.
pub fn assert_legal_answer(pos: &Position, rules: &RuleSet, text: &str) {
    let list = MoveList::generate(&pos.board, rules);
    if pos.is_game_over(rules) {
        assert!(
            text == "none" || text == "pass",
            "game over at {pos}: {text}"
        );
        return;
    }
    if list.is_empty() {
        assert!(
            text.eq_ignore_ascii_case("pass"),
            "must pass at {pos}: {text}"
        );
        return;
    }
    let m: Move = text
        .parse()
        .unwrap_or_else(|e| panic!("'{text}' is no move at {pos}: {e}"));
    assert!(list.contains(m), "illegal {text} at {pos}");
}

/// Exact minimax value for the side to move (final disc difference by the
/// rules' scoring; tie=second decides a 0 as ±0 with a flag): slow, for a
/// handful of empties only. Returns (discs, tie winner is the side to move).
fn solve(pos: &Position, rules: &RuleSet) -> (i32, Option<bool>) {
    // Order: a win by more discs > ... ; under tie=second a tie won counts
    // as between 0 and +1.
    fn value(pos: &Position, rules: &RuleSet) -> i64 {
        if pos.is_game_over(rules) {
            let d = pos.final_score_for(rules.scoring, pos.side) as i64;
            if d == 0 && rules.tie == annex::rules::Tie::Second {
                return if pos.side == Color::White { 1 } else { -1 };
            }
            return d * 2;
        }
        let list = pos.legal_moves(rules);
        if list.is_empty() {
            return -value(&pos.play_unchecked(rules, Move::PASS), rules);
        }
        list.iter()
            .map(|m| -value(&pos.play_unchecked(rules, m), rules))
            .max()
            .expect("moves")
    }
    let v = value(pos, rules);
    match v {
        1 => (0, Some(true)),
        -1 => (0, Some(false)),
        v => (v as i32 / 2, None),
    }
}

fn handshake(a: &mut Annex) -> Vec<String> {
    a.send("uci");
    let lines = a.until_prefix("uciok");
    a.send("isready");
    a.expect_prefix("readyok");
    lines
}

#[test]
fn uci_lists_options_and_uciok() {
    let mut a = Annex::spawn(&[]);
    let lines = handshake(&mut a);
    assert!(lines[0].starts_with("id name Annex"), "{lines:?}");
    for opt in [
        "Threads", "Hash", "MultiPV", "Ponder", "Start", "Flips", "Tie", "Scoring",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("option name {opt} type"))),
            "option {opt} missing: {lines:?}"
        );
    }
    assert!(
        lines
            .iter()
            .any(|l| l == "option name Tie type combo default draw var draw var second")
    );
}

#[test]
fn position_and_d_match_the_rules_core() {
    let r = RuleSet::default();
    let mut rng = Rng::new(7);
    let mut a = Annex::spawn(&[]);
    handshake(&mut a);
    for plies in [0, 1, 9, 30, 55, 70] {
        let (pos, moves) = random_game(&mut rng, &r, plies);
        a.send(&format!("position startpos moves {}", moves_text(&moves)));
        a.send("d");
        let d = a.until_prefix("rules ");
        let board = d
            .iter()
            .find(|l| l.starts_with("board "))
            .expect("board line");
        assert_eq!(board, &format!("board {pos}"));
        let legal = d
            .iter()
            .find(|l| l.starts_with("legal"))
            .expect("legal line");
        let want: Vec<String> = pos.legal_moves(&r).iter().map(|m| m.to_string()).collect();
        assert_eq!(
            legal.trim_end(),
            format!("legal {}", want.join(" ")).trim_end()
        );
    }
    // The board form, the FEN form and concatenated moves agree.
    let (pos, moves) = random_game(&mut rng, &r, 12);
    let text: String = moves.iter().map(|m| m.to_string()).collect();
    a.send(&format!("position board {} moves", Position::start(&r)));
    a.send(&format!("position startpos moves {text}"));
    a.send("d");
    let d = a.until_prefix("rules ");
    assert!(d.contains(&format!("board {pos}")), "{d:?}");
}

#[test]
fn go_depth_answers_legal_moves_and_pass_exactly_when_forced() {
    let r = RuleSet::default();
    let mut rng = Rng::new(99);
    let mut a = Annex::spawn(&[]);
    handshake(&mut a);
    let mut passes = 0;
    for game in 0..6 {
        let (_, moves) = random_game(&mut rng, &r, 80);
        for k in (game % 3..moves.len()).step_by(5) {
            let mut pos = Position::start(&r);
            for m in &moves[..k] {
                pos = pos.play_unchecked(&r, *m);
            }
            a.send(&format!(
                "position startpos moves {}",
                moves_text(&moves[..k])
            ));
            a.send("go depth 2");
            let l = a.expect_prefix("bestmove");
            assert_legal_answer(&pos, &r, best_of(&l));
            passes += usize::from(best_of(&l) == "pass");
        }
    }
    // A position where X must pass (O on a1, X on b1): pass.
    a.send(&format!("position board OX{} X", "-".repeat(62)));
    a.send("go depth 3");
    assert_eq!(a.expect_prefix("bestmove"), "bestmove pass");
    // After the pass O has c1, and then the game is over.
    a.send(&format!(
        "position board OX{} X moves pass c1",
        "-".repeat(62)
    ));
    a.send("go depth 3");
    assert_eq!(a.expect_prefix("bestmove"), "bestmove none");
    let _ = passes;
}

#[test]
fn perft_extra_matches_reference_counts() {
    let data = fixture("perft/perft_start_position.tsv");
    let mut a = Annex::spawn(&[]);
    handshake(&mut a);
    let mut checked = 0;
    for row in data
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("depth"))
    {
        let f: Vec<&str> = row.split('\t').collect();
        let depth: u32 = f[0].trim().parse().unwrap();
        let Some(oeis) = f.get(2).and_then(|s| s.trim().parse::<u64>().ok()) else {
            continue;
        };
        if !(1..=9).contains(&depth) {
            continue;
        }
        a.send(&format!("perft {depth}"));
        let l = a.expect_prefix("perft depth");
        assert!(
            l.starts_with(&format!("perft depth {depth} leaves {oeis} ")),
            "{l} (want {oeis})"
        );
        checked += 1;
    }
    assert!(checked >= 8);
    // divide lines sum to the total.
    a.send("perft 4 divide");
    let lines = a.until_prefix("perft depth");
    let sum: u64 = lines[..lines.len() - 1]
        .iter()
        .map(|l| l.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(lines.len() - 1, 4);
    assert!(lines.last().unwrap().contains(&format!("leaves {sum} ")));
}

#[test]
fn isready_during_search_keeps_searching() {
    let mut a = Annex::spawn(&[]);
    handshake(&mut a);
    a.send("position startpos");
    a.send("go infinite");
    // The search is under way once it reports.
    a.expect_prefix("info depth");
    a.send("isready");
    let got = a.until_prefix("readyok");
    assert!(!got.iter().any(|l| l.starts_with("bestmove")), "{got:?}");
    // Still searching: nothing but info lines until stop.
    a.expect_silence_except_info(Duration::from_millis(300));
    a.send("stop");
    let l = a.expect_prefix("bestmove");
    assert_legal_answer(
        &Position::start(&RuleSet::default()),
        &RuleSet::default(),
        best_of(&l),
    );
}

/// `stop`, measured from the moment it is sent to the `bestmove`, during a
/// search that would run for hours. The bound only detects a stop that is
/// not acted on at once (it queues behind the search); it is no speed test.
#[test]
fn stop_latency_deep_search() {
    let mut a = Annex::spawn(&[]);
    handshake(&mut a);
    a.send("setoption name Threads value 2");
    a.send("position startpos moves f5 d6 c3 d3 c4");
    a.send("go depth 60");
    // Deep in the search: its depth-8 iteration is done.
    a.expect_prefix("info depth 8 ");
    let t = Instant::now();
    a.send("stop");
    a.expect_prefix("bestmove");
    let lat = t.elapsed();
    eprintln!("stop latency: {lat:?}");
    assert!(lat < Duration::from_secs(3), "stop took {lat:?}");
    // Stop queued behind other commands acts at once too.
    a.send("go infinite");
    a.expect_prefix("info depth");
    let t = Instant::now();
    a.send("isready\nstop");
    a.expect_prefix("bestmove");
    assert!(t.elapsed() < Duration::from_secs(3));
}

#[test]
fn ponder_then_ponderhit_or_stop() {
    let r = RuleSet::default();
    let mut a = Annex::spawn(&[]);
    handshake(&mut a);
    a.send("setoption name Ponder value true");
    a.send("position startpos moves f5 d6");
    a.send("go ponder btime 2000 wtime 2000");
    a.expect_silence_except_info(Duration::from_millis(300));
    a.send("ponderhit");
    let l = a.expect_prefix("bestmove");
    let pos = Position::from_transcript("f5d6", &r).unwrap();
    assert_legal_answer(&pos, &r, best_of(&l));
    a.send("go ponder depth 3");
    a.expect_prefix("info depth");
    a.send("stop");
    let l = a.expect_prefix("bestmove");
    assert_legal_answer(&pos, &r, best_of(&l));
    // A ponder move, when given, is legal after the best move.
    let w: Vec<&str> = l.split_whitespace().collect();
    if w.len() == 4 {
        assert_eq!(w[2], "ponder");
        let after = pos.play(&r, w[1].parse().unwrap()).unwrap().1;
        assert_legal_answer(&after, &r, w[3]);
    }
}

/// "Time management": a whole game against the clock as a GUI runs it.
/// Each side's clock loses the wall time from `go` to `bestmove` and gains
/// the increment; neither clock may run out.
#[test]
fn time_management_game_never_flags() {
    let r = RuleSet::default();
    let mut a = Annex::spawn(&[]);
    handshake(&mut a);
    let mut clock = [1500i64, 1500];
    let inc = 10;
    let mut pos = Position::start(&r);
    let mut moves: Vec<String> = Vec::new();
    let mut lowest = i64::MAX;
    while !pos.is_game_over(&r) {
        let side = usize::from(pos.side == Color::White);
        let t = Instant::now();
        a.send(&format!("position startpos moves {}", moves.join(" ")));
        a.send(&format!(
            "go btime {} wtime {} binc {inc} winc {inc}",
            clock[0], clock[1]
        ));
        let l = a.expect_prefix("bestmove");
        clock[side] -= t.elapsed().as_millis() as i64;
        lowest = lowest.min(clock[side]);
        if clock[side] <= 0 {
            a.fail(&format!("{} flagged: {clock:?}", pos.side));
        }
        clock[side] += inc;
        let m = best_of(&l).to_string();
        assert_legal_answer(&pos, &r, &m);
        pos = pos.play(&r, m.parse().unwrap()).unwrap().1;
        moves.push(m);
    }
    eprintln!("lowest clock left: {lowest} ms; at the end {clock:?}");
}

/// "go": searchmoves restricts the root; nodes and movetime end the search
/// on their own.
#[test]
fn go_searchmoves_nodes_movetime() {
    let r = RuleSet::default();
    let mut a = Annex::spawn(&[]);
    handshake(&mut a);
    a.send("position startpos moves f5 d6");
    a.send("go depth 4 searchmoves c7");
    assert_eq!(
        a.expect_prefix("bestmove").split_whitespace().nth(1),
        Some("c7")
    );
    a.send("go depth 3 searchmoves a1");
    assert!(a.expect_prefix("info string error").contains("'a1'"));
    let pos = Position::from_transcript("f5d6", &r).unwrap();
    for go in ["go nodes 5000", "go movetime 50"] {
        a.send(go);
        let l = a.expect_prefix("bestmove");
        assert_legal_answer(&pos, &r, best_of(&l));
    }
    // wld: a proven sign, marked `wld` (or `exact`), near the end.
    let mut rng = Rng::new(31);
    let (pos, moves) = loop {
        let (p, m) = random_game(&mut rng, &r, 50);
        if !p.is_game_over(&r) && !p.legal_moves(&r).is_empty() {
            break (p, m);
        }
    };
    a.send(&format!("position startpos moves {}", moves_text(&moves)));
    a.send("go wld");
    let lines = a.until_prefix("bestmove");
    assert_legal_answer(&pos, &r, best_of(lines.last().unwrap()));
    let last = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap();
    assert!(last.contains(" wld ") || last.contains(" exact "), "{last}");
}

#[test]
fn info_multipv_lines() {
    let mut a = Annex::spawn(&[]);
    handshake(&mut a);
    a.send("position startpos moves f5");
    a.send("go depth 3 multipv 3");
    let lines = a.until_prefix("bestmove");
    for k in 1..=3 {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info depth 3") && l.contains(&format!(" multipv {k} "))),
            "multipv {k}: {lines:?}"
        );
    }
    for l in lines.iter().filter(|l| l.starts_with("info depth")) {
        assert!(l.contains(" score disc ") && l.contains(" pv "), "{l}");
    }
}

/// Scores: discs for the side to move, exact when solved; compared with a
/// brute-force minimax in the test, under tie=second and both scorings.
#[test]
fn scores_exact_against_minimax_with_each_tie_and_scoring() {
    let mut rng = Rng::new(2024);
    let mut a = Annex::spawn(&[]);
    handshake(&mut a);
    for (tie, scoring) in [("draw", "wof"), ("second", "wof"), ("second", "count")] {
        a.send(&format!("setoption name Tie value {tie}"));
        a.send(&format!("setoption name Scoring value {scoring}"));
        let mut r = RuleSet::default();
        r.set("tie", tie).unwrap();
        r.set("scoring", scoring).unwrap();
        let mut found = 0;
        while found < 12 {
            let plies = 53 + rng.index(4);
            let (pos, moves) = random_game(&mut rng, &r, plies);
            if pos.is_game_over(&r) || pos.legal_moves(&r).is_empty() {
                continue;
            }
            a.send(&format!("position startpos moves {}", moves_text(&moves)));
            a.send("go solve");
            let lines = a.until_prefix("bestmove");
            let last = lines
                .iter()
                .rev()
                .find(|l| l.starts_with("info depth"))
                .unwrap_or_else(|| a.fail("no info line"));
            let w: Vec<&str> = last.split_whitespace().collect();
            let i = w.iter().position(|x| *x == "disc").unwrap();
            let score: i32 = w[i + 1].parse().unwrap();
            let (want, tie_win) = solve(&pos, &r);
            assert_eq!(score, want, "{pos} {tie} {scoring}: {last}");
            assert!(w.contains(&"exact"), "{last}");
            match tie_win {
                Some(true) => assert!(last.contains("tie win"), "{last}"),
                Some(false) => assert!(last.contains("tie loss"), "{last}"),
                None => assert!(!last.contains(" tie "), "{last}"),
            }
            found += 1;
        }
    }
}

#[test]
fn setoption_rule_options() {
    let mut a = Annex::spawn(&[]);
    handshake(&mut a);
    // Start parallel: the legal first moves are c3 d3 e3 f3.
    a.send("setoption name Start value parallel");
    a.send("position startpos");
    a.send("d");
    let d = a.until_prefix("rules");
    assert!(d.contains(&"legal c3 d3 e3 f3".to_string()), "{d:?}");
    a.send("go depth 2");
    let l = a.expect_prefix("bestmove");
    assert!(["c3", "d3", "e3", "f3"].contains(&best_of(&l)), "{l}");
    // Start free: four placements in the centre.
    a.send("setoption name Start value free");
    a.send("position startpos moves d4 e5 d5");
    a.send("go depth 1");
    assert_eq!(a.expect_prefix("bestmove"), "bestmove e4");
    a.send("setoption name Start value diagonal");
    // Flips one-line: d1 brackets d2 (south) and c1 (west).
    a.send("setoption name Flips value one-line");
    let mut r = RuleSet::default();
    r.set("flips", "one-line").unwrap();
    let board = format!("-XO-----{}{}{} X", "---O----", "---X----", "-".repeat(40));
    let board = board.as_str();
    a.send(&format!("position board {board}"));
    a.send("d");
    let d = a.until_prefix("rules");
    let pos: Position = board.parse().unwrap();
    let want: Vec<String> = pos.legal_moves(&r).iter().map(|m| m.to_string()).collect();
    assert!(
        d.contains(&format!("legal {}", want.join(" "))),
        "{d:?} vs {want:?}"
    );
    a.send("go depth 2");
    let l = a.expect_prefix("bestmove");
    assert_legal_answer(&pos, &r, best_of(&l));
    // An ambiguous square is refused with one error line, state unchanged.
    a.send(&format!("position board {board} moves d1"));
    let e = a.expect_prefix("info string error");
    assert!(e.contains("ambiguous"), "{e}");
    a.send("setoption name Flips value all");
    // Tie and Scoring: a finished game with equal discs.
    let drawn = format!("{}{} X", "X".repeat(32), "O".repeat(32));
    a.send(&format!("position board {drawn}"));
    a.send("ugi");
    a.until_prefix("ugiok");
    a.send("query result");
    assert_eq!(a.expect_prefix("response"), "response draw");
    a.send("setoption name Tie value second");
    a.send(&format!("position board {drawn}"));
    a.send("query result");
    assert_eq!(a.expect_prefix("response"), "response p2win");
    // Scoring: X 20, O 10, 34 empty, and neither side can move.
    let sparse = format!(
        "{}{}{}{}{} X",
        "X".repeat(20),
        "-".repeat(4 + 24),
        "OO",
        "-".repeat(6),
        "O".repeat(8)
    );
    let p: Position = sparse.parse().unwrap();
    assert!(p.is_game_over(&RuleSet::default()));
    a.send(&format!("position board {sparse}"));
    a.send("eval");
    assert_eq!(a.expect_prefix("eval"), "eval 44.00 final");
    a.send("setoption name Scoring value count");
    a.send(&format!("position board {sparse}"));
    a.send("eval");
    assert_eq!(a.expect_prefix("eval"), "eval 10.00 final");
    // A bad value: one error line, nothing changes.
    a.send("setoption name Tie value maybe");
    let e = a.expect_prefix("info string error");
    assert!(e.contains("'maybe'"), "{e}");
    a.send("isready");
    a.expect_prefix("readyok");
}

#[test]
fn bad_input_one_error_line_state_unchanged() {
    let r = RuleSet::default();
    let mut a = Annex::spawn(&[]);
    handshake(&mut a);
    a.send("position startpos moves f5 d6");
    for (bad, token) in [
        ("frobnicate", "'frobnicate'"),
        ("position startpos moves f5 a1", "'a1'"),
        ("position board XXXX X", "squares"),
        ("position fen 8/8/8/8 x", "8/8/8/8"),
        (
            "position board ---------------------------OX------XO--------------------------- Z",
            "'Z'",
        ),
        ("go depth deep", "'deep'"),
        ("go sideways", "'sideways'"),
        ("setoption name Hash value lots", "'lots'"),
        ("setoption name Colour value red", "Colour"),
        ("perft 99", "'99'"),
        ("query weather", "'weather'"),
    ] {
        a.send(bad);
        a.send("isready");
        let got = a.until_prefix("readyok");
        assert_eq!(got.len(), 2, "{bad}: {got:?}");
        assert!(
            got[0].starts_with("info string error: ") && got[0].contains(token),
            "{bad}: {got:?}"
        );
    }
    a.send("d");
    let d = a.until_prefix("rules");
    let pos = Position::from_transcript("f5d6", &r).unwrap();
    assert!(d.contains(&format!("board {pos}")), "{d:?}");
}

#[test]
fn ugi_session() {
    let r = RuleSet::default();
    let mut a = Annex::spawn(&[]);
    a.send("ugi");
    let lines = a.until_prefix("ugiok");
    assert!(lines[0].starts_with("id name"));
    a.send("isready");
    a.expect_prefix("readyok");
    a.send("uginewgame");
    a.send("position startpos");
    a.send("query p1turn");
    assert_eq!(a.expect_prefix("response"), "response true");
    a.send("query gameover");
    assert_eq!(a.expect_prefix("response"), "response false");
    // Play a whole game by the clock, checking every answer.
    let mut pos = Position::start(&r);
    let mut moves: Vec<String> = Vec::new();
    while !pos.is_game_over(&r) {
        a.send(&format!(
            "position fen 8/8/8/3ox3/3xo3/8/8/8 x moves {}",
            moves.join(" ")
        ));
        a.send("query p1turn");
        let turn = a.expect_prefix("response");
        assert_eq!(turn == "response true", pos.side == Color::Black);
        a.send("go p1time 1000 p2time 1000 p1inc 10 p2inc 10");
        let lines = a.until_prefix("bestmove");
        let l = lines.last().unwrap();
        // cutegames reads exactly two words.
        assert_eq!(l.split_whitespace().count(), 2, "{l}");
        for i in lines.iter().filter(|l| l.starts_with("info depth")) {
            assert!(i.contains(" score cp "), "{i}");
        }
        let m = best_of(l);
        assert_legal_answer(&pos, &r, m);
        pos = pos.play(&r, m.parse().unwrap()).unwrap().1;
        moves.push(m.to_string());
    }
    a.send(&format!("position startpos moves {}", moves.join(" ")));
    a.send("query gameover");
    assert_eq!(a.expect_prefix("response"), "response true");
    a.send("query result");
    let want = match pos.winner(&r) {
        Some(Color::Black) => "response p1win",
        Some(Color::White) => "response p2win",
        None => "response draw",
    };
    assert_eq!(a.expect_prefix("response"), want);
}

#[test]
fn end_of_input_finishes_a_finite_search() {
    let mut a = Annex::spawn(&[]);
    a.send("position startpos moves f5");
    a.send("go depth 4");
    let (rest, ok) = a.finish();
    assert!(ok, "exit status");
    assert!(rest.iter().any(|l| l.starts_with("bestmove ")), "{rest:?}");
}

/// "Broken pipe": a GUI that goes away mid-search ends the session quietly.
#[test]
fn broken_pipe_exits_cleanly() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_annex"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    let _ = writeln!(stdin, "uci");
    let _ = writeln!(stdin, "go depth 30");
    let _ = stdin.flush();
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("annex kept running with stdout closed");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(status.success(), "{status:?}");
}

#[test]
fn protocol_flag_forces_uci() {
    let mut a = Annex::spawn(&["--protocol", "uci"]);
    // `name` would select GTP; forced UCI calls it unknown.
    a.send("name");
    assert!(a.expect_prefix("info string error").contains("'name'"));
    a.send("isready");
    a.expect_prefix("readyok");
}

/// Helpers only this file needs.
trait Quiet {
    fn expect_silence_except_info(&mut self, wait: Duration);
}

impl Quiet for Annex {
    fn expect_silence_except_info(&mut self, wait: Duration) {
        let end = Instant::now() + wait;
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            match self.recv(left) {
                Some(l) if l.starts_with("info") => {}
                Some(l) => self.fail(&format!("unexpected '{l}' while searching")),
                None => return,
            }
        }
    }
}

/// A depth that covers the empties far from the end (an analysis to depth
/// 60 from the opening) deepens the midgame search before the solve, as
/// without a depth: within a million nodes (depth 16 takes about 0.44 M
/// from the start) the reports go past depth 10, where a solve used to
/// start that could not finish.
#[test]
fn a_depth_beyond_the_empties_keeps_deepening_before_the_solve() {
    let mut a = Annex::spawn(&[]);
    handshake(&mut a);
    a.send("setoption name OwnBook value false");
    a.send("position startpos");
    a.send("go depth 60 nodes 1000000");
    let lines = a.until_prefix("bestmove");
    let deepest = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .filter_map(|l| l.split_whitespace().nth(2)?.parse::<u32>().ok())
        .max()
        .unwrap_or(0);
    assert!(deepest > 12, "deepest reported depth {deepest}: {lines:?}");
}
