//! The routes of `annex serve`: the embedded files, the JSON API and the
//! event stream (the table is in the module documentation of `serve`).

use super::ServeArgs;
use super::guard::Guard;
use super::http::{Conn, Handler, Request, Response};
use super::session::{self, Level, Player, Session, Settings, Shared};
use super::table::Table;
use crate::board::Color;
use crate::moves::Move;
use crate::position::Position;
use crate::record::game_record::{GgfHeader, ggf};
use crate::rules::RuleSet;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A comment on an idle event stream this often.
const KEEPALIVE: Duration = Duration::from_secs(10);
/// A long request (event stream, wait) looks this often whether its
/// client is still there.
const POLL: Duration = Duration::from_millis(200);

/// The longest wait of `GET /api/state?wait=idle`.
const IDLE_WAIT: Duration = Duration::from_secs(30);

/// The embedded files, by exact name: `(path, content type, body)`.
const FILES: &[(&str, &str, &str)] = &[
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("static/index.html"),
    ),
    (
        "/index.html",
        "text/html; charset=utf-8",
        include_str!("static/index.html"),
    ),
    (
        "/style.css",
        "text/css; charset=utf-8",
        include_str!("static/style.css"),
    ),
    (
        "/board.js",
        "text/javascript; charset=utf-8",
        include_str!("static/board.js"),
    ),
    (
        "/app.js",
        "text/javascript; charset=utf-8",
        include_str!("static/app.js"),
    ),
];

/// A failed request: status and message.
struct Fail(u16, String);

impl Fail {
    fn bad(msg: impl Into<String>) -> Fail {
        Fail(400, msg.into())
    }
}

impl From<session::SessionError> for Fail {
    /// A request the session refuses is the client's error (400); a session
    /// that cannot start is the server's (500).
    fn from(e: session::SessionError) -> Fail {
        let status = match e {
            session::SessionError::Thread(_) => 500,
            _ => 400,
        };
        Fail(status, e.to_string())
    }
}

type Answer = Result<Value, Fail>;

/// The sessions, the request checks, and the long requests in flight.
pub struct App {
    /// The sessions.
    pub table: Table,
    guard: Guard,
    /// Event streams and waits in flight, and their limit: ordinary
    /// requests always have the other connections.
    long: AtomicUsize,
    max_long: usize,
}

/// Frees a long-request slot when dropped.
struct LongSlot<'a>(&'a AtomicUsize);

impl Drop for LongSlot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// An answer with a JSON body.
fn reply_json(status: u16, body: &Value) -> Response {
    Response::new(status, "application/json", body.to_string())
}

/// Splits a URL into its path and its query pairs (no percent-decoding is
/// needed: ids and formats are plain words).
fn split_url(url: &str) -> (&str, HashMap<&str, &str>) {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let pairs = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")))
        .collect();
    (path, pairs)
}

/// Reads a JSON object body (empty: `{}`); the HTTP layer bounded its
/// size.
fn read_body(bytes: &[u8]) -> Result<Value, Fail> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Map::new()));
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(v) if v.is_object() => Ok(v),
        Ok(_) => Err(Fail::bad("the body must be a JSON object")),
        Err(e) => Err(Fail::bad(format!("invalid JSON: {e}"))),
    }
}

/// The body (a JSON object) as the request's own type. An unknown field
/// or a field of the wrong type is refused, and the message names it.
fn parse<T: DeserializeOwned>(body: &Value) -> Result<T, Fail> {
    T::deserialize(body).map_err(|e| {
        // The field to blame: the first one that does not read alone.
        let alone = |k: &String, v: &Value| {
            let one = Value::Object(Map::from_iter([(k.clone(), v.clone())]));
            T::deserialize(&one).err()
        };
        let named = body
            .as_object()
            .into_iter()
            .flatten()
            .find_map(|(k, v)| alone(k, v).map(|e| format!("\"{k}\": {e}")));
        Fail::bad(named.unwrap_or_else(|| e.to_string()))
    })
}

/// A player named in a body.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Seat {
    Human,
    Engine,
}

/// Rule names and values (`RuleSet::set` reads them).
type RulesBody = BTreeMap<String, String>;

/// The body of `/api/settings` and `/api/session`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct SettingsBody {
    black: Option<Seat>,
    white: Option<Seat>,
    depth: Option<u64>,
    movetime_ms: Option<u64>,
    analyze_depth: Option<u64>,
    analyze: Option<bool>,
}

