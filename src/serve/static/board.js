// The views of annex serve: the board (squares, discs, legal moves, hints,
// the flip animation), the move list and the score graph.
"use strict";

const FILES = "abcdefgh";

/// The name of square index i (a1 = 0, b1 = 1, …, h8 = 63).
function squareName(i) {
  return FILES[i % 8] + String(Math.floor(i / 8) + 1);
}

/// Builds the 8×8 grid with coordinates inside `el`; `onClick(name)` is
/// called with the square's name. `flipped` turns the board around (h8
/// top left), as seen from the other side of the table.
function createBoard(el, onClick, flipped) {
  el.textContent = "";
  el.dataset.flipped = flipped ? "1" : "0";
  el.appendChild(document.createElement("div"));
  const order = (k) => (flipped ? 7 - k : k);
  for (let k = 0; k < 8; k++) {
    const l = document.createElement("div");
    l.className = "label";
    l.textContent = FILES[order(k)];
    el.appendChild(l);
  }
  for (let rk = 0; rk < 8; rk++) {
    const r = order(rk);
    const l = document.createElement("div");
    l.className = "label";
    l.textContent = String(r + 1);
    el.appendChild(l);
    for (let fk = 0; fk < 8; fk++) {
      const name = FILES[order(fk)] + String(r + 1);
      const sq = document.createElement("div");
      sq.className = "sq";
      sq.id = "sq-" + name;
      sq.dataset.square = name;
      sq.addEventListener("click", () => onClick(name));
      el.appendChild(sq);
    }
  }
  el.lastBoard = null;
}

/// The square a move is played on (`f5:ne` → `f5`), or null for a pass.
function moveSquare(m) {
  return m === "pass" ? null : m.slice(0, 2);
}

/// The best hint per square: `{square: hint}` (hints come best first).
function hintsBySquare(hints) {
  const by = {};
  for (const h of hints || []) {
    if (h.square && !(h.square in by)) by[h.square] = h;
  }
  return by;
}

/// A score as the page shows it: `+4`, `-2`, `0`; a win/loss/draw
/// solve shows `W`, `L` or `D`.
function scoreText(h) {
  if (h.wld) return h.score > 0 ? "W" : h.score < 0 ? "L" : "D";
  return h.score > 0 ? "+" + h.score : String(h.score);
}

/// The content of one square; `turned` animates a disc that changed colour.
function fillSquare(sq, colour, legal, hint, best, turned) {
  sq.textContent = "";
  if (colour === "X" || colour === "O") {
    const d = document.createElement("span");
    d.className = "disc " + colour;
    if (turned) d.dataset.turned = "1";
    sq.appendChild(d);
  } else if (hint) {
    const t = document.createElement("span");
    t.className = "hint" + (best ? " best" : "") + (hint.exact ? " exact" : "");
    t.textContent = scoreText(hint);
    t.title = hint.move + " depth " + hint.depth + (hint.exact ? " (exact)" : "") +
      ": " + hint.pv.join(" ");
    sq.appendChild(t);
  } else if (legal) {
    const d = document.createElement("span");
    d.className = "legal";
    sq.appendChild(d);
  }
}

/// Draws `board` (64 characters X/O/-) with the state's legal moves and
/// hints; `setup` draws the board alone. Discs that turned since the last
/// drawing flip over (a short animation).
function renderBoard(el, board, state, setup) {
  const legal = new Set(setup ? [] : (state.legal || []).map(moveSquare));
  const hints = setup ? {} : hintsBySquare(state.hints);
  const bestScore = state.hints && state.hints.length ? state.hints[0].score : null;
  const played = (state.moves || []).filter((m) => m !== "pass");
  const last = setup || !played.length ? null : moveSquare(played[played.length - 1]);
  const before = el.lastBoard;
  for (let i = 0; i < 64; i++) {
    const name = squareName(i);
    const sq = document.getElementById("sq-" + name);
    const h = hints[name];
    const turned = !!before && before[i] !== board[i] && before[i] !== "-" && board[i] !== "-";
    if (sq.dataset.colour === board[i] && !h && !turned && !sq.dataset.marked &&
        !legal.has(name)) {
      sq.classList.toggle("last", name === last);
      continue;
    }
    fillSquare(sq, board[i], legal.has(name), h, h && h.score === bestScore, turned);
    sq.dataset.colour = board[i];
    sq.dataset.marked = h || legal.has(name) ? "1" : "";
    sq.classList.toggle("last", name === last);
  }
  el.lastBoard = board;
}

/// The legal moves on `square` (several under one-line flips when it
/// brackets several lines).
function movesOn(state, square) {
  return (state.legal || []).filter((m) => moveSquare(m) === square);
}

/// Screen arrows of the directions (row 1 is at the top: `n` is up).
const ARROWS = { n: "↑", ne: "↗", e: "→", se: "↘", s: "↓", sw: "↙", w: "←", nw: "↖" };

/// Shows buttons for the lines of a one-line move; `onPick(move)`.
function chooseLine(el, moves, onPick) {
  el.textContent = "Which line turns? ";
  for (const m of moves) {
    const b = document.createElement("button");
    b.textContent = (ARROWS[m.slice(3)] || "") + " " + m;
    b.title = m;
    b.addEventListener("click", () => {
      el.hidden = true;
      onPick(m);
    });
    el.appendChild(b);
  }
  const cancel = document.createElement("button");
  cancel.textContent = "cancel";
  cancel.addEventListener("click", () => { el.hidden = true; });
  el.appendChild(cancel);
  el.hidden = false;
}

