//! An engine child process seen as lines: a reader thread turns its stdout
//! into a bounded queue of lines (see [`super::reader`]), so every wait has
//! a deadline and a silent, dead or flooding engine can never hang the
//! referee or grow its memory. The engine runs in a process group of its
//! own, ended with it.

use super::reader::{self, MAX_LINE_BYTES, Text};
use crate::protocol::quote_token;
use crossbeam_channel::{Receiver, RecvTimeoutError};
use std::io::Write;
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

/// A running engine process, in a process group of its own (so that
/// whatever it starts ends with it).
pub struct EngineProcess {
    label: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<reader::Line>,
    dead: bool,
    /// Whether the process group was sent SIGKILL.
    group_ended: bool,
}

/// One line of an engine's output, as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineText {
    /// A UTF-8 line.
    Utf8(String),
    /// A line whose bytes were not UTF-8, read lossily.
    Lossy(String),
}

impl LineText {
    /// The text, however it was read.
    pub fn into_text(self) -> String {
        match self {
            LineText::Utf8(s) | LineText::Lossy(s) => s,
        }
    }
}

/// Most lines an exchange other than a search may bring (the handshake,
/// `isready`, `ping`, a GTP reply) before the engine is taken to be
/// flooding its output.
pub const MAX_REPLY_LINES: usize = 10_000;

/// An engine command line that does not split into words: a quote left
/// open or a backslash at its end.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("engine command '{0}' has an unbalanced quote or a trailing backslash")]
pub struct SplitError(pub String);

/// Splits a command line into words as a POSIX shell does (by
/// [`shlex::split`]): whitespace separates, single and double quotes group,
/// a backslash escapes the next character, and a `#` that starts a word
/// starts a comment.
///
/// # Errors
/// [`SplitError`] for a quote left open or a trailing backslash.
pub fn split_command(s: &str) -> Result<Vec<String>, SplitError> {
    shlex::split(s).ok_or_else(|| SplitError(quote_token(s)))
}

