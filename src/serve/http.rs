//! A small bounded HTTP/1.1 server on `std::net` for `annex serve`.
//!
//! Every resource a client can make the server hold is bounded before use:
//!
//! - connections: at most [`Limits::max_connections`] at once (kept below
//!   the process's open-file limit by [`connection_cap`]). When all are
//!   taken, a new connection closes the one that has waited longest for
//!   its request (an idle or slow client), so slow clients cannot lock
//!   out quick ones; when none is waiting, the new one is answered 503
//!   and closed at once. A failed `accept` (out of file descriptors, say)
//!   is logged and retried, never fatal;
//! - time: the request head and body must arrive within
//!   [`Limits::timeout`] of the first byte (or, on a kept-alive
//!   connection, of the previous answer), and an answer must be taken
//!   within it too;
//! - size: the request line is at most [`MAX_REQUEST_LINE`] bytes (414),
//!   the head [`MAX_HEAD`] bytes and [`MAX_HEADERS`] lines (431), the body
//!   [`MAX_BODY`] bytes (413); the connection is closed after such an
//!   answer.
//!
//! Each connection has its own thread, so a long poll or an event stream
//! holds one connection and nothing else; [`Conn::client_gone`] lets those
//! notice a client that went away without waiting for a write to fail.

use std::collections::HashMap;
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Longest request line (method, target, version).
pub const MAX_REQUEST_LINE: usize = 8 << 10;
/// Largest request head (request line and headers).
pub const MAX_HEAD: usize = 16 << 10;
/// Most header lines.
pub const MAX_HEADERS: usize = 64;
/// Largest request body (a GGF game is a few KB).
pub const MAX_BODY: usize = 64 << 10;
/// Stack of a connection thread (requests parse and answer small JSON).
const STACK: usize = 1 << 20;
/// File descriptors kept free for everything but connections.
const FD_RESERVE: usize = 64;

/// The bounds of the server.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections open at once.
    pub max_connections: usize,
    /// Time for a request head and body, for a kept-alive connection's
    /// next request, and for a client to take an answer.
    pub timeout: Duration,
}

/// The most connections the process can hold: `wanted`, but at most the
/// open-file limit less a reserve (half the limit when it is small).
pub fn connection_cap(wanted: usize) -> usize {
    match open_file_limit() {
        Some(limit) => wanted
            .min(limit.saturating_sub(FD_RESERVE).max(limit / 2))
            .max(1),
        None => wanted,
    }
}

/// The soft limit on open files (`ulimit -n`), where the system says.
fn open_file_limit() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max open files"))?;
    let soft = line["Max open files".len()..].split_whitespace().next()?;
    soft.parse().ok()
}

/// One request.
#[derive(Debug)]
pub struct Request {
    /// `GET`, `POST`, …
    pub method: String,
    /// The request target: path and query.
    pub target: String,
    /// Header names (lower case) and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body (at most [`MAX_BODY`] bytes).
    pub body: Vec<u8>,
    /// The client keeps the connection for another request.
    pub keep_alive: bool,
}

impl Request {
    /// The first header named `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One answer with a body of known length.
#[derive(Debug)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// `Cache-Control`.
    pub cache: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// An answer with `body`, not cached.
    pub fn new(status: u16, content_type: &'static str, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status,
            content_type,
            cache: "no-store",
            body: body.into(),
        }
    }

    /// A JSON error `{"error": msg}`.
    pub fn error(status: u16, msg: &str) -> Response {
        let body = serde_json::json!({ "error": msg }).to_string();
        Response::new(status, "application/json", body)
    }
}

/// The reason phrase of a status.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Content Too Large",
        414 => "URI Too Long",
        415 => "Unsupported Media Type",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

