// The page of annex serve: one session, its state from the event stream,
// the controls that post to the API, the address bar that keeps the game.
"use strict";

const $ = (id) => document.getElementById(id);
/// The depth a loaded game is scored at for the graph (a few seconds at
/// most); "Review game" looks deeper.
const AUTO_REVIEW_DEPTH = 8;
const REVIEW_DEPTH = 12;
/// The players a new page starts with: you as X against the engine.
const DEFAULT_PLAYERS = { X: "human", O: "engine" };
const DEFAULT_LEVEL = "depth:8";
const START_BOARDS = {
  diagonal: "-".repeat(27) + "OX" + "-".repeat(6) + "XO" + "-".repeat(27),
  parallel: "-".repeat(27) + "OO" + "-".repeat(6) + "XX" + "-".repeat(27),
  free: "-".repeat(64),
};
const RULE_DEFAULTS = { start: "diagonal", flips: "all", tie: "draw", scoring: "wof" };

let session = null;
let state = null;
let setupBoard = null; // an array of 64 characters while setting up
let flipped = localStorage.getItem("annex-flipped") === "1";
let snapshot = false;
let passTimer = null;
/// Time each side used at the end of the game (ms), while playing with a
/// time limit; `since` is when the side to move started.
const clock = { X: 0, O: 0, side: null, since: 0 };

function showError(msg) {
  $("error").textContent = msg || "";
}

/// POSTs `body` to `/api/<path>` of the session; the answer is the new
/// state (errors are shown, and give null).
async function post(path, body) {
  const q = session ? "?s=" + session : "";
  try {
    const r = await fetch("/api/" + path + q, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body || {}),
    });
    const v = await r.json();
    if (!r.ok) {
      showError(v.error || r.statusText);
      return null;
    }
    return v;
  } catch (e) {
    showError(String(e));
    return null;
  }
}

/// A user's action: posts, draws the answer, clears the last error.
async function act(path, body) {
  const v = await post(path, body);
  if (v) {
    showError("");
    render(v);
  }
  return v;
}

const atEnd = (s) => s.redo.length === 0;
const humanTurn = (s) => s.players[s.side] === "human";
const lineLength = (s) => s.moves.length + s.redo.length;

/// The ply being viewed, or asked for and not yet shown: quick key presses
/// count from it, and their requests go one after the other.
let pendingPly = null;
let navQueue = Promise.resolve();
const viewed = () => (pendingPly !== null ? pendingPly : state.ply);

function goto(ply) {
  if (!state || ply < 0 || ply > lineLength(state) || ply === viewed()) return;
  pendingPly = ply;
  navQueue = navQueue
    .then(() => act("goto", { ply }))
    .then(() => {
      if (pendingPly === ply) pendingPly = null;
    });
}

function onSquare(name) {
  if (setupBoard) return setupClick(name);
  const s = state;
  if (!s || s.game_over) return;
  if (!humanTurn(s)) {
    return note(atEnd(s)
      ? "The engine is to move."
      : "The engine is to move here: \u201cPlay from here\u201d lets it play on from this position.");
  }
  if (s.must_pass) return act("move", { move: "pass" });
  const moves = movesOn(s, name);
  if (moves.length === 1) act("move", { move: moves[0] });
  else if (moves.length > 1) chooseLine($("chooser"), moves, (m) => act("move", { move: m }));
}

function note(text) {
  $("note").textContent = text;
}

function sideName(c) {
  return c === "X" ? "Black (X)" : "White (O)";
}

function statusText(s) {
  if (s.game_over) return resultText(s);
  const who = sideName(s.side) + " to move" + (s.players[s.side] === "engine" ? " (engine)" : "");
  const where = atEnd(s) ? "" : "move " + s.ply + " of " + lineLength(s) + ": ";
  if (s.search === "play") return where + who + ", thinking… depth " + s.depth;
  if (s.search === "analyze") return where + who + ", analysing… depth " + s.depth;
  if (s.search === "review") return "scoring the game for the graph…";
  return where + who;
}

/// The note under the board: a pass, a viewed position, the server's word.
function noteText(s) {
  const last = s.moves[s.moves.length - 1];
  const mover = (s.movers || "")[s.moves.length - 1];
  if (s.game_over) return "Game over: " + resultText(s) + ".";
  if (!atEnd(s)) {
    return "Viewing move " + s.ply + " of " + lineLength(s) +
      " (End: back to the game; a move here starts a new line).";
  }
  if (!s.game_over && s.must_pass) {
    return sideName(s.side) + " has no legal move and passes" +
      (humanTurn(s) ? " (click the board, or wait)." : ".");
  }
  if (last === "pass" && mover) return sideName(mover) + " had no legal move and passed.";
  if (s.message) return s.message;
  if (s.ply === 0 && humanTurn(s)) return "Your move: click a square with a dot.";
  return "";
}

