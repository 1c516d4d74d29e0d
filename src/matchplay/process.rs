//! An engine child process seen as lines: a reader thread turns its stdout
//! into a channel of lines, so every wait has a deadline and a silent or
//! dead engine can never hang the referee.

use crossbeam_channel::{Receiver, RecvTimeoutError};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// Why talking to an engine failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The process exited or closed its output.
    Crash(String),
    /// No answer before the deadline.
    Timeout(String),
    /// An answer that breaks the protocol.
    Protocol(String),
    /// A setting the engine cannot take (an option value out of the range
    /// it declared).
    Setting(String),
}

impl Failure {
    /// The detail, without the kind.
    pub fn message(&self) -> &str {
        match self {
            Failure::Crash(s)
            | Failure::Timeout(s)
            | Failure::Protocol(s)
            | Failure::Setting(s) => s,
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Crash(s) => write!(f, "crash: {s}"),
            Failure::Timeout(s) => write!(f, "timeout: {s}"),
            Failure::Protocol(s) => write!(f, "protocol error: {s}"),
            Failure::Setting(s) => write!(f, "bad setting: {s}"),
        }
    }
}

/// A running engine process.
pub struct EngineProcess {
    label: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    dead: bool,
}

/// One line of an engine's output: its text, or (`Err`) the text read
/// lossily when the bytes were not UTF-8.
type Line = Result<String, String>;

/// Splits a command line into words: whitespace separates, single and
/// double quotes group, a backslash escapes the next character.
pub fn split_command(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut has = false;
    let mut quote: Option<char> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, c) if c.is_whitespace() => {
                if has {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            (None, '\'' | '"') => {
                quote = Some(c);
                has = true;
            }
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => cur.push(c),
            (_, '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
                has = true;
            }
            (_, c) => {
                cur.push(c);
                has = true;
            }
        }
    }
    if has {
        out.push(cur);
    }
    out
}

