// The board of annex serve: squares, discs, legal moves, hints.
"use strict";

const FILES = "abcdefgh";

/// The name of square index i (a1 = 0, b1 = 1, …, h8 = 63).
function squareName(i) {
  return FILES[i % 8] + String(Math.floor(i / 8) + 1);
}

/// Builds the 8×8 grid with coordinates inside `el`; `onClick(name)` is
/// called with the square's name.
function createBoard(el, onClick) {
  el.textContent = "";
  el.appendChild(document.createElement("div"));
  for (let f = 0; f < 8; f++) {
    const l = document.createElement("div");
    l.className = "label";
    l.textContent = FILES[f];
    el.appendChild(l);
  }
  for (let r = 0; r < 8; r++) {
    const l = document.createElement("div");
    l.className = "label";
    l.textContent = String(r + 1);
    el.appendChild(l);
    for (let f = 0; f < 8; f++) {
      const name = FILES[f] + String(r + 1);
      const sq = document.createElement("div");
      sq.className = "sq";
      sq.id = "sq-" + name;
      sq.dataset.square = name;
      sq.addEventListener("click", () => onClick(name));
      el.appendChild(sq);
    }
  }
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

/// The content of one square.
function fillSquare(sq, colour, legal, hint, best) {
  sq.textContent = "";
  if (colour === "X" || colour === "O") {
    const d = document.createElement("span");
    d.className = "disc " + colour;
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
/// hints; `setup` draws the board alone.
function renderBoard(el, board, state, setup) {
  const legal = new Set(setup ? [] : (state.legal || []).map(moveSquare));
  const hints = setup ? {} : hintsBySquare(state.hints);
  const bestScore = state.hints && state.hints.length ? state.hints[0].score : null;
  const played = (state.moves || []).filter((m) => m !== "pass");
  const last = setup || !played.length ? null : moveSquare(played[played.length - 1]);
  for (let i = 0; i < 64; i++) {
    const name = squareName(i);
    const sq = document.getElementById("sq-" + name);
    const h = hints[name];
    fillSquare(sq, board[i], legal.has(name), h, h && h.score === bestScore);
    sq.classList.toggle("last", name === last);
  }
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
