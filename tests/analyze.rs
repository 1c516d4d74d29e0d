//! `annex analyze` driven as scripts use it: output lines are parsed with
//! serde_json (an independent JSON parser), checked against the schema of
//! `src/analyze.rs`, and compared with the FFO exact scores and with a
//! brute-force negamax written here.

use annex::moves::Move;
use annex::position::{ObfLine, Position};
use annex::rng::Rng;
use annex::rules::RuleSet;
use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `annex analyze ARGS` with `input` on stdin; returns the exit code
/// and the parsed output lines.
fn analyze(args: &[&str], input: &str) -> (Option<i32>, Vec<Value>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_annex"))
        .arg("analyze")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run annex");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    eprintln!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let values = stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    (out.status.code(), values)
}

fn is_move(s: &str) -> bool {
    s == "pass" || s.parse::<Move>().is_ok_and(|m| !m.is_pass())
}

/// Checks the documented schema; returns the position.
fn check_schema(v: &Value, with_moves: bool) -> Position {
    let o = v.as_object().expect("object");
    let keys = [
        "line",
        "board",
        "side",
        "empties",
        "best_move",
        "score",
        "exact",
        "wld",
        "bound",
        "pv",
        "depth",
        "nodes",
        "time_ms",
    ];
    for k in keys {
        assert!(o.contains_key(k), "missing {k}: {v}");
    }
    assert_eq!(o.contains_key("moves"), with_moves, "{v}");
    for k in ["line", "empties", "depth", "nodes", "time_ms"] {
        assert!(o[k].is_u64(), "{k}: {v}");
    }
    assert!(o["score"].is_i64());
    assert!(o["exact"].is_boolean() && o["wld"].is_boolean());
    assert!(["none", "lower", "upper"].contains(&o["bound"].as_str().unwrap()));
    let board = o["board"].as_str().unwrap();
    assert_eq!(board.len(), 64);
    assert!(board.chars().all(|c| "XO-".contains(c)));
    let side = o["side"].as_str().unwrap();
    assert!(side == "X" || side == "O");
    let pos: Position = format!("{board} {side}").parse().unwrap();
    assert_eq!(
        o["empties"].as_u64().unwrap(),
        u64::from(pos.board.empties())
    );
    match &o["best_move"] {
        Value::Null => assert!(pos.is_game_over(&RuleSet::default())),
        Value::String(m) => assert!(is_move(m), "{m}"),
        x => panic!("best_move {x}"),
    }
    let check_pv = |pv: &Value| {
        // The PV replays legally with our rules code.
        let mut p = pos;
        for m in pv.as_array().unwrap() {
            let m: Move = m.as_str().unwrap().parse().unwrap();
            p = p
                .play(&RuleSet::default(), m)
                .unwrap_or_else(|e| panic!("{e}: {v}"))
                .1;
        }
    };
    check_pv(&o["pv"]);
    if with_moves {
        for m in o["moves"].as_array().unwrap() {
            let mo = m.as_object().unwrap();
            for k in ["move", "score", "exact", "wld", "bound", "pv"] {
                assert!(mo.contains_key(k), "moves entry without {k}: {m}");
            }
            assert!(is_move(mo["move"].as_str().unwrap()));
            assert!(mo["score"].is_i64());
            assert_eq!(mo["pv"][0], mo["move"]);
            check_pv(&mo["pv"]);
        }
    }
    pos
}

#[test]
fn solve_every_move_agrees_with_ffo() {
    // FFO #1-#4: 14 empties each, every legal move scored in the OBF file.
    let text = crate::util::fixture("endgame/ffo/fforum-1-19.obf");
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(4)
        .collect();
    let (code, out) = analyze(&["--solve", "--all"], &lines.join("\n"));
    assert_eq!(code, Some(0));
    assert_eq!(out.len(), 4);
    for (i, v) in out.iter().enumerate() {
        let obf: ObfLine = lines[i].parse().unwrap();
        let pos = check_schema(v, true);
        assert_eq!(pos, obf.position);
        assert_eq!(v["line"], i + 1);
        assert_eq!(v["exact"], true);
        assert_eq!(v["score"], obf.best_score().unwrap());
        let best: Move = v["best_move"].as_str().unwrap().parse().unwrap();
        assert!(obf.best_moves().contains(&best), "{v}");
        let moves = v["moves"].as_array().unwrap();
        assert_eq!(moves.len(), obf.scores.len());
        let mut prev = i64::MAX;
        for m in moves {
            let mv: Move = m["move"].as_str().unwrap().parse().unwrap();
            let want = obf.scores.iter().find(|s| s.0 == mv).unwrap().1;
            assert_eq!(m["score"], want, "move {mv} of line {}", i + 1);
            assert_eq!(m["exact"], true);
            let s = m["score"].as_i64().unwrap();
            assert!(s <= prev, "moves not best first");
            prev = s;
        }
    }
}

