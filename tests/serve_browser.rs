//! The page of `annex serve` in a real browser: headless Chromium driven
//! over the DevTools protocol, with mouse clicks and key presses as a
//! person makes them. Skipped when `/usr/bin/chromium` is not installed
//! (`apt-get install chromium`); the HTTP client is shared with the GGF
//! round trips of `ggf_rules`.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `annex serve --port 0`, killed on drop.
pub struct Server {
    child: Child,
    /// `127.0.0.1:port`.
    pub addr: String,
}

impl Server {
    pub fn start() -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_annex"))
            .args(["serve", "--port", "0", "--hash", "4"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start annex serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped stdout"))
            .read_line(&mut line)
            .expect("the URL line");
        let addr = line
            .trim()
            .strip_prefix("annex serve: http://")
            .and_then(|u| u.strip_suffix('/'))
            .unwrap_or_else(|| panic!("a URL line: {line:?}"))
            .to_string();
        Server { child, addr }
    }

    /// One request; the status and the body.
    pub fn raw(&self, method: &str, path: &str, body: &[u8]) -> (u16, String) {
        let mut s = TcpStream::connect(&self.addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.addr,
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        let _ = s.write_all(body);
        let mut text = String::new();
        let _ = s.read_to_string(&mut text);
        let status = text
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("no status line in {text:?}"));
        let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        (status, body.to_string())
    }

    /// A request that must succeed; its body.
    pub fn text(&self, method: &str, path: &str, body: &Value) -> String {
        let (code, text) = self.raw(method, path, body.to_string().as_bytes());
        assert_eq!(code, 200, "{method} {path} {body}: {text}");
        text
    }

    /// A JSON request that must succeed.
    pub fn ok(&self, method: &str, path: &str, body: Value) -> Value {
        let text = self.text(method, path, &body);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}"))
    }

    /// POST `/api/<what>?s=<id>`.
    pub fn post(&self, id: &str, what: &str, body: Value) -> Value {
        self.ok("POST", &format!("/api/{what}?s={id}"), body)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Debian's Chromium, if installed.
fn chromium() -> Option<&'static str> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
}

/// Chromium driven over the DevTools protocol on a pipe
/// (`--remote-debugging-pipe`: JSON messages ended by NUL on fds 3 and 4).
struct Browser {
    child: Child,
    to: std::process::ChildStdin,
    from: BufReader<std::process::ChildStdout>,
    session: String,
    next: u64,
    profile: std::path::PathBuf,
}

impl Browser {
    fn open(browser: &str, url: &str, name: &str) -> Browser {
        let profile =
            std::env::temp_dir().join(format!("annex-board-{name}-{}", std::process::id()));
        let script = format!(
            "exec {browser} --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
             --disable-background-networking --disable-component-update --disable-sync \
             --no-first-run --window-size=1280,1000 --user-data-dir={} \
             --remote-debugging-pipe '{url}' 3<&0 4>&1 0</dev/null 1>/dev/null",
            profile.display()
        );
        let mut cmd = Command::new("sh");
        cmd.args(["-c", &script])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        // Its own process group, so that `drop` ends the helpers too.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().expect("chromium starts");
        let to = child.stdin.take().unwrap();
        let from = BufReader::new(child.stdout.take().unwrap());
        let mut b = Browser {
            child,
            to,
            from,
            session: String::new(),
            next: 0,
            profile,
        };
        let targets = b.call("Target.getTargets", json!({})).expect("targets");
        let page = targets["targetInfos"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["type"] == json!("page"))
            .expect("a page")["targetId"]
            .clone();
        let attached = b
            .call(
                "Target.attachToTarget",
                json!({ "targetId": page, "flatten": true }),
            )
            .expect("attached");
        b.session = attached["sessionId"].as_str().unwrap().to_string();
        b
    }

    /// Sends a command (to the page once attached) and waits for its
    /// result, or its error.
    fn call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next += 1;
        let mut msg = json!({ "id": self.next, "method": method, "params": params });
        if !self.session.is_empty() {
            msg["sessionId"] = json!(self.session);
        }
        self.to.write_all(msg.to_string().as_bytes()).unwrap();
        self.to.write_all(b"\0").unwrap();
        self.to.flush().unwrap();
        loop {
            let mut buf = Vec::new();
            let n = self.from.read_until(0, &mut buf).expect("devtools pipe");
            assert!(n > 0, "chromium closed the pipe");
            buf.pop();
            let v: Value = serde_json::from_slice(&buf).unwrap();
            if v["id"] == json!(self.next) {
                return match v.get("error") {
                    Some(e) => Err(e.clone()),
                    None => Ok(v["result"].clone()),
                };
            }
        }
    }

