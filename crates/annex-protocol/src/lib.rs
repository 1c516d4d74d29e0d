//! The engine protocols: the UCI-style protocol of `protocol.md` (with its
//! UGI dialect), NBoard v2 and GTP v2, all over one [`Engine`].
//!
//! Threads (see `STYLE.md`, "Threading model"):
//! * the **reader** thread sends each stdin line down a channel; it picks the
//!   protocol from the first command (unless forced) and trips the engine's
//!   stop handle at once on the protocol's stop-like commands (`stop`,
//!   `quit`, NBoard `ping`, GTP `# interrupt`), so they never queue behind a
//!   search. At end of input a finite search (depth, node or time limit)
//!   still runs to its end and is answered; an infinite or pondering one,
//!   or one without any limit, is stopped; then the loop ends.
//! * the **protocol** thread (the caller of [`run`]) selects over input lines
//!   and [`EngineEvent`]s; it is the only writer of stdout, one flushed line
//!   at a time. A closed stdout (broken pipe) ends the session cleanly.

pub mod command;
mod gtp;
mod input;
mod nboard;
pub mod reply;
mod uci;

use annex_core::engine::{Engine, EngineEvent, StopHandle};
use crossbeam_channel::{Receiver, Sender, select, unbounded};
pub use input::MAX_LINE_BYTES;
use input::{LineReader, ReadLine};
use std::fmt;
use std::io::{self, BufRead, Write};
use std::str::FromStr;
use std::time::{Duration, Instant};

/// Which protocol a session speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// The UCI-style protocol of `protocol.md` (also UGI).
    Uci,
    /// NBoard protocol v2.
    NBoard,
    /// Go Text Protocol v2 (GoGui, Quarry, gogui-twogtp).
    Gtp,
}

/// A protocol name that is none of `uci`, `ugi`, `nboard`, `gtp`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol '{0}' (expected uci, nboard or gtp)")]
pub struct ParseProtocolError(pub String);

impl FromStr for Protocol {
    type Err = ParseProtocolError;
    fn from_str(s: &str) -> Result<Protocol, ParseProtocolError> {
        match s.to_ascii_lowercase().as_str() {
            "uci" | "ugi" => Ok(Protocol::Uci),
            "nboard" => Ok(Protocol::NBoard),
            "gtp" => Ok(Protocol::Gtp),
            _ => Err(ParseProtocolError(s.to_string())),
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Protocol::Uci => "uci",
            Protocol::NBoard => "nboard",
            Protocol::Gtp => "gtp",
        })
    }
}

/// How many characters of an input token an error line quotes at most.
pub const QUOTE_MAX_CHARS: usize = 80;

/// `s` as an error line quotes it: whole when it has at most
/// [`QUOTE_MAX_CHARS`] characters, else its first ones (cut on a char
/// boundary) and `…(N bytes)`, N being the whole token's length, so that a
/// huge token never makes a huge reply.
pub fn quote_token(s: &str) -> String {
    match s.char_indices().nth(QUOTE_MAX_CHARS) {
        None => s.to_string(),
        Some((cut, _)) => format!("{}…({} bytes)", &s[..cut], s.len()),
    }
}

/// The protocol a first command belongs to: `nboard` → NBoard; a GTP
/// command (with or without a numeric id) → GTP; anything else (`uci`,
/// `ugi`, `isready`, `position`, …) → the UCI-style protocol. Command
/// words are case-insensitive.
pub fn detect(first_line: &str) -> Protocol {
    let mut words = first_line.split_whitespace();
    let mut w = words.next().unwrap_or("");
    if w.eq_ignore_ascii_case("nboard") {
        return Protocol::NBoard;
    }
    if !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()) {
        w = words.next().unwrap_or("");
        if w.is_empty() {
            return Protocol::Uci;
        }
    }
    let w = w.to_ascii_lowercase();
    if gtp::is_gtp_command(&w) && w != "quit" {
        Protocol::Gtp
    } else {
        Protocol::Uci
    }
}

/// The stdout writer: one line at a time, flushed.
pub struct Out {
    w: Box<dyn Write + Send>,
}

