//! The page of `annex serve` in a real browser: headless Chromium driven
//! over the DevTools protocol, with mouse clicks and key presses as a
//! person makes them. Skipped when `/usr/bin/chromium` is not installed
//! (`apt-get install chromium`); the server and the browser driver are in
//! `serve_util`.

use crate::serve_util::{Browser, Page};
use serde_json::{Value, json};
use std::time::Duration;

/// The whole line the page shows (moves and undone moves).
const LINE: &str = "state.moves.concat(state.redo).join(' ')";

/// Waits until the page has a state and no search runs.
fn wait_quiet(b: &mut Browser) {
    b.wait_for("typeof state !== 'undefined' && state !== null && !state.searching");
}

/// A whole game between two engines at depth 4 (a draw, 32-32).
const GAME: &str = "d3c5f6e3c3e6f5f3f4g4c6g5c4g6e2d2e1c2g3c1d6d1b1h3f1f2g1c7d7c8e8d8b8b6\
                    h6h5e7b5b3b4f7g8b2a3a5a6a4b7f8g7h8h7g2h4h2h1a7a1a2a8";

fn line_of(transcript: &str) -> String {
    let moves: Vec<String> = annex::position::split_transcript(transcript);
    moves.join(" ")
}

#[test]
fn browser_plays_a_full_game_against_the_engine_by_clicks() {
    let Some(Page { srv, mut b }) = Page::open(
        "browser_plays_a_full_game_against_the_engine_by_clicks",
        "?level=depth:2",
        "game",
    ) else {
        return;
    };
    wait_quiet(&mut b);
    // A newcomer plays X against the engine, the level in view.
    assert_eq!(
        b.eval("state.players"),
        json!({ "X": "human", "O": "engine" })
    );
    assert_eq!(
        b.eval("document.getElementById('level').offsetParent !== null"),
        json!(true)
    );
    let mut passes_clicked = 0;
    for _ in 0..70 {
        b.wait_for(
            "state.game_over || (state.side === 'X' && !state.searching && state.redo.length === 0)",
        );
        if b.eval("state.game_over") == json!(true) {
            break;
        }
        let n = b.eval("state.moves.length").as_u64().unwrap();
        // A forced pass is a click on the board; else the first legal move.
        let square = if b.eval("state.must_pass") == json!(true) {
            passes_clicked += 1;
            "d4".to_string()
        } else {
            let sq = b.eval("moveSquare(state.legal[0])");
            sq.as_str().unwrap().to_string()
        };
        b.click(&format!("#sq-{square}"));
        b.wait_for(&format!("state.moves.length > {n}"));
    }
    assert_eq!(b.eval("state.game_over"), json!(true), "the game ends");
    let status = b.eval("document.getElementById('status').textContent");
    let status = status.as_str().unwrap();
    assert!(
        status.starts_with("Black wins ")
            || status.starts_with("White wins ")
            || status.starts_with("Draw "),
        "the result in words: {status}"
    );
    assert!(!status.contains('+'), "{status}");
    // The page's game is the server's.
    let id = b.eval("session").as_str().unwrap().to_string();
    let text = srv.text(
        "GET",
        &format!("/api/export?s={id}&format=transcript"),
        &json!({}),
    );
    assert_eq!(b.eval(LINE), json!(line_of(text.trim())));
    let plies = b.eval("document.querySelectorAll('#moves li').length");
    assert_eq!(plies, b.eval("state.moves.length"));
    // Ctrl+Z takes back to the human's last turn; End returns to the end.
    b.key("z", 90, 2);
    b.wait_for("state.redo.length > 0 && state.side === 'X'");
    b.key("End", 35, 0);
    b.wait_for("state.game_over && state.redo.length === 0");
    assert_eq!(
        b.eval(LINE),
        json!(line_of(text.trim())),
        "{passes_clicked}"
    );
}