/// The move list: every ply of the whole line with its number and a disc
/// of the mover's colour; the viewed ply marked, the undone ones grey. A
/// click views that ply (`onPly`).
function renderMoves(ol, s, onPly) {
  const all = s.moves.concat(s.redo);
  const movers = s.movers || "";
  const items = ol.children;
  for (let i = 0; i < all.length; i++) {
    let li = items[i];
    if (!li) {
      li = document.createElement("li");
      li.className = "";
      li.addEventListener("click", () => onPly(Number(li.dataset.ply)));
      ol.appendChild(li);
    }
    const key = all[i] + movers[i];
    if (li.dataset.key !== key) {
      li.dataset.key = key;
      li.dataset.ply = String(i + 1);
      li.innerHTML = "";
      const n = document.createElement("span");
      n.className = "n";
      n.textContent = String(i + 1);
      const d = document.createElement("span");
      d.className = "mark " + (movers[i] || "");
      const m = document.createElement("span");
      m.className = "m";
      m.textContent = all[i];
      li.append(n, d, m);
    }
    li.className = i === s.ply - 1 ? "current" : i >= s.ply ? "future" : "";
  }
  while (ol.children.length > all.length) ol.lastChild.remove();
  const cur = ol.children[s.ply - 1];
  if (cur && cur.scrollIntoView && ol.dataset.shown !== String(s.ply)) {
    cur.scrollIntoView({ block: "nearest" });
  }
  ol.dataset.shown = String(s.ply);
}

/// The score graph (Black's view: above the line X is ahead, below O is):
/// a point per ply of the whole line, axes with discs and ply numbers; a
/// click views that ply (`onPly`).
function renderGraph(svg, s, onPly) {
  const W = 400, H = 130, L = 30, R = 6, T = 8, B = 18;
  const evals = s.evals || [];
  const n = Math.max(evals.length - 1, 1);
  const x = (i) => L + (i / n) * (W - L - R);
  // The scale follows the largest score (at least ±8 discs, at most ±64),
  // rounded up to a multiple of 8.
  const most = Math.max(8, ...evals.map((v) => (v === null ? 0 : Math.abs(v))));
  const top = Math.min(64, Math.ceil(most / 8) * 8);
  const mid = T + (H - T - B) / 2;
  const y = (v) => mid - (Math.max(-top, Math.min(top, v)) / top) * ((H - T - B) / 2);
  const parts = [];
  parts.push('<rect x="' + L + '" y="' + T + '" width="' + (W - L - R) + '" height="' +
    (mid - T) + '" fill="#eef2ef"/>');
  for (const v of [top, top / 2, 0, -top / 2, -top]) {
    const yy = y(v).toFixed(1);
    parts.push('<line x1="' + L + '" y1="' + yy + '" x2="' + (W - R) + '" y2="' + yy +
      '" stroke="' + (v === 0 ? "#888" : "#ddd") + '"/>');
    parts.push('<text x="' + (L - 4) + '" y="' + (Number(yy) + 3.5) +
      '" text-anchor="end" class="axis">' + (v > 0 ? "+" + v : v) + "</text>");
  }
  const step = n <= 20 ? 5 : n <= 40 ? 10 : 20;
  for (let i = 0; i <= n; i += step) {
    parts.push('<text x="' + x(i).toFixed(1) + '" y="' + (H - 6) +
      '" text-anchor="middle" class="axis">' + i + "</text>");
  }
  parts.push('<line x1="' + x(s.ply).toFixed(1) + '" y1="' + T + '" x2="' +
    x(s.ply).toFixed(1) + '" y2="' + (H - B) + '" stroke="#e8c547" stroke-width="3"/>');
  let path = "";
  let dots = "";
  evals.forEach((v, i) => {
    if (v === null) return;
    const p = x(i).toFixed(1) + " " + y(v).toFixed(1);
    path += (path ? " L" : "M") + p;
    dots += '<circle cx="' + x(i).toFixed(1) + '" cy="' + y(v).toFixed(1) +
      '" r="2.5" fill="#2d4a3e"><title>ply ' + i + ": " + (v > 0 ? "+" : "") + v +
      "</title></circle>";
  });
  parts.push('<path d="' + path + '" fill="none" stroke="#2d4a3e" stroke-width="1.5"/>' + dots);
  if (!evals.some((v) => v !== null)) {
    parts.push('<text x="' + ((W + L) / 2) + '" y="' + (mid - 6) +
      '" text-anchor="middle" class="axis">no scores yet</text>');
  }
  svg.innerHTML = parts.join("");
  svg.onclick = (e) => {
    const r = svg.getBoundingClientRect();
    const fx = ((e.clientX - r.left) / r.width) * W;
    const ply = Math.round(((fx - L) / (W - L - R)) * n);
    onPly(Math.max(0, Math.min(evals.length - 1, ply)));
  };
}

/// The end of a game in words: "White wins 63-1", "Draw 32-32"; the
/// count follows the scoring rule (empties to the winner under `wof`).
function resultText(s) {
  const b = s.discs.X, w = s.discs.O;
  const wof = s.rules.scoring === "wof";
  const score = s.result.score;
  const e = 64 - b - w;
  if (score === 0) {
    const each = wof ? b + e / 2 : b;
    const count = each + "-" + (wof ? w + e / 2 : w);
    if (s.result.winner === "O") return "White wins on equal discs (tie rule: second player), " + count;
    return "Draw " + count;
  }
  const [win, lose] = score > 0 ? [b, w] : [w, b];
  const count = (wof ? 64 - lose : win) + "-" + lose;
  return (score > 0 ? "Black" : "White") + " wins " + count;
}