/// The head of the answer `r` (its body is not read): the one place that
/// writes a status line and headers. `length`: the body's length (`None`:
/// a stream that ends when the connection closes); `extra`: more headers.
fn head(r: &Response, length: Option<usize>, keep_alive: bool, extra: &[(&str, &str)]) -> String {
    let mut h = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\n",
        r.status,
        reason(r.status),
        r.content_type
    );
    if let Some(n) = length {
        h += &format!("Content-Length: {n}\r\n");
    }
    h += &format!(
        "Cache-Control: {}\r\nX-Content-Type-Options: nosniff\r\nConnection: {}\r\n",
        r.cache,
        if keep_alive { "keep-alive" } else { "close" },
    );
    for (name, value) in extra {
        h += &format!("{name}: {value}\r\n");
    }
    h + "\r\n"
}

/// Why no request was read.
#[derive(Debug)]
enum ReadError {
    /// The client closed, or sent nothing in time, between requests.
    Closed,
    /// A request the server answers with this status, then closes.
    Refuse(u16, &'static str),
}

/// The connections waiting for (the rest of) a request, by number: when
/// each started to wait, and the stream to shut down to close it.
#[derive(Default)]
struct Waiting {
    next: u64,
    conns: HashMap<u64, (Instant, Arc<TcpStream>)>,
}

type WaitingList = Arc<Mutex<Waiting>>;

fn lock(w: &WaitingList) -> std::sync::MutexGuard<'_, Waiting> {
    w.lock().unwrap_or_else(|e| e.into_inner())
}

/// Closes the connection that has waited longest for its request;
/// `false` when none waits.
fn close_longest_waiting(w: &WaitingList) -> bool {
    let mut w = lock(w);
    let oldest = w.conns.iter().min_by_key(|(_, (t, _))| *t).map(|(k, _)| *k);
    match oldest.and_then(|k| w.conns.remove(&k)) {
        Some((_, stream)) => {
            let _ = stream.shutdown(Shutdown::Both);
            true
        }
        None => false,
    }
}

/// A client connection.
pub struct Conn {
    stream: Arc<TcpStream>,
    /// Bytes read past the last request.
    buf: Vec<u8>,
    timeout: Duration,
    waiting: WaitingList,
    id: u64,
}

/// Takes a connection off the waiting list when dropped.
struct WaitMark<'a>(&'a WaitingList, u64);

impl Drop for WaitMark<'_> {
    fn drop(&mut self) {
        lock(self.0).conns.remove(&self.1);
    }
}

impl Conn {
    fn new(stream: TcpStream, timeout: Duration, waiting: WaitingList) -> Conn {
        let _ = stream.set_write_timeout(Some(timeout));
        let _ = stream.set_nodelay(true);
        let id = {
            let mut w = lock(&waiting);
            w.next += 1;
            w.next
        };
        Conn {
            stream: Arc::new(stream),
            buf: Vec::new(),
            timeout,
            waiting,
            id,
        }
    }

    /// Reads one request, on the waiting list meanwhile.
    fn next_request(&mut self) -> Result<Request, ReadError> {
        let entry = (Instant::now(), self.stream.clone());
        lock(&self.waiting).conns.insert(self.id, entry);
        let waiting = self.waiting.clone();
        let _mark = WaitMark(&waiting, self.id);
        self.read_request()
    }

