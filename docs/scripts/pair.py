#!/usr/bin/env python3
"""Paired comparison of two `annex match` runs on the same openings.

    python3 docs/scripts/pair.py A.log B.log

Reads the `Finished game N (...)` lines of two match logs (stderr of `annex match`, same
`--seed` and `--games`, the engine under test named `annex`) and prints each run's points, and
the difference over the games both played with its 95% margin (normal approximation of the
per-game differences, which removes the openings' share of the variance).
"""
import math
import re
import sys


def load(path):
    games = {}
    text = open(path).read()
    for m in re.finditer(r"Finished game (\d+) \((\w+) vs (\w+)\): (\S+)", text):
        first_wins = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[m[4]]
        games[int(m[1])] = first_wins if m[2] == "annex" else 1.0 - first_wins
    return games


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    common = sorted(set(a) & set(b))
    d = [a[k] - b[k] for k in common]
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    print(f"A {sum(a.values())}/{len(a)}  B {sum(b.values())}/{len(b)}  paired over {n}: "
          f"A-B {sum(d):+.1f} points, 95% +/- {1.96 * sd * math.sqrt(n):.1f}")


if __name__ == "__main__":
    main()
