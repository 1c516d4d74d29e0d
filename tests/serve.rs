//! `annex serve`: the real binary on a free port, driven over HTTP with a
//! small std::net client; the page itself in headless Chromium when it is
//! installed.

use crate::serve_util::{Page, Server, chromium_or_skip, open_events};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect()
}

/// Whether playing legal move number `ply * k % count` at each ply (the
/// pass when there is none) passes before the end of the game.
fn line_has_pass(k: usize) -> bool {
    use annex::moves::Move;
    use annex::position::Position;
    let rules = annex::rules::RuleSet::default();
    let mut pos = Position::start(&rules);
    for ply in 0..80 {
        if pos.is_game_over(&rules) {
            return false;
        }
        if pos.must_pass(&rules) {
            return true;
        }
        let legal = pos.legal_moves(&rules);
        let m: Move = legal.as_slice()[(ply * k) % legal.len()];
        pos = pos.play_unchecked(&rules, m);
    }
    false
}

#[test]
fn serve_plays_a_game_to_the_end_with_a_pass() {
    let srv = Server::start();
    let (id, mut st) = srv.session(json!({}));
    assert_eq!(st["legal"], json!(["d3", "c4", "f5", "e6"]));
    let k = (1..100)
        .find(|&k| line_has_pass(k))
        .expect("a line with a pass");
    let mut passes = 0;
    for ply in 0..80 {
        if st["game_over"] == json!(true) {
            break;
        }
        let mv = if st["must_pass"] == json!(true) {
            passes += 1;
            "pass".to_string()
        } else {
            let legal = strings(&st["legal"]);
            legal[(ply * k) % legal.len()].clone()
        };
        st = srv.post(&id, "move", json!({ "move": mv }));
    }
    assert_eq!(st["game_over"], json!(true), "{st}");
    assert!(passes > 0, "this line of play has a pass: {}", st["moves"]);
    assert!(strings(&st["moves"]).contains(&"pass".to_string()));
    let (x, o) = (
        st["discs"]["X"].as_i64().unwrap(),
        st["discs"]["O"].as_i64().unwrap(),
    );
    let score = st["result"]["score"].as_i64().unwrap();
    assert_eq!(score.signum(), (x - o).signum(), "{st}");
    // A pass when there is a move, a move after the end: refused.
    let err = srv.fails(
        "POST",
        &format!("/api/move?s={id}"),
        br#"{"move":"pass"}"#,
        400,
    );
    assert!(!err.is_empty());
    // Undo, redo and goto walk the game.
    let n = st["ply"].as_u64().unwrap();
    let back = srv.post(&id, "undo", json!({}));
    assert_eq!(back["ply"], json!(n - 1));
    assert_eq!(back["redo"].as_array().unwrap().len(), 1);
    let fwd = srv.post(&id, "redo", json!({}));
    assert_eq!(fwd["board"], st["board"]);
    let start = srv.post(&id, "goto", json!({ "ply": 0 }));
    assert_eq!(start["ply"], json!(0));
    assert_eq!(start["redo"], st["moves"]);
    let end = srv.post(&id, "goto", json!({ "ply": n }));
    assert_eq!(end["board"], st["board"]);
    let t = srv.raw("GET", &format!("/api/export?s={id}&format=transcript"), b"");
    assert_eq!(t.0, 200);
    assert_eq!(t.1.matches("pass").count(), passes);
}

#[test]
fn serve_engine_plays_either_colour() {
    let srv = Server::start();
    // The engine is X: it moves at once.
    let (id, _) = srv.session(json!({ "black": "engine", "depth": 2 }));
    let st = srv.idle(&id);
    assert_eq!(st["ply"], json!(1), "{st}");
    assert_eq!(st["side"], json!("O"));
    // O too: the engines play the game out.
    let st = srv.post(&id, "settings", json!({ "white": "engine", "depth": 1 }));
    assert_eq!(st["players"], json!({ "X": "engine", "O": "engine" }));
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut st = srv.idle(&id);
    while st["game_over"] != json!(true) && Instant::now() < deadline {
        st = srv.idle(&id);
    }
    assert_eq!(st["game_over"], json!(true), "{st}");
    assert!(st["evals"].as_array().unwrap().iter().any(Value::is_i64));
    let st = srv.post(
        &id,
        "settings",
        json!({ "black": "human", "white": "human" }),
    );
    assert_eq!(st["searching"], json!(false));
    // On the engine's turn (a deep search: no book move) a move from the
    // page is refused; Stop makes the engine play at once.
    let (id, _) = srv.session(json!({ "white": "engine", "depth": 40 }));
    let st = srv.post(&id, "move", json!({ "move": "f5" }));
    assert_eq!(st["search"], json!("play"), "{st}");
    srv.fails(
        "POST",
        &format!("/api/move?s={id}"),
        br#"{"move":"d6"}"#,
        409,
    );
    let t = Instant::now();
    srv.post(&id, "stop", json!({}));
    let st = srv.idle(&id);
    assert_eq!(st["ply"], json!(2), "{st}");
    assert!(t.elapsed() < Duration::from_secs(10));
    // Undo takes back the engine's reply and the page's move; redo both.
    let st = srv.post(&id, "undo", json!({}));
    assert_eq!(st["ply"], json!(0), "{st}");
    assert_eq!(st["searching"], json!(false), "{st}");
    let st = srv.post(&id, "redo", json!({}));
    assert_eq!(st["ply"], json!(2), "{st}");
}

