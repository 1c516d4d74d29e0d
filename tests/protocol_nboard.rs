//! NBoard protocol v2 over pipes (`protocol.md`, "NBoard protocol").

use crate::protocol::{Rng, assert_legal_answer, random_game};
use crate::util::Annex;
use annex::board::Color;
use annex::moves::Move;
use annex::position::Position;
use annex::rules::RuleSet;
use std::time::{Duration, Instant};

const START_BO: &str = "BO[8 ---------------------------O*------*O--------------------------- *]";

/// A GGF record of `moves` from the standard start.
fn ggf(moves: &[Move]) -> String {
    let r = RuleSet::default();
    let mut pos = Position::start(&r);
    let mut s = format!("(;GM[Othello]PC[test]PB[a]PW[b]RE[?]TI[15:00]TY[8]{START_BO}");
    for m in moves {
        let c = if pos.side == Color::Black { 'B' } else { 'W' };
        let t = match m.to_square() {
            Some(sq) => sq.to_string().to_ascii_uppercase(),
            None => "PA".into(),
        };
        s.push_str(&format!("{c}[{t}]"));
        pos = pos.play_unchecked(&r, *m);
    }
    s.push_str(";)");
    s
}

fn start() -> Annex {
    let mut a = Annex::spawn(&[]);
    a.send("nboard 2");
    assert!(
        a.expect_prefix("set myname")
            .starts_with("set myname Annex")
    );
    a
}

/// The move of a `=== F5/1.00/0.2` line.
fn played(line: &str) -> String {
    let rest = line.trim_start_matches("=== ");
    rest.split('/').next().unwrap().to_ascii_lowercase()
}

#[test]
fn nboard_session_go_hint_ping() {
    let r = RuleSet::default();
    let mut rng = Rng::new(5);
    let mut a = start();
    a.send("set depth 3");
    for plies in [4, 20, 37] {
        let (pos, moves) = random_game(&mut rng, &r, plies);
        if pos.is_game_over(&r) {
            continue;
        }
        a.send(&format!("set game {}", ggf(&moves)));
        a.send("ping 1");
        assert_eq!(a.expect_prefix("pong"), "pong 1");
        a.send("go");
        let lines = a.until_prefix("===");
        assert!(
            lines.iter().any(|l| l.starts_with("nodestats ")),
            "{lines:?}"
        );
        let m = played(lines.last().unwrap());
        let m = if m == "pa" { "pass".to_string() } else { m };
        assert_legal_answer(&pos, &r, &m);
        // === does not play the move: a hint afterwards is for the same position.
        a.send("hint 3");
        let lines = a.until(|l| l == "status");
        let search: Vec<&String> = lines.iter().filter(|l| l.starts_with("search ")).collect();
        assert!(!search.is_empty(), "{lines:?}");
        for l in search {
            let w: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(w.len(), 5, "{l}");
            let first = w[1][..2].to_ascii_lowercase();
            let first = if first == "pa" { "pass".into() } else { first };
            assert_legal_answer(&pos, &r, &first);
            w[2].parse::<f64>().expect("eval");
            assert_eq!(w[3], "0");
        }
    }
}

/// `ping` during a long `hint` stops it, sends its output, then `pong`.
#[test]
fn nboard_ping_stops_search() {
    let mut a = start();
    a.send("set depth 40");
    a.send(&format!("set game (;GM[Othello]TY[8]{START_BO}B[F5];)"));
    a.send("hint 1");
    a.expect_prefix("status Annex is thinking");
    // The search is under way once it reports.
    a.expect_prefix("search ");
    let t = Instant::now();
    a.send("ping 7");
    let lines = a.until_prefix("pong");
    eprintln!("ping -> pong: {:?}", t.elapsed());
    assert_eq!(lines.last().unwrap(), "pong 7");
    assert!(
        lines.iter().any(|l| l.starts_with("nodestats")),
        "{lines:?}"
    );
    assert!(t.elapsed() < Duration::from_secs(3));
    // Nothing of the stopped search follows the pong.
    a.send("learn");
    assert_eq!(a.recv(Duration::from_secs(5)).as_deref(), Some("learned"));
}

