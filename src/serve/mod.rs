//! `annex serve`: a board in the browser, served by the engine's own
//! process.
//!
//! A small HTTP server ([`tiny_http`]: blocking, one thread per request,
//! no async runtime, as the rest of Annex uses std threads and crossbeam
//! channels) serves one page, embedded in the binary, and a JSON API.
//! Each page opens a session (`session::Session`) with its own game and
//! engine, so a second page plays a game of its own; the page follows its
//! session through Server-Sent Events (`GET /api/events`), which send the
//! whole state at every change (a move, a deeper hint, the engine's move).
//!
//! The API (every body and answer is JSON; `s` is the session id):
//!
//! | request | body | what |
//! |---|---|---|
//! | `POST /api/session` | settings (optional) | a new session: `{"session": id, "state": …}` |
//! | `GET /api/state?s=` (`&wait=idle`: once no search runs, at most 30 s) |  | the state |
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
//! A bad request gets a 4xx answer `{"error": "…"}`. Only the embedded
//! files are served, by exact name; bodies are bounded; the number of
//! sessions and of requests in flight is bounded.

mod api;
mod session;

use crate::cli::ToolResult;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Arguments of `annex serve`.
#[derive(clap::Args, Clone, Debug)]
pub struct ServeArgs {
    /// Port to listen on (0: any free port; the URL is printed).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to bind (loopback unless told otherwise).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
    /// Search threads of each page's engine.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: u16,
    /// Hash table of each page's engine, in MiB.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub hash: u32,
    /// Most pages (sessions) at once; the least recently used one is
    /// closed to open another.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub max_sessions: u16,
}

/// Requests handled at once; more get 503.
const MAX_IN_FLIGHT: usize = 64;

/// Runs the server until the process ends.
///
/// # Errors
/// The address cannot be bound.
pub fn run(args: &ServeArgs) -> ToolResult {
    let server = tiny_http::Server::http((args.host.as_str(), args.port))
        .map_err(|e| format!("cannot listen on {}:{}: {e}", args.host, args.port))?;
    let addr = server
        .server_addr()
        .to_ip()
        .ok_or("the server has no IP address")?;
    let url = format!("http://{addr}/");
    // The first line of stdout: tests and scripts read the URL from it.
    let mut out = std::io::stdout();
    writeln!(out, "annex serve: {url}")?;
    out.flush()?;
    if args.open {
        open_browser(&url);
    }
    let app = Arc::new(api::App::new(args));
    let in_flight = Arc::new(AtomicUsize::new(0));
    for request in server.incoming_requests() {
        if in_flight.fetch_add(1, Ordering::SeqCst) >= MAX_IN_FLIGHT {
            in_flight.fetch_sub(1, Ordering::SeqCst);
            api::reply_error(request, 503, "too many requests at once");
            continue;
        }
        let app = app.clone();
        let count = in_flight.clone();
        let spawned = std::thread::Builder::new()
            .name("annex-serve".into())
            .spawn(move || {
                app.handle(request);
                count.fetch_sub(1, Ordering::SeqCst);
            });
        if let Err(e) = spawned {
            in_flight.fetch_sub(1, Ordering::SeqCst);
            log::error!("cannot start a request thread: {e}");
        }
    }
    Ok(())
}

/// Asks the desktop to open `url` (errors are only logged).
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        log::warn!("cannot open a browser ({opener}): {e}; open {url} yourself");
    }
}
