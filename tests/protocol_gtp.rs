//! GTP v2 over pipes (`protocol.md`, "GTP").

use crate::protocol::assert_legal_answer;
use crate::util::Annex;
use annex::board::Color;
use annex::position::Position;
use annex::rules::RuleSet;

/// Sends a command and returns its reply lines (without the empty line).
fn cmd(a: &mut Annex, line: &str) -> Vec<String> {
    a.send(line);
    let mut got = a.until(|l| l.is_empty());
    got.pop();
    got
}

fn ok(a: &mut Annex, line: &str) -> String {
    let r = cmd(a, line);
    if !r[0].starts_with('=') {
        a.fail(&format!("{line}: {r:?}"));
    }
    r.join("\n")
}

#[test]
fn gtp_session_whole_game_with_genmove() {
    let r = RuleSet::default();
    let mut a = Annex::spawn(&[]);
    assert_eq!(ok(&mut a, "1 protocol_version"), "=1 2");
    assert_eq!(ok(&mut a, "name"), "= Annex");
    assert_eq!(cmd(&mut a, "boardsize 9"), ["? unacceptable size"]);
    ok(&mut a, "boardsize 8");
    ok(&mut a, "clear_board");
    ok(&mut a, "komi 0.5");
    ok(&mut a, "annex-setoption MoveTime 20");
    ok(&mut a, "annex-setoption Depth 3");
    let list = ok(&mut a, "list_commands");
    for c in [
        "genmove",
        "undo",
        "gogui-rules_legal_moves",
        "gogui-rules_final_result",
    ] {
        assert!(list.lines().any(|l| l == c), "{c}");
    }
    assert_eq!(ok(&mut a, "known_command play"), "= true");
    assert_eq!(ok(&mut a, "known_command fly"), "= false");
    assert_eq!(ok(&mut a, "gogui-rules_game_id"), "= Othello");
    // Play a game: Annex plays both sides by genmove, checked move by move.
    let mut pos = Position::start(&r);
    let mut passes = 0;
    while !pos.is_game_over(&r) {
        let legal = ok(&mut a, "gogui-rules_legal_moves");
        let want: Vec<String> = pos
            .legal_moves(&r)
            .iter()
            .map(|m| m.to_string().to_ascii_uppercase())
            .collect();
        let want = if want.is_empty() {
            "= pass".to_string()
        } else {
            format!("= {}", want.join(" "))
        };
        assert_eq!(legal, want);
        let side = if pos.side == Color::Black { "b" } else { "w" };
        let reply = ok(&mut a, &format!("genmove {side}"));
        let m = reply.trim_start_matches("= ").to_ascii_lowercase();
        assert_legal_answer(&pos, &r, &m);
        passes += usize::from(m == "pass");
        pos = pos.play(&r, m.parse().unwrap()).unwrap().1;
        let board = ok(&mut a, "gogui-rules_board");
        let rows: Vec<&str> = board.lines().skip(1).collect();
        assert_eq!(rows.len(), 8);
        // Row 8 of the squares comes first.
        let row8: String = (0..8u8)
            .map(
                |c| match pos.at(annex::square::Square::from_coords(c, 7).unwrap()) {
                    Some(Color::Black) => "X",
                    Some(Color::White) => "O",
                    None => ".",
                },
            )
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(rows[0], row8);
    }
    let _ = passes;
    let (diff, winner) = (pos.final_score_for(r.scoring, Color::Black), pos.winner(&r));
    let want = match winner {
        Some(Color::Black) => format!("= B+{diff}"),
        Some(Color::White) => format!("= W+{}", -diff),
        None => "= 0".into(),
    };
    assert_eq!(ok(&mut a, "final_score"), want);
    assert_eq!(ok(&mut a, "gogui-rules_final_result"), want);
    assert_eq!(ok(&mut a, "gogui-rules_legal_moves"), "=");
    assert_eq!(ok(&mut a, "genmove b"), "= pass");
}

#[test]
fn gtp_play_undo_and_errors() {
    let mut a = Annex::spawn(&["--protocol", "gtp"]);
    ok(&mut a, "play b f5");
    assert_eq!(ok(&mut a, "gogui-rules_side_to_move"), "= white");
    let e = cmd(&mut a, "7 play b d6");
    assert!(e[0].starts_with("?7 illegal move"), "{e:?}");
    let e = cmd(&mut a, "play w a1");
    assert!(e[0].starts_with("? illegal move"), "{e:?}");
    assert!(cmd(&mut a, "play purple d6")[0].starts_with("? invalid color"));
    assert!(cmd(&mut a, "play w")[0].starts_with("? play: missing"));
    assert!(cmd(&mut a, "genmove b")[0].starts_with("? it is white's turn"));
    assert_eq!(cmd(&mut a, "dance"), ["? unknown command 'dance'"]);
    // reg_genmove answers without playing.
    let m = ok(&mut a, "reg_genmove w");
    assert!(["= D6", "= F4", "= F6"].contains(&m.as_str()), "{m}");
    assert_eq!(ok(&mut a, "gogui-rules_side_to_move"), "= white");
    ok(&mut a, "play w d6");
    ok(&mut a, "undo");
    ok(&mut a, "undo");
    assert_eq!(cmd(&mut a, "undo"), ["? cannot undo"]);
    assert_eq!(cmd(&mut a, "final_score"), ["? game is not over"]);
    let board = ok(&mut a, "showboard");
    assert!(
        board.contains("board ---------------------------OX------XO--------------------------- X"),
        "{board}"
    );
    // A forced pass is played before the other colour's move.
    ok(&mut a, "clear_board");
    ok(&mut a, "quit");
}

#[test]
fn gtp_time_settings_and_interrupt() {
    let mut a = Annex::spawn(&[]);
    ok(&mut a, "time_settings 2 0 0");
    ok(&mut a, "time_left b 1 0");
    let m = ok(&mut a, "genmove b");
    assert!(
        ["= D3", "= C4", "= F5", "= E6"].contains(&m.as_str()),
        "{m}"
    );
    assert!(cmd(&mut a, "time_left b soon 0")[0].starts_with("? syntax error"));
    // No clock, long think: `# interrupt` ends genmove early with a move.
    ok(&mut a, "time_settings 0 0 0");
    ok(&mut a, "annex-setoption MoveTime 600000");
    a.send("genmove w");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let t = std::time::Instant::now();
    a.send("# interrupt");
    let r = a.until(|l| l.is_empty());
    assert!(r[0].starts_with("= "), "{r:?}");
    assert!(t.elapsed() < std::time::Duration::from_secs(3));
}
