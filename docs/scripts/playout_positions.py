#!/usr/bin/env python3
"""Positions of a given number of empties for solver timings: from each
position of an OBF file, COUNT random playouts (uniform legal moves, passes
when forced) down to EMPTIES empties; each one with a move is printed as an
OBF line (no score). The kept-aside positions of docs/endgame.md:

    python3 docs/scripts/playout_positions.py EMPTIES SEED OBF COUNT > out.obf
    e.g. 18 2 data/endgame/edax_hard/hard-20.obf 1 (276 positions)
"""
import random
import sys

D=[(-1,-1),(-1,0),(-1,1),(0,-1),(0,1),(1,-1),(1,0),(1,1)]
def flips(b,s,p):
    o='O' if p=='X' else 'X'; r,c=divmod(s,8); out=[]
    for dr,dc in D:
        rr,cc=r+dr,c+dc; run=[]
        while 0<=rr<8 and 0<=cc<8 and b[rr*8+cc]==o:
            run.append(rr*8+cc); rr+=dr; cc+=dc
        if run and 0<=rr<8 and 0<=cc<8 and b[rr*8+cc]==p: out+=run
    return out
def moves(b,p): return [s for s in range(64) if b[s]=='-' and flips(b,s,p)]
target=int(sys.argv[1]); random.seed(int(sys.argv[2])); out=[]
src=open(sys.argv[3]).read().split('\n')
for line in src:
    if not line.strip(): continue
    for k in range(int(sys.argv[4])):
        b=list(line[:64]); p=line[65]
        ok=True
        while b.count('-')>target:
            m=moves(b,p)
            if not m:
                p='O' if p=='X' else 'X'; m=moves(b,p)
                if not m: ok=False; break
            s=random.choice(m)
            for f in flips(b,s,p): b[f]=p
            b[s]=p; p='O' if p=='X' else 'X'
        if ok and b.count('-')==target and (moves(b,p) ):
            out.append(''.join(b)+' '+p+';')
print('\n'.join(out))
