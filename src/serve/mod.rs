//! `annex serve`: a board in the browser, served by the engine's own
//! process.
//!
//! A small bounded HTTP/1.1 server of its own (`http`: std threads, one
//! per connection, no async runtime, as the rest of Annex uses std threads
//! and crossbeam channels) serves one page, embedded in the binary, and a
//! JSON API. Each page opens a session (`session::Session`) with its own
//! game and engine, so a second page plays a game of its own; the page
//! follows its session through Server-Sent Events (`GET /api/events`),
//! which send the whole state at every change (a move, a deeper hint, the
//! engine's move).
//!
//! The API (every body and answer is JSON; `s` is the session id):
//!
//! | request | body | what |
//! |---|---|---|
//! | `POST /api/session` | settings (optional) | a new session: `{"session": id, "state": …}` |
//! | `GET /api/state?s=` (`&wait=idle`: once no search runs, at most 30 s, or until the client goes) |  | the state |
//! | `GET /api/events?s=` |  | `event: state` with the state at every change |
//! | `POST /api/new?s=` | `{"rules": {"start", "flips", "tie", "scoring"}}` | a new game |
//! | `POST /api/position?s=` | `{"board"}`, `{"transcript"}` or `{"ggf"}` | set up a position or load a game |
//! | `POST /api/move?s=` | `{"move": "f5"}` (`f5:ne`, `pass`) | play a move (409 on the engine's turn) |
//! | `POST /api/undo?s=`, `/api/redo?s=` |  | one move back or forward |
//! | `POST /api/goto?s=` | `{"ply": n}` | view a ply of the game (the engine moves only at the end) |
//! | `POST /api/cut?s=` |  | drop the moves after the viewed ply (the engine on its turn moves) |
//! | `POST /api/settings?s=` | `{"black", "white", "depth", "movetime_ms", "analyze", "analyze_depth"}` | players, level, analysis |
//! | `POST /api/review?s=` | `{"depth": n}` (default 10) | score every position of the game, last to first, for the graph |
//! | `POST /api/stop?s=` |  | stop the search now (the engine on its turn plays the best move found) |
//! | `GET /api/export?s=&format=ggf` (or `transcript`) |  | the game as text |
//!
//! A bad request gets a 4xx answer `{"error": "…"}`; a body with an
//! unknown field or a field of the wrong type is refused (400), and the
//! message names the field. Only the embedded
//! files are served, by exact name. What a client may hold is bounded
//! (the numbers are `annex serve --help`'s): connections (below the
//! open-file limit; one more gets 503), the time to send a request, the
//! request line (414), head (431) and body (413), the event streams and
//! waits (half the connections, so that they never starve ordinary
//! requests), the sessions, and each session's search time. Requests from
//! other web pages are refused (`guard`).

mod api;
mod guard;
mod http;
mod session;
mod table;

use crate::cli::{ToolError, ToolResult};
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

/// Arguments of `annex serve`.
#[derive(clap::Args, Clone, Debug)]
pub struct ServeArgs {
    /// Port to listen on (0: any free port; the URL is printed).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to bind: loopback unless told otherwise. Any other address
    /// (0.0.0.0 binds every interface) lets every machine that can reach
    /// it play and run searches on this one: there is no password.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Host names the server answers for besides localhost and IP
    /// addresses (requests naming any other Host get 403); repeatable.
    #[arg(long, value_name = "NAME")]
    pub allow_host: Vec<String>,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
    /// Search threads of each page's engine (1-256, the engine's
    /// `Threads`).
    #[arg(long, default_value_t = 1, value_parser = crate::cli::args::threads())]
    pub threads: usize,
    /// Hash table of each page's engine, in MiB (1-65536, the engine's
    /// `Hash`).
    #[arg(long, default_value_t = 16, value_parser = crate::cli::args::hash_mb())]
    pub hash: usize,
    /// Most pages (sessions) at once. Sessions whose page has gone do not
    /// count (up to as many more are kept); past the limit the session
    /// least recently used without an open page is closed.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub max_sessions: u16,
    /// Most connections at once, never more than the open-file limit
    /// allows (`ulimit -n` less 64, or half of it). When all are taken, a
    /// new connection closes the one that has waited longest for its
    /// request; when none waits, it gets 503. Event streams and waits use
    /// at most half of them.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(2..=65536))]
    pub max_connections: u32,
    /// Seconds a client has to send a request (head and body) and to take
    /// an answer, and that a kept-alive connection waits for its next
    /// request. A request line has at most 8 KiB (else 414), a head 16 KiB
    /// and 64 lines (431), a body 64 KiB (413).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub idle_timeout: u64,
    /// Seconds without an event stream or a request after which a
    /// session's page counts as gone: its search stops, and the session
    /// is closed after ten times as long.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86400))]
    pub orphan_timeout: u64,
    /// Seconds of search each session may use in all (engine moves,
    /// analysis, reviews); then its searches stop.
    #[arg(long, default_value_t = 3600, value_parser = clap::value_parser!(u64).range(1..=604800))]
    pub search_budget: u64,
}