    /// Reads into `buf` until `deadline`; `Ok(false)` at the end of the
    /// stream.
    fn fill(&mut self, deadline: Instant) -> Result<bool, ReadError> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ReadError::Refuse(408, "the request took too long"));
        }
        let _ = self.stream.set_read_timeout(Some(left));
        let mut chunk = [0u8; 4096];
        match (&*self.stream).read(&mut chunk) {
            Ok(0) => Ok(false),
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                Ok(true)
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => Ok(true),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                Err(ReadError::Refuse(408, "the request took too long"))
            }
            Err(_) => Err(ReadError::Closed),
        }
    }

    /// Reads one request: its head within the time limit, then its body.
    fn read_request(&mut self) -> Result<Request, ReadError> {
        let deadline = Instant::now() + self.timeout;
        let mut scanned = 0;
        let head_len = loop {
            if let Some(i) = find_blank_line(&self.buf, scanned) {
                break i;
            }
            scanned = self.buf.len().saturating_sub(3);
            if !self.buf.contains(&b'\n') && self.buf.len() > MAX_REQUEST_LINE {
                return Err(ReadError::Refuse(414, "request line too long"));
            }
            if self.buf.len() > MAX_HEAD {
                return Err(ReadError::Refuse(431, "request head too large"));
            }
            match self.fill(deadline) {
                Ok(true) => {}
                Ok(false) if self.buf.is_empty() => return Err(ReadError::Closed),
                Ok(false) => return Err(ReadError::Refuse(400, "incomplete request")),
                // Nothing at all in time is an idle connection: just close.
                Err(_) if self.buf.is_empty() => return Err(ReadError::Closed),
                Err(e) => return Err(e),
            }
        };
        if head_len > MAX_HEAD {
            return Err(ReadError::Refuse(431, "request head too large"));
        }
        let head: Vec<u8> = self.buf.drain(..head_len + 4).collect();
        let mut request = parse_head(&head[..head_len])?;
        let length = body_length(&request)?;
        while self.buf.len() < length {
            if !self.fill(deadline)? {
                return Err(ReadError::Closed);
            }
        }
        request.body = self.buf.drain(..length).collect();
        Ok(request)
    }

    /// Writes `r`; `keep_alive` says whether another request may follow.
    pub fn respond(&mut self, r: &Response, keep_alive: bool) -> std::io::Result<()> {
        let mut out = head(r, Some(r.body.len()), keep_alive, &[]).into_bytes();
        out.extend_from_slice(&r.body);
        (&*self.stream).write_all(&out)?;
        (&*self.stream).flush()
    }

    /// Starts a stream of `content_type` (an event stream): the head of a
    /// 200 answer without a length, whose body ends when the connection
    /// closes; [`Conn::write_raw`] writes the body.
    pub fn start_stream(&mut self, content_type: &'static str) -> std::io::Result<()> {
        let r = Response::new(200, content_type, Vec::new());
        self.write_raw(head(&r, None, false, &[]).as_bytes())
    }

    /// Writes raw bytes (a stream's body after its head).
    pub fn write_raw(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        (&*self.stream).write_all(bytes)?;
        (&*self.stream).flush()
    }

    /// Whether the client closed its side (or the connection broke): a
    /// check that does not wait.
    pub fn client_gone(&self) -> bool {
        if self.stream.set_nonblocking(true).is_err() {
            return true;
        }
        let mut byte = [0u8; 1];
        let gone = match self.stream.peek(&mut byte) {
            Ok(0) => true,
            Ok(_) => false,
            Err(e) => !matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted),
        };
        let _ = self.stream.set_nonblocking(false);
        gone
    }

    /// Answers a refused request and closes: what the client is still
    /// sending is read and dropped (1 MiB and 1 s at most, until it pauses
    /// for 100 ms), so that it gets the answer rather than a reset.
    fn refuse(mut self, status: u16, msg: &str) {
        if self.respond(&Response::error(status, msg), false).is_err() {
            return;
        }
        let _ = self.stream.shutdown(Shutdown::Write);
        let end = Instant::now() + Duration::from_secs(1);
        let mut drained = 0usize;
        let mut chunk = [0u8; 4096];
        let _ = self
            .stream
            .set_read_timeout(Some(Duration::from_millis(100)));
        while drained < (1 << 20) && Instant::now() < end {
            match (&*self.stream).read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => drained += n,
            }
        }
    }
}

/// The offset of the `\r\n\r\n` that ends the head, looking from `from`.
fn find_blank_line(buf: &[u8], from: usize) -> Option<usize> {
    buf.get(from..)?
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| i + from)
}