/// The body of `/api/new`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct NewBody {
    rules: Option<RulesBody>,
}

/// The body of `/api/position`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct PositionBody {
    rules: Option<RulesBody>,
    board: Option<String>,
    transcript: Option<String>,
    ggf: Option<String>,
}

/// The body of `/api/move`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct MoveBody {
    #[serde(rename = "move")]
    mv: Option<String>,
}

/// The body of `/api/goto`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct GotoBody {
    ply: Option<u64>,
}

/// The body of `/api/review`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct ReviewBody {
    depth: Option<u64>,
}

/// The body of the requests that take no field (`undo`, `redo`, `stop`,
/// `cut`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoFields {}

impl App {
    /// An app with no sessions yet, answering for `port`.
    pub fn new(args: &ServeArgs, port: u16, max_long: usize) -> App {
        App {
            table: Table::new(
                vec![
                    ("Threads", args.threads.to_string()),
                    ("Hash", args.hash.to_string()),
                ],
                args.max_sessions as usize,
                Duration::from_secs(args.orphan_timeout),
                Duration::from_secs(args.search_budget),
            ),
            guard: Guard::new(port, &args.allow_host),
            long: AtomicUsize::new(0),
            max_long: max_long.max(1),
        }
    }

    /// A long-request slot, if one is free.
    fn long_slot(&self) -> Result<LongSlot<'_>, Fail> {
        if self.long.fetch_add(1, Ordering::SeqCst) >= self.max_long {
            self.long.fetch_sub(1, Ordering::SeqCst);
            return Err(Fail(503, "too many event streams and waits at once".into()));
        }
        Ok(LongSlot(&self.long))
    }

    /// The session named by `s=`.
    fn session(&self, query: &HashMap<&str, &str>) -> Result<Arc<Shared>, Fail> {
        let id = query.get("s").ok_or_else(|| Fail::bad("missing s="))?;
        self.table
            .get(id)
            .ok_or_else(|| Fail(404, format!("no session {id} (it may have been closed)")))
    }

    /// An API request other than the event stream.
    fn api(
        &self,
        request: &Request,
        conn: &Conn,
        path: &str,
        query: &HashMap<&str, &str>,
    ) -> Response {
        if path == "/api/export" && request.method == "GET" {
            return match self.session(query).and_then(|s| export(&s.lock(), query)) {
                Ok(text) => Response::new(200, "text/plain; charset=utf-8", text),
                Err(Fail(code, msg)) => Response::error(code, &msg),
            };
        }
        let answer = match request.method.as_str() {
            "GET" if path == "/api/state" => self.session(query).and_then(|s| {
                if query.get("wait") == Some(&"idle") {
                    let _slot = self.long_slot()?;
                    wait_idle(&s, IDLE_WAIT, conn);
                }
                Ok(state_json(&s.lock(), query.get("s").unwrap_or(&"")))
            }),
            "POST" => read_body(&request.body).and_then(|b| self.post(path, query, &b)),
            "GET" => Err(Fail(404, format!("no such API: {path}"))),
            m => Err(Fail(405, format!("method {m} not allowed"))),
        };
        match answer {
            Ok(v) => reply_json(200, &v),
            Err(Fail(code, msg)) => Response::error(code, &msg),
        }
    }

    /// A POST to the API.
    fn post(&self, path: &str, query: &HashMap<&str, &str>, body: &Value) -> Answer {
        if path == "/api/session" {
            let settings: SettingsBody = parse(body)?;
            let (id, shared) = self.table.open()?;
            let mut s = shared.lock();
            let settings = settings_from(settings, s.settings)?;
            s.configure(settings);
            let state = state_json(&s, &id);
            drop(s);
            shared.changed.notify_all();
            return Ok(json!({ "session": id, "state": state }));
        }
        let shared = self.session(query)?;
        let id = query.get("s").unwrap_or(&"");
        let mut s = shared.lock();
        apply(&mut s, path, body)?;
        s.touch();
        let state = state_json(&s, id);
        drop(s);
        shared.changed.notify_all();
        Ok(state)
    }
}