/// Why the server cannot start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address cannot be bound.
    #[error("cannot listen on {host}:{port}: {source}")]
    Listen {
        /// `--host`.
        host: String,
        /// `--port`.
        port: u16,
        /// Why.
        source: std::io::Error,
    },
    /// The bound socket has no address.
    #[error("cannot read the listening address: {0}")]
    Address(#[source] std::io::Error),
}

/// Runs the server until the process ends.
///
/// # Errors
/// The address cannot be bound ([`ServeError`]), a thread cannot start,
/// the URL cannot be written.
pub fn run(args: &ServeArgs) -> ToolResult {
    let listener =
        std::net::TcpListener::bind((args.host.as_str(), args.port)).map_err(|source| {
            ServeError::Listen {
                host: args.host.clone(),
                port: args.port,
                source,
            }
        })?;
    let addr = listener.local_addr().map_err(ServeError::Address)?;
    let url = format!("http://{addr}/");
    if !addr.ip().is_loopback() {
        eprintln!(
            "annex serve: warning: listening on {addr}, not on loopback: anyone who can reach \
             this address can play and run searches here (there is no password)"
        );
    }
    let limits = http::Limits {
        max_connections: http::connection_cap(args.max_connections as usize),
        timeout: Duration::from_secs(args.idle_timeout),
    };
    let app = Arc::new(api::App::new(args, addr.port(), limits.max_connections / 2));
    let reaper = app.clone();
    let tick = Duration::from_secs(args.orphan_timeout).min(Duration::from_secs(4)) / 4;
    std::thread::Builder::new()
        .name("annex-serve-reap".into())
        .spawn(move || reaper.table.reap(tick))
        .map_err(ToolError::Thread)?;
    // The first line of stdout: tests and scripts read the URL from it.
    let mut out = std::io::stdout();
    writeln!(out, "annex serve: {url}")?;
    out.flush()?;
    if args.open {
        open_browser(&url);
    }
    http::serve(&listener, limits, app);
    Ok(())
}

/// Asks the desktop to open `url`; says so on stderr when it cannot. The
/// opener is waited for on a thread of its own, so it never lingers as a
/// zombie.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    let cannot = move |why: String| {
        eprintln!("annex serve: could not open a browser ({opener}: {why}); open {url} yourself");
    };
    let child = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return cannot(e.to_string()),
    };
    let url = url.to_string();
    let waiter = std::thread::Builder::new()
        .name("annex-serve-open".into())
        .spawn(move || match child.wait() {
            // Windows' explorer answers 1 even when it opened the page.
            Ok(s) if s.success() || cfg!(windows) => {}
            Ok(s) => eprintln!(
                "annex serve: could not open a browser ({opener}: {s}); open {url} yourself"
            ),
            Err(e) => eprintln!(
                "annex serve: could not open a browser ({opener}: {e}); open {url} yourself"
            ),
        });
    if let Err(e) = waiter {
        cannot(e.to_string());
    }
}