/// Whether `s` is an HTTP token (a method or a header name).
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Parses the request line and the headers.
fn parse_head(head: &[u8]) -> Result<Request, ReadError> {
    let bad = ReadError::Refuse(400, "malformed request head");
    let text = std::str::from_utf8(head).map_err(|_| ReadError::Refuse(400, "head not UTF-8"))?;
    let mut lines = text.split("\r\n");
    let first = lines.next().unwrap_or("");
    if first.len() > MAX_REQUEST_LINE {
        return Err(ReadError::Refuse(414, "request line too long"));
    }
    let mut parts = first.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad);
    };
    if !is_token(method) || !target.starts_with('/') {
        return Err(bad);
    }
    let http11 = match version {
        "HTTP/1.1" => true,
        "HTTP/1.0" => false,
        _ => return Err(ReadError::Refuse(505, "only HTTP/1.0 and HTTP/1.1")),
    };
    let mut headers = Vec::new();
    for line in lines {
        if headers.len() == MAX_HEADERS {
            return Err(ReadError::Refuse(431, "too many header lines"));
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(ReadError::Refuse(400, "malformed header line"));
        };
        if !is_token(name) {
            return Err(ReadError::Refuse(400, "malformed header name"));
        }
        headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
    }
    let mut request = Request {
        method: method.to_string(),
        target: target.to_string(),
        headers,
        body: Vec::new(),
        keep_alive: false,
    };
    let connection = request.header("connection").unwrap_or("");
    let has = |word: &str| {
        connection
            .split(',')
            .any(|t| t.trim().eq_ignore_ascii_case(word))
    };
    request.keep_alive = if http11 {
        !has("close")
    } else {
        has("keep-alive")
    };
    Ok(request)
}

/// The body's length from `Content-Length` (no chunked bodies).
fn body_length(r: &Request) -> Result<usize, ReadError> {
    if r.header("transfer-encoding").is_some() {
        return Err(ReadError::Refuse(501, "chunked bodies are not supported"));
    }
    let mut length: Option<usize> = None;
    for (_, v) in r.headers.iter().filter(|(n, _)| n == "content-length") {
        let n = if v.bytes().all(|b| b.is_ascii_digit()) && !v.is_empty() && v.len() < 19 {
            v.parse::<usize>().ok()
        } else {
            None
        };
        match (n, length) {
            (None, _) => return Err(ReadError::Refuse(400, "bad Content-Length")),
            (Some(a), Some(b)) if a != b => {
                return Err(ReadError::Refuse(400, "conflicting Content-Length"));
            }
            (Some(a), _) => length = Some(a),
        }
    }
    let length = length.unwrap_or(0);
    if length > MAX_BODY {
        return Err(ReadError::Refuse(413, "body too large"));
    }
    Ok(length)
}

/// Answers requests: `None` when the handler used the connection itself
/// (an event stream), which is then closed.
pub trait Handler: Send + Sync + 'static {
    /// Answers one request.
    fn handle(&self, request: &Request, conn: &mut Conn) -> Option<Response>;
}

/// Frees a connection slot when dropped.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Accepts connections for ever.
pub fn serve<H: Handler>(listener: &TcpListener, limits: Limits, handler: Arc<H>) {
    let open = Arc::new(AtomicUsize::new(0));
    let waiting = WaitingList::default();
    let mut last_log: Option<Instant> = None;
    loop {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of descriptors (or memory): the pending connection
                // stays queued; wait a little rather than spin.
                if last_log.is_none_or(|t| t.elapsed() >= Duration::from_secs(5)) {
                    log::warn!("cannot accept a connection: {e}");
                    last_log = Some(Instant::now());
                }
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        // Past the limit, a waiting connection makes room (its thread ends
        // at once); the few closing meanwhile stay within the reserve of
        // descriptors.
        let n = open.fetch_add(1, Ordering::SeqCst);
        if n >= limits.max_connections
            && (n >= limits.max_connections + FD_RESERVE / 4 || !close_longest_waiting(&waiting))
        {
            open.fetch_sub(1, Ordering::SeqCst);
            refuse_at_once(stream);
            continue;
        }
        let slot = Slot(open.clone());
        let handler = handler.clone();
        let waiting = waiting.clone();
        let spawned = std::thread::Builder::new()
            .name("annex-serve-conn".into())
            .stack_size(STACK)
            .spawn(move || {
                let _slot = slot;
                run_connection(Conn::new(stream, limits.timeout, waiting), &*handler);
            });
        if let Err(e) = spawned {
            log::error!("cannot start a connection thread: {e}");
        }
    }
}

