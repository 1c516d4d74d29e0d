# The UCI commands that ask `annex` for the static value of each position of
# ex_in.tsv (made by positions.py): `position startpos moves ...` and `eval`.
# Usage: python3 uci_evals.py < ex_in.tsv | annex | grep '^eval' > static_out.txt
import sys
print('uci')
for line in sys.stdin:
    t = line.split('\t')[4]
    print('position startpos moves ' + ' '.join(t[i:i + 2] for i in range(0, len(t), 2)))
    print('eval')
print('quit')
