# The moves above 24 empties of games FIRST-LAST (by number) of a match
# folder, for Annex as a judge: aj_before.tsv (the positions.py lines),
# aj_before.txt and aj_after.txt (the transcripts before and after each move).
# Usage: python3 judge_inputs.py PREFIX FIRST LAST < pos.tsv
import sys
prefix, first, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
games = {}
for line in sys.stdin:
    p = line.rstrip('\n').split('\t')
    games.setdefault(p[0], []).append(p)
with open('aj_before.tsv', 'w') as b, open('aj_before.txt', 'w') as bt, open('aj_after.txt', 'w') as a:
    for g in sorted(games):
        if not g.startswith(prefix) or not first <= int(g.split(':')[1]) <= last:
            continue
        ps = games[g]
        for k, p in enumerate(ps):
            if p[2] not in ('book', 'END') and int(p[3]) > 24:
                b.write('\t'.join(p[:6]) + '\n')
                bt.write(p[4] + '\n')
                a.write(ps[k + 1][4] + '\n')
