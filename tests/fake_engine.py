#!/usr/bin/env python3
"""A fake Othello engine for the `annex match` tests.

It speaks the UCI-style protocol, NBoard v2 and GTP v2 (chosen by the first
command it receives, or fixed with --only), plays plain Othello with its own
small move generator, and can be told to misbehave from a given ply on:

  --strategy first|greedy   first legal move in a1..h8 order, or most flips
  --mode good|illegal|crash|silent|slow|garbage|resign|utf8|double|
         flood|floodraw|longmove
                            utf8: the answer holds bytes that are not UTF-8;
                            double: the answer is given twice (two bestmoves,
                            two '===' lines, two GTP replies);
                            flood: instead of answering, print lines without
                            end; floodraw: print bytes without a newline and
                            without end; longmove: answer a move token of
                            --long-bytes bytes
  --at-ply P                misbehave only when asked to move at ply >= P
                            (ply = discs on the board - 4)
  --slow-ms MS              how long 'slow' sleeps before answering
  --long-bytes N            the length of the 'longmove' token
  --start-flood lines|raw   flood the output at start, before any command
  --only uci|nboard|gtp     refuse the other protocols
  --log FILE                append every received line to FILE

Nothing here is shared with the Rust rules code: it is an independent
implementation on purpose.
"""

import argparse
import os
import sys
import time

DIRS = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)]


