#!/usr/bin/env python3
"""Midgame time to depth over UCI (docs/parallel.md, docs/search.md):
python3 docs/scripts/midgame_depth.py ANNEX THREADS DEPTH N [ANNEX_CONFIG [OPENINGS]]
searches the first N openings of OPENINGS (default
data/openings/xot/openingslarge.txt) to DEPTH with Hash 1024, a new game
each (the book as by default), and prints the total wall time and nodes.
EVALFILE=F in the environment sets the engine option EvalFile."""
import subprocess, sys, time, os
binp, threads, depth, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
env = dict(os.environ)
if len(sys.argv) > 5: env["ANNEX_CONFIG"] = sys.argv[5]
ops = [l.split()[0] for l in open(sys.argv[6] if len(sys.argv) > 6 else "data/openings/xot/openingslarge.txt") if l.strip()][:n]
p = subprocess.Popen([binp], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, bufsize=1)
def send(s): p.stdin.write(s + "\n"); p.stdin.flush()
send(f"setoption name Threads value {threads}"); send("setoption name Hash value 1024"); ef = os.environ.get("EVALFILE"); ef and send(f"setoption name EvalFile value {ef}"); send("isready")
while p.stdout.readline().strip() != "readyok": pass
tot = 0.0; nodes = 0
for o in ops:
    mv = " ".join(o[i:i+2] for i in range(0, len(o), 2))
    send("ucinewgame"); send(f"position startpos moves {mv}"); send("isready")
    while p.stdout.readline().strip() != "readyok": pass
    t = time.time(); send(f"go depth {depth}")
    last = ""
    while True:
        l = p.stdout.readline().strip()
        if l.startswith("info depth"): last = l
        if l.startswith("bestmove"): break
    dt = time.time() - t; tot += dt
    toks = last.split(); nd = int(toks[toks.index("nodes") + 1]) if "nodes" in toks else 0; nodes += nd
send("quit")
print(f"threads {threads} depth {depth} n {n} cfg {sys.argv[5] if len(sys.argv)>5 else '-'}: {tot:.2f} s, {nodes} nodes")
