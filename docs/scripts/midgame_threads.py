# Midgame search at a fixed depth over UCI from the first XOT openings: total nodes and time.
# python3 docs/scripts/midgame_threads.py ANNEX THREADS DEPTH [LINES]: every other line of the
# first LINES (12) of $OPENINGS (default data/openings/xot/openingslarge.txt).
import subprocess, sys, re, os
exe, threads, depth = sys.argv[1], sys.argv[2], sys.argv[3]
lines = [l.split()[0] for l in open(os.environ.get('OPENINGS', 'data/openings/xot/openingslarge.txt')) if l.strip()][:int(sys.argv[4]) if len(sys.argv)>4 else 12:2]
p = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
def send(s): p.stdin.write(s + "\n"); p.stdin.flush()
def wait(prefix):
    out = []
    while True:
        l = p.stdout.readline(); out.append(l)
        if l.startswith(prefix): return out
send("uci"); wait("uciok"); send("setoption name OwnBook value false"); send(f"setoption name Threads value {threads}"); send("setoption name Hash value 256"); send("isready"); wait("readyok")
tot = 0; tt = 0
for mv in lines:
    send("ucinewgame"); send(f"position startpos moves {mv}"); send(f"go depth {depth}")
    out = wait("bestmove")
    info = [l for l in out if ' nodes ' in l][-1]
    n = int(re.search(r' nodes (\d+)', info).group(1)); t = int(re.search(r' time (\d+)', info).group(1))
    tot += n; tt += t
print(f"threads {threads} depth {depth}: nodes {tot} time {tt} ms")