impl Handler for App {
    /// Answers one request (on its connection's thread).
    fn handle(&self, request: &Request, conn: &mut Conn) -> Option<Response> {
        if let Err((code, msg)) = self.guard.check(request) {
            return Some(Response::error(code, &msg));
        }
        let (path, query) = split_url(&request.target);
        if !path.starts_with("/api/") {
            return Some(serve_file(&request.method, path));
        }
        if path == "/api/events" && request.method == "GET" {
            let ready = self
                .session(&query)
                .and_then(|s| Ok((s, self.long_slot()?)));
            return match ready {
                Ok((s, _slot)) => {
                    let id = query.get("s").copied().unwrap_or("");
                    stream_events(conn, &s, id);
                    None
                }
                Err(Fail(code, msg)) => Some(Response::error(code, &msg)),
            };
        }
        Some(self.api(request, conn, path, &query))
    }
}

/// Serves an embedded file by exact name.
fn serve_file(method: &str, path: &str) -> Response {
    if method != "GET" && method != "HEAD" {
        return Response::error(405, &format!("method {method} not allowed"));
    }
    match FILES.iter().find(|(p, _, _)| *p == path) {
        Some((_, mime, body)) => {
            let mut r = Response::new(200, mime, *body);
            r.cache = "no-cache";
            if method == "HEAD" {
                r.body.clear();
            }
            r
        }
        None => Response::error(404, &format!("not found: {path}")),
    }
}

/// Applies a POST to the session.
fn apply(s: &mut Session, path: &str, body: &Value) -> Result<(), Fail> {
    match path {
        "/api/new" => {
            let b: NewBody = parse(body)?;
            let rules = rules_from(b.rules.as_ref(), s.rules())?;
            s.reset(rules, None, &[]).map_err(Fail::from)
        }
        "/api/position" => set_position(s, parse(body)?),
        "/api/move" => {
            let b: MoveBody = parse(body)?;
            let text = b.mv.ok_or_else(|| Fail::bad("missing \"move\""))?;
            let m: Move = text.parse().map_err(|e| Fail::bad(format!("{e}")))?;
            if s.engine_to_move() {
                return Err(Fail(409, "it is the engine's turn".into()));
            }
            s.play(m).map(|_| ()).map_err(Fail::from)
        }
        "/api/goto" => {
            let b: GotoBody = parse(body)?;
            let ply = b.ply.ok_or_else(|| Fail::bad("missing \"ply\""))?;
            s.goto(usize::try_from(ply).unwrap_or(usize::MAX))
                .map_err(Fail::from)
        }
        "/api/settings" => {
            let settings = settings_from(parse(body)?, s.settings)?;
            s.configure(settings);
            Ok(())
        }
        "/api/review" => {
            let b: ReviewBody = parse(body)?;
            let depth = in_range("depth", b.depth, 1, 30)?.unwrap_or(10);
            s.review(depth as u32);
            Ok(())
        }
        "/api/undo" | "/api/redo" | "/api/stop" | "/api/cut" => {
            let NoFields {} = parse(body)?;
            match path {
                "/api/undo" => {
                    s.undo();
                }
                "/api/redo" => {
                    s.redo();
                }
                "/api/stop" => s.stop_now(),
                _ => s.cut(),
            }
            Ok(())
        }
        _ => Err(Fail(404, format!("no such API: {path}"))),
    }
}

/// `value` when it lies in `min..=max`.
fn in_range(key: &str, value: Option<u64>, min: u64, max: u64) -> Result<Option<u64>, Fail> {
    match value {
        Some(n) if !(min..=max).contains(&n) => Err(Fail::bad(format!(
            "\"{key}\" must be an integer from {min} to {max}"
        ))),
        v => Ok(v),
    }
}

/// `rules` (names and values) over `base`.
fn rules_from(rules: Option<&RulesBody>, base: RuleSet) -> Result<RuleSet, Fail> {
    let mut out = base;
    for (k, v) in rules.into_iter().flatten() {
        out.set(k, v).map_err(|e| Fail::bad(e.to_string()))?;
    }
    Ok(out)
}