function renderPv(s) {
  const h = s.hints && s.hints[0];
  $("pv").textContent = h
    ? "depth " + h.depth + (h.exact ? " exact" : "") + ": " + scoreText(h) + "  " + h.pv.join(" ")
    : "\u00a0";
}

function levelOf(s) {
  return s.level.depth ? "depth:" + s.level.depth : "time:" + s.level.movetime_ms;
}

/// Syncs the controls with the state (not while the user edits them).
function renderControls(s) {
  const end = atEnd(s);
  $("pass").disabled = !(s.must_pass && end && humanTurn(s));
  $("undo").disabled = s.ply === 0;
  $("redo").disabled = end;
  $("first").disabled = $("back").disabled = s.ply === 0;
  $("forward").disabled = $("last").disabled = end;
  $("cut").hidden = end || s.game_over || humanTurn(s);
  $("stop").disabled = !s.searching;
  if (document.activeElement && document.activeElement.tagName === "SELECT") return;
  $("black").value = s.players.X;
  $("white").value = s.players.O;
  $("analyze").checked = s.analyze;
  if (document.activeElement !== $("analyze-depth")) $("analyze-depth").value = s.analyze_depth;
  for (const k of ["start", "flips", "tie", "scoring"]) $("rule-" + k).value = s.rules[k];
  const level = levelOf(s);
  if ([...$("level").options].some((o) => o.value === level)) $("level").value = level;
}

/// Draws a state, unless a newer one was drawn already (a POST's answer
/// may arrive after the stream's next state).
function render(s) {
  if (state && s.session === state.session && s.version < state.version) return;
  state = s;
  renderBoard($("board"), setupBoard ? setupBoard.join("") : s.board, s, !!setupBoard);
  $("count-X").textContent = s.discs.X;
  $("count-O").textContent = s.discs.O;
  $("status").textContent = statusText(s);
  $("turn").textContent = s.game_over ? "" : sideName(s.side) + " to move";
  $("side-X").classList.toggle("to-move", !s.game_over && s.side === "X");
  $("side-O").classList.toggle("to-move", !s.game_over && s.side === "O");
  renderMoves($("moves"), s, goto);
  renderPv(s);
  renderGraph($("graph"), s, goto);
  renderControls(s);
  note(noteText(s));
  tickClock(s);
  autoPass(s);
  keepInUrl(s);
}

/// A human's forced pass is played by itself after a moment (or at once
/// by a click on the board).
function autoPass(s) {
  if (passTimer !== null || snapshot || setupBoard) return;
  if (s.game_over || !s.must_pass || !atEnd(s) || !humanTurn(s)) return;
  const version = s.version;
  passTimer = setTimeout(() => {
    passTimer = null;
    const t = state;
    if (t.must_pass && atEnd(t) && humanTurn(t) && !t.game_over && t.version === version) {
      act("move", { move: "pass" });
    }
  }, 900);
}

/// The clocks, when playing with a time limit: time each side used, the
/// side to move's running.
function tickClock(s) {
  const running = s.level.movetime_ms && atEnd(s) && !s.game_over ? s.side : null;
  const now = Date.now();
  if (running !== clock.side) {
    if (clock.side) clock[clock.side] += now - clock.since;
    clock.side = running;
    clock.since = now;
  }
  for (const c of ["X", "O"]) {
    const el = $("clock-" + c);
    if (!s.level.movetime_ms) {
      el.textContent = "";
      continue;
    }
    const ms = clock[c] + (clock.side === c ? now - clock.since : 0);
    const secs = Math.floor(ms / 1000);
    el.textContent = Math.floor(secs / 60) + ":" + String(secs % 60).padStart(2, "0");
    el.title = "time used by " + sideName(c);
  }
}

function resetClock() {
  clock.X = clock.O = 0;
  clock.side = null;
}

/// The address that restores the game: its whole line, the viewed ply, a
/// start board that is not the rules' own, the rules, players, level and
/// analysis that are not the defaults.
function queryFor(s) {
  const q = new URLSearchParams();
  const line = s.moves.concat(s.redo).join("");
  if (line) q.set("moves", line);
  if (!atEnd(s)) q.set("ply", String(s.ply));
  const start = s.start.board + (s.start.side === "X" ? "" : " " + s.start.side);
  if (start !== START_BOARDS[s.rules.start]) q.set("board", s.start.board + " " + s.start.side);
  for (const k of Object.keys(RULE_DEFAULTS)) {
    if (s.rules[k] !== RULE_DEFAULTS[k]) q.set(k, s.rules[k]);
  }
  if (s.players.X !== DEFAULT_PLAYERS.X) q.set("black", s.players.X);
  if (s.players.O !== DEFAULT_PLAYERS.O) q.set("white", s.players.O);
  if (levelOf(s) !== DEFAULT_LEVEL) q.set("level", levelOf(s));
  if (s.analyze) q.set("analyze", "1");
  if (s.analyze_depth !== 60) q.set("depth", String(s.analyze_depth));
  return q.toString();
}