#[test]
fn serve_closes_the_oldest_session_past_the_limit() {
    let srv = Server::start_with(&["--hash", "1", "--max-sessions", "1"]);
    let (a, _) = srv.session(json!({}));
    let mut events = open_events(&srv.addr, &a, Duration::from_secs(2));
    read_events(&mut events, Duration::from_secs(10), |_| true);
    let (b, _) = srv.session(json!({}));
    srv.fails("GET", &format!("/api/state?s={a}"), b"", 404);
    srv.ok("GET", &format!("/api/state?s={b}"), json!({}));
    // The closed page's stream says so and ends.
    let mut rest = String::new();
    let _ = events.read_to_string(&mut rest);
    assert!(rest.contains("event: closed"), "{rest}");
}

/// Reads events until `done` holds for a state or the time is up; the
/// states read.
fn read_events(
    r: &mut BufReader<TcpStream>,
    limit: Duration,
    mut done: impl FnMut(&Value) -> bool,
) -> Vec<Value> {
    let mut states = Vec::new();
    let end = Instant::now() + limit;
    let mut line = String::new();
    while Instant::now() < end {
        line.clear();
        match r.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(_) => continue,
        }
        if let Some(data) = line.strip_prefix("data: ") {
            let v: Value = serde_json::from_str(data.trim()).unwrap();
            let stop = done(&v);
            states.push(v);
            if stop {
                break;
            }
        } else if line.starts_with("HTTP/1.1") {
            assert!(line.contains("200"), "{line}");
        } else if line.starts_with("Content-Type") {
            assert!(line.contains("text/event-stream"), "{line}");
        }
    }
    states
}

#[test]
fn serve_streams_analysis_updates_and_stops() {
    let srv = Server::start();
    let (id, _) = srv.session(json!({}));
    let mut events = open_events(&srv.addr, &id, Duration::from_secs(2));
    let first = read_events(&mut events, Duration::from_secs(10), |_| true);
    assert_eq!(first[0]["searching"], json!(false), "{first:?}");
    let st = srv.post(
        &id,
        "settings",
        json!({ "analyze": true, "analyze_depth": 60 }),
    );
    assert_eq!(st["search"], json!("analyze"));
    // Until four hints at depth 10 or more, deeper than the first depth
    // seen (a fast machine may reach depth 10 before the first update).
    let mut first_depth = None;
    let states = read_events(&mut events, Duration::from_secs(60), |v| {
        let Some(d) = v["depth"].as_u64() else {
            return false;
        };
        let first = *first_depth.get_or_insert(d);
        v["hints"].as_array().unwrap().len() == 4 && d >= 10 && d > first
    });
    let last = states.last().expect("events");
    assert_eq!(last["hints"].as_array().unwrap().len(), 4, "{last}");
    let depths: std::collections::BTreeSet<u64> =
        states.iter().filter_map(|v| v["depth"].as_u64()).collect();
    assert!(depths.len() >= 2, "the hints deepen: {depths:?}");
    for h in last["hints"].as_array().unwrap() {
        assert!(h["score"].is_i64() && h["pv"].as_array().is_some_and(|p| !p.is_empty()));
    }
    let t = Instant::now();
    let st = srv.post(&id, "stop", json!({}));
    assert_eq!(st["searching"], json!(false));
    assert!(srv.idle(&id)["searching"] == json!(false));
    assert!(t.elapsed() < Duration::from_secs(5), "stop at once");
    // A move restarts the analysis of the new position.
    let st = srv.post(&id, "move", json!({ "move": "f5" }));
    assert_eq!(st["search"], json!("analyze"));
    let st = srv.post(&id, "settings", json!({ "analyze_depth": 4 }));
    assert_eq!(st["analyze_depth"], json!(4));
    let st = srv.idle(&id);
    assert_eq!(st["hints"].as_array().unwrap().len(), 3, "{st}");
    assert_eq!(st["depth"], json!(4));
}