#[test]
fn browser_browses_without_changing_the_game() {
    let Some(Page { srv, mut b }) = Page::open(
        "browser_browses_without_changing_the_game",
        &format!("?moves={GAME}"),
        "browse",
    ) else {
        return;
    };
    let whole = json!(line_of(GAME));
    b.wait_for("typeof state !== 'undefined' && state !== null && state.moves.length === 60");
    wait_quiet(&mut b);
    // The loaded game is scored for the graph.
    assert_eq!(
        b.eval("state.evals.filter((v) => v !== null).length"),
        json!(61)
    );
    assert_eq!(
        b.eval("document.getElementById('status').textContent"),
        json!("Draw 32-32")
    );
    // Ply 15 in the move list: the engine (O) is to move there, and waits.
    b.click("#moves li:nth-child(15)");
    b.wait_for("state.ply === 15");
    std::thread::sleep(Duration::from_millis(700));
    assert_eq!(b.eval("state.ply"), json!(15));
    assert_eq!(b.eval("state.side"), json!("O"));
    assert_eq!(b.eval("state.search"), Value::Null, "no engine move");
    assert_eq!(b.eval(LINE), whole);
    // Hints with a principal variation that grows as the analysis
    // deepens: nothing on the page moves.
    let layout = "['new', 'undo', 'review', 'graph', 'moves', 'text'].map((id) => \
                  document.getElementById(id).getBoundingClientRect().top)";
    let before = b.eval(layout);
    b.click("#analyze");
    b.wait_for("state.analyze && state.hints.length > 0 && state.hints[0].depth >= 8");
    assert_eq!(b.eval(layout), before, "the layout does not shift");
    // The keys browse.
    b.key("ArrowRight", 39, 0);
    b.wait_for("state.ply === 16");
    b.key("ArrowLeft", 37, 0);
    b.key("ArrowLeft", 37, 0);
    b.wait_for("state.ply === 14");
    // F turns the board around: h8 top left, and back.
    b.key("f", 70, 0);
    b.wait_for("document.querySelector('#board .sq').id === 'sq-h8'");
    b.key("f", 70, 0);
    b.wait_for("document.querySelector('#board .sq').id === 'sq-a1'");
    assert_eq!(b.eval("state.ply"), json!(14));
    // Engine against engine: a click on the graph views a ply, and the
    // game stays what it was.
    for side in ["black", "white"] {
        b.eval(&format!(
            "const e = document.getElementById('{side}'); e.value = 'engine'; \
             e.dispatchEvent(new Event('change'))"
        ));
    }
    b.wait_for("state.players.X === 'engine' && state.players.O === 'engine'");
    b.click_at("#graph", 0.55, 0.5);
    b.wait_for("state.ply > 20 && state.ply < 45");
    std::thread::sleep(Duration::from_millis(700));
    assert_eq!(b.eval(LINE), whole);
    assert_ne!(b.eval("state.search"), json!("play"));
    let id = b.eval("session").as_str().unwrap().to_string();
    let server = srv.ok("GET", &format!("/api/state?s={id}"), json!({}));
    assert_eq!(server["ply"], b.eval("state.ply"));
    assert_eq!(
        server["redo"].as_array().unwrap().len() + server["moves"].as_array().unwrap().len(),
        60
    );
    // End: the whole game again; then "Play from here" at ply 20 lets the
    // engines play on from there.
    b.key("End", 35, 0);
    b.wait_for("state.ply === 60 && state.game_over");
    assert_eq!(b.eval(LINE), whole);
    b.key("Home", 36, 0);
    b.wait_for("state.ply === 0");
    b.click("#moves li:nth-child(20)");
    b.wait_for("state.ply === 20");
    assert_eq!(
        b.eval("document.getElementById('cut').hidden"),
        json!(false)
    );
    b.click("#cut");
    b.wait_for("state.redo.length === 0 && state.moves.length > 20");
}

#[test]
fn browser_reload_restores_the_game() {
    let Some(Page { srv, mut b }) = Page::open(
        "browser_reload_restores_the_game",
        "?level=depth:2&tie=second&scoring=count",
        "reload",
    ) else {
        return;
    };
    b.wait_for("typeof state !== 'undefined' && state !== null && state.rules.tie === 'second'");
    for _ in 0..3 {
        b.wait_for("state.side === 'X' && !state.searching && !state.must_pass");
        let n = b.eval("state.moves.length").as_u64().unwrap();
        let sq = b.eval("moveSquare(state.legal[0])");
        b.click(&format!("#sq-{}", sq.as_str().unwrap()));
        b.wait_for(&format!("state.moves.length > {}", n + 1));
    }
    wait_quiet(&mut b);
    let line = b.eval(LINE);
    let id = b.eval("session");
    assert_eq!(line.as_str().unwrap().split(' ').count(), 6, "{line}");
    let rules = b.eval("state.rules");
    // A reload finds the same session and game.
    b.reload();
    b.wait_for("document.body.dataset.restored === 'session' && state !== null");
    assert_eq!(b.eval("session"), id);
    assert_eq!(b.eval(LINE), line);
    // The address alone (a shared link, a new tab) restores the game in a
    // new session: rules, players, moves.
    b.eval("sessionStorage.clear()");
    b.reload();
    b.wait_for("document.body.dataset.restored === 'address' && state !== null");
    wait_quiet(&mut b);
    assert_ne!(b.eval("session"), id);
    assert_eq!(b.eval(LINE), line);
    assert_eq!(b.eval("state.rules"), rules);
    assert_eq!(b.eval("state.players.O"), json!("engine"));
    // The viewed ply is in the address too.
    b.key("Home", 36, 0);
    b.key("ArrowRight", 39, 0);
    b.wait_for("state.ply === 1 && location.search.includes('ply=1')");
    b.eval("sessionStorage.clear()");
    b.reload();
    b.wait_for("document.body.dataset.restored === 'address' && state !== null && state.ply === 1");
    assert_eq!(b.eval(LINE), line);
    // A bad transcript in the address is an error in view, review or not.
    b.navigate(&format!("http://{}/?moves=f5f5&review=1", srv.addr));
    b.wait_for("document.body.dataset.restored === 'address'");
    let error = b.eval("document.getElementById('error').textContent");
    assert!(
        error.as_str().unwrap().contains("f5"),
        "the error stays in view: {error}"
    );
}

#[test]
fn browser_plays_a_forced_pass_by_itself_with_a_note() {
    // O a1, X b1, X to move: X has no move and must pass; O (a person
    // here) then has c1.
    let board = format!("OX{}%20X", "-".repeat(62));
    let query = format!("?board={board}&white=human");
    let test = "browser_plays_a_forced_pass_by_itself_with_a_note";
    let Some(Page { srv: _srv, mut b }) = Page::open(test, &query, "pass") else {
        return;
    };
    b.wait_for("typeof state !== 'undefined' && state !== null && state.moves.length === 1");
    assert_eq!(b.eval("state.moves"), json!(["pass"]));
    assert_eq!(b.eval("state.side"), json!("O"));
    let note = b.eval("document.getElementById('note').textContent");
    assert_eq!(note, json!("Black (X) had no legal move and passed."));
    assert_eq!(
        b.eval("document.getElementById('error').textContent"),
        json!("")
    );
    b.click("#sq-c1");
    b.wait_for("state.game_over");
    let status = b.eval("document.getElementById('status').textContent");
    assert_eq!(status, json!("White wins 64-0"));
}
