# NTest as judge of the moves above MIN empties: for each engine move at a
# position p of more than MIN empties, NTest's value of p at depth D and of
# the position after the move (and any pass) at depth D-1, over NBoard.
# Usage: ntest_judge.py D MIN GAMEDIR FIRST LAST > out.tsv (games FIRST-LAST
# of GAMEDIR's GGF files, by name). NTEST_RUN: NTest's run folder (built by
# ../shared/anchors/build.sh ntest). ONLY: a file of `game empties` lines to
# judge only those moves. Output: game, empties, mover, move, value before,
# value after (for the side to move there), 1 if the same side moves again
# (a pass), the loss in discs. A probable WLD solve's `===` line has no
# value: then the last midgame iteration's is taken.
import os, re, subprocess, sys, glob
D, MIN = int(sys.argv[1]), int(sys.argv[2])
files = sorted(glob.glob(sys.argv[3] + '/*.ggf'))[int(sys.argv[4]) - 1:int(sys.argv[5])]
ONLY = None
if os.environ.get('ONLY'):
    ONLY = {(l.split()[0], int(l.split()[1])) for l in open(os.environ['ONLY'])}
p = subprocess.Popen(f"cd {os.environ.get('NTEST_RUN', '/work/ntest-out/run')} && exec ./ntest x", shell=True, text=True,
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=1)
p.stdin.write("nboard 2\n")
def value(head, toks, depth):
    p.stdin.write(f"set depth {depth}\nset game {head}{''.join(toks)};)\ngo\n")
    p.stdin.flush()
    last = None
    while True:
        l = p.stdout.readline()
        if not l:
            sys.exit("ntest ended")
        w = l.split()
        # the last midgame iteration's value (a probable WLD solve's `===`
        # line carries no value)
        if l.startswith("search") and len(w) >= 5 and w[4].isdigit():
            last = float(w[2])
        if l.startswith("==="):
            if l.split()[1].split('/')[1] == '':
                return last
            f = l.split()[1].split('/')
            try:
                return float(f[1])
            except (IndexError, ValueError):
                return None  # no value (a forced move)
for f in files:
    g = open(f).read()
    gid = f.split('/')[-2] + ':' + re.search(r'(\d+)\.ggf', f).group(1)
    head = g[:g.index(']B[') + 1]
    pb = re.search(r'PB\[([^\]]*)\]', g).group(1)
    pw = re.search(r'PW\[([^\]]*)\]', g).group(1)
    toks = re.findall(r'(?<=\])[BW]\[[^\]]*\]', g)
    placed = 0
    for k, t in enumerate(toks):
        mv = t[2:-1]
        if mv.lower().startswith('pa'):
            continue
        empties = 60 - placed
        placed += 1
        if '/' not in mv or empties <= MIN:
            continue
        if ONLY is not None and (gid, empties) not in ONLY:
            continue
        j = k + 1
        same = False
        while j < len(toks) and toks[j][2:4].lower() == 'pa':
            j += 1
            same = not same
        if j >= len(toks):
            continue
        before = value(head, toks[:k], D)
        after = value(head, toks[:j], D - 1)
        if before is None or after is None:
            print(f"{gid}\t{empties}\tskip", file=sys.stderr)
            continue
        loss = before - after if same else before + after
        who = pb if t[0] == 'B' else pw
        print(f"{gid}\t{empties}\t{who}\t{mv.split('/')[0]}\t{before}\t{after}\t{int(same)}\t{loss:.2f}", flush=True)