    /// Evaluates a JavaScript expression in the page; its value (null
    /// while the page is loading or when it throws).
    fn eval(&mut self, expr: &str) -> Value {
        let params = json!({ "expression": expr, "returnByValue": true });
        match self.call("Runtime.evaluate", params) {
            Ok(r) if r.get("exceptionDetails").is_none() => r["result"]["value"].clone(),
            _ => Value::Null,
        }
    }

    /// Waits until `expr` is true in the page (30 s at most).
    fn wait_for(&mut self, expr: &str) {
        let end = Instant::now() + Duration::from_secs(30);
        while Instant::now() < end {
            if self.eval(expr) == json!(true) {
                return;
            }
            std::thread::sleep(Duration::from_millis(30));
        }
        let text = self.eval("document.body.innerText");
        panic!("timed out waiting for {expr}: {text}");
    }

    /// A real mouse click at a point of the element `selector` (`fx`, `fy`:
    /// fractions of its width and height).
    fn click_at(&mut self, selector: &str, fx: f64, fy: f64) {
        let js = format!(
            "(() => {{ const e = document.querySelector({sel}); e.scrollIntoView({{block: 'center'}});
               const r = e.getBoundingClientRect();
               return [r.left + r.width * {fx}, r.top + r.height * {fy}]; }})()",
            sel = json!(selector)
        );
        let p = self.eval(&js);
        let (x, y) = (p[0].as_f64().expect(selector), p[1].as_f64().unwrap());
        for kind in ["mousePressed", "mouseReleased"] {
            let ev = json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 });
            self.call("Input.dispatchMouseEvent", ev).expect("a click");
        }
    }

    fn click(&mut self, selector: &str) {
        self.click_at(selector, 0.5, 0.5);
    }

    /// A real key press: `key` with its key code, `modifiers` as CDP has
    /// them (2: Ctrl).
    fn key(&mut self, key: &str, code: u32, modifiers: u32) {
        for kind in ["rawKeyDown", "keyUp"] {
            let ev = json!({
                "type": kind, "key": key, "code": key, "modifiers": modifiers,
                "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code,
            });
            self.call("Input.dispatchKeyEvent", ev).expect("a key");
        }
    }

    /// Reloads the page (the old page is marked, so that a wait cannot
    /// mistake it for the new one).
    fn reload(&mut self) {
        self.eval("document.body.dataset.restored = 'reloading'");
        self.call("Page.reload", json!({})).expect("reload");
    }

    fn navigate(&mut self, url: &str) {
        self.eval("document.body.dataset.restored = 'reloading'");
        self.call("Page.navigate", json!({ "url": url }))
            .expect("navigate");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
        for _ in 0..20 {
            let _ = std::fs::remove_dir_all(&self.profile);
            if !self.profile.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

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
    let Some(browser) = chromium() else {
        eprintln!("skipped: needs /usr/bin/chromium (apt-get install chromium)");
        return;
    };
    let srv = Server::start();
    let mut b = Browser::open(
        browser,
        &format!("http://{}/?level=depth:2", srv.addr),
        "game",
    );
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
    let Some(browser) = chromium() else {
        eprintln!("skipped: needs /usr/bin/chromium (apt-get install chromium)");
        return;
    };
    let srv = Server::start();
    let url = format!("http://{}/?moves={GAME}", srv.addr);
    let mut b = Browser::open(browser, &url, "browse");
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
    let Some(browser) = chromium() else {
        eprintln!("skipped: needs /usr/bin/chromium (apt-get install chromium)");
        return;
    };
    let srv = Server::start();
    let url = format!(
        "http://{}/?level=depth:2&tie=second&scoring=count",
        srv.addr
    );
    let mut b = Browser::open(browser, &url, "reload");
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
    let Some(browser) = chromium() else {
        eprintln!("skipped: needs /usr/bin/chromium (apt-get install chromium)");
        return;
    };
    let srv = Server::start();
    // O a1, X b1, X to move: X has no move and must pass; O (a person
    // here) then has c1.
    let board = format!("OX{}%20X", "-".repeat(62));
    let url = format!("http://{}/?board={board}&white=human", srv.addr);
    let mut b = Browser::open(browser, &url, "pass");
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
