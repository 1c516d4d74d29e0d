//! The threads that read an engine's output, bounded whatever the engine
//! prints.
//!
//! * stdout becomes a queue of at most [`QUEUE_LINES`] lines, each stamped
//!   with the instant it was read (so a deadline holds even when lines
//!   keep coming: a line read after it is no answer in time). A full queue
//!   stops the reading, and the pipe then stops the engine: an engine that
//!   floods its output cannot grow the referee's memory.
//! * A line holds at most [`MAX_LINE_BYTES`] bytes: a longer one (output
//!   without a newline) ends the reading with [`Text::TooLong`], which the
//!   referee reports as a protocol error.
//! * stderr is read to its end (an engine blocked on a full stderr pipe
//!   would look hung) and logged at debug level, lines cut to
//!   [`MAX_LINE_BYTES`].

use crossbeam_channel::{Receiver, bounded};
use std::io::{BufRead, BufReader, Read};
use std::time::Instant;

/// Longest line an engine may print, in bytes (without its newline).
pub const MAX_LINE_BYTES: usize = 16 * 1024;

/// Most lines read ahead of the referee.
pub const QUEUE_LINES: usize = 256;

/// How many characters of a line an error message quotes.
const HEAD_CHARS: usize = 80;

/// The text of one line of output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Text {
    /// A UTF-8 line, without its line end.
    Utf8(String),
    /// A line that is not UTF-8, read lossily.
    Lossy(String),
    /// More than [`MAX_LINE_BYTES`] bytes without a newline: the start of
    /// it (lossy, at most 80 characters). Nothing is read after it.
    TooLong(String),
}

/// One line of output and when it was read.
#[derive(Clone, Debug)]
pub struct Line {
    /// Its text.
    pub text: Text,
    /// When the reader thread had it whole.
    pub at: Instant,
}

/// The first [`HEAD_CHARS`] characters of `bytes`, read lossily.
fn head(bytes: &[u8]) -> String {
    let b = &bytes[..bytes.len().min(4 * HEAD_CHARS)];
    String::from_utf8_lossy(b)
        .chars()
        .take(HEAD_CHARS)
        .collect()
}

/// Reads the next line of `r` into `buf` (cleared first), reading at most
/// [`MAX_LINE_BYTES`] + 1 bytes. `None` at the end of the output.
///
/// # Errors
/// A read error of the pipe.
pub fn read_line(r: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<Option<Text>> {
    buf.clear();
    let n = r
        .by_ref()
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() != Some(&b'\n') && buf.len() > MAX_LINE_BYTES {
        return Ok(Some(Text::TooLong(head(buf))));
    }
    while matches!(buf.last(), Some(b'\n' | b'\r')) {
        buf.pop();
    }
    Ok(Some(match String::from_utf8(std::mem::take(buf)) {
        Ok(s) => Text::Utf8(s),
        Err(e) => Text::Lossy(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }))
}

/// Starts the thread reading `stdout` into a bounded queue of stamped
/// lines; the queue disconnects at the end of the output, after a line
/// that is too long, or on a read error.
///
/// # Errors
/// The thread cannot be started.
pub fn spawn_stdout(
    stdout: impl Read + Send + 'static,
    label: &str,
) -> std::io::Result<Receiver<Line>> {
    let (tx, rx) = bounded(QUEUE_LINES);
    let l = label.to_string();
    std::thread::Builder::new()
        .name(format!("{label}-out"))
        .spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut buf = Vec::new();
            while let Ok(Some(text)) = read_line(&mut r, &mut buf) {
                log::trace!("{l} > {text:?}");
                let last = matches!(text, Text::TooLong(_));
                let line = Line {
                    text,
                    at: Instant::now(),
                };
                if tx.send(line).is_err() || last {
                    break;
                }
            }
        })?;
    Ok(rx)
}

/// Starts the thread that reads `stderr` to its end and logs it.
pub fn spawn_stderr(stderr: impl Read + Send + 'static, label: &str) {
    let l = label.to_string();
    let _ = std::thread::Builder::new()
        .name(format!("{label}-err"))
        .spawn(move || {
            let mut r = BufReader::new(stderr);
            let mut buf = Vec::new();
            while let Ok(Some(text)) = read_line(&mut r, &mut buf) {
                let (Text::Utf8(s) | Text::Lossy(s) | Text::TooLong(s)) = text;
                log::debug!("{l} stderr: {s}");
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn lines_are_bounded() {
        let mut data = b"one\r\ntwo\n\xff\xfe\n".to_vec();
        data.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES));
        data.extend(b"\n");
        data.extend(std::iter::repeat_n(b'y', MAX_LINE_BYTES + 10));
        let mut r = Cursor::new(data);
        let mut buf = Vec::new();
        let mut next = || read_line(&mut r, &mut buf).unwrap();
        assert_eq!(next(), Some(Text::Utf8("one".into())));
        assert_eq!(next(), Some(Text::Utf8("two".into())));
        assert_eq!(next(), Some(Text::Lossy("\u{fffd}\u{fffd}".into())));
        // Exactly the longest line, then one longer.
        assert_eq!(next(), Some(Text::Utf8("x".repeat(MAX_LINE_BYTES))));
        assert_eq!(next(), Some(Text::TooLong("y".repeat(HEAD_CHARS))));
        // A last line without a newline is a line.
        let mut r = Cursor::new(b"a\nlast".to_vec());
        assert_eq!(
            read_line(&mut r, &mut buf).unwrap(),
            Some(Text::Utf8("a".into()))
        );
        assert_eq!(
            read_line(&mut r, &mut buf).unwrap(),
            Some(Text::Utf8("last".into()))
        );
        assert_eq!(read_line(&mut r, &mut buf).unwrap(), None);
    }
}