/// Under a clock, `set depth 60` (what a match driver sends to leave the
/// move to the clock) gives a timed midgame search, not a solve from the
/// opening: the search reports midgame depths beyond the pre-solve's 10 and
/// never a selective (`@`) or exact (`%`) pass at 50 empties.
#[test]
fn nboard_clock_with_full_depth_searches_the_midgame() {
    let r = RuleSet::default();
    let mut rng = Rng::new(8);
    let (pos, moves) = random_game(&mut rng, &r, 10);
    assert!(!pos.is_game_over(&r));
    let mut a = start();
    a.send("set depth 60");
    let game = ggf(&moves).replace("TI[15:00]", "TI[0:20]");
    a.send(&format!("set game {game}"));
    a.send("go");
    let lines = a.until_prefix("===");
    let depths: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("search "))
        .filter_map(|l| l.split_whitespace().nth(4))
        .collect();
    assert!(depths.iter().all(|d| d.parse::<u32>().is_ok()), "{lines:?}");
    let deepest = depths.iter().filter_map(|d| d.parse::<u32>().ok()).max();
    assert!(deepest.is_some_and(|d| d > 10), "{lines:?}");
    let m = played(lines.last().unwrap());
    assert_legal_answer(&pos, &r, &m);
}

/// Records that end with a pass, or that leave a forced pass out.
#[test]
fn nboard_pass_ending_games() {
    let r = RuleSet::default();
    let mut a = start();
    a.send("set depth 4");
    // O on a1, X on b1 and d1, O on h8: X to move has no move, O has c1.
    let board = format!("O*-*{}O", "-".repeat(59));
    let bo = format!("BO[8 {board} *]");
    // X to move must pass: go answers PA.
    a.send(&format!("set game (;GM[Othello]TY[8]{bo};)"));
    a.send("go");
    assert_eq!(played(&a.expect_prefix("===")), "pa");
    // The record ends with X's pass: O is to move.
    a.send(&format!("set game (;GM[Othello]TY[8]{bo}B[PA];)"));
    a.send("go");
    let m = played(&a.expect_prefix("==="));
    let pos = Position::parse_board(&board.replace('*', "X"), Color::Black)
        .unwrap()
        .play(&r, Move::PASS)
        .unwrap()
        .1;
    assert_legal_answer(&pos, &r, &m);
    // The pass left out: W[C1] straight after the start is accepted.
    a.send(&format!("set game (;GM[Othello]TY[8]{bo}W[C1];)"));
    a.send("ping 2");
    let lines = a.until_prefix("pong");
    assert_eq!(lines, ["pong 2"], "no error expected");
    // `move` with a forced pass left out, then an illegal move.
    a.send(&format!("set game (;GM[Othello]TY[8]{bo};)"));
    a.send("move C1");
    a.send("move A8");
    assert!(a.expect_prefix("status error").contains("'a8'"));
}

#[test]
fn nboard_analyze_every_position() {
    let mut a = start();
    a.send("set depth 2");
    let moves: Vec<Move> = ["f5", "d6", "c3", "d3"]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
    a.send(&format!("set game {}", ggf(&moves)));
    a.send("analyze");
    let lines = a.until(|l| l == "status");
    let idx: Vec<usize> = lines
        .iter()
        .filter(|l| l.starts_with("analysis "))
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(idx, [4, 3, 2, 1, 0], "{lines:?}");
}

#[test]
fn nboard_bad_input_reports_and_keeps_state() {
    let mut a = start();
    a.send("set depth 2");
    for (bad, token) in [
        ("set depth many", "'many'"),
        ("set game (;GM[Chess];)", "Chess"),
        ("set game (;GM[Othello]TY[8]B[A1];)", "A1"),
        ("move Z9", "Z9"),
        ("hint none", "'none'"),
        ("dance", "'dance'"),
    ] {
        a.send(bad);
        a.send("ping 1");
        let got = a.until_prefix("pong");
        assert_eq!(got.len(), 2, "{bad}: {got:?}");
        assert!(
            got[0].starts_with("status error: ") && got[0].contains(token),
            "{got:?}"
        );
    }
    a.send("go");
    let m = played(&a.expect_prefix("==="));
    assert!(["d3", "c4", "f5", "e6"].contains(&m.as_str()), "{m}");
}
