# Where the games are lost: exact values (<= 24 empties, `annex analyze --solve`)
# and two judges above (NTest depth 18/17, Annex depth 18/17); Annex's static
# and depth-4 errors against the exact values. Run in the folder of the files
# that the commands of docs/strength.md's "Where the games are lost" write:
# pos.tsv, ex_in.tsv, ex_out.jsonl, static_out.txt, d4_out.jsonl, nj_all.tsv,
# aj_before.tsv, aj_b.jsonl, aj_a.jsonl.
import json, collections, sys
pos = [l.rstrip('\n').split('\t') for l in open('pos.tsv')]
exin = [l.rstrip('\n').split('\t') for l in open('ex_in.tsv')]
exout = [json.loads(l) for l in open('ex_out.jsonl')]
static = [float(l.split()[1]) for l in open('static_out.txt')]
d4 = [json.loads(l) for l in open('d4_out.jsonl')]
n = len(exout)
val = {}      # (game, idx) -> (side, exact score for the side to move, empties)
for i in range(n):
    g, idx = exin[i][0], int(exin[i][1])
    val[(g, idx)] = (exout[i]['side'], exout[i]['score'], int(exin[i][3]))
games = collections.defaultdict(list)
for p in pos:
    games[p[0]].append(p)
band = lambda e: (e - 1) // 2 * 2 + 1   # 24-23 -> 23, ...
sg = lambda x: (x > 0) - (x < 0)
loss = collections.defaultdict(lambda: [0, 0.0])
blunders = collections.Counter()
turned = collections.Counter()
first = {22: [], 24: []}
firstg = {}
final = []
done_games = 0
for g, ps in games.items():
    # only games whose every position of <= 24 empties is solved
    need = [p for p in ps if int(p[3]) <= 24 and p[2] != 'END']
    if not all((g, int(p[1])) in val for p in need):
        continue
    done_games += 1
    res = float(ps[0][6])
    annex_black = None
    for k, p in enumerate(ps):
        if p[2] == 'END' or (g, int(p[1])) not in val:
            continue
        side, v, e = val[(g, int(p[1]))]
        if annex_black is None and p[2] in ('annex', 'ntest'):
            annex_black = (p[2] == 'annex') == (side == 'X')
        nxt = ps[k + 1]
        if nxt[2] == 'END':
            vm = res if side == 'X' else -res
        else:
            s2, v2, _ = val[(g, int(nxt[1]))]
            vm = v2 if s2 == side else -v2
        l = v - vm
        if p[2] in ('annex', 'ntest'):
            loss[(p[2], band(e))][0] += 1
            loss[(p[2], band(e))][1] += l
            if l >= 4:
                blunders[p[2]] += 1
            if sg(vm) < sg(v):
                turned[(p[2], band(e))] += sg(v) - sg(vm)
    for lim in (24, 22):
        for p in ps:
            if int(p[3]) <= lim and p[2] != 'END':
                side, v, _ = val[(g, int(p[1]))]
                first[lim].append(v if (side == 'X') == annex_black else -v)
                firstg[(lim, g)] = first[lim][-1]
                break
    final.append(res if annex_black else -res)
print(f"games with every position of <= 24 empties solved: {done_games}")
m = lambda a: sum(a) / len(a) if a else float('nan')
print(f"Annex's exact value at the first position of <= 24 empties: {m(first[24]):+.2f}; <= 22: {m(first[22]):+.2f}; final {m(final):+.2f}")
print("won/drawn/lost at 24 by exact value:", sum(v > 0 for v in first[24]), sum(v == 0 for v in first[24]), sum(v < 0 for v in first[24]))
print("exact losses per move, <= 24 empties (band: annex moves, discs/move | ntest)")
for b in range(23, 0, -2):
    a, t = loss[('annex', b)], loss[('ntest', b)]
    print(f"{b+1}-{b}\t{a[0]}\t{a[1]/max(a[0],1):.3f}\t{t[0]}\t{t[1]/max(t[0],1):.3f}")
