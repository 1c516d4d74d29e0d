//! Shared helpers for the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The repository's `data/` folder: the small public data sets that ship
/// with Annex (`data/SOURCES.md`). The default suite reads only these.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data")
}

/// The path of a file or folder of the repository's `data/`, which must
/// exist.
pub fn data_file(rel: &str) -> PathBuf {
    let p = data_dir().join(rel);
    assert!(
        p.exists(),
        "{} is missing from the repository's data folder (data/SOURCES.md lists it)",
        p.display()
    );
    p
}

/// Reads a file of the repository's `data/`.
pub fn read_data(rel: &str) -> String {
    let p = data_file(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {} ({e})", p.display()))
}

/// The folder of the full data sets (every WTHOR year, the Logistello
/// book games, the online games), laid out like `data/`: `$ANNEX_DATA`,
/// else `../shared/data` beside the checkout when it exists.
pub fn full_data_dir() -> Option<PathBuf> {
    match std::env::var_os("ANNEX_DATA") {
        Some(d) if !d.is_empty() => Some(PathBuf::from(d)),
        _ => {
            let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
            d.is_dir().then_some(d)
        }
    }
}

/// The path of `rel` in the full data sets, or `None` when there are none
/// (then a line on the terminal says that `test` skipped and how to run
/// it). With `ANNEX_DATA` set, a missing `rel` fails the test.
pub fn full_data(test: &str, rel: &str) -> Option<PathBuf> {
    let Some(dir) = full_data_dir() else {
        // Straight to the terminal: the test harness captures `eprintln!`.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "skipped {test}: it needs {rel} of the full data sets; \
             set ANNEX_DATA to a folder laid out like data/ that holds them"
        );
        return None;
    };
    let p = dir.join(rel);
    assert!(
        p.exists(),
        "{} is missing: {test} needs {rel} of the full data sets \
         (ANNEX_DATA names a folder laid out like data/)",
        p.display()
    );
    Some(p)
}

/// A fresh folder under the system's temporary folder for one test,
/// removed with everything in it when dropped (also when the test fails).
pub struct Scratch(PathBuf);

impl Scratch {
    /// `annex-{name}-{pid}`, emptied first if a killed run left it.
    pub fn new(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("annex-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
}

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Reads a small file of the repository: a fixture written for the tests
/// (`tests/data/rel`), else a file of the shipped data sets (`data/rel`).
pub fn fixture(rel: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let own = root.join("tests/data").join(rel);
    let p = if own.exists() {
        own
    } else {
        root.join("data").join(rel)
    };
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("cannot read the fixture {} ({e})", p.display()))
}

/// A running `annex` process driven over pipes: lines in, lines out with a
/// timeout, and the whole transcript kept for failure messages.
pub struct Annex {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
    /// Everything sent (`< `) and received (`> `), in order.
    pub transcript: Vec<String>,
}

/// The default wait for one reply line; generous for a loaded CI machine.
pub const REPLY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

impl Annex {
    /// Starts `annex` with `args` (e.g. `["--protocol", "gtp"]`).
    pub fn spawn(args: &[&str]) -> Annex {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_annex"));
        cmd.args(args);
        Annex::spawn_command(cmd)
    }