/// The settings of `body` over `base`.
fn settings_from(body: SettingsBody, base: Settings) -> Result<Settings, Fail> {
    let mut s = base;
    for (i, seat) in [body.black, body.white].into_iter().enumerate() {
        match seat {
            None => {}
            Some(Seat::Human) => s.players[i] = Player::Human,
            Some(Seat::Engine) => s.players[i] = Player::Engine,
        }
    }
    if let Some(d) = in_range("depth", body.depth, 1, 60)? {
        s.level = Level::Depth(d as u32);
    }
    if let Some(ms) = in_range("movetime_ms", body.movetime_ms, 10, 600_000)? {
        s.level = Level::MoveTime(Duration::from_millis(ms));
    }
    if let Some(d) = in_range("analyze_depth", body.analyze_depth, 1, 60)? {
        s.analyze_depth = d as u32;
    }
    if let Some(b) = body.analyze {
        s.analyze = b;
    }
    Ok(s)
}

/// `/api/position`: a board (and side), a transcript (from that board or
/// the start position), or a GGF game; with optional `rules`. A GGF game
/// is played under its own rules (`RU[…]`, else plain Othello, else the
/// `rules` given), and a note says so when they change.
fn set_position(s: &mut Session, body: PositionBody) -> Result<(), Fail> {
    if let Some(text) = &body.ggf {
        let before = s.rules();
        let default = rules_from(body.rules.as_ref(), RuleSet::default())?;
        let g = crate::record::ggf::parse_with_rules(text, default)
            .map_err(|e| Fail::bad(e.to_string()))?;
        let rules = g.game.rules();
        s.reset(rules, Some(g.game.start()), g.game.moves())?;
        if rules != before {
            s.message = Some(format!("the game's rules: {rules}"));
        }
        return Ok(());
    }
    let rules = rules_from(body.rules.as_ref(), s.rules())?;
    let start = match &body.board {
        Some(b) => b
            .parse::<Position>()
            .map_err(|e| Fail::bad(format!("board: {e}")))?,
        None => Position::start(&rules),
    };
    let moves = match &body.transcript {
        Some(t) => {
            start
                .play_transcript(t, &rules)
                .map_err(|e| Fail::bad(format!("transcript: {e}")))?
                .1
        }
        None => Vec::new(),
    };
    s.reset(rules, Some(start), &moves).map_err(Fail::from)
}

/// The game with the undone moves replayed (the whole line).
fn whole_line(s: &Session) -> crate::record::game::Game {
    let mut g = s.game().clone();
    for &m in s.redo.iter().rev() {
        if g.play(m).is_err() {
            break;
        }
    }
    g
}

/// `/api/export`: the whole game as GGF or a transcript.
fn export(s: &Session, query: &HashMap<&str, &str>) -> Result<String, Fail> {
    let g = whole_line(s);
    match query.get("format").copied().unwrap_or("ggf") {
        "transcript" => Ok(g.transcript()),
        "ggf" => {
            let rules = g.rules();
            let name = |c: usize| match s.settings.players[c] {
                Player::Human => "human",
                Player::Engine => "annex",
            };
            let h = GgfHeader {
                place: "annex serve",
                black: name(0),
                white: name(1),
                tc: None,
                rules: &rules,
                date: &crate::date::ggf_now(),
            };
            let end = g.current();
            let result = g
                .is_over()
                .then(|| (end.final_score_for(rules.scoring, Color::Black), ""));
            Ok(ggf(&h, &g.start(), g.moves(), &[], &[], result))
        }
        f => Err(Fail::bad(format!(
            "unknown format {f:?} (ggf or transcript)"
        ))),
    }
}

fn moves_json(moves: impl IntoIterator<Item = Move>) -> Value {
    Value::Array(moves.into_iter().map(|m| json!(m.to_string())).collect())
}

fn bound_name(b: crate::search::Bound) -> &'static str {
    match b {
        crate::search::Bound::Exact => "exact",
        crate::search::Bound::Lower => "lower",
        crate::search::Bound::Upper => "upper",
    }
}

/// The side that made each move of the whole line (`"XXOO…"`: the
/// placement plies of the free start keep the mover).
fn movers(s: &Session) -> String {
    let line = s.line_positions();
    line[..line.len() - 1]
        .iter()
        .map(|p| p.side.to_char())
        .collect()
}

