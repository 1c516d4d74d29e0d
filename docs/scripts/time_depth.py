#!/usr/bin/env python3
"""Times fixed-depth searches of the positions along match games, per weights file.

    python3 docs/scripts/time_depth.py ANNEX GGF_DIR DEPTH WEIGHTS...

For the first 24 games of GGF_DIR (`annex match --out`), every position with more than 30
empties where the engine named `annex` is to move (the opening's moves included) is sent over
the UCI-style protocol (`position board ... moves ...`, `go depth DEPTH`, own book off); one
line per weights file gives the wall time and the summed nodes. Run it on an idle machine and
alternate the files.
"""
import glob
import re
import subprocess
import sys
import time


def positions(ggf_dir):
    out = []
    for f in sorted(glob.glob(ggf_dir + "/game-*.ggf"))[:24]:
        s = open(f).read()
        annex_black = re.search(r"PB\[([^\]]*)\]", s).group(1) == "annex"
        bo = re.search(r"BO\[8 ([^\]]*)\]", s).group(1).replace(" ", "")
        board, side = bo[:64].replace("*", "X"), ("X" if bo[64] == "*" else "O")
        seq = []
        for colour, m in re.findall(r"([BW])\[([^\]/]*)", s.split("BO[", 1)[1].split("]", 1)[1]):
            m = m.lower()
            if (colour == "B") == annex_black and m != "pa" and len(seq) < 30:
                out.append((board, side, list(seq)))
            seq.append("pass" if m == "pa" else m)
    return out


def main():
    annex, ggf_dir, depth, weights = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    pos = positions(ggf_dir)
    print(len(pos), "positions")
    for w in weights:
        p = subprocess.Popen([annex], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

        def send(line):
            p.stdin.write(line + "\n")
            p.stdin.flush()

        def wait_for(word):
            while word not in p.stdout.readline():
                pass

        send("uci")
        wait_for("uciok")
        send(f"setoption name EvalFile value {w}")
        send("setoption name OwnBook value false")
        send("isready")
        wait_for("readyok")
        t0, nodes = time.time(), 0
        for board, side, seq in pos:
            moves = " moves " + " ".join(seq) if seq else ""
            send("ucinewgame")
            send(f"position board {board} {side}{moves}")
            send(f"go depth {depth}")
            last = ""
            while True:
                line = p.stdout.readline()
                if line.startswith("bestmove"):
                    break
                if " nodes " in line:
                    last = line
            m = re.search(r" nodes (\d+)", last)
            nodes += int(m[1]) if m else 0
        print(w, f"{time.time() - t0:.2f} s", nodes, "nodes")
        send("quit")
        p.wait()


if __name__ == "__main__":
    main()
