//! `annex serve` under hostile or careless clients: the real binary on a
//! free loopback port, real sockets, bounded counts and short timeouts.

use crate::serve_util::open_events;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running `annex serve --port 0` (under `ulimit -n` when asked),
/// killed on drop; its stderr is collected.
struct Srv {
    child: Child,
    addr: String,
    stderr: Arc<Mutex<String>>,
}

impl Srv {
    fn start(args: &[&str]) -> Srv {
        Srv::start_with(None, args, None)
    }

    /// Starts the server with `nofile` open files at most, and `path` as
    /// its PATH.
    fn start_with(nofile: Option<u32>, args: &[&str], path: Option<&str>) -> Srv {
        let bin = env!("CARGO_BIN_EXE_annex");
        let mut cmd = match nofile {
            Some(n) => {
                let mut c = Command::new("/bin/sh");
                c.arg("-c")
                    .arg(format!("ulimit -n {n} && exec \"$0\" \"$@\""))
                    .arg(bin);
                c
            }
            None => Command::new(bin),
        };
        cmd.args(["serve", "--port", "0"]).args(args);
        if !args.contains(&"--hash") {
            cmd.args(["--hash", "1"]);
        }
        if let Some(p) = path {
            cmd.env("PATH", p);
        }
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cannot start annex serve");
        let stderr = Arc::new(Mutex::new(String::new()));
        let err = child.stderr.take().unwrap();
        let sink = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let mut s = sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().strip_prefix("annex serve: http://");
        let url = url.unwrap_or_else(|| panic!("no URL line: {line:?}"));
        let port = url.trim_end_matches('/').rsplit(':').next().unwrap();
        Srv {
            child,
            addr: format!("127.0.0.1:{port}"),
            stderr,
        }
    }

    fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// One request with the given extra headers; status and body.
    fn request(&self, method: &str, path: &str, headers: &str, body: &str) -> (u16, String) {
        let mut s = TcpStream::connect(&self.addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\n{headers}Content-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        read_answer(&mut s)
    }

    fn json(&self, method: &str, path: &str, body: Value) -> (u16, Value) {
        let headers = "Content-Type: application/json\r\n";
        let (code, text) = self.request(method, path, headers, &body.to_string());
        let v = serde_json::from_str(&text).unwrap_or(Value::Null);
        (code, v)
    }

    fn ok(&self, method: &str, path: &str, body: Value) -> Value {
        let (code, v) = self.json(method, path, body);
        assert_eq!(code, 200, "{method} {path}: {v}");
        v
    }

    /// A new session with `settings`.
    fn session(&self, settings: Value) -> String {
        let v = self.ok("POST", "/api/session", settings);
        v["session"].as_str().unwrap().to_string()
    }

    /// The event stream of session `id`, after its first state.
    fn events(&self, id: &str) -> BufReader<TcpStream> {
        let mut r = open_events(&self.addr, id, Duration::from_secs(10));
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        assert!(line.contains(" 200 "), "{line}");
        while !line.starts_with("data: ") {
            line.clear();
            assert!(r.read_line(&mut line).unwrap() > 0, "the stream ended");
        }
        r
    }

    /// CPU seconds the server has used.
    fn cpu(&self) -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap();
        let f: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        let ticks: f64 = f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap();
        ticks / 100.0
    }

    /// Resident memory of the server in KiB.
    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }
}

impl Drop for Srv {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads an answer to its end: status and body (status 0 when the
/// connection gave none).
fn read_answer(s: &mut TcpStream) -> (u16, String) {
    let mut bytes = Vec::new();
    let _ = s.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).to_string();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, body.to_string())
}

/// Waits until `f` holds (checked every 50 ms), at most `limit`.
fn eventually(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    f()
}

/// Connections that send the start of a head and then nothing.
fn idle_connections(addr: &str, n: usize) -> Vec<TcpStream> {
    let mut held = Vec::new();
    for _ in 0..n {
        if let Ok(mut s) = TcpStream::connect(addr) {
            let _ = s.write_all(b"GET / HTTP/1.1\r\nX: ");
            held.push(s);
        }
    }
    held
}

/// How many of `conns` the server has closed (end of stream, a reset, or
/// an answer such as 408 or 503), looking 200 ms at each.
fn closed_by_server(conns: &mut [TcpStream]) -> usize {
    let mut closed = 0;
    for s in conns {
        s.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let mut buf = [0u8; 256];
        match s.read(&mut buf) {
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            _ => closed += 1,
        }
    }
    closed
}

#[test]
fn serve_survives_running_out_of_descriptors() {
    let mut srv = Srv::start_with(Some(64), &["--idle-timeout", "2"], None);
    let mut held = idle_connections(&srv.addr, 100);
    assert_eq!(held.len(), 100);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        srv.alive(),
        "the server exited: {}",
        srv.stderr.lock().unwrap()
    );
    // A quick client gets through while they wait: the connection that
    // waited longest makes room.
    assert_eq!(srv.request("GET", "/", "", "").0, 200);
    // The server holds no more of them than its descriptors allow.
    let closed = closed_by_server(&mut held);
    assert!(closed >= 50, "{closed} of 100 closed");
    drop(held);
    // Idle clients time out.
    let mut held = idle_connections(&srv.addr, 20);
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(closed_by_server(&mut held), 20, "after the timeout");
    drop(held);
    assert_eq!(srv.request("GET", "/", "", "").0, 200);
    assert!(srv.alive());
}