#[test]
fn serve_rejects_bad_requests_with_json_errors() {
    let srv = Server::start();
    let (id, _) = srv.session(json!({}));
    let p = |w: &str| format!("/api/{w}?s={id}");
    srv.fails("GET", "/nothing", b"", 404);
    srv.fails("GET", "/../Cargo.toml", b"", 404);
    srv.fails("GET", "/%2e%2e/src/main.rs", b"", 404);
    srv.fails("GET", "/api/nothing", b"", 404);
    srv.fails("DELETE", "/api/state", b"", 405);
    srv.fails("POST", "/index.html", b"", 405);
    srv.fails("GET", "/api/state", b"", 400);
    srv.fails("GET", "/api/state?s=nosuch", b"", 404);
    srv.fails("POST", &p("move"), b"{not json", 400);
    srv.fails("POST", &p("move"), b"[1,2]", 400);
    srv.fails("POST", &p("move"), br#"{"move": 5}"#, 400);
    srv.fails("POST", &p("move"), br#"{"move": "z9"}"#, 400);
    srv.fails("POST", &p("move"), br#"{"move": "a1"}"#, 400);
    srv.fails("POST", &p("move"), b"{}", 400);
    srv.fails("POST", &p("goto"), br#"{"ply": 3}"#, 400);
    srv.fails("POST", &p("goto"), br#"{"ply": -1}"#, 400);
    srv.fails("POST", &p("settings"), br#"{"depth": 0}"#, 400);
    srv.fails("POST", &p("settings"), br#"{"depth": 1e9}"#, 400);
    srv.fails("POST", &p("settings"), br#"{"black": "robot"}"#, 400);
    srv.fails("POST", &p("settings"), br#"{"analyze": "yes"}"#, 400);
    srv.fails(
        "POST",
        &p("new"),
        br#"{"rules": {"start": "sideways"}}"#,
        400,
    );
    srv.fails("POST", &p("new"), br#"{"rules": {"gravity": "on"}}"#, 400);
    srv.fails("POST", &p("position"), br#"{"board": "XO"}"#, 400);
    srv.fails("POST", &p("position"), br#"{"transcript": "f5f5"}"#, 400);
    srv.fails("POST", &p("position"), br#"{"ggf": "(;GM[Chess];)"}"#, 400);
    srv.fails("GET", &format!("/api/export?s={id}&format=pdf"), b"", 400);
    let big = vec![b' '; 1 << 20];
    srv.fails("POST", &p("move"), &big, 413);
    // Nothing of that changed the game, and the server still answers.
    let st = srv.ok("GET", &p("state"), json!({}));
    assert_eq!(st["ply"], json!(0));
    assert_eq!(st["rules"]["start"], json!("diagonal"));
    let (code, page) = srv.raw("GET", "/", b"");
    assert_eq!(code, 200);
    assert!(page.contains("<script src=\"/app.js\">"));
}

#[test]
fn serve_sessions_are_independent_and_keep_their_rules() {
    let srv = Server::start();
    let (a, _) = srv.session(json!({}));
    let (b, _) = srv.session(json!({}));
    assert_ne!(a, b);
    srv.post(&a, "move", json!({ "move": "f5" }));
    assert_eq!(srv.idle(&b)["ply"], json!(0));
    // One-line flips: a square that brackets two lines asks for the line.
    let st = srv.post(
        &b,
        "position",
        json!({ "rules": { "flips": "one-line" }, "transcript": "f5f6e6" }),
    );
    assert_eq!(st["rules"]["flips"], json!("one-line"));
    let legal = strings(&st["legal"]);
    let lines: Vec<&String> = legal.iter().filter(|m| m.contains(':')).collect();
    assert!(!lines.is_empty(), "a move with several lines: {legal:?}");
    let sq = &lines[0][..2];
    srv.fails(
        "POST",
        &format!("/api/move?s={b}"),
        json!({ "move": sq }).to_string().as_bytes(),
        400,
    );
    let st = srv.post(&b, "move", json!({ "move": lines[0] }));
    assert_eq!(strings(&st["moves"]).last(), Some(lines[0]));
    // The free start: four placements in the centre.
    let st = srv.post(
        &a,
        "new",
        json!({ "rules": { "start": "free", "flips": "all" } }),
    );
    assert_eq!(st["discs"], json!({ "X": 0, "O": 0 }));
    assert_eq!(strings(&st["legal"]), ["d4", "e4", "d5", "e5"]);
    let st = srv.post(&a, "move", json!({ "move": "d4" }));
    assert_eq!(st["side"], json!("X"), "X places twice");
    assert_eq!(srv.idle(&b)["rules"]["start"], json!("diagonal"));
}

#[test]
fn serve_loads_and_saves_games() {
    let srv = Server::start();
    let (a, _) = srv.session(json!({}));
    let st = srv.post(&a, "position", json!({ "transcript": "f5d6c3d3c4f4" }));
    assert_eq!(st["ply"], json!(6));
    let (code, ggf) = srv.raw("GET", &format!("/api/export?s={a}&format=ggf"), b"");
    assert_eq!(code, 200);
    assert!(
        ggf.starts_with("(;GM[Othello]") && ggf.contains("B[f5]"),
        "{ggf}"
    );
    let (b, _) = srv.session(json!({}));
    let st2 = srv.post(&b, "position", json!({ "ggf": ggf }));
    assert_eq!(st2["board"], st["board"]);
    assert_eq!(st2["moves"], st["moves"]);
    // A board string and the side to move.
    let board = st["board"].as_str().unwrap();
    let st3 = srv.post(&b, "position", json!({ "board": format!("{board} O") }));
    assert_eq!(st3["board"], st["board"]);
    assert_eq!(st3["side"], json!("O"));
    assert_eq!(st3["ply"], json!(0));
}

#[test]
fn serve_page_in_headless_chromium() {
    let Some(browser) = chromium_or_skip("serve_page_in_headless_chromium") else {
        return;
    };
    let srv = Server::start();
    let profile = std::env::temp_dir().join(format!("annex-chromium-{}", std::process::id()));
    let url = format!(
        "http://{}/?moves=f5d6c3&white=human&analyze=1&depth=6&snapshot=1",
        srv.addr
    );
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--virtual-time-budget=20000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(&url)
        .stderr(Stdio::null())
        .output()
        .expect("cannot run chromium");
    let _ = std::fs::remove_dir_all(&profile);
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(
        dom.contains("data-ready=\"1\""),
        "the page set up its position: {dom}"
    );
    assert_eq!(dom.matches("class=\"sq").count(), 64, "64 squares");
    assert_eq!(
        dom.matches("class=\"disc X\"").count(),
        5 + 1,
        "X discs (and the counter's)"
    );
    let hints = dom.matches("class=\"hint").count();
    assert!(hints >= 4, "hints on the legal squares: {hints}");
    assert!(
        dom.contains("class=\"current\" data-key=\"c3X\""),
        "the move list"
    );
}

#[test]
fn terminal_help_lists_the_commands_and_no_banner_on_a_pipe() {
    let out = Command::new(env!("CARGO_BIN_EXE_annex"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(b"help\nquit\n")?;
            c.wait_with_output()
        })
        .expect("annex runs");
    let text = String::from_utf8_lossy(&out.stdout);
    for word in ["uci", "setoption", "nboard", "genmove", "annex serve"] {
        assert!(text.contains(word), "help names {word}: {text}");
    }
    // The banner is for a person at a terminal only.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let help = Command::new(env!("CARGO_BIN_EXE_annex"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("serve"));
}

#[test]
fn serve_reviews_the_game_for_the_graph() {
    let srv = Server::start();
    let (id, _) = srv.session(json!({}));
    srv.post(
        &id,
        "position",
        json!({ "transcript": "f5d6c3d3c4f4f6f3e6e7" }),
    );
    srv.post(&id, "goto", json!({ "ply": 4 }));
    let st = srv.post(&id, "review", json!({ "depth": 4 }));
    assert_eq!(st["search"], json!("review"));
    let st = srv.idle(&id);
    let evals = st["evals"].as_array().unwrap();
    assert_eq!(evals.len(), 11, "{st}");
    assert!(evals.iter().all(Value::is_i64), "every ply scored: {st}");
    assert_eq!(st["ply"], json!(4), "the review does not move the game");
    srv.fails(
        "POST",
        &format!("/api/review?s={id}"),
        br#"{"depth": 99}"#,
        400,
    );
}

#[test]
fn terminal_banner_when_stdin_is_a_terminal() {
    // util-linux `script` runs annex on a pseudo-terminal.
    if !std::path::Path::new("/usr/bin/script").exists() {
        eprintln!("skipped: terminal_banner_when_stdin_is_a_terminal needs /usr/bin/script");
        return;
    }
    let cmd = format!("{} </dev/tty", env!("CARGO_BIN_EXE_annex"));
    let mut child = Command::new("/usr/bin/script")
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("script runs");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"help\nquit\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Annex ") && text.contains("type 'help'"),
        "banner: {text}"
    );
    assert!(text.contains("genmove"), "help: {text}");
}

#[test]
fn serve_page_plays_and_streams_in_chromium() {
    let Some(Page { srv: _srv, mut b }) = Page::open(
        "serve_page_plays_and_streams_in_chromium",
        "?white=human&analyze=1&depth=4",
        "stream",
    ) else {
        return;
    };
    let hints = "document.querySelectorAll('.hint').length";
    let moves = "document.querySelectorAll('#moves li').length";
    b.wait_for(&format!(
        "Number(document.body.dataset.events) >= 1 && {hints} === 4"
    ));
    // A click plays f5; the stream brings the analysis of O's three moves.
    b.eval("document.getElementById('sq-f5').click()");
    b.wait_for(&format!("{moves} === 1 && {hints} === 3"));
    assert_eq!(
        b.eval("document.querySelectorAll('#sq-f5 .disc.X').length"),
        json!(1)
    );
    // The engine takes O and answers; undo takes back both moves.
    b.eval("const w = document.getElementById('white'); w.value = 'engine'; w.dispatchEvent(new Event('change'))");
    b.wait_for(&format!(
        "{moves} === 2 && document.getElementById('status').textContent.startsWith('Black (X) to move')"
    ));
    b.eval("document.getElementById('undo').click()");
    b.wait_for("document.querySelectorAll('#moves li.future').length === 2");
    assert_eq!(
        b.eval("document.getElementById('error').textContent"),
        json!("")
    );
}

#[test]
fn serve_reads_typed_bodies_and_refuses_unknown_fields() {
    let srv = Server::start();
    let (id, _) = srv.session(json!({}));
    let p = |w: &str| format!("/api/{w}?s={id}");
    // An unknown field, or one of the wrong type: a 400 naming it.
    for (what, body, field) in [
        ("settings", &br#"{"dpeth": 5}"#[..], "dpeth"),
        ("settings", br#"{"depth": "5"}"#, "depth"),
        ("settings", br#"{"black": "robot"}"#, "black"),
        ("move", br#"{"move": 5}"#, "move"),
        ("move", br#"{"move": "f5", "promote": "q"}"#, "promote"),
        ("goto", br#"{"ply": -1}"#, "ply"),
        ("undo", br#"{"steps": 2}"#, "steps"),
        ("new", br#"{"rules": "free"}"#, "rules"),
        ("new", br#"{"rules": {"start": 5}}"#, "rules"),
        ("position", br#"{"board": 7}"#, "board"),
    ] {
        let e = srv.fails("POST", &p(what), body, 400);
        assert!(e.starts_with(&format!("\"{field}\": ")), "{what}: {e}");
    }
    let e = srv.fails("POST", "/api/session", br#"{"colour": "black"}"#, 400);
    assert!(e.contains("colour"), "{e}");
    // A null field is one not given; an empty body is `{}`.
    let level = srv.ok("GET", &p("state"), json!({}))["level"].clone();
    let st = srv.post(&id, "settings", json!({ "depth": null, "analyze": null }));
    assert_eq!(st["level"], level, "{st}");
    let (code, _) = srv.raw("POST", &p("undo"), b"  ");
    assert_eq!(code, 200);
    // Nothing refused changed the game.
    let st = srv.ok("GET", &p("state"), json!({}));
    assert_eq!(st["ply"], json!(0), "{st}");
    // The event stream's head comes from the server's one answer writer.
    let mut events = open_events(&srv.addr, &id, Duration::from_secs(10));
    let mut head = String::new();
    loop {
        let mut line = String::new();
        events.read_line(&mut line).unwrap();
        if line == "\r\n" || line.is_empty() {
            break;
        }
        head += &line;
    }
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    for h in [
        "Content-Type: text/event-stream\r\n",
        "Cache-Control: no-store\r\n",
        "X-Content-Type-Options: nosniff\r\n",
        "Connection: close\r\n",
    ] {
        assert!(head.contains(h), "{h} in {head}");
    }
    assert!(!head.contains("Content-Length"), "{head}");
}