/// The state the page draws.
pub fn state_json(s: &Session, id: &str) -> Value {
    let rules = s.rules();
    let pos = s.game().current();
    let over = pos.is_game_over(&rules);
    let player = |c: usize| match s.settings.players[c] {
        Player::Human => "human",
        Player::Engine => "engine",
    };
    let level = match s.settings.level {
        Level::Depth(d) => json!({ "depth": d }),
        Level::MoveTime(t) => json!({ "movetime_ms": t.as_millis() as u64 }),
    };
    let hints: Vec<Value> = s
        .hints
        .iter()
        .map(|h| {
            json!({
                "move": h.mv.to_string(),
                "square": h.mv.to_square().map(|q| q.to_string()),
                "score": h.score, "depth": h.depth, "exact": h.exact, "wld": h.wld,
                "bound": bound_name(h.bound), "pv": moves_json(h.pv.iter().copied()),
            })
        })
        .collect();
    let result = over.then(|| {
        let score = pos.final_score_for(rules.scoring, Color::Black);
        let winner = pos.winner(&rules).map(|c| c.to_char().to_string());
        json!({ "score": score, "winner": winner })
    });
    json!({
        "session": id,
        "version": s.version,
        "rules": {
            "start": rules.start.name(), "flips": rules.flips.name(),
            "tie": rules.tie.name(), "scoring": rules.scoring.name(),
        },
        "start": { "board": s.game().start().board_string(), "side": s.game().start().side.to_char().to_string() },
        "board": pos.board_string(),
        "side": pos.side.to_char().to_string(),
        "ply": s.ply(),
        "moves": moves_json(s.game().moves().iter().copied()),
        "redo": moves_json(s.redo.iter().rev().copied()),
        "movers": movers(s),
        "legal": moves_json(pos.legal_moves(&rules).iter()),
        "must_pass": pos.must_pass(&rules),
        "game_over": over,
        "result": result,
        "discs": { "X": pos.black().count_ones(), "O": pos.white().count_ones() },
        "players": { "X": player(0), "O": player(1) },
        "level": level,
        "analyze": s.settings.analyze,
        "analyze_depth": s.settings.analyze_depth,
        "searching": s.searching(),
        "search": s.search_kind(),
        "depth": s.depth,
        "hints": hints,
        "evals": s.evals,
        "message": s.message,
    })
}

/// Waits until no search runs, at most `limit`, or until the client is
/// gone.
fn wait_idle(shared: &Shared, limit: Duration, conn: &Conn) {
    let end = Instant::now() + limit;
    let mut s = shared.lock();
    while s.searching() && !s.closed {
        let now = Instant::now();
        if now >= end {
            return;
        }
        s = shared
            .changed
            .wait_timeout(s, (end - now).min(POLL))
            .unwrap_or_else(|e| e.into_inner())
            .0;
        if conn.client_gone() {
            return;
        }
    }
}

/// Counts an event stream on its session while it lasts.
struct Watch<'a>(&'a Shared);

impl<'a> Watch<'a> {
    fn new(shared: &'a Shared) -> Watch<'a> {
        shared.lock().streams += 1;
        Watch(shared)
    }
}

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        let mut s = self.0.lock();
        s.streams -= 1;
        // The page's orphan time starts when its last stream ends.
        s.seen = Instant::now();
    }
}

/// `GET /api/events`: the state at every change, as Server-Sent Events,
/// until the page goes away or the session is closed.
fn stream_events(conn: &mut Conn, shared: &Shared, id: &str) {
    let _watch = Watch::new(shared);
    if conn.start_stream("text/event-stream").is_err() {
        return;
    }
    let mut sent: Option<u64> = None;
    let mut quiet = Instant::now();
    loop {
        let mut s = shared.lock();
        if s.closed {
            drop(s);
            let _ = conn.write_raw(b"event: closed\ndata: {}\n\n");
            return;
        }
        let text = if sent != Some(s.version) {
            sent = Some(s.version);
            let text = format!("event: state\ndata: {}\n\n", state_json(&s, id));
            drop(s);
            text
        } else {
            let (guard, _) = shared
                .changed
                .wait_timeout(s, POLL)
                .unwrap_or_else(|e| e.into_inner());
            s = guard;
            let changed = sent != Some(s.version) || s.closed;
            drop(s);
            if conn.client_gone() {
                return;
            }
            if changed || quiet.elapsed() < KEEPALIVE {
                continue;
            }
            ": keepalive\n\n".to_string()
        };
        quiet = Instant::now();
        if conn.write_raw(text.as_bytes()).is_err() {
            return;
        }
    }
}