/// Answers 503 to a connection over the limit without reading it.
fn refuse_at_once(mut stream: TcpStream) {
    let _ = stream.set_nonblocking(true);
    let r = Response::error(503, "too many connections");
    let mut out = head(&r, Some(r.body.len()), false, &[("Retry-After", "1")]).into_bytes();
    out.extend_from_slice(&r.body);
    let _ = stream.write_all(&out);
    let _ = stream.shutdown(Shutdown::Write);
    // What already came is read, so that closing does not reset the
    // connection before the client reads the answer.
    let _ = stream.read(&mut [0u8; 2048]);
}

/// Serves the requests of one connection until it closes.
fn run_connection<H: Handler>(mut conn: Conn, handler: &H) {
    loop {
        let request = match conn.next_request() {
            Ok(r) => r,
            Err(ReadError::Closed) => return,
            Err(ReadError::Refuse(status, msg)) => return conn.refuse(status, msg),
        };
        let Some(response) = handler.handle(&request, &mut conn) else {
            return;
        };
        // A page's ordinary answers keep the connection; a refused
        // request closes it.
        let keep = request.keep_alive && matches!(response.status, 200..=399 | 404 | 409);
        if conn.respond(&response, keep).is_err() || !keep {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_head_and_its_connection_header() {
        let r = parse_head(b"GET /a?b=1 HTTP/1.1\r\nHost: x:1\r\nConnection: close").unwrap();
        assert_eq!((r.method.as_str(), r.target.as_str()), ("GET", "/a?b=1"));
        assert_eq!(r.header("host"), Some("x:1"));
        assert!(!r.keep_alive);
        let r = parse_head(b"GET / HTTP/1.0").unwrap();
        assert!(!r.keep_alive);
    }

    #[test]
    fn refuses_malformed_heads() {
        for head in [
            &b"GET /"[..],
            b"GET x HTTP/1.1",
            b"GET / HTTP/1.1\r\nNo colon",
            b"GET / HTTP/1.1\r\n Folded: x",
            b"G@T / HTTP/1.1",
        ] {
            assert!(
                matches!(parse_head(head), Err(ReadError::Refuse(400, _))),
                "{}",
                String::from_utf8_lossy(head)
            );
        }
        assert!(matches!(
            parse_head(b"GET / HTTP/2.0"),
            Err(ReadError::Refuse(505, _))
        ));
    }

    #[test]
    fn one_head_for_answers_and_streams() {
        let r = Response::error(503, "busy");
        let h = head(&r, Some(r.body.len()), false, &[("Retry-After", "1")]);
        assert_eq!(
            h,
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n\
             Content-Length: 16\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\
             Connection: close\r\nRetry-After: 1\r\n\r\n"
        );
        let stream = Response::new(200, "text/event-stream", Vec::new());
        let h = head(&stream, None, false, &[]);
        assert!(h.starts_with("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"));
        assert!(!h.contains("Content-Length") && h.ends_with("Connection: close\r\n\r\n"));
    }

    #[test]
    fn content_length_is_checked() {
        let r = |h: &[u8]| body_length(&parse_head(h).unwrap());
        assert_eq!(r(b"POST / HTTP/1.1\r\nContent-Length: 12").unwrap(), 12);
        assert!(matches!(
            r(b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2"),
            Err(ReadError::Refuse(400, _))
        ));
        assert!(matches!(
            r(b"POST / HTTP/1.1\r\nContent-Length: -1"),
            Err(ReadError::Refuse(400, _))
        ));
        assert!(matches!(
            r(b"POST / HTTP/1.1\r\nContent-Length: 999999999"),
            Err(ReadError::Refuse(413, _))
        ));
        assert!(matches!(
            r(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked"),
            Err(ReadError::Refuse(501, _))
        ));
    }
}
