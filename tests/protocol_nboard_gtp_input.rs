//! NBoard and GTP meeting bad input.

use crate::util::Annex;

/// O to move must pass (X has moves): 5 empties, so every search solves it.
const PASS_BOARD: &str = "--OOOXXO--OOOXXO-OOXXOXOOOOXOXOOXXXOXXXOOXOXXXXXOOOXXXXXOXXXXXOX";

/// A GGF record that starts at `board` (X/O/-) with `side` (`*` or `O`) to move.
fn ggf_at(board: &str, side: char) -> String {
    let bo: String = board
        .chars()
        .map(|c| if c == 'X' { '*' } else { c })
        .collect();
    format!("(;GM[Othello]PC[t]PB[a]PW[b]RE[?]TI[15:00]TY[8]BO[8 {bo} {side}];)")
}

fn nboard() -> Annex {
    let mut a = Annex::spawn(&[]);
    a.send("nboard 2");
    a.expect_prefix("set myname");
    a
}

/// The UCI-style `go solve` score of `board side` and the last info line.
fn uci_solve(board: &str, side: char) -> (i32, String) {
    let mut a = Annex::spawn(&[]);
    a.send("uci");
    a.expect_prefix("uciok");
    a.send(&format!("position board {board} {side}"));
    a.send("go solve");
    let lines = a.until_prefix("bestmove");
    let Some(info) = lines.iter().rev().find(|l| l.starts_with("info depth")) else {
        a.fail("no info line with a score");
    };
    let w: Vec<&str> = info.split_whitespace().collect();
    let i = w.iter().position(|t| *t == "disc").expect("score disc");
    (w[i + 1].parse().expect("a score"), info.clone())
}

/// The eval field of an NBoard line `=== PA/-18.00/0.1` or `analysis 0 -18.00`.
fn eval_of(s: &str) -> f64 {
    s.parse().unwrap_or_else(|_| panic!("not an eval: {s}"))
}

#[test]
fn pass_position_reports_its_value() {
    // The value after O's pass, searched independently (X to move).
    let (after, _) = uci_solve(PASS_BOARD, 'X');
    let want = -after as f64;
    assert_ne!(want, 0.0, "the position must not be a draw");
    // UCI-style `go solve` at the pass: a score, exact, PV led by the pass.
    let (v, info) = uci_solve(PASS_BOARD, 'O');
    assert_eq!(v, -after, "{info}");
    assert!(
        info.contains(" exact") && info.contains(" pv pass "),
        "{info}"
    );
    // NBoard go, hint and analyze.
    let mut a = nboard();
    a.send(&format!("set game {}", ggf_at(PASS_BOARD, 'O')));
    a.send("go");
    let done = a.expect_prefix("===");
    let f: Vec<&str> = done[4..].split('/').collect();
    assert_eq!(f[0], "PA", "{done}");
    assert_eq!(eval_of(f[1]), want, "{done}");
    a.send("hint 2");
    let lines = a.until(|l| l == "status");
    let search: Vec<&String> = lines.iter().filter(|l| l.starts_with("search ")).collect();
    let Some(last) = search.last() else {
        a.fail("hint at a pass gave no search line");
    };
    let w: Vec<&str> = last.split_whitespace().collect();
    assert!(w[1].starts_with("PA"), "{last}");
    assert_eq!(eval_of(w[2]), want, "{last}");
    a.send("analyze");
    let an = a.expect_prefix("analysis 0 ");
    assert_eq!(eval_of(&an["analysis 0 ".len()..]), want, "{an}");
}

/// Plays `moves` from the start and asks NBoard for `hint 3` at depth 2,
/// in a fresh engine; returns the depth-2 `search` lines (move, value).
fn hint_depth2(moves: &[&str]) -> Vec<(String, f64)> {
    let mut a = nboard();
    a.send("set depth 2");
    for m in moves {
        a.send(&format!("move {m}"));
    }
    a.send("ping 1");
    let got = a.until_prefix("pong");
    assert_eq!(got, ["pong 1"], "the moves must be legal");
    a.send("hint 3");
    let lines = a.until(|l| l == "status");
    let mut got = Vec::new();
    for l in lines.iter().filter(|l| l.starts_with("search ")) {
        let w: Vec<&str> = l.split_whitespace().collect();
        if w[4] == "2" {
            got.push((w[1][..2].to_ascii_lowercase(), eval_of(w[2])));
        }
    }
    got
}