impl EngineProcess {
    /// Starts `command` (split by [`split_command`]) in a new process
    /// group; `label` names it in logs.
    ///
    /// # Errors
    /// The command is empty or cannot be started.
    pub fn spawn(command: &str, label: &str) -> Result<EngineProcess, Failure> {
        let words = split_command(command).map_err(|e| Failure::Crash(e.to_string()))?;
        let Some((prog, args)) = words.split_first() else {
            return Err(Failure::Crash("empty engine command".into()));
        };
        let mut cmd = Command::new(prog);
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd
            .spawn()
            .map_err(|e| Failure::Crash(format!("cannot start '{command}': {e}")))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let mut engine = EngineProcess {
            label: label.to_string(),
            stdin: child.stdin.take(),
            child,
            lines: crossbeam_channel::never(),
            dead: false,
            group_ended: false,
        };
        engine.lines = reader::spawn_stdout(stdout, label)
            .map_err(|e| Failure::Crash(format!("cannot start reader thread: {e}")))?;
        // Engines log on stderr; keep it out of the match output.
        reader::spawn_stderr(stderr, label);
        Ok(engine)
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
    /// [`Failure::Protocol`] for a line that is not UTF-8 or too long.
    pub fn recv(&mut self, deadline: Instant) -> Result<String, Failure> {
        match self.recv_line(deadline)? {
            LineText::Utf8(s) => Ok(s),
            LineText::Lossy(lossy) => Err(Failure::Protocol(format!(
                "{} printed invalid UTF-8: '{}'",
                self.label,
                quote_token(&lossy.escape_debug().to_string())
            ))),
        }
    }

    /// The next line, with the text read lossily ([`LineText::Lossy`])
    /// when it is not UTF-8: for the handshake, where an author's name in Latin-1 is no
    /// reason to refuse an engine. A line read after `deadline` is no
    /// answer in time, however many lines came before it.
    ///
    /// # Errors
    /// As [`EngineProcess::recv`], bar the UTF-8 check.
    pub fn recv_line(&mut self, deadline: Instant) -> Result<LineText, Failure> {
        let line = match self.lines.recv_deadline(deadline) {
            Ok(l) if l.at <= deadline => l,
            Ok(_) | Err(RecvTimeoutError::Timeout) => {
                return Err(Failure::Timeout(format!(
                    "no answer from {} in time",
                    self.label
                )));
            }
            Err(RecvTimeoutError::Disconnected) => {
                self.dead = true;
                let status = self
                    .child
                    .wait_timeout_ms(200)
                    .map(|s| format!(" ({s})"))
                    .unwrap_or_default();
                return Err(Failure::Crash(format!(
                    "{} closed its output{status}",
                    self.label
                )));
            }
        };
        match line.text {
            Text::Utf8(s) => Ok(LineText::Utf8(s)),
            Text::Lossy(s) => Ok(LineText::Lossy(s)),
            Text::TooLong(head) => Err(Failure::Protocol(format!(
                "{} printed a line of more than {MAX_LINE_BYTES} bytes ('{}…')",
                self.label,
                head.escape_debug()
            ))),
        }
    }

    /// Reads lines until `pred` accepts one (returned), with a deadline and
    /// at most [`MAX_REPLY_LINES`] lines; `what` names the awaited answer.
    ///
    /// # Errors
    /// As [`EngineProcess::recv`], and [`Failure::Protocol`] past
    /// [`MAX_REPLY_LINES`] lines.
    pub fn recv_until(
        &mut self,
        deadline: Instant,
        what: &str,
        mut pred: impl FnMut(&str) -> bool,
    ) -> Result<String, Failure> {
        for _ in 0..MAX_REPLY_LINES {
            let l = self.recv(deadline)?;
            if pred(&l) {
                return Ok(l);
            }
        }
        Err(self.flooding(what))
    }

    /// The failure of an engine that printed [`MAX_REPLY_LINES`] lines
    /// without `what`.
    pub fn flooding(&self, what: &str) -> Failure {
        Failure::Protocol(format!(
            "{} printed {MAX_REPLY_LINES} lines without {what}",
            self.label
        ))
    }

    /// Drops every line received so far (not those that keep coming).
    pub fn drain(&mut self) {
        for _ in 0..self.lines.len() {
            let _ = self.lines.try_recv();
        }
    }

    /// The lines received so far, without waiting (lossy text for lines
    /// that are not UTF-8, the start of a line that is too long).
    pub fn pending(&mut self) -> Vec<String> {
        (0..self.lines.len())
            .map_while(|_| self.lines.try_recv().ok())
            .map(|l| match l.text {
                Text::Utf8(s) | Text::Lossy(s) | Text::TooLong(s) => s,
            })
            .collect()
    }

    /// Closes stdin (engines quit at EOF), waits `grace`, then kills; ends
    /// the process group either way.
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
        self.end_group();
    }

    /// Kills the process and its process group at once.
    pub fn kill(&mut self) {
        self.stdin = None;
        self.end_group();
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.dead = true;
    }

    /// Sends SIGKILL to the engine's process group: the processes the
    /// engine started (a shell's children, helpers) end with it. Std has
    /// no call for it, so `kill` of the shell does it.
    fn end_group(&mut self) {
        if self.group_ended {
            return;
        }
        self.group_ended = true;
        #[cfg(unix)]
        {
            let pgid = self.child.id();
            let r = Command::new("/bin/sh")
                .arg("-c")
                .arg(format!("kill -s KILL -- -{pgid} 2>/dev/null"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            if let Err(e) = r {
                log::warn!("cannot end the process group of {}: {e}", self.label);
            }
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if !self.dead {
            self.shutdown(None, Duration::from_millis(500));
        } else {
            self.end_group();
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
        let ok = |s: &str| split_command(s).unwrap();
        assert_eq!(ok("a b  c"), ["a", "b", "c"]);
        assert_eq!(ok("'a b' \"c d\" e\\ f"), ["a b", "c d", "e f"]);
        assert_eq!(ok("x ''"), ["x", ""]);
        assert!(ok("   ").is_empty());
    }

    #[test]
    fn split_refuses_unbalanced_quotes() {
        for bad in ["engine 'a b", "engine \"a", "engine a\\"] {
            let e = split_command(bad).unwrap_err();
            assert_eq!(e, SplitError(bad.to_string()));
            assert!(e.to_string().contains("unbalanced quote"), "{e}");
        }
    }
}
