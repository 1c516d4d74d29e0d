// The page of annex serve: one session, its state from the event stream,
// the controls that post to the API.
"use strict";

const $ = (id) => document.getElementById(id);
let session = null;
let state = null;
let setupBoard = null; // an array of 64 characters while setting up

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
    showError("");
    return v;
  } catch (e) {
    showError(String(e));
    return null;
  }
}

async function act(path, body) {
  const v = await post(path, body);
  if (v) render(v);
  return v;
}

function onSquare(name) {
  if (setupBoard) return setupClick(name);
  if (!state) return;
  const moves = movesOn(state, name);
  if (moves.length === 1) act("move", { move: moves[0] });
  else if (moves.length > 1) chooseLine($("chooser"), moves, (m) => act("move", { move: m }));
}

function statusText(s) {
  if (s.game_over) {
    const w = s.result.winner;
    return "game over: " + (w ? w + " wins " : "draw ") +
      (s.result.score > 0 ? "+" : "") + s.result.score;
  }
  const who = s.side + " to move" + (s.players[s.side] === "engine" ? " (engine)" : "");
  if (s.must_pass) return who + ": pass";
  if (s.search === "play") return who + ", thinking… depth " + s.depth;
  if (s.search === "analyze") return who + ", analysing… depth " + s.depth;
  if (s.search === "review") return "reviewing the game…";
  return who;
}

function renderMoves(s) {
  const ol = $("moves");
  ol.textContent = "";
  const all = s.moves.concat(s.redo);
  all.forEach((m, i) => {
    const li = document.createElement("li");
    li.textContent = m;
    if (i === s.ply - 1) li.className = "current";
    if (i >= s.ply) li.className = "future";
    li.addEventListener("click", () => act("goto", { ply: i + 1 }));
    ol.appendChild(li);
  });
}

function renderPv(s) {
  const h = s.hints && s.hints[0];
  $("pv").textContent = h
    ? "depth " + h.depth + (h.exact ? " exact" : "") + ": " + scoreText(h) + "  " + h.pv.join(" ")
    : "";
}

/// Syncs the controls with the state (not while the user edits them).
function renderControls(s) {
  if (document.activeElement && document.activeElement.tagName === "SELECT") return;
  $("black").value = s.players.X;
  $("white").value = s.players.O;
  $("analyze").checked = s.analyze;
  if (document.activeElement !== $("analyze-depth")) $("analyze-depth").value = s.analyze_depth;
  for (const k of ["start", "flips", "tie", "scoring"]) $("rule-" + k).value = s.rules[k];
  const level = s.level.depth ? "depth:" + s.level.depth : "time:" + s.level.movetime_ms;
  if ([...$("level").options].some((o) => o.value === level)) $("level").value = level;
  $("pass").disabled = !s.must_pass;
  $("undo").disabled = s.ply === 0;
  $("redo").disabled = s.redo.length === 0;
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
  $("turn").textContent = s.game_over ? "" : "  " + s.side + " to move";
  renderMoves(s);
  renderPv(s);
  renderGraph($("graph"), s, (ply) => act("goto", { ply }));
  renderControls(s);
  if (s.message) $("status").title = s.message;
}

/// The evaluation graph (Black's view): a point per ply; a click goes there.
function renderGraph(svg, s, onPly) {
  const n = Math.max(s.evals.length - 1, 1);
  const x = (i) => (i / n) * 600;
  // The scale follows the largest score (at least ±8 discs, at most ±64).
  const top = Math.min(64, Math.max(8, ...s.evals.map((v) => (v === null ? 0 : Math.abs(v)))));
  const y = (v) => 60 - Math.max(-top, Math.min(top, v)) * (55 / top);
  let path = "";
  let dots = "";
  s.evals.forEach((v, i) => {
    if (v === null) return;
    const p = x(i).toFixed(1) + " " + y(v).toFixed(1);
    path += (path ? " L" : "M") + p;
    dots += '<circle cx="' + x(i).toFixed(1) + '" cy="' + y(v).toFixed(1) + '" r="3" fill="#2d4a3e"/>';
  });
  svg.innerHTML =
    '<line x1="0" y1="60" x2="600" y2="60" stroke="#aaa"/>' +
    '<line x1="' + x(s.ply) + '" y1="0" x2="' + x(s.ply) + '" y2="120" stroke="#e8c547" stroke-width="3"/>' +
    '<path d="' + path + '" fill="none" stroke="#2d4a3e" stroke-width="2"/>' + dots;
  svg.onclick = (e) => {
    const r = svg.getBoundingClientRect();
    const ply = Math.round(((e.clientX - r.left) / r.width) * n);
    onPly(Math.max(0, Math.min(s.evals.length - 1, ply)));
  };
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

function bindControls() {
  $("undo").onclick = () => act("undo");
  $("redo").onclick = () => act("redo");
  $("pass").onclick = () => act("move", { move: "pass" });
  $("stop").onclick = () => act("stop");
  $("review").onclick = () => act("review", { depth: 10 });
  for (const id of ["black", "white", "level", "analyze", "analyze-depth"]) {
    $(id).onchange = () => act("settings", settingsBody());
  }
  $("new").onclick = () => {
    const rules = {};
    for (const k of ["start", "flips", "tie", "scoring"]) rules[k] = $("rule-" + k).value;
    act("new", { rules });
  };
  $("load").onclick = () => act("position", loadBody($("text").value));
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
    if (!(await act("position", { board }))) render(state);
  };
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
    $("status").textContent = "this page's session was closed: reload the page";
  });
}

/// The query string sets up the page: `moves=f5d6c3`, `board=…`,
/// `analyze=1`, `depth=N` (analysis depth), `review=1` (the graph),
/// `black=engine`,
/// `white=engine`; `snapshot=1` draws the state once the search is done
/// and follows no stream (for headless browsers).
async function start() {
  createBoard($("board"), onSquare);
  bindControls();
  const q = new URLSearchParams(location.search);
  const settings = {};
  if (q.get("analyze") === "1") settings.analyze = true;
  if (q.get("depth")) settings.analyze_depth = Number(q.get("depth"));
  for (const c of ["black", "white"]) if (q.get(c)) settings[c] = q.get(c);
  const v = await post("session", settings);
  if (!v) return;
  session = v.session;
  render(v.state);
  if (q.get("moves") || q.get("board")) {
    const body = { transcript: q.get("moves") || "" };
    if (q.get("board")) body.board = q.get("board");
    await act("position", body);
  }
  if (q.get("review") === "1") await act("review", { depth: 10 });
  if (q.get("snapshot") === "1") {
    const r = await fetch("/api/state?wait=idle&s=" + session);
    render(await r.json());
    document.body.dataset.ready = "1";
  } else {
    follow();
  }
}

start();