impl Out {
    /// Wraps a writer.
    pub fn new(w: Box<dyn Write + Send>) -> Out {
        Out { w }
    }

    /// Writes `s` and a newline, then flushes. Control characters in `s`
    /// other than tab and newline are written as escapes (`\u{0}`).
    ///
    /// # Errors
    /// The write failed (e.g. a broken pipe).
    pub fn line(&mut self, s: &str) -> io::Result<()> {
        // Echoed input never brings raw control bytes (NUL, ESC) along.
        let s = input::escape_controls(s);
        log::debug!("> {s}");
        self.w.write_all(s.as_bytes())?;
        self.w.write_all(b"\n")?;
        self.w.flush()
    }
}

/// What the reader thread sends.
#[derive(Debug)]
enum Input {
    Protocol(Protocol),
    Line(String),
    /// A line over [`MAX_LINE_BYTES`]: its start and length as an error
    /// quotes them.
    TooLong(String),
    Eof,
}

/// Whether the loop goes on after a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

/// One protocol's command handler.
trait Handler {
    /// Handles one input line (never blank).
    fn line(&mut self, line: &str, out: &mut Out) -> io::Result<Flow>;
    /// Handles an engine event.
    fn event(&mut self, ev: EngineEvent, out: &mut Out) -> io::Result<()>;
    /// End of input: finish what runs (see `protocol.md`, "End of input").
    fn eof(&mut self, out: &mut Out) -> io::Result<()>;
    /// Refuses a line that is not handled (one over the length limit),
    /// of which `head` is the start, with the error line `msg`.
    fn reject(&mut self, head: &str, msg: &str, out: &mut Out) -> io::Result<()>;
}

/// Whether `line` is stop-like under `p`: the reader trips the stop handle.
/// Command words are case-insensitive.
fn is_stop_like(p: Protocol, line: &str) -> bool {
    let t = line.trim();
    let mut words = t.split_whitespace();
    let first = words.next().unwrap_or("").to_ascii_lowercase();
    match p {
        Protocol::Uci => first == "stop" || first == "quit" || first == "exit",
        Protocol::NBoard => first == "ping" || first == "quit" || first == "exit",
        Protocol::Gtp => {
            let cmd = if first.bytes().all(|b| b.is_ascii_digit()) {
                words.next().unwrap_or("").to_ascii_lowercase()
            } else {
                first
            };
            cmd == "quit" || cmd == "exit" || t.starts_with("# interrupt")
        }
    }
}

/// Whether `line` is `quit` (or `exit`) under `p`: the reader also marks
/// the session as ending, so that a wait for the table ends at once.
fn is_quit(p: Protocol, line: &str) -> bool {
    let mut words = line.split_whitespace();
    let mut first = words.next().unwrap_or("");
    if p == Protocol::Gtp && first.bytes().all(|b| b.is_ascii_digit()) {
        first = words.next().unwrap_or("");
    }
    first.eq_ignore_ascii_case("quit") || first.eq_ignore_ascii_case("exit")
}

fn reader(
    input: Box<dyn BufRead + Send>,
    tx: Sender<Input>,
    stop: StopHandle,
    forced: Option<Protocol>,
) {
    let mut proto = forced;
    if let Some(p) = proto {
        let _ = tx.send(Input::Protocol(p));
    }
    let mut lines = LineReader::new(input);
    let mut buf = Vec::new();
    loop {
        let too_long = match lines.next_line(&mut buf) {
            ReadLine::Eof => break,
            ReadLine::Line => None,
            ReadLine::TooLong(len) => Some(len),
        };
        let line = String::from_utf8_lossy(&buf);
        if let Some(len) = too_long {
            log::debug!("< ({len} bytes, over the limit)");
            // The head names the command (and a GTP id) in the error.
            let head = match line.char_indices().nth(QUOTE_MAX_CHARS) {
                Some((cut, _)) => format!("{}…({len} bytes)", &line[..cut]),
                None => line.to_string(),
            };
            let p = proto.unwrap_or_else(|| detect(&head));
            if proto.replace(p).is_none() && tx.send(Input::Protocol(p)).is_err() {
                return;
            }
            if tx.send(Input::TooLong(head)).is_err() {
                return;
            }
            continue;
        }
        log::debug!("< {line}");
        if line.trim().is_empty() {
            continue;
        }
        let p = match proto {
            Some(p) => p,
            None => {
                let p = detect(&line);
                proto = Some(p);
                if tx.send(Input::Protocol(p)).is_err() {
                    return;
                }
                p
            }
        };
        if is_quit(p, &line) {
            stop.quit();
        } else if is_stop_like(p, &line) {
            stop.stop();
        }
        if tx.send(Input::Line(line.into_owned())).is_err() {
            return;
        }
    }
    let _ = tx.send(Input::Eof);
}

