# Lists the positions of GGF match games: one TSV line per position before
# each move (and the final position): game, index, mover, empties, transcript,
# move played (or END), result for Black.
import re, sys, glob
out = sys.stdout
for d in sys.argv[1:]:
    for f in sorted(glob.glob(d + '/*.ggf')):
        g = open(f).read()
        gid = d.rstrip('/').split('/')[-1] + ':' + re.search(r'(\d+)\.ggf', f).group(1)
        pb = re.search(r'PB\[([^\]]*)\]', g).group(1)
        pw = re.search(r'PW\[([^\]]*)\]', g).group(1)
        res = float(re.search(r'RE\[([^\]]*)\]', g).group(1))
        moves = re.findall(r'(?<=\])([BW])\[([^\]]*)\]', g)
        played = []
        i = 0
        for c, mv in moves:
            sq = mv.split('/')[0].lower()
            if sq == 'pa':
                continue
            who = pb if c == 'B' else pw
            engine = '/' in mv
            out.write(f"{gid}\t{i}\t{who if engine else 'book'}\t{60-len(played)}\t{''.join(played)}\t{sq}\t{res}\n")
            played.append(sq)
            i += 1
        out.write(f"{gid}\t{i}\tEND\t{60-len(played)}\t{''.join(played)}\tEND\t{res}\n")
