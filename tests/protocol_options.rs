//! The engine's options come from one table and the engine owns the one
//! game: the `uci` listing is the table (and `protocol.md` shows it), a
//! rule option starts a new game in every protocol, an option is refused
//! during a search and taken at once after it, and the tools' flags take
//! the table's ranges.

use crate::util::Annex;
use annex::engine::{OPTIONS, OptionKind};
use std::process::Command;

/// The `option` lines of `uci`.
fn uci_options() -> Vec<String> {
    let mut a = Annex::spawn(&[]);
    a.send("uci");
    let got = a.until_prefix("uciok");
    got.into_iter()
        .filter(|l| l.starts_with("option "))
        .collect()
}

#[test]
fn uci_lists_the_option_table_as_protocol_md_shows_it() {
    let listed = uci_options();
    assert_eq!(listed.len(), OPTIONS.len(), "{listed:#?}");
    for (line, o) in listed.iter().zip(OPTIONS) {
        let kind = match o.kind {
            OptionKind::Spin { default, min, max } => {
                format!("spin default {default} min {min} max {max}")
            }
            OptionKind::Check { default } => format!("check default {default}"),
            OptionKind::String { default } => format!("string default {default}"),
            OptionKind::Combo { vars } => {
                let listed: Vec<String> = vars.iter().map(|v| format!("var {v}")).collect();
                format!("combo default {} {}", vars[0], listed.join(" "))
            }
        };
        assert_eq!(*line, format!("option name {} type {kind}", o.name));
    }
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/protocol.md"))
        .expect("protocol.md");
    let documented: Vec<&str> = doc
        .lines()
        .skip_while(|l| *l != "### uci")
        .skip_while(|l| !l.starts_with("option name "))
        .take_while(|l| l.starts_with("option name "))
        .collect();
    assert_eq!(documented, listed, "protocol.md's `uci` listing");
}

#[test]
fn a_rule_option_starts_a_new_game_in_every_protocol() {
    // UCI-style: the side to move tells the start position from the one
    // after f5; setting a rule to its current value keeps the game.
    let mut a = Annex::spawn(&[]);
    let p1turn = |a: &mut Annex| {
        a.send("query p1turn");
        a.expect_prefix("response ")
    };
    a.send("position startpos moves f5");
    assert_eq!(p1turn(&mut a), "response false");
    a.send("setoption name Flips value all");
    assert_eq!(p1turn(&mut a), "response false");
    a.send("setoption name Flips value one-line");
    assert_eq!(p1turn(&mut a), "response true");
    assert!(a.answer("position startpos moves f5").is_empty());
    assert_eq!(p1turn(&mut a), "response false");

    // GTP.
    let mut g = Annex::spawn(&["--protocol", "gtp"]);
    let mut gtp = |line: &str| {
        g.send(line);
        let mut got = g.until(|l| l.is_empty());
        got.pop();
        got.join("\n")
    };
    assert_eq!(gtp("play b f5"), "=");
    assert_eq!(gtp("gogui-rules_side_to_move"), "= white");
    assert_eq!(gtp("annex-setoption Tie second"), "=");
    assert_eq!(gtp("gogui-rules_side_to_move"), "= black");
    assert_eq!(gtp("annex-setoption Tie maybe").lines().count(), 1);

    // NBoard: the engine's move after the change is one of the start.
    let mut n = Annex::spawn(&["--protocol", "nboard"]);
    for l in [
        "nboard 2",
        "set depth 1",
        "move F5",
        "set option Scoring count",
        "go",
    ] {
        n.send(l);
    }
    let reply = n.expect_prefix("=== ");
    let mv = &reply[4..6];
    assert!(["D3", "C4", "F5", "E6"].contains(&mv), "{reply}");
}

#[test]
fn options_wait_for_the_search_and_not_longer() {
    let mut a = Annex::spawn(&[]);
    a.send("position startpos");
    a.send("go infinite");
    a.expect_prefix("info depth");
    a.send("setoption name Hash value 2");
    let e = a.expect_prefix("info string error");
    assert_eq!(
        e,
        "info string error: cannot change options while searching"
    );
    a.send("stop");
    a.expect_prefix("bestmove");
    // The result is out: the option is taken at once.
    let got = a.answer("setoption name Hash value 2");
    assert!(got.iter().all(|l| !l.contains("error")), "{got:?}");
}

#[test]
fn tool_flags_take_the_option_ranges() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_annex"))
            .args(args)
            .output()
            .expect("annex runs")
    };
    for (flag, bad) in [("--hash", "0"), ("--hash", "65537"), ("--threads", "257")] {
        let out = run(&["serve", "--port", "0", flag, bad]);
        assert_eq!(out.status.code(), Some(2), "serve {flag} {bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(bad) && err.contains(flag), "{err}");
    }
    let help = String::from_utf8_lossy(&run(&["--help"]).stdout).into_owned();
    for o in OPTIONS {
        assert!(help.contains(o.name), "--help lacks {}", o.name);
    }
    assert!(help.contains("Hash (1-65536, default 64)"), "{help}");
    let out = run(&["--option", "Threads=257"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("expected 1 to 256"), "{err}");
}