function keepInUrl(s) {
  if (snapshot) return;
  const q = queryFor(s);
  if (q !== location.search.replace(/^\?/, "")) {
    history.replaceState(null, "", q ? "?" + q : location.pathname);
  }
}

function settingsBody() {
  const [kind, value] = $("level").value.split(":");
  const body = { black: $("black").value, white: $("white").value, analyze: $("analyze").checked };
  body[kind === "depth" ? "depth" : "movetime_ms"] = Number(value);
  const d = Number($("analyze-depth").value);
  if (d >= 1 && d <= 60) body.analyze_depth = d;
  return body;
}

/// The text box holds a GGF game, a board or a transcript.
function loadBody(text) {
  const t = text.trim();
  if (t.startsWith("(;")) return { ggf: t };
  const squares = t.split(/[\s;]/).join("").length;
  if (/^[XOxo\-*.]{64}/.test(t.replace(/\s/g, "")) && squares >= 64) return { board: t };
  return { transcript: t };
}

/// Loads a game (or position), views `ply` of it if given, and scores it
/// for the graph (a review is cancelled by any change, so it comes last).
async function load(body, poster, ply) {
  let v = await poster("position", body);
  if (!v) return null;
  resetClock();
  if (ply !== undefined && ply >= 0 && ply < v.moves.length) {
    v = (await poster("goto", { ply })) || v;
  }
  if (lineLength(v) >= 2) return (await poster("review", { depth: AUTO_REVIEW_DEPTH })) || v;
  return v;
}

function setupClick(name) {
  const i = (Number(name[1]) - 1) * 8 + FILES.indexOf(name[0]);
  const next = { "-": "X", X: "O", O: "-" };
  setupBoard[i] = next[setupBoard[i]] || "-";
  renderBoard($("board"), setupBoard.join(""), state, true);
}

/// Shows the game as GGF or a transcript in the text box and saves it as
/// a file.
async function exportGame(format) {
  const r = await fetch("/api/export?s=" + session + "&format=" + format);
  const text = await r.text();
  $("text").value = text;
  if (!r.ok) return;
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text + "\n"], { type: "text/plain" }));
  a.download = format === "ggf" ? "annex-game.ggf" : "annex-game.txt";
  a.click();
  URL.revokeObjectURL(a.href);
}

function flipBoard() {
  flipped = !flipped;
  localStorage.setItem("annex-flipped", flipped ? "1" : "0");
  createBoard($("board"), onSquare, flipped);
  if (state) render(state);
}

function bindControls() {
  $("undo").onclick = () => act("undo");
  $("redo").onclick = () => act("redo");
  $("pass").onclick = () => act("move", { move: "pass" });
  $("stop").onclick = () => act("stop");
  $("flip").onclick = flipBoard;
  $("first").onclick = () => goto(0);
  $("back").onclick = () => state && goto(viewed() - 1);
  $("forward").onclick = () => state && goto(viewed() + 1);
  $("last").onclick = () => state && goto(lineLength(state));
  $("cut").onclick = () => act("cut");
  $("review").onclick = () => act("review", { depth: REVIEW_DEPTH });
  for (const id of ["black", "white", "level", "analyze", "analyze-depth"]) {
    $(id).onchange = () => act("settings", settingsBody());
  }
  $("new").onclick = async () => {
    const rules = {};
    for (const k of ["start", "flips", "tie", "scoring"]) rules[k] = $("rule-" + k).value;
    if (await act("new", { rules })) resetClock();
  };
  $("load").onclick = () => load(loadBody($("text").value), act);
  $("save-ggf").onclick = () => exportGame("ggf");
  $("save-transcript").onclick = () => exportGame("transcript");
  $("setup").onclick = () => {
    setupBoard = state.board.split("");
    $("setup-help").hidden = false;
    render(state);
  };
  $("setup-done").onclick = async () => {
    const board = setupBoard.join("") + " " + $("setup-side").value;
    setupBoard = null;
    $("setup-help").hidden = true;
    if (!(await load({ board }, act))) render(state);
  };
  document.addEventListener("keydown", onKey);
}

