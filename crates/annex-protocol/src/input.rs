//! Input lines as the protocols see them: at most [`MAX_LINE_BYTES`]
//! bytes each, ended by `\n`, `\r\n` or a lone `\r`, the stream's leading
//! UTF-8 byte order mark dropped. A longer line is read to its end (its
//! bytes discarded, none kept beyond the limit) and reported as too long,
//! so that no line makes the engine hold more than the limit.

use std::io::{self, BufRead};

/// The longest input line in bytes (1 MiB), its line end not counted.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// What [`LineReader::next_line`] read.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum ReadLine {
    /// End of input (or a read error): no line.
    Eof,
    /// A line of at most the limit, in the buffer.
    Line,
    /// A line over the limit, of this many bytes; the buffer holds its
    /// first [`MAX_LINE_BYTES`] bytes.
    TooLong(u64),
}

/// Splits a byte stream into bounded lines.
pub(super) struct LineReader<R> {
    input: R,
    limit: usize,
    /// The last line ended with `\r`: a `\n` right after it belongs to it.
    after_cr: bool,
    /// The first line is still to come: it may start with a byte order mark.
    at_start: bool,
}

impl<R: BufRead> LineReader<R> {
    pub(super) fn new(input: R) -> LineReader<R> {
        LineReader::with_limit(input, MAX_LINE_BYTES)
    }

    pub(super) fn with_limit(input: R, limit: usize) -> LineReader<R> {
        LineReader {
            input,
            limit,
            after_cr: false,
            at_start: true,
        }
    }

    /// Reads the next line into `buf` (cleared first), without its end.
    pub(super) fn next_line(&mut self, buf: &mut Vec<u8>) -> ReadLine {
        buf.clear();
        let mut total: u64 = 0;
        let mut any = false;
        loop {
            let avail = match self.input.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => &[][..],
            };
            if avail.is_empty() {
                return if any {
                    self.end_line(buf, total)
                } else {
                    ReadLine::Eof
                };
            }
            if self.after_cr {
                self.after_cr = false;
                if avail[0] == b'\n' {
                    self.input.consume(1);
                    continue;
                }
            }
            any = true;
            let end = avail.iter().position(|&b| b == b'\n' || b == b'\r');
            let part = &avail[..end.unwrap_or(avail.len())];
            let room = self.limit.saturating_sub(buf.len());
            buf.extend_from_slice(&part[..part.len().min(room)]);
            total += part.len() as u64;
            match end {
                Some(i) => {
                    self.after_cr = avail[i] == b'\r';
                    self.input.consume(i + 1);
                    return self.end_line(buf, total);
                }
                None => {
                    let n = avail.len();
                    self.input.consume(n);
                }
            }
        }
    }

    /// The end of a line of `total` bytes, of which `buf` holds the first:
    /// the stream's first line loses a leading byte order mark.
    fn end_line(&mut self, buf: &mut Vec<u8>, mut total: u64) -> ReadLine {
        if std::mem::take(&mut self.at_start) && buf.starts_with(BOM) {
            buf.drain(..BOM.len());
            total -= BOM.len() as u64;
        }
        if total > self.limit as u64 {
            ReadLine::TooLong(total)
        } else {
            ReadLine::Line
        }
    }
}

/// `s` with its control characters (other than tab and newline, which
/// replies use and input lines cannot hold) written as escapes
/// (`\u{0}`, `\u{1b}`), so that a reply never carries raw control bytes.
pub(crate) fn escape_controls(s: &str) -> std::borrow::Cow<'_, str> {
    let raw = |c: char| c.is_control() && c != '\t' && c != '\n';
    if !s.chars().any(raw) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if raw(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines of `bytes` read through a buffer of `cap` bytes.
    fn lines(bytes: &[u8], cap: usize, limit: usize) -> Vec<(String, ReadLine)> {
        let r = io::BufReader::with_capacity(cap, bytes);
        let mut lr = LineReader::with_limit(r, limit);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            match lr.next_line(&mut buf) {
                ReadLine::Eof => return out,
                r => out.push((String::from_utf8_lossy(&buf).into_owned(), r)),
            }
        }
    }

    fn texts(bytes: &[u8], cap: usize) -> Vec<String> {
        lines(bytes, cap, 100).into_iter().map(|x| x.0).collect()
    }

    #[test]
    fn line_ends_and_marks() {
        for cap in [1, 2, 3, 4, 7, 64] {
            assert_eq!(texts(b"a\nb\r\nc\rd", cap), ["a", "b", "c", "d"], "{cap}");
            assert_eq!(texts(b"a\r\r\nb\n\n", cap), ["a", "", "b", ""], "{cap}");
            assert_eq!(texts(b"\xef\xbb\xbfuci\r", cap), ["uci"], "{cap}");
            // Only the stream's first mark is dropped.
            assert_eq!(
                texts(b"\xef\xbb\xbfa\n\xef\xbb\xbfb", cap),
                ["a", "\u{feff}b"],
                "{cap}"
            );
            assert_eq!(texts(b"\xef\xbbx\n", cap), ["\u{fffd}x"], "{cap}");
            assert_eq!(texts(b"\xef\n", cap), ["\u{fffd}"], "{cap}");
            assert_eq!(texts(b"\xef\xbb\xbf", cap), [""], "{cap}");
        }
    }

    #[test]
    fn long_lines_are_cut_and_counted() {
        let mut input = vec![b'x'; 250];
        input.extend_from_slice(b"\r\nok\n");
        input.extend(vec![b'y'; 100]);
        for cap in [1, 8, 4096] {
            let got = lines(&input, cap, 100);
            assert_eq!(got.len(), 3);
            assert_eq!(got[0], ("x".repeat(100), ReadLine::TooLong(250)));
            assert_eq!(got[1], ("ok".into(), ReadLine::Line));
            assert_eq!(got[2], ("y".repeat(100), ReadLine::Line));
        }
    }

    #[test]
    fn controls_are_escaped() {
        assert_eq!(escape_controls("go\tdepth\n"), "go\tdepth\n");
        assert_eq!(
            escape_controls("a\0b\u{1b}c\u{7f}"),
            "a\\u{0}b\\u{1b}c\\u{7f}"
        );
    }
}