/// The depth-1 score of the position after `moves`, from a fresh engine.
fn uci_depth1(moves: &[&str]) -> i32 {
    let mut a = Annex::spawn(&[]);
    a.send("uci");
    a.expect_prefix("uciok");
    a.send(&format!("position startpos moves {}", moves.join(" ")));
    a.send("go depth 1");
    let lines = a.until_prefix("bestmove");
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth 1 "))
        .expect("an info line");
    let w: Vec<&str> = info.split_whitespace().collect();
    let i = w.iter().position(|t| *t == "disc").expect("score disc");
    assert!(!info.contains("bound"), "{info}");
    w[i + 1].parse().expect("a score")
}

#[test]
fn hint_values_are_exact() {
    // Each depth-2 hint value is minus the depth-1 value of the position
    // after the move (the same evaluation, searched alone).
    for game in [
        &["f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3"][..],
        &[
            "e6", "f4", "c3", "d6", "d7", "b2", "d3", "c5", "e3", "f7", "c6", "b6", "a7",
        ][..],
    ] {
        let lines = hint_depth2(game);
        assert_eq!(lines.len(), 3, "{lines:?}");
        for (m, v) in lines {
            let mut after = game.to_vec();
            after.push(&m);
            assert_eq!(v, -uci_depth1(&after) as f64, "{game:?} {m}");
        }
    }
}

/// Sends a GTP command and returns its reply lines (without the blank line).
fn gtp(a: &mut Annex, line: &str) -> Vec<String> {
    a.send(line);
    let mut got = a.until(|l| l.is_empty());
    got.pop();
    got
}

#[test]
fn gtp_rejects_bad_arguments_and_keeps_state() {
    let mut a = Annex::spawn(&["--protocol", "gtp"]);
    assert_eq!(gtp(&mut a, "play b f5"), ["="]);
    let board = gtp(&mut a, "showboard");
    let long = "x".repeat(100_000);
    for bad in [
        "play w f6 extra",
        "play w",
        "play w z9",
        "play purple f6",
        "undo extra",
        "clear_board extra",
        "komi NaN",
        "komi inf",
        "komi",
        "boardsize 8 8",
        "genmove w now",
        "time_settings 10 0",
        "time_settings -1 0 0",
        "time_left w -5 0",
        "time_left w NaN 0",
        "showboard please",
        "known_command",
        &format!("play w {long}"),
    ] {
        let r = gtp(&mut a, bad);
        assert_eq!(r.len(), 1, "{bad}: {r:?}");
        assert!(r[0].starts_with("? "), "{bad}: {r:?}");
        assert!(r[0].len() < 200, "{bad}: a long reply");
        assert_eq!(gtp(&mut a, "showboard"), board, "{bad} changed the board");
    }
    // Unknown commands are named, long ones cut.
    assert_eq!(gtp(&mut a, "dance"), ["? unknown command 'dance'"]);
    let r = gtp(&mut a, &format!("7 {long}"));
    assert!(r[0].starts_with("?7 unknown command 'xxx"), "{r:?}");
    assert!(r[0].contains("(100000 bytes)") && r[0].len() < 200, "{r:?}");
    // Upper-case command words and vertices.
    assert_eq!(gtp(&mut a, "PLAY W F6"), ["="]);
    assert_eq!(gtp(&mut a, "KNOWN_COMMAND Genmove"), ["= true"]);
    assert_eq!(gtp(&mut a, "Undo"), ["="]);
    assert_eq!(gtp(&mut a, "showboard"), board);
    assert_eq!(gtp(&mut a, "QUIT"), ["="]);
}

#[test]
fn gtp_upper_case_first_command_is_gtp() {
    let mut a = Annex::spawn(&[]);
    assert_eq!(gtp(&mut a, "PROTOCOL_VERSION"), ["= 2"]);
}

/// The `status error:` line an NBoard command answers (before `pong`).
fn nboard_error(a: &mut Annex, line: &str) -> String {
    a.send(line);
    a.send("ping 9");
    let got = a.until_prefix("pong");
    if got.len() != 2 || !got[0].starts_with("status error: ") {
        a.fail(&format!("{line}: {got:?}"));
    }
    got[0].clone()
}