/// ← → browse, Home/End, Ctrl+Z undo, Ctrl+Y (Ctrl+Shift+Z) redo, F flips.
function onKey(e) {
  const t = e.target && e.target.tagName;
  const typing = t === "TEXTAREA" || t === "SELECT" || (t === "INPUT" && e.target.type !== "checkbox");
  if (typing || !state) return;
  const ctrl = e.ctrlKey || e.metaKey;
  const key = e.key.toLowerCase();
  let done = true;
  if (ctrl && key === "z" && !e.shiftKey) act("undo");
  else if (ctrl && (key === "y" || (key === "z" && e.shiftKey))) act("redo");
  else if (ctrl || e.altKey) done = false;
  else if (e.key === "ArrowLeft") goto(viewed() - 1);
  else if (e.key === "ArrowRight") goto(viewed() + 1);
  else if (e.key === "Home") goto(0);
  else if (e.key === "End") goto(lineLength(state));
  else if (key === "f") flipBoard();
  else done = false;
  if (done) e.preventDefault();
}

/// Follows the session's state through Server-Sent Events.
function follow() {
  const es = new EventSource("/api/events?s=" + session);
  let count = 0;
  es.addEventListener("state", (e) => {
    document.body.dataset.events = String(++count);
    render(JSON.parse(e.data));
  });
  es.onerror = () => { $("status").textContent = "connection lost: retrying…"; };
  es.addEventListener("closed", () => {
    es.close();
    $("status").textContent = "this page's session was closed: reload the page (the game is in the address)";
  });
}

/// The session this tab had before a reload, if the server still holds it
/// with the game of the address.
async function previousSession(q) {
  const id = sessionStorage.getItem("annex-session");
  if (!id) return null;
  try {
    const r = await fetch("/api/state?s=" + encodeURIComponent(id));
    if (!r.ok) return null;
    const s = await r.json();
    return queryFor(s) === q.toString() ? s : null;
  } catch (e) {
    return null;
  }
}

/// A new session set up from the address: players, level, analysis,
/// rules, the game (`moves`, `board`), the viewed `ply`; `review=1` scores
/// the game for the graph (a loaded game is scored anyway).
async function restore(q) {
  const settings = { black: DEFAULT_PLAYERS.X, white: DEFAULT_PLAYERS.O };
  for (const c of ["black", "white"]) if (q.get(c)) settings[c] = q.get(c);
  const [kind, value] = (q.get("level") || DEFAULT_LEVEL).split(":");
  settings[kind === "time" ? "movetime_ms" : "depth"] = Number(value);
  if (q.get("analyze") === "1") settings.analyze = true;
  if (q.get("depth")) settings.analyze_depth = Number(q.get("depth"));
  let v = await post("session", settings);
  if (!v) {
    // A bad setting in the address: the defaults, and the error stays.
    v = await post("session", { black: DEFAULT_PLAYERS.X, white: DEFAULT_PLAYERS.O });
    if (!v) return false;
  }
  session = v.session;
  sessionStorage.setItem("annex-session", session);
  render(v.state);
  const rules = {};
  for (const k of Object.keys(RULE_DEFAULTS)) if (q.get(k)) rules[k] = q.get(k);
  const body = { rules };
  if (q.get("moves")) body.transcript = q.get("moves");
  if (q.get("board")) body.board = q.get("board");
  if (!body.transcript && !body.board) {
    if (Object.keys(rules).length) await post("new", { rules }).then((x) => x && render(x));
  } else {
    const ply = q.get("ply") ? Number(q.get("ply")) : undefined;
    const loaded = await load(body, post, ply);
    if (!loaded) return true; // the error stays in view
    render(loaded);
  }
  if (q.get("review") === "1" && !(state.moves.length + state.redo.length >= 2)) {
    const r = await post("review", { depth: REVIEW_DEPTH });
    if (r) render(r);
  }
  return true;
}

/// The query string sets up the page (see `restore`); `snapshot=1` draws
/// the state once the search is done and follows no stream (for headless
/// browsers). A reload finds its session again; a shared link opens a new
/// one with the same game.
async function start() {
  createBoard($("board"), onSquare, flipped);
  bindControls();
  setInterval(() => state && tickClock(state), 500);
  const q = new URLSearchParams(location.search);
  snapshot = q.get("snapshot") === "1";
  const prev = snapshot ? null : await previousSession(q);
  if (prev) {
    session = prev.session;
    render(prev);
    document.body.dataset.restored = "session";
    // A search the server stopped while the page was away starts again.
    const wants = prev.players[prev.side] === "engine" || prev.analyze;
    if (!prev.searching && !prev.game_over && atEnd(prev) && wants) await act("settings", {});
  } else {
    if (!(await restore(q))) return;
    document.body.dataset.restored = "address";
  }
  if (snapshot) {
    const r = await fetch("/api/state?wait=idle&s=" + session);
    render(await r.json());
    document.body.dataset.ready = "1";
  } else {
    follow();
  }
}

start();