/// Exact negamax over our rules code: final disc difference (WOF) for the
/// side to move.
fn negamax(p: &Position, rules: &RuleSet) -> i32 {
    if p.is_game_over(rules) {
        return p.board.final_score(rules.scoring);
    }
    let list = p.legal_moves(rules);
    if list.is_empty() {
        return -negamax(&p.play_unchecked(rules, Move::PASS), rules);
    }
    list.iter()
        .map(|m| -negamax(&p.play_unchecked(rules, m), rules))
        .max()
        .unwrap()
}

#[test]
fn small_endgames_agree_with_brute_force_including_passes() {
    let rules = RuleSet::default();
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    // Random games stopped with 7 empties; keep some must-pass positions.
    let mut positions = Vec::new();
    let mut passes = 0;
    while positions.len() < 12 || passes < 2 {
        let mut p = Position::start(&rules);
        while !p.is_game_over(&rules) && p.board.empties() > 7 {
            let l = p.legal_moves(&rules);
            let m = if l.is_empty() {
                Move::PASS
            } else {
                l.as_slice()[rng.index(l.len())]
            };
            p = p.play_unchecked(&rules, m);
        }
        let pass = p.must_pass(&rules);
        if pass && passes < 4 {
            passes += 1;
            positions.push(p);
        } else if !pass && positions.len() < 12 {
            positions.push(p);
        }
    }
    let input: Vec<String> = positions.iter().map(|p| p.to_string()).collect();
    let (code, out) = analyze(&["--solve", "--all"], &input.join("\n"));
    assert_eq!(code, Some(0));
    assert_eq!(out.len(), positions.len());
    for (p, v) in positions.iter().zip(&out) {
        assert_eq!(check_schema(v, true), *p);
        assert_eq!(v["score"], negamax(p, &rules), "{v}");
        assert_eq!(v["exact"], true);
        if p.must_pass(&rules) {
            assert_eq!(v["best_move"], "pass");
            assert_eq!(v["pv"][0], "pass");
        } else {
            for m in v["moves"].as_array().unwrap() {
                let mv: Move = m["move"].as_str().unwrap().parse().unwrap();
                let want = -negamax(&p.play(&rules, mv).unwrap().1, &rules);
                assert_eq!(m["score"], want, "{m}");
            }
        }
    }
}

