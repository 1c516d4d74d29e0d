//! Shared helpers for the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The shared data folder: `$ANNEX_DATA`, else `../shared/data` beside the
/// checkout.
pub fn data_dir() -> PathBuf {
    if let Ok(d) = std::env::var("ANNEX_DATA") {
        return PathBuf::from(d);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data")
}

/// Reads a file of the big shared data sets (`../shared/data`, or
/// `$ANNEX_DATA`), panicking with a message that says so when it is
/// missing.
pub fn read_data(rel: &str) -> String {
    let p = data_dir().join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}): this test needs the shared data sets \
             (../shared/data beside the repository, or set ANNEX_DATA)",
            p.display()
        )
    })
}

/// The path of a file or folder of the big shared data sets, which must
/// exist (the panic says what is missing and where it was looked for).
pub fn data_file(rel: &str) -> PathBuf {
    let p = data_dir().join(rel);
    assert!(
        p.exists(),
        "{} is missing: this test needs the shared data sets \
         (../shared/data beside the repository, or set ANNEX_DATA)",
        p.display()
    );
    p
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

/// Reads a small fixture of the repository's `tests/data`.
pub fn fixture(rel: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel);
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