    /// Starts `cmd` (e.g. a shell that sets limits, then execs annex).
    pub fn spawn_command(mut cmd: std::process::Command) -> Annex {
        use std::io::BufRead;
        use std::process::Stdio;
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start annex");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut r = std::io::BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match r.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let l = String::from_utf8_lossy(&buf);
                        if tx
                            .send(l.trim_end_matches(['\n', '\r']).to_string())
                            .is_err()
                        {
                            break;
                        }
                    }
                }
            }
        });
        Annex {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            transcript: Vec::new(),
        }
    }

    /// The process id (for `/proc/<pid>/status`).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) {
        use std::io::Write;
        self.transcript.push(format!("< {line}"));
        let stdin = self.stdin.as_mut().expect("stdin open");
        // A closed pipe shows up as a missing reply in the caller.
        let _ = writeln!(stdin, "{line}");
        let _ = stdin.flush();
    }

    /// Sends raw bytes (for fuzzing: may be invalid UTF-8, no newline).
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        use std::io::Write;
        self.transcript
            .push(format!("< {}", String::from_utf8_lossy(bytes)));
        let stdin = self.stdin.as_mut().expect("stdin open");
        let _ = stdin.write_all(bytes);
        let _ = stdin.flush();
    }

    /// The next line, or `None` after `timeout`.
    pub fn recv(&mut self, timeout: std::time::Duration) -> Option<String> {
        let l = self.lines.recv_timeout(timeout).ok()?;
        self.transcript.push(format!("> {l}"));
        Some(l)
    }

    /// Panics with the transcript.
    pub fn fail(&self, why: &str) -> ! {
        let tail: Vec<&String> = self.transcript.iter().rev().take(60).collect();
        let tail: Vec<&str> = tail.into_iter().rev().map(|s| s.as_str()).collect();
        panic!(
            "{why}\n--- transcript (last 60 lines) ---\n{}",
            tail.join("\n")
        );
    }

    /// Lines up to and including the first for which `done` holds.
    pub fn until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        let mut got = Vec::new();
        loop {
            match self.recv(REPLY_TIMEOUT) {
                Some(l) => {
                    let end = done(&l);
                    got.push(l);
                    if end {
                        return got;
                    }
                }
                None => self.fail("no matching reply before the timeout"),
            }
        }
    }

    /// The lines up to `readyok` after sending `line` then `isready`.
    pub fn answer(&mut self, line: &str) -> Vec<String> {
        self.send(line);
        self.send("isready");
        let mut got = self.until_prefix("readyok");
        got.pop();
        got
    }

    /// Lines up to and including the first that starts with `prefix`.
    pub fn until_prefix(&mut self, prefix: &str) -> Vec<String> {
        let p = prefix.to_string();
        self.until(move |l| l.starts_with(&p))
    }

    /// The first line starting with `prefix` (earlier lines are skipped).
    pub fn expect_prefix(&mut self, prefix: &str) -> String {
        self.until_prefix(prefix).pop().expect("at least one line")
    }

    /// Asserts that no line arrives within `wait`.
    pub fn expect_silence(&mut self, wait: std::time::Duration) {
        if let Some(l) = self.recv(wait) {
            self.fail(&format!("unexpected line '{l}'"));
        }
    }

    /// Closes stdin and waits for the exit (at most `REPLY_TIMEOUT`);
    /// returns the remaining output lines and whether it exited with 0.
    pub fn finish(mut self) -> (Vec<String>, bool) {
        self.stdin = None;
        let mut rest = Vec::new();
        while let Some(l) = self.recv(REPLY_TIMEOUT) {
            rest.push(l);
        }
        let start = std::time::Instant::now();
        loop {
            match self.child.try_wait() {
                Ok(Some(st)) => return (rest, st.success()),
                Ok(None) if start.elapsed() < REPLY_TIMEOUT => {
                    std::thread::sleep(std::time::Duration::from_millis(10))
                }
                _ => {
                    let _ = self.child.kill();
                    self.fail("annex did not exit after end of input");
                }
            }
        }
    }
}

impl Drop for Annex {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Final disc difference for the side to move, empties to the winner.
fn final_diff(b: &annex::board::Board) -> i32 {
    let p = b.player.count_ones() as i32;
    let o = b.opponent.count_ones() as i32;
    let e = 64 - p - o;
    match p.cmp(&o) {
        std::cmp::Ordering::Greater => p - o + e,
        std::cmp::Ordering::Less => p - o - e,
        std::cmp::Ordering::Equal => 0,
    }
}

/// Exact score (discs, side to move) by a plain alpha-beta to the end, no
/// table, moves in square order: an oracle independent of the engine's
/// solver, for positions of up to ~14 empties.
pub fn plain_solve(b: &annex::board::Board, mut alpha: i32, beta: i32) -> i32 {
    use annex::board::{flips, legal_moves};
    let mut moves = legal_moves(b.player, b.opponent);
    if moves == 0 {
        if legal_moves(b.opponent, b.player) == 0 {
            return final_diff(b);
        }
        return -plain_solve(&b.pass(), -beta, -alpha);
    }
    let mut best = -65;
    while moves != 0 {
        let sq = moves.trailing_zeros() as usize;
        moves &= moves - 1;
        let c = b.play_flips(sq, flips(b.player, b.opponent, sq));
        let v = -plain_solve(&c, -beta, -alpha);
        if v > best {
            best = v;
            if v > alpha {
                alpha = v;
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    best
}