/// Runs a session on stdin/stdout until `quit` or end of input, over
/// `engine` (set up by the caller: tunables, options such as `annex
/// --option Tie=second`), whose events arrive on `events`.
///
/// # Errors
/// Only I/O errors other than a closed stdout.
pub fn run(
    forced: Option<Protocol>,
    engine: Engine,
    events: Receiver<EngineEvent>,
) -> io::Result<()> {
    let input = Box::new(io::BufReader::new(io::stdin()));
    let output = Box::new(io::stdout());
    match run_with(input, output, forced, engine, events) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

/// Runs a session on the given input and output over `engine`, whose
/// events arrive on `ev_rx`.
///
/// # Errors
/// I/O errors of the output.
pub fn run_with(
    input: Box<dyn BufRead + Send>,
    output: Box<dyn Write + Send>,
    forced: Option<Protocol>,
    engine: Engine,
    ev_rx: Receiver<EngineEvent>,
) -> io::Result<()> {
    let stop = engine.stop_handle();
    let (in_tx, in_rx) = unbounded();
    std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || reader(input, in_tx, stop, forced))?;
    let mut out = Out::new(output);
    // The table and the book, while the GUI is still introducing itself.
    let mut engine = engine;
    engine.warm_up();
    let proto = match in_rx.recv() {
        Ok(Input::Protocol(p)) => p,
        _ => return Ok(()),
    };
    log::info!("protocol {proto}");
    let mut handler: Box<dyn Handler> = match proto {
        Protocol::Uci => Box::new(uci::Uci::new(engine, ev_rx.clone())),
        Protocol::NBoard => Box::new(nboard::NBoard::new(engine, ev_rx.clone())),
        Protocol::Gtp => Box::new(gtp::Gtp::new(engine, ev_rx.clone())),
    };
    loop {
        select! {
            recv(in_rx) -> msg => match msg {
                Ok(Input::Line(l)) => {
                    if l.trim().eq_ignore_ascii_case("help") {
                        write_help(proto, &mut out)?;
                    } else if handler.line(&l, &mut out)? == Flow::Quit {
                        return Ok(());
                    }
                }
                Ok(Input::TooLong(head)) => {
                    let msg = format!(
                        "line '{head}' is over the limit of {MAX_LINE_BYTES} bytes; ignored"
                    );
                    handler.reject(&head, &msg, &mut out)?;
                }
                Ok(Input::Protocol(_)) => {}
                Ok(Input::Eof) | Err(_) => {
                    handler.eof(&mut out)?;
                    return Ok(());
                }
            },
            recv(ev_rx) -> ev => {
                if let Ok(ev) = ev {
                    handler.event(ev, &mut out)?;
                }
            }
        }
    }
}

/// Answers `help` (a person at the terminal) with the command list; under
/// GTP as one reply.
fn write_help(proto: Protocol, out: &mut Out) -> io::Result<()> {
    let text = include_str!("help.txt").trim_end();
    match proto {
        Protocol::Gtp => out.line(&format!("= {text}\n")),
        _ => out.line(text),
    }
}

/// How long a wait for the table goes before a progress line, and between
/// two of them.
const TABLE_NOTE_EVERY: Duration = Duration::from_secs(3);