impl EngineProcess {
    /// Starts `command` (split by [`split_command`]); `label` names it in logs.
    ///
    /// # Errors
    /// The command is empty or cannot be started.
    pub fn spawn(command: &str, label: &str) -> Result<EngineProcess, Failure> {
        let words = split_command(command);
        let Some((prog, args)) = words.split_first() else {
            return Err(Failure::Crash("empty engine command".into()));
        };
        let mut child = Command::new(prog)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Failure::Crash(format!("cannot start '{command}': {e}")))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, rx) = crossbeam_channel::unbounded();
        let l = label.to_string();
        std::thread::Builder::new()
            .name(format!("{label}-out"))
            .spawn(move || {
                let mut r = BufReader::new(stdout);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match r.read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                    while matches!(buf.last(), Some(b'\n' | b'\r')) {
                        buf.pop();
                    }
                    let line = String::from_utf8(std::mem::take(&mut buf))
                        .map_err(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
                    log::trace!("{l} > {line:?}");
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| Failure::Crash(format!("cannot start reader thread: {e}")))?;
        let l = label.to_string();
        // Engines log on stderr; keep it out of the match output.
        let _ = std::thread::Builder::new()
            .name(format!("{label}-err"))
            .spawn(move || {
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    log::debug!("{l} stderr: {line}");
                }
            });
        Ok(EngineProcess {
            label: label.to_string(),
            stdin: child.stdin.take(),
            child,
            lines: rx,
            dead: false,
        })
    }

    /// The label given at spawn.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Whether the process is known dead (output closed, write failed or
    /// exited).
    pub fn is_dead(&mut self) -> bool {
        if !self.dead
            && let Ok(Some(_)) = self.child.try_wait()
        {
            self.dead = true;
        }
        self.dead
    }

    /// Sends one line.
    ///
    /// # Errors
    /// The pipe is closed (the engine died).
    pub fn send(&mut self, line: &str) -> Result<(), Failure> {
        log::trace!("{} < {line}", self.label);
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(Failure::Crash("input closed".into()));
        };
        let r = stdin
            .write_all(line.as_bytes())
            .and_then(|_| stdin.write_all(b"\n"))
            .and_then(|_| stdin.flush());
        r.map_err(|e| {
            self.dead = true;
            Failure::Crash(format!("cannot write to engine: {e}"))
        })
    }

    /// The next line, waiting until `deadline`.
    ///
    /// # Errors
    /// [`Failure::Timeout`] past the deadline, [`Failure::Crash`] at EOF,
    /// [`Failure::Protocol`] for a line that is not UTF-8.
    pub fn recv(&mut self, deadline: Instant) -> Result<String, Failure> {
        self.recv_line(deadline)?.map_err(|lossy| {
            Failure::Protocol(format!(
                "{} printed invalid UTF-8: '{}'",
                self.label,
                lossy.escape_debug()
            ))
        })
    }

    /// The next line, with the text read lossily (`Err`) when it is not
    /// UTF-8: for the handshake, where an author's name in Latin-1 is no
    /// reason to refuse an engine.
    ///
    /// # Errors
    /// As [`EngineProcess::recv`], bar the UTF-8 check.
    pub fn recv_line(&mut self, deadline: Instant) -> Result<Line, Failure> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => Err(Failure::Timeout(format!(
                "no answer from {} in time",
                self.label
            ))),
            Err(RecvTimeoutError::Disconnected) => {
                self.dead = true;
                let status = self
                    .child
                    .wait_timeout_ms(200)
                    .map(|s| format!(" ({s})"))
                    .unwrap_or_default();
                Err(Failure::Crash(format!(
                    "{} closed its output{status}",
                    self.label
                )))
            }
        }
    }

    /// Reads lines until `pred` accepts one (returned), with a deadline.
    ///
    /// # Errors
    /// As [`EngineProcess::recv`].
    pub fn recv_until(
        &mut self,
        deadline: Instant,
        mut pred: impl FnMut(&str) -> bool,
    ) -> Result<String, Failure> {
        loop {
            let l = self.recv(deadline)?;
            if pred(&l) {
                return Ok(l);
            }
        }
    }

    /// Drops every line already received.
    pub fn drain(&mut self) {
        while self.lines.try_recv().is_ok() {}
    }

    /// The lines already received, without waiting (lossy text for lines
    /// that are not UTF-8).
    pub fn pending(&mut self) -> Vec<String> {
        std::iter::from_fn(|| self.lines.try_recv().ok())
            .map(|l| l.unwrap_or_else(|e| e))
            .collect()
    }

    /// Closes stdin (engines quit at EOF), waits `grace`, then kills.
    pub fn shutdown(&mut self, quit_line: Option<&str>, grace: Duration) {
        if let Some(q) = quit_line {
            let _ = self.send(q);
        }
        self.stdin = None;
        if self
            .child
            .wait_timeout_ms(grace.as_millis() as u64)
            .is_none()
        {
            self.kill();
        }
    }

    /// Kills the process at once.
    pub fn kill(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.dead = true;
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if !self.dead {
            self.shutdown(None, Duration::from_millis(500));
        } else {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

trait WaitTimeout {
    fn wait_timeout_ms(&mut self, ms: u64) -> Option<std::process::ExitStatus>;
}

impl WaitTimeout for Child {
    /// Polls `try_wait` for up to `ms` milliseconds (std has no timed wait).
    fn wait_timeout_ms(&mut self, ms: u64) -> Option<std::process::ExitStatus> {
        let end = Instant::now() + Duration::from_millis(ms);
        loop {
            if let Ok(Some(s)) = self.try_wait() {
                return Some(s);
            }
            if Instant::now() >= end {
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split() {
        assert_eq!(split_command("a b  c"), ["a", "b", "c"]);
        assert_eq!(split_command("'a b' \"c d\" e\\ f"), ["a b", "c d", "e f"]);
        assert_eq!(split_command("x ''"), ["x", ""]);
        assert!(split_command("   ").is_empty());
    }
}