#[test]
fn serve_long_requests_do_not_starve_others_and_free_their_slots() {
    let srv = Srv::start(&["--max-connections", "16"]);
    let id = srv.session(json!({ "analyze": true }));
    let streams: Vec<_> = (0..8).map(|_| srv.events(&id)).collect();
    // Half the connections are for streams and waits: one more is refused.
    let (code, _) = srv.json("GET", &format!("/api/events?s={id}"), json!({}));
    assert_eq!(code, 503);
    let (code, _) = srv.json("GET", &format!("/api/state?s={id}&wait=idle"), json!({}));
    assert_eq!(code, 503);
    srv.ok("GET", &format!("/api/state?s={id}"), json!({}));
    drop(streams);
    // A closed stream frees its slot at once (well before a keepalive).
    let start = Instant::now();
    let freed = eventually(Duration::from_secs(3), || {
        let mut line = String::new();
        let _ = open_events(&srv.addr, &id, Duration::from_secs(5)).read_line(&mut line);
        line.contains(" 200 ")
    });
    assert!(freed, "no slot after {:?}", start.elapsed());
    srv.ok("POST", &format!("/api/stop?s={id}"), json!({}));
}

#[test]
fn serve_answers_stop_while_many_clients_wait() {
    let srv = Srv::start(&[]);
    let id = srv.session(json!({ "analyze": true }));
    let waits: Vec<_> = (0..70)
        .map(|_| {
            let mut s = TcpStream::connect(&srv.addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            write!(
                s,
                "GET /api/state?s={id}&wait=idle HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                srv.addr
            )
            .unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let state = srv.ok("POST", &format!("/api/stop?s={id}"), json!({}));
    assert_eq!(state["searching"], false);
    for mut s in waits {
        let (code, body) = read_answer(&mut s);
        assert_eq!(code, 200, "{body}");
    }
}

#[test]
fn serve_bounds_the_request_line_and_headers() {
    let srv = Srv::start(&[]);
    // Two requests on one kept-alive connection.
    let mut s = TcpStream::connect(&srv.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let get = format!("GET /style.css HTTP/1.1\r\nHost: {}\r\n\r\n", srv.addr);
    s.write_all(format!("{get}{get}").as_bytes()).unwrap();
    s.shutdown(std::net::Shutdown::Write).unwrap();
    let (_, text) = read_answer(&mut s);
    // The second answer follows the first one's body.
    assert_eq!(text.matches("HTTP/1.1 200 OK").count(), 1, "{text}");
    let base = srv.rss_kib();
    // A long request line: 414, then the connection closes.
    let mut s = TcpStream::connect(&srv.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut line = b"GET /".to_vec();
    line.resize(64 << 10, b'a');
    s.write_all(&line).unwrap();
    assert_eq!(read_answer(&mut s).0, 414);
    // Many small headers: 431.
    let mut s = TcpStream::connect(&srv.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut head = format!("GET / HTTP/1.1\r\nHost: {}\r\n", srv.addr);
    head.push_str(&"X-a: b\r\n".repeat(4000));
    let _ = s.write_all(head.as_bytes());
    assert_eq!(read_answer(&mut s).0, 431);
    // A client that keeps sending a line is cut off; nothing is kept.
    let mut s = TcpStream::connect(&srv.addr).unwrap();
    s.set_write_timeout(Some(Duration::from_secs(10))).unwrap();
    let chunk = vec![b'a'; 1 << 20];
    let _ = s.write_all(b"GET /");
    let mut sent = 0;
    while sent < 64 && s.write_all(&chunk).is_ok() {
        sent += 1;
    }
    assert!(sent < 64, "the server read 64 MiB of request line");
    drop(s);
    assert_eq!(srv.request("GET", "/", "", "").0, 200);
    let grown = srv.rss_kib().saturating_sub(base);
    assert!(grown < 16 << 10, "RSS grew by {grown} KiB");
}

#[test]
fn serve_refuses_other_pages_and_hosts() {
    let srv = Srv::start(&["--max-sessions", "1"]);
    let id = srv.session(json!({}));
    let port = srv.addr.rsplit(':').next().unwrap();
    for _ in 0..8 {
        let mut s = TcpStream::connect(&srv.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let body = r#"{"analyze":true}"#;
        write!(
            s,
            "POST /api/session HTTP/1.1\r\nHost: evil.example\r\nOrigin: http://evil.example\r\n\
             Content-Type: text/plain\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        assert_eq!(read_answer(&mut s).0, 403);
    }
    let evil_origin = "Origin: http://evil.example\r\nContent-Type: application/json\r\n";
    let (code, _) = srv.request("POST", "/api/session", evil_origin, "{}");
    assert_eq!(code, 403);
    let (code, _) = srv.request("POST", "/api/session", "Content-Type: text/plain\r\n", "{}");
    assert_eq!(code, 415);
    // DNS rebinding: a page under its own name cannot read the answers.
    let mut s = TcpStream::connect(&srv.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let req = format!("GET /api/state?s={id} HTTP/1.1\r\nHost: evil.example:{port}\r\n\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let (code, body) = read_answer(&mut s);
    assert_eq!(code, 403, "{body}");
    // The user's session is still there; the page's own origin works.
    srv.ok("GET", &format!("/api/state?s={id}"), json!({}));
    let own = format!("Origin: http://localhost:{port}\r\nContent-Type: application/json\r\n");
    let (code, body) = srv.request("POST", &format!("/api/undo?s={id}"), &own, "{}");
    assert_eq!(code, 200, "{body}");
}

#[test]
fn serve_stops_the_search_of_a_page_that_went_away() {
    let srv = Srv::start(&["--orphan-timeout", "1", "--max-sessions", "2"]);
    let id = srv.session(json!({ "analyze": true }));
    let stream = srv.events(&id);
    drop(stream);
    // Orphaned after a second: the server goes quiet.
    std::thread::sleep(Duration::from_millis(2500));
    let cpu = srv.cpu();
    std::thread::sleep(Duration::from_millis(1000));
    let used = srv.cpu() - cpu;
    assert!(used < 0.4, "{used} s of CPU in 1 s with no page");
    // The page comes back: the analysis starts again.
    let state = srv.ok("GET", &format!("/api/state?s={id}"), json!({}));
    assert_eq!(state["searching"], true, "{state}");
    srv.ok("POST", &format!("/api/stop?s={id}"), json!({}));
    // Reloading another page many times never closes a page that is open.
    let open_page = srv.session(json!({}));
    let mut open_stream = srv.events(&open_page);
    for _ in 0..8 {
        let reloaded = srv.session(json!({}));
        drop(srv.events(&reloaded));
    }
    srv.ok("GET", &format!("/api/state?s={open_page}"), json!({}));
    open_stream
        .get_ref()
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let mut rest = String::new();
    let _ = open_stream.read_to_string(&mut rest);
    assert!(!rest.contains("event: closed"), "{rest}");
}

#[test]
fn serve_bounds_the_search_time_of_a_session() {
    let srv = Srv::start(&["--search-budget", "1"]);
    let id = srv.session(json!({ "analyze": true }));
    let _stream = srv.events(&id);
    let stopped = eventually(Duration::from_secs(10), || {
        let (_, v) = srv.json("GET", &format!("/api/state?s={id}"), json!({}));
        v["searching"] == false
    });
    assert!(stopped, "still searching past its search time");
    let v = srv.ok(
        "POST",
        &format!("/api/settings?s={id}"),
        json!({ "analyze": true }),
    );
    assert_eq!(v["searching"], false, "{v}");
    assert!(
        v["message"].as_str().unwrap_or("").contains("search time"),
        "{v}"
    );
}

#[test]
fn serve_takes_the_hash_range_of_the_other_tools() {
    let mut srv = Srv::start(&["--hash", "8192"]);
    assert!(srv.alive());
    let out = Command::new(env!("CARGO_BIN_EXE_annex"))
        .args(["serve", "--port", "0", "--hash", "65537"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}

/// The children of process `pid` that are zombies.
fn zombie_children(pid: u32) -> Vec<String> {
    let mut zombies = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return zombies;
    };
    for t in tasks.flatten() {
        let children = std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
        for c in children.split_whitespace() {
            let stat = std::fs::read_to_string(format!("/proc/{c}/stat")).unwrap_or_default();
            if stat
                .rsplit_once(") ")
                .is_some_and(|(_, r)| r.starts_with('Z'))
            {
                zombies.push(c.to_string());
            }
        }
    }
    zombies
}

#[test]
fn serve_open_without_a_desktop_says_so_and_leaves_no_zombie() {
    let dir = std::env::temp_dir().join(format!("annex-serve-open-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let opener = dir.join("xdg-open");
    std::fs::write(&opener, "#!/bin/sh\nexit 3\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
    let srv = Srv::start_with(None, &["--open"], dir.to_str());
    let said = eventually(Duration::from_secs(5), || {
        srv.stderr
            .lock()
            .unwrap()
            .contains("could not open a browser")
    });
    assert!(said, "stderr: {}", srv.stderr.lock().unwrap());
    let reaped = eventually(Duration::from_secs(2), || {
        zombie_children(srv.child.id()).is_empty()
    });
    assert!(reaped, "zombies: {:?}", zombie_children(srv.child.id()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn serve_warns_when_it_listens_beyond_loopback() {
    let srv = Srv::start(&["--host", "0.0.0.0"]);
    let warned = eventually(Duration::from_secs(5), || {
        srv.stderr.lock().unwrap().contains("not on loopback")
    });
    assert!(warned, "stderr: {}", srv.stderr.lock().unwrap());
    assert_eq!(srv.request("GET", "/", "", "").0, 200);
}
