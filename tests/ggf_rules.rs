//! GGF records keep their rules: every combination of the rule options of
//! `RULES.md` is written with `RU[…]` and read back to the same rules,
//! start and moves, by the library and through `annex serve`'s export and
//! import over HTTP.

use crate::serve_util::Server;
use annex::moves::Move;
use annex::position::Position;
use annex::record::game::Game;
use annex::record::game_record::{GgfHeader, ggf};
use annex::record::ggf::{parse, parse_with_rules};
use annex::rules::{Flips, RuleSet, Scoring, Start, Tie};
use serde_json::{Value, json};

/// Every rule set: 3 starts × 2 flips × 2 ties × 2 scorings.
fn every_rule_set() -> Vec<RuleSet> {
    let mut all = Vec::new();
    for &start in Start::ALL {
        for &flips in Flips::ALL {
            for &tie in Tie::ALL {
                for &scoring in Scoring::ALL {
                    all.push(RuleSet {
                        start,
                        flips,
                        tie,
                        scoring,
                    });
                }
            }
        }
    }
    all
}

/// Picks one of `n` moves, preferring a move with a line (`f5:ne`) when
/// there is one, so that one-line games have them.
fn pick(moves: &[String], seed: &mut u64) -> usize {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    let r = (*seed >> 33) as usize;
    let lined: Vec<usize> = (0..moves.len())
        .filter(|&i| moves[i].contains(':'))
        .collect();
    if !lined.is_empty() && r.is_multiple_of(2) {
        lined[r / 2 % lined.len()]
    } else {
        r % moves.len()
    }
}

/// A legal game under `rules` from their start, to the end.
fn play_game(rules: RuleSet, mut seed: u64) -> Game {
    let mut g = Game::new(rules);
    while !g.is_over() {
        let legal: Vec<Move> = g.current().legal_moves(&rules).iter().collect();
        let m = if legal.is_empty() {
            Move::PASS
        } else {
            let names: Vec<String> = legal.iter().map(|m| m.to_string()).collect();
            legal[pick(&names, &mut seed)]
        };
        g.play(m).expect("a legal move");
    }
    g
}

fn export(g: &Game) -> String {
    let rules = g.rules();
    let h = GgfHeader {
        place: "test",
        black: "a",
        white: "b",
        tc: None,
        rules: &rules,
        date: &annex::date::ggf_now(),
    };
    let end = g.current();
    let score = end.final_score_for(rules.scoring, annex::board::Color::Black);
    ggf(&h, &g.start(), g.moves(), &[], &[], Some((score, "")))
}

#[test]
fn ggf_round_trips_every_rule_combination() {
    let (mut lined, mut passes) = (0, 0);
    for rules in every_rule_set() {
        for seed in 1..=3 {
            let g = play_game(rules, seed);
            let text = export(&g);
            assert_eq!(text.contains("RU["), !rules.is_default(), "{text}");
            // Read under the record's own rules, whatever the default.
            let back = parse_with_rules(&text, RuleSet::default())
                .unwrap_or_else(|e| panic!("{rules}: {e}\n{text}"));
            assert_eq!(back.game.rules(), rules, "{text}");
            assert_eq!(back.game.start(), g.start(), "{text}");
            assert_eq!(back.game.moves(), g.moves(), "{text}");
            assert!(back.game.is_over());
            let (a, b) = (g.current(), back.game.current());
            assert_eq!(a.winner(&rules), b.winner(&back.game.rules()));
            // NBoard's reader takes it under the same rules, and refuses it
            // under others when the record names its rules (a record
            // without `RU` is read under the rules in force).
            assert!(parse(&text, rules).is_ok());
            let other = RuleSet {
                tie: if rules.tie == Tie::Draw {
                    Tie::Second
                } else {
                    Tie::Draw
                },
                ..rules
            };
            match parse(&text, other) {
                Err(e) => assert!(e.to_string().contains("rules"), "{e}"),
                Ok(g) => assert!(rules.is_default() && g.game.rules() == other),
            }
            lined += g
                .moves()
                .iter()
                .filter(|m| m.to_string().contains(':'))
                .count();
            passes += g.moves().iter().filter(|m| m.is_pass()).count();
        }
    }
    assert!(lined > 0, "one-line games with lines on their moves");
    eprintln!("{lined} moves with a line, {passes} passes");
}