#[test]
fn input_forms_errors_and_limits() {
    let rules = RuleSet::default();
    let start = Position::start(&rules);
    let full = format!("{}{} X", "X".repeat(40), "O".repeat(24));
    let input = format!("# comment\n\nf5d6c3\n{start}\n{start}; d3:+0;\nnot a position\n{full}\n");
    let (code, out) = analyze(&["--depth", "2"], &input);
    // The bad line is reported and the exit status says so.
    assert_eq!(code, Some(2));
    assert_eq!(out.len(), 5);
    let lines: Vec<u64> = out.iter().map(|v| v["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [3, 4, 5, 6, 7]);
    let p = check_schema(&out[0], false);
    assert_eq!(p, Position::from_transcript("f5d6c3", &rules).unwrap());
    assert_eq!(out[0]["depth"], 2);
    assert_eq!(out[0]["exact"], false);
    assert!(out[0]["nodes"].as_u64().unwrap() > 0);
    assert_eq!(check_schema(&out[1], false), start);
    assert_eq!(check_schema(&out[2], false), start);
    assert!(["d3", "c4", "f5", "e6"].contains(&out[1]["best_move"].as_str().unwrap()));
    assert_eq!(out[3]["input"], "not a position");
    assert!(out[3]["error"].is_string());
    assert_eq!(out[3].as_object().unwrap().len(), 3);
    // A finished game: no move, its final score, proven.
    check_schema(&out[4], false);
    assert_eq!(out[4]["best_move"], Value::Null);
    assert_eq!(out[4]["score"], 16);
    assert_eq!(out[4]["exact"], true);
    // Multi-PV of 2 adds `moves` with two entries.
    let (code, out) = analyze(&["--depth", "3", "--multipv", "2"], "f5d6\n");
    assert_eq!(code, Some(0));
    check_schema(&out[0], true);
    assert_eq!(out[0]["moves"].as_array().unwrap().len(), 2);
}

/// `annex analyze --solve` and `annex solve` agree on FFO #1-#6 (the
/// analyze input here is the OBF file itself).
#[test]
fn analyze_agrees_with_solve() {
    let text = crate::util::fixture("endgame/ffo/fforum-1-19.obf");
    let six: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(6)
        .collect();
    let path = std::env::temp_dir().join(format!("annex-analyze-{}.obf", std::process::id()));
    std::fs::write(&path, six.join("\n")).unwrap();
    let solve = Command::new(env!("CARGO_BIN_EXE_annex"))
        .arg("solve")
        .arg(&path)
        .output()
        .unwrap();
    assert!(solve.status.success());
    let solve = String::from_utf8(solve.stdout).unwrap();
    // `  # empt move score  want result ...` then one row per position.
    let rows: Vec<Vec<&str>> = solve
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.first().is_some_and(|x| x.parse::<usize>().is_ok()))
        .collect();
    assert_eq!(rows.len(), 6, "{solve}");
    let p = path.display().to_string();
    let (code, out) = analyze(&[p.as_str(), "--solve"], "");
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, Some(0));
    assert_eq!(out.len(), 6);
    for (row, v) in rows.iter().zip(&out) {
        check_schema(v, false);
        let score: i64 = row[3].trim_start_matches('+').parse().unwrap();
        assert_eq!(v["score"], score, "solve row {row:?} vs {v}");
        assert_eq!(v["exact"], true);
        // The best move may differ only between moves of equal score.
        let obf: ObfLine = six[v["line"].as_u64().unwrap() as usize - 1]
            .parse()
            .unwrap();
        let best: Move = v["best_move"].as_str().unwrap().parse().unwrap();
        let solve_best: Move = row[2].parse().unwrap();
        assert!(obf.best_moves().contains(&best) && obf.best_moves().contains(&solve_best));
    }
}

/// Rule options reach the analysis: scoring of empties, the tie rule.
#[test]
fn rule_options_apply() {
    // X alone on the board: the game is over, 10 discs and 54 empties.
    let lone = format!("{}{} X", "X".repeat(10), "-".repeat(54));
    let (_, out) = analyze(&["--depth", "1"], &lone);
    assert_eq!(out[0]["score"], 64);
    let (_, out) = analyze(&["--depth", "1", "--scoring", "count"], &lone);
    assert_eq!(out[0]["score"], 10);
    // A full board 32-32 with X to move: a draw, or under tie second a win
    // for O, so a loss of the tie for the side to move.
    let even = format!("{}{} X", "X".repeat(32), "O".repeat(32));
    let (_, out) = analyze(&["--depth", "1"], &even);
    assert_eq!(out[0]["score"], 0);
    assert!(out[0].get("tie").is_none());
    let (_, out) = analyze(&["--depth", "1", "--tie", "second"], &even);
    assert_eq!(out[0]["score"], 0);
    assert_eq!(out[0]["tie"], false);
    // One-line flips: a transcript with a direction is read and analysed.
    let (code, out) = analyze(
        &["--depth", "2", "--flips", "one-line", "--all"],
        "f5d6c3\n",
    );
    assert_eq!(code, Some(0));
    let moves = out[0]["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
}

#[test]
fn analyze_a_score_inside_the_window_has_bound_none_not_exact() {
    let (code, out) = analyze(&["--depth", "3", "--multipv", "2"], "f5\n");
    assert_eq!(code, Some(0));
    let v = &out[0];
    // A depth-3 score is the search's value, not the game's: not exact,
    // and not a bound either.
    assert_eq!(v["exact"], false, "{v}");
    assert_eq!(v["bound"], "none", "{v}");
    for m in v["moves"].as_array().expect("moves") {
        assert_eq!(m["exact"], false, "{m}");
        assert_ne!(m["bound"], "exact", "{m}");
    }
}
