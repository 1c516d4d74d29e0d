#!/usr/bin/env python3
"""Midgame ProbCut calibration on positions along match games (never trained on).

    ANNEX_CONFIG=midcut_t=0 python3 docs/scripts/midcut_sigma.py collect ANNEX DEPTH SEED GGF_DIR... > out.txt
    python3 docs/scripts/midcut_sigma.py analyze out.txt...

`collect` takes one position (14-54 empties, picked with SEED) from every game of the GGF folders
(`annex match --out`), searches it with `go depth DEPTH` over the UCI-style protocol (own book
off, table cleared) and prints its empties and the score of every iteration, one line each; run
it with the midgame ProbCut off (`midcut_t=0`). `analyze` prints, for every depth D from 3, the
standard deviation in discs of score(D) - score(d) where d is the depth of ProbCut's probe at D
(`2 * (D / 4) + D % 2`), by band of empties, and its mean over all positions.
"""
import glob
import random
import re
import statistics
import subprocess
import sys

BANDS = [(14, 23), (24, 31), (32, 39), (40, 47), (48, 54)]


def positions(dirs, rng):
    out = []
    for d in dirs:
        for f in sorted(glob.glob(d + "/game-*.ggf")):
            s = open(f).read()
            bo = re.search(r"BO\[8 ([^\]]*)\]", s).group(1).replace(" ", "")
            board, side = bo[:64].replace("*", "X"), ("X" if bo[64] == "*" else "O")
            seq, cands = [], []
            for _, m in re.findall(r"([BW])\[([^\]/]*)", s.split("BO[", 1)[1].split("]", 1)[1]):
                m = m.lower()
                empties = board.count("-") - sum(1 for x in seq if x != "pass")
                if m != "pa" and 14 <= empties <= 54:
                    cands.append(list(seq))
                seq.append("pass" if m == "pa" else m)
            if cands:
                out.append((board, side, rng.sample(cands, 1)[0]))
    rng.shuffle(out)
    return out


def collect(annex, depth, seed, dirs):
    p = subprocess.Popen([annex], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(line):
        p.stdin.write(line + "\n")
        p.stdin.flush()

    send("uci")
    send("setoption name OwnBook value false")
    send("setoption name Hash value 64")
    send("isready")
    while "readyok" not in p.stdout.readline():
        pass
    for board, side, seq in positions(dirs, random.Random(seed)):
        empties = board.count("-") - sum(1 for x in seq if x != "pass")
        send("ucinewgame")
        send(f"position board {board} {side}" + (" moves " + " ".join(seq) if seq else ""))
        send(f"go depth {min(depth, empties - 1)}")
        scores = {}
        while True:
            line = p.stdout.readline()
            if line.startswith("bestmove"):
                break
            m = re.search(r"info depth (\d+) .*score disc (-?\d+)", line)
            if m:
                scores[int(m[1])] = int(m[2])
        print(empties, " ".join(str(scores.get(d, "x")) for d in range(1, depth + 1)), flush=True)
    send("quit")


def analyze(files):
    rows = []
    for f in files:
        for line in open(f):
            p = line.split()
            if "x" not in p:
                rows.append((int(p[0]), [int(x) for x in p[1:]]))
    print(len(rows), "positions")
    print("D  d  " + "  ".join(f"{a}-{b}" for a, b in BANDS) + "  all")
    for big in range(3, max(len(r[1]) for r in rows) + 1):
        small = max(1, 2 * (big // 4) + big % 2)
        cells, every = [], []
        for a, b in BANDS:
            v = [r[1][big - 1] - r[1][small - 1] for r in rows if a <= r[0] <= b and len(r[1]) >= big]
            every += v
            cells.append(f"{statistics.pstdev(v):.2f} ({len(v)})" if len(v) > 5 else "-")
        print(big, small, " ".join(cells),
              f"{statistics.pstdev(every):.2f} mean {statistics.mean(every):+.2f}")


if __name__ == "__main__":
    if sys.argv[1] == "collect":
        collect(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:])
    else:
        analyze(sys.argv[2:])