/// Waits until the engine's table is whole. Meanwhile, every
/// [`TABLE_NOTE_EVERY`], `note` turns a progress text into a line to
/// write, and after such a line a last one says when the table was ready.
/// Returns `false` when `quit` came meanwhile (the wait ends then; the
/// `quit` is handled next).
pub(crate) fn await_table(
    engine: &mut Engine,
    out: &mut Out,
    note: &dyn Fn(&str) -> String,
) -> io::Result<bool> {
    let start = Instant::now();
    let mut next_note = start + TABLE_NOTE_EVERY;
    // The allocation's age when the wait began, and its size, once noted.
    let mut noted = None;
    loop {
        if engine.quit_requested() {
            return Ok(false);
        }
        let Some(p) = engine.wait_table(Duration::from_millis(100)) else {
            break;
        };
        if Instant::now() >= next_note {
            next_note += TABLE_NOTE_EVERY;
            out.line(&note(&format!(
                "allocating the hash table: {} of {} MiB after {} ms",
                p.done_mb,
                p.total_mb,
                p.elapsed.as_millis()
            )))?;
            noted = Some((p.elapsed.saturating_sub(start.elapsed()), p.total_mb));
        }
    }
    if let Some((age, mb)) = noted {
        out.line(&note(&format!(
            "hash table of {mb} MiB ready after {} ms",
            (age + start.elapsed()).as_millis()
        )))?;
    }
    Ok(true)
}

/// Hands the engine's events to `handler` until a `BestMove` (which it
/// sees last). The engine promises exactly one `BestMove` per `go`, so
/// the wait is a plain blocking receive; it ends early only if the engine
/// is gone.
fn until_best<H: Handler + ?Sized>(
    handler: &mut H,
    events: &Receiver<EngineEvent>,
    out: &mut Out,
) -> io::Result<()> {
    for ev in events.iter() {
        let done = matches!(ev, EngineEvent::BestMove(_));
        handler.event(ev, out)?;
        if done {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        for (l, p) in [
            ("uci", Protocol::Uci),
            ("ugi", Protocol::Uci),
            ("isready", Protocol::Uci),
            ("position startpos", Protocol::Uci),
            ("perft 3", Protocol::Uci),
            ("nboard 2", Protocol::NBoard),
            ("protocol_version", Protocol::Gtp),
            ("1 boardsize 8", Protocol::Gtp),
            ("genmove b", Protocol::Gtp),
            ("gogui-rules_game_id", Protocol::Gtp),
            ("quit", Protocol::Uci),
            ("7", Protocol::Uci),
            ("NBoard 2", Protocol::NBoard),
            ("Protocol_Version", Protocol::Gtp),
            ("UCI", Protocol::Uci),
        ] {
            assert_eq!(detect(l), p, "{l}");
        }
    }

    #[test]
    fn quoting() {
        assert_eq!(quote_token("f5"), "f5");
        let exact = "x".repeat(QUOTE_MAX_CHARS);
        assert_eq!(quote_token(&exact), exact);
        let long = "é".repeat(1000);
        let q = quote_token(&long);
        assert!(q.starts_with(&"é".repeat(QUOTE_MAX_CHARS)));
        assert!(q.ends_with("…(2000 bytes)"), "{q}");
        assert_eq!(
            q.chars().count(),
            QUOTE_MAX_CHARS + "…(2000 bytes)".chars().count()
        );
    }

    #[test]
    fn stop_words() {
        assert!(is_stop_like(Protocol::Uci, "stop"));
        assert!(is_stop_like(Protocol::Uci, "STOP"));
        assert!(is_stop_like(Protocol::Gtp, "3 Quit"));
        assert!(!is_stop_like(Protocol::Uci, "ping 1"));
        assert!(is_stop_like(Protocol::NBoard, "ping 3"));
        assert!(!is_stop_like(Protocol::NBoard, "stop"));
        assert!(is_stop_like(Protocol::Gtp, "12 quit"));
        assert!(is_stop_like(Protocol::Gtp, "# interrupt"));
        assert!(!is_stop_like(Protocol::Gtp, "genmove b"));
    }
}