/// X a1, O b1 and f8 g8 h8, X to move: X c1 turns b1, then nobody can
/// move, 3-3.
fn tie_board() -> String {
    // The board string of RULES.md: a1 b1 … h8.
    let mut b: Vec<char> = "-".repeat(64).chars().collect();
    b[0] = 'X';
    b[1] = 'O';
    b[61..].fill('O');
    b.into_iter().collect::<String>() + " X"
}

#[test]
fn ggf_keeps_the_tie_rule_of_an_equal_game() {
    for tie in Tie::ALL {
        let rules = RuleSet {
            tie: *tie,
            ..RuleSet::default()
        };
        let start: Position = tie_board().parse().unwrap();
        let mut g = Game::from_position(start, rules);
        g.play_str("c1").unwrap();
        assert!(g.is_over());
        let text = export(&g);
        let back = parse_with_rules(&text, RuleSet::default()).unwrap();
        let winner = back.game.current().winner(&back.game.rules());
        let expected = match tie {
            Tie::Draw => None,
            Tie::Second => Some(annex::board::Color::White),
        };
        assert_eq!(winner, expected, "{text}");
    }
}

/// The moves of a state: the game and the undone moves.
fn line(state: &Value) -> Vec<Value> {
    let mut m = state["moves"].as_array().unwrap().clone();
    m.extend(state["redo"].as_array().unwrap().iter().cloned());
    m
}

/// The record without its date (`DT[…]`).
fn undated(text: &str) -> String {
    let from = text.find("DT[").expect("a date");
    let to = from + text[from..].find(']').unwrap();
    format!("{}{}", &text[..from], &text[to + 1..])
}

#[test]
fn ggf_round_trips_through_the_server() {
    let srv = Server::start();
    let player = srv.ok("POST", "/api/session", json!({}));
    let player = player["session"].as_str().unwrap().to_string();
    let reader = srv.ok("POST", "/api/session", json!({}));
    let reader = reader["session"].as_str().unwrap().to_string();
    let mut seed = 7;
    for rules in every_rule_set() {
        let named = json!({
            "start": rules.start.name(), "flips": rules.flips.name(),
            "tie": rules.tie.name(), "scoring": rules.scoring.name(),
        });
        let mut st = srv.post(&player, "new", json!({ "rules": named }));
        for _ in 0..14 {
            if st["game_over"] == json!(true) {
                break;
            }
            let legal: Vec<String> = st["legal"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap().to_string())
                .collect();
            let m = if legal.is_empty() {
                "pass".to_string()
            } else {
                legal[pick(&legal, &mut seed)].clone()
            };
            st = srv.post(&player, "move", json!({ "move": m }));
        }
        let text = srv.text(
            "GET",
            &format!("/api/export?s={player}&format=ggf"),
            &json!({}),
        );
        // The reader has plain Othello rules before the import.
        let othello =
            json!({ "start": "diagonal", "flips": "all", "tie": "draw", "scoring": "wof" });
        srv.post(&reader, "new", json!({ "rules": othello }));
        let got = srv.post(&reader, "position", json!({ "ggf": text }));
        assert_eq!(got["rules"], named, "{text}");
        assert_eq!(got["start"], st["start"], "{text}");
        assert_eq!(line(&got), line(&st), "{text}");
        if !rules.is_default() {
            let note = got["message"].as_str().unwrap_or_default();
            assert!(note.contains("rules"), "the change is said: {got}");
        }
        let again = srv.text(
            "GET",
            &format!("/api/export?s={reader}&format=ggf"),
            &json!({}),
        );
        assert_eq!(undated(&again), undated(&text));
    }
    // Rules the record cannot hold are refused with a word on them.
    let bad = "(;GM[Othello]RU[flips sideways]TY[8];)";
    let (code, body) = srv.raw(
        "POST",
        &format!("/api/position?s={reader}"),
        json!({ "ggf": bad }).to_string().as_bytes(),
    );
    assert_eq!(code, 400, "{body}");
    assert!(body.contains("RU[flips sideways]"), "{body}");
}
