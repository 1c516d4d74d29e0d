//! Shared helpers for the tests of `annex serve`: the real binary on a
//! free loopback port with a small std::net HTTP client, and headless
//! Chromium driven over the DevTools protocol.
#![allow(dead_code)]

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
    /// `annex serve --port 0 --hash 4`.
    pub fn start() -> Server {
        Server::start_with(&["--hash", "4"])
    }

    /// `annex serve --port 0` with `args`.
    pub fn start_with(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_annex"))
            .args(["serve", "--port", "0"])
            .args(args)
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
        assert!(addr.starts_with("127.0.0.1:"), "binds loopback: {addr}");
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
        // A refused body may close the connection before it is all sent.
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

    /// A JSON request that must fail with `code` and a JSON error.
    pub fn fails(&self, method: &str, path: &str, body: &[u8], code: u16) -> String {
        let (got, text) = self.raw(method, path, body);
        assert_eq!(got, code, "{method} {path}: {text}");
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        v["error"].as_str().expect("an error message").to_string()
    }

    /// A new session with `settings`; its id and state.
    pub fn session(&self, settings: Value) -> (String, Value) {
        let v = self.ok("POST", "/api/session", settings);
        (
            v["session"].as_str().unwrap().to_string(),
            v["state"].clone(),
        )
    }

    /// POST `/api/<what>?s=<id>`.
    pub fn post(&self, id: &str, what: &str, body: Value) -> Value {
        self.ok("POST", &format!("/api/{what}?s={id}"), body)
    }

    /// The state once no search runs.
    pub fn idle(&self, id: &str) -> Value {
        self.ok("GET", &format!("/api/state?s={id}&wait=idle"), json!({}))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Opens the event stream of session `id` on the server at `addr` (reads
/// time out after `timeout`); the answer is not read yet.
pub fn open_events(addr: &str, id: &str, timeout: Duration) -> BufReader<TcpStream> {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(timeout)).unwrap();
    write!(s, "GET /api/events?s={id} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    BufReader::new(s)
}

/// Debian's Chromium, if installed.
pub fn chromium() -> Option<&'static str> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
}

/// Debian's Chromium, or `None` after a note that `test` is skipped.
pub fn chromium_or_skip(test: &str) -> Option<&'static str> {
    let found = chromium();
    if found.is_none() {
        eprintln!("skipped: {test} needs /usr/bin/chromium (apt-get install chromium)");
    }
    found
}

/// A fresh `annex serve` and its page in Chromium (the browser closes
/// first).
pub struct Page {
    pub b: Browser,
    pub srv: Server,
}

impl Page {
    /// The page `/{query}` of a new server, or `None` after a note that
    /// `test` is skipped; `name` names the browser profile.
    pub fn open(test: &str, query: &str, name: &str) -> Option<Page> {
        let browser = chromium_or_skip(test)?;
        let srv = Server::start();
        let url = format!("http://{}/{query}", srv.addr);
        let b = Browser::open(browser, &url, name);
        Some(Page { b, srv })
    }
}

/// Chromium driven over the DevTools protocol on a pipe
/// (`--remote-debugging-pipe`: JSON messages ended by NUL on fds 3 and 4).
pub struct Browser {
    child: Child,
    to: std::process::ChildStdin,
    from: BufReader<std::process::ChildStdout>,
    session: String,
    next: u64,
    profile: std::path::PathBuf,
}

impl Browser {
    pub fn open(browser: &str, url: &str, name: &str) -> Browser {
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
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
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
    pub fn eval(&mut self, expr: &str) -> Value {
        let params = json!({ "expression": expr, "returnByValue": true });
        match self.call("Runtime.evaluate", params) {
            Ok(r) if r.get("exceptionDetails").is_none() => r["result"]["value"].clone(),
            _ => Value::Null,
        }
    }

    /// Waits until `expr` is true in the page (60 s at most: a loaded
    /// machine can be slow, and a hang still fails).
    pub fn wait_for(&mut self, expr: &str) {
        let end = Instant::now() + Duration::from_secs(60);
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
    pub fn click_at(&mut self, selector: &str, fx: f64, fy: f64) {
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

    pub fn click(&mut self, selector: &str) {
        self.click_at(selector, 0.5, 0.5);
    }

    /// A real key press: `key` with its key code, `modifiers` as CDP has
    /// them (2: Ctrl).
    pub fn key(&mut self, key: &str, code: u32, modifiers: u32) {
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
    pub fn reload(&mut self) {
        self.eval("document.body.dataset.restored = 'reloading'");
        self.call("Page.reload", json!({})).expect("reload");
    }

    pub fn navigate(&mut self, url: &str) {
        self.eval("document.body.dataset.restored = 'reloading'");
        self.call("Page.navigate", json!({ "url": url }))
            .expect("navigate");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Chromium's helper processes share its process group (they could
        // otherwise outlive it and write into the profile after it is
        // removed): the whole group goes.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Files may still be closing: retry until the profile is gone.
        for _ in 0..20 {
            let _ = std::fs::remove_dir_all(&self.profile);
            if !self.profile.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}