#[test]
fn nboard_arguments_checked() {
    let mut a = nboard();
    a.send("set depth 2");
    for (bad, want) in [
        ("move", "status error: move: missing move"),
        ("set depth", "status error: set depth: missing depth"),
        ("hint", "status error: hint: missing count"),
        ("set contempt", "status error: set contempt: missing value"),
        ("set game", "status error: set game: missing record"),
        ("set", "status error: set: missing setting"),
        (
            "set colour red",
            "status error: set: unknown setting 'colour'",
        ),
        ("move f5 d6", "status error: move: unexpected token 'd6'"),
        ("move f5/1.0/NaN", "status error: move: invalid time 'NaN'"),
        ("move f5/1.0/-3", "status error: move: invalid time '-3'"),
        ("move f5/x", "status error: move: invalid eval 'x'"),
        ("hint 0", "status error: hint: invalid count '0'"),
        ("hint 2 3", "status error: hint: unexpected token '3'"),
        (
            "set depth 0",
            "status error: set depth: invalid depth '0' (1..60)",
        ),
        (
            "set depth 5 6",
            "status error: set depth: unexpected token '6'",
        ),
        ("go now", "status error: go: unexpected token 'now'"),
        ("dance", "status error: unknown command 'dance'"),
    ] {
        assert_eq!(nboard_error(&mut a, bad), want);
    }
    // Long tokens under the line limit (1 MiB) are quoted short.
    let long = "f".repeat(1 << 19);
    for bad in [
        format!("move {long}"),
        long.clone(),
        format!("set depth {long}"),
    ] {
        let e = nboard_error(&mut a, &bad);
        assert!(e.len() < 200 && e.contains("(524288 bytes)"), "{e}");
    }
    // A line over the limit is one error, quoted short too.
    let e = nboard_error(&mut a, &format!("move {}", "f".repeat(1 << 20)));
    assert!(e.len() < 200 && e.contains("(1048581 bytes)"), "{e}");
    // Nothing was played: the start position, upper-case words accepted.
    a.send("MOVE F5");
    a.send("HINT 1");
    let lines = a.until(|l| l == "status");
    let last = lines.iter().rfind(|l| l.starts_with("search ")).unwrap();
    let first = &last.split_whitespace().nth(1).unwrap()[..2];
    assert!(["F4", "D6", "F6"].contains(&first), "{lines:?}");
    a.send("PING 4");
    assert_eq!(a.expect_prefix("pong"), "pong 4");
}

#[test]
fn nboard_tie_second_scores() {
    // X to move, 1 empty (a8): X a8 flips a7 and ties 32-32, O wins it.
    let board = "XXXXXXXXXXXXXXXXXXXXXXXXXXXOOOOOOOOOOOOOXOOOOOOOOXOOOOOO-XOOOOOO";
    let mut a = nboard();
    a.send("set option Tie second");
    a.send(&format!("set game {}", ggf_at(board, '*')));
    a.send("go");
    let done = a.expect_prefix("===");
    assert!(done.starts_with("=== A8/-0.50/"), "{done}");
    a.send("move A8");
    a.send("analyze");
    let lines = a.until(|l| l == "status");
    assert!(lines.contains(&"analysis 1 0.50".to_string()), "{lines:?}");
    assert!(lines.contains(&"analysis 0 -0.50".to_string()), "{lines:?}");
    // A bad option is reported, the rule kept.
    assert!(nboard_error(&mut a, "set option Tie third").contains("third"));
}

/// NBoard's GUI cannot send options, but it launches a command line:
/// `annex --option Tie=second` sets the rule before the first command; a
/// bad `--option` is one error line and a non-zero exit, not a session.
#[test]
fn option_flag_sets_tie_second_for_nboard() {
    let board = "XXXXXXXXXXXXXXXXXXXXXXXXXXXOOOOOOOOOOOOOXOOOOOOOOXOOOOOO-XOOOOOO";
    let mut a = Annex::spawn(&["--option", "Tie=second"]);
    a.send("nboard 2");
    a.expect_prefix("set myname");
    a.send(&format!("set game {}", ggf_at(board, '*')));
    a.send("go");
    let done = a.expect_prefix("===");
    assert!(done.starts_with("=== A8/-0.50/"), "{done}");
    // Without the flag the same tie is a draw.
    let mut b = nboard();
    b.send(&format!("set game {}", ggf_at(board, '*')));
    b.send("go");
    let done = b.expect_prefix("===");
    assert!(done.starts_with("=== A8/0.00/"), "{done}");
    for bad in ["Tie=third", "Colour=red", "Tie"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_annex"))
            .args(["--option", bad])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(
            err.contains("--option") && err.lines().count() == 1,
            "{bad}: {err}"
        );
        assert!(out.stdout.is_empty(), "{bad}");
    }
}