def sq_name(i):
    return "abcdefgh"[i % 8] + str(i // 8 + 1)


def sq_index(s):
    s = s.strip().lower()
    if len(s) != 2 or s[0] not in "abcdefgh" or s[1] not in "12345678":
        return None
    return (int(s[1]) - 1) * 8 + "abcdefgh".index(s[0])


class Board:
    def __init__(self):
        self.cells = ["-"] * 64
        self.cells[27] = "O"  # d4
        self.cells[36] = "O"  # e5
        self.cells[28] = "X"  # e4
        self.cells[35] = "X"  # d5
        self.side = "X"

    def set_string(self, s, side):
        self.cells = ["X" if c in "X*" else "O" if c == "O" else "-" for c in s]
        self.side = side

    def flips(self, i, me):
        if self.cells[i] != "-":
            return []
        opp = "O" if me == "X" else "X"
        out = []
        x0, y0 = i % 8, i // 8
        for dx, dy in DIRS:
            x, y, run = x0 + dx, y0 + dy, []
            while 0 <= x < 8 and 0 <= y < 8 and self.cells[y * 8 + x] == opp:
                run.append(y * 8 + x)
                x, y = x + dx, y + dy
            if run and 0 <= x < 8 and 0 <= y < 8 and self.cells[y * 8 + x] == me:
                out.extend(run)
        return out

    def moves(self):
        return [i for i in range(64) if self.flips(i, self.side)]

    def play(self, i):
        """Plays square i (None = pass). Returns False if illegal."""
        other = "O" if self.side == "X" else "X"
        if i is None:
            if self.moves():
                return False
            self.side = other
            return True
        f = self.flips(i, self.side)
        if not f:
            return False
        for j in f + [i]:
            self.cells[j] = self.side
        self.side = other
        return True

    def ply(self):
        return 64 - self.cells.count("-") - 4


def parse_move(tok):
    t = tok.strip().lower()
    if t in ("pass", "pa", "ps", "--", "@@"):
        return None
    return sq_index(t)


class Engine:
    def __init__(self, args):
        self.args = args
        self.board = Board()
        self.gtp_seen = False

    def choose(self):
        ms = self.board.moves()
        if not ms:
            return "pass"
        if self.args.strategy == "greedy":
            best = max(ms, key=lambda i: (len(self.board.flips(i, self.board.side)), -i))
            return sq_name(best)
        return sq_name(ms[0])

    def answer(self):
        """The move text to send, or None to stay silent."""
        a = self.args
        if a.mode != "good" and self.board.ply() >= a.at_ply:
            if a.mode == "crash":
                sys.stdout.flush()
                sys.exit(3)
            if a.mode == "silent":
                return None
            if a.mode == "slow":
                time.sleep(a.slow_ms / 1000.0)
            if a.mode == "illegal":
                # An occupied square is never legal.
                return sq_name(self.board.cells.index("X"))
            if a.mode == "garbage":
                return "z9"
            if a.mode == "resign":
                return "resign"
            if a.mode == "utf8":
                return "utf8"
            if a.mode in ("flood", "floodraw"):
                flood(a.mode == "floodraw")
            if a.mode == "longmove":
                return "z" * a.long_bytes
        return self.choose()

    def doubled(self):
        """Whether to give the answer twice."""
        return self.args.mode == "double" and self.board.ply() >= self.args.at_ply

    # --- UCI-style -------------------------------------------------------
    def uci(self, words):
        cmd = words[0]
        if cmd == "uci":
            out("id name fake-" + self.args.mode)
            out("id author annex tests")
            out("option name Hash type spin default 16 min 1 max 1024")
            out("uciok")
        elif cmd == "isready":
            out("readyok")
        elif cmd == "position":
            self.board = Board()
            rest = words[1:]
            if rest and rest[0] == "board":
                self.board.set_string(rest[1], rest[2])
                rest = rest[3:]
            elif rest and rest[0] == "startpos":
                rest = rest[1:]
            if rest and rest[0] == "moves":
                for m in rest[1:]:
                    if not self.board.play(parse_move(m)):
                        out("info string illegal move " + m)
                        break
        elif cmd == "go":
            mv = self.answer()
            if mv == "utf8":
                out_bytes(b"bestmove \xff\xfe\n")
            elif mv is not None:
                out("info depth 1 score 0 pv " + mv)
                out("bestmove " + mv)
                if self.doubled():
                    out("bestmove " + mv)

    # --- NBoard ------------------------------------------------------------
    def nboard(self, line, words):
        cmd = words[0]
        if cmd == "nboard":
            out("set myname fake-" + self.args.mode)
        elif cmd == "ping":
            out("pong " + (words[1] if len(words) > 1 else ""))
        elif cmd == "set" and len(words) > 1 and words[1] == "game":
            self.set_ggf(line.split("game", 1)[1])
        elif cmd == "go":
            mv = self.answer()
            if mv == "utf8":
                out_bytes(b"=== \xc3\x28/0.00/0.01\n")
            elif mv is not None:
                for _ in range(2 if self.doubled() else 1):
                    out("=== " + (mv.upper() if mv != "pass" else "PA") + "/0.00/0.01")

    def set_ggf(self, ggf):
        self.board = Board()
        i = ggf.find("BO[")
        if i >= 0:
            j = ggf.index("]", i)
            parts = ggf[i + 3:j].split()
            self.board.set_string("".join(parts[1:-1]), "X" if parts[-1] == "*" else "O")
        pos = j + 1 if i >= 0 else 0
        while True:
            b, w = ggf.find("B[", pos), ggf.find("W[", pos)
            cands = [k for k in (b, w) if k >= 0]
            if not cands:
                break
            k = min(cands)
            e = ggf.index("]", k)
            mv = ggf[k + 2:e].split("/")[0]
            self.board.play(parse_move(mv))
            pos = e + 1

    # --- GTP -----------------------------------------------------------------
    def gtp(self, words):
        cmd = words[0]
        if cmd == "protocol_version":
            gtp_ok("2")
        elif cmd == "name":
            gtp_ok("fake-" + self.args.mode)
        elif cmd in ("boardsize", "time_settings", "time_left", "komi"):
            gtp_ok("")
        elif cmd == "clear_board":
            self.board = Board()
            gtp_ok("")
        elif cmd == "play" and len(words) == 3:
            if self.args.no_gtp_pass and words[2].lower() == "pass":
                # Like GRhino's gtp-rhino: passes are implicit.
                gtp_fail("syntax error")
                return
            side = "X" if words[1].lower().startswith("b") else "O"
            if self.board.side != side:
                self.board.play(None)
            if self.board.play(parse_move(words[2])):
                gtp_ok("")
            else:
                gtp_fail("illegal move")
        elif cmd == "genmove" and len(words) == 2:
            side = "X" if words[1].lower().startswith("b") else "O"
            if self.board.side != side:
                self.board.play(None)
            mv = self.answer()
            if mv is None:
                return
            if mv == "utf8":
                out_bytes(b"= \xff\n\n")
                return
            doubled = self.doubled()
            self.board.play(parse_move(mv)) if mv not in ("resign",) else None
            gtp_ok(mv)
            if doubled:
                gtp_ok(mv)
        elif cmd == "quit":
            gtp_ok("")
            sys.exit(0)
        else:
            gtp_fail("unknown command")


def flood(raw):
    """Writes without end (until the reader goes away)."""
    chunk = "x" * 65536 if raw else "info depth 1 score 0 pv f5 flooding\n" * 2000
    try:
        while True:
            sys.stdout.write(chunk)
    except (BrokenPipeError, OSError):
        os._exit(0)


def out(s):
    sys.stdout.write(s + "\n")
    sys.stdout.flush()


def out_bytes(b):
    sys.stdout.flush()
    sys.stdout.buffer.write(b)
    sys.stdout.buffer.flush()


def gtp_ok(s):
    out("= " + s)
    out("")


def gtp_fail(s):
    out("? " + s)
    out("")


UCI_CMDS = {"uci", "isready", "setoption", "ucinewgame", "position", "go", "stop"}
NBOARD_CMDS = {"nboard", "set", "ping", "go", "move", "hint", "learn", "analyze"}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--strategy", default="first")
    p.add_argument("--mode", default="good")
    p.add_argument("--at-ply", type=int, default=0)
    p.add_argument("--slow-ms", type=int, default=2000)
    p.add_argument("--only", default=None)
    p.add_argument("--no-gtp-pass", action="store_true")
    p.add_argument("--log", default=None)
    p.add_argument("--long-bytes", type=int, default=100000)
    p.add_argument("--start-flood", default=None)
    args = p.parse_args()
    if args.start_flood:
        flood(args.start_flood == "raw")
    eng = Engine(args)
    proto = args.only
    log = open(args.log, "a") if args.log else None
    for line in sys.stdin:
        line = line.strip()
        if log:
            log.write(line + "\n")
            log.flush()
        words = line.split()
        if not words:
            continue
        if words[0] == "quit":
            if proto == "gtp":
                gtp_ok("")
            return
        if proto is None:
            if words[0] == "uci":
                proto = "uci"
            elif words[0] == "nboard":
                proto = "nboard"
            else:
                proto = "gtp"
        if proto == "uci" and words[0] in UCI_CMDS:
            eng.uci(words)
        elif proto == "nboard" and words[0] in NBOARD_CMDS:
            eng.nboard(line, words)
        elif proto == "gtp":
            eng.gtp(words)
        # Anything else: ignored, as UCI engines do.


if __name__ == "__main__":
    main()