print("moves losing >= 4 discs:", dict(blunders))
print("half-points given away (a move that turns a win to a draw: 1, to a loss: 2), by band, annex | ntest")
for b in range(23, 12, -2):
    print(f"{b+1}-{b}\t{turned[('annex', b)]}\t{turned[('ntest', b)]}")
# accuracy of Annex's static and depth-4 values against exact, per empties band
acc = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0, 0.0])
for i in range(min(n, len(static), len(d4))):
    e = int(exin[i][3]); v = exout[i]['score']
    b = acc[(e - 1) // 4 * 4 + 1]
    b[0] += 1; b[1] += abs(static[i] - v); b[2] += abs(d4[i]['score'] - v)
    # signed for Annex (who is to move)
    sgn = 1 if exin[i][2] == 'annex' else -1
    b[3] += sgn * (static[i] - v); b[4] += sgn * (d4[i]['score'] - v)
print("accuracy vs exact (empties band, n, static MAE, depth-4 MAE, static bias for Annex, d4 bias)")
for k in sorted(acc, reverse=True):
    b = acc[k]
    print(f"{k+3}-{k}\t{b[0]}\t{b[1]/b[0]:.2f}\t{b[2]/b[0]:.2f}\t{b[3]/b[0]:+.2f}\t{b[4]/b[0]:+.2f}")


def judge_table(name, rows):
    """Per band of 4 empties above 24: moves, discs lost a move, moves losing
    2 or more, moves from >= +1 to <= -1, for each engine; then the totals a
    game and the net against the exact value at 24 empties. `rows`: (game,
    empties, mover, value before, value after for the mover)."""
    t = collections.defaultdict(lambda: [0, 0.0, 0, 0])
    gs = set()
    for g, e, who, vb, va in rows:
        gs.add(g)
        l = max(0.0, vb - va)
        b = t[(who, (e - 1) // 4 * 4 + 1)]
        b[0] += 1; b[1] += l; b[2] += l >= 2; b[3] += vb >= 1 and va <= -1
    if not gs:
        return
    print(f"{name}, {len(gs)} games: band, then for annex | ntest: moves, discs/move, moves >= 2, from >= +1 to <= -1")
    tot = collections.Counter()
    for bb in range(49, 24, -4):
        cols = []
        for who in ('annex', 'ntest'):
            n, l, big, turn = t[(who, bb)]
            tot[who] += l
            cols += [n, f"{l / max(n, 1):.3f}", big, turn]
        print(f"{bb+3}-{bb}\t" + '\t'.join(map(str, cols)))
    both = [firstg[(24, g)] for g in gs if (24, g) in firstg]
    print(f"a game: annex {tot['annex']/len(gs):.2f}, ntest {tot['ntest']/len(gs):.2f}, "
          f"net for Annex {(tot['ntest']-tot['annex'])/len(gs):+.2f}; the exact value at 24 "
          f"of {len(both)} of these games {m(both):+.2f}")


def lines(path):
    try:
        return [l.rstrip('\n') for l in open(path)]
    except FileNotFoundError:
        return []


# NTest's depth-18/17 judge (nj_all.tsv, ntest_judge.py).
judge_table("NTest depth 18/17 judge",
            [(x[0], int(x[1]), x[2], float(x[4]), float(x[5]) if x[6] == '1' else -float(x[5]))
             for x in (l.split('\t') for l in lines('nj_all.tsv'))])
# Annex as a second judge: depth 18 before the move, 17 after (aj_before.tsv,
# aj_b.jsonl, aj_a.jsonl; judge_inputs.py, `annex analyze --depth 18 / 17`).
rows = []
for x, b, a in zip((l.split('\t') for l in lines('aj_before.tsv')),
                   map(json.loads, lines('aj_b.jsonl')), map(json.loads, lines('aj_a.jsonl'))):
    rows.append((x[0], int(x[3]), x[2], b['score'], a['score'] if a['side'] == b['side'] else -a['score']))
judge_table("Annex depth 18/17 judge", rows)
