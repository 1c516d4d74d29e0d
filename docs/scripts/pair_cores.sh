#!/usr/bin/env bash
# Times two annex binaries on the same FFO positions at 1 thread, both at
# once, each pinned to its own core, the cores swapped every round, and
# prints B's time over A's for each round (docs/endgame.md, "How it is measured").
#
#   docs/scripts/pair_cores.sh ROUNDS ONLY BIN_A BIN_B [OBF]
#
# ONLY is `annex solve --only` (e.g. 1-9 for FFO #40-#48). Tunables go
# through ANNEX_CONFIG in a wrapper script given as a binary. Needs two
# cores and taskset (util-linux).
set -euo pipefail
rounds=$1 only=$2 a=$3 b=$4
obf=${5:-data/endgame/ffo/fforum-40-59.obf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in $(seq "$rounds"); do
  if [ $((r % 2)) = 1 ]; then ca=0 cb=1; else ca=1 cb=0; fi
  taskset -c $ca "$a" solve "$obf" --threads 1 --hash 1024 --only "$only" 2>/dev/null | tail -n 1 >"$tmp/a" &
  taskset -c $cb "$b" solve "$obf" --threads 1 --hash 1024 --only "$only" 2>/dev/null | tail -n 1 >"$tmp/b" &
  wait
  # The closing line: "solved N/N correct, T s, NODES nodes, ...".
  ta=$(awk '{print $4}' "$tmp/a") tb=$(awk '{print $4}' "$tmp/b")
  na=$(awk '{print $6}' "$tmp/a") nb=$(awk '{print $6}' "$tmp/b")
  awk -v r="$r" -v ca="$ca" -v cb="$cb" -v ta="$ta" -v tb="$tb" -v na="$na" -v nb="$nb" \
    'BEGIN { printf "round %d: A (core %d) %.3f s, B (core %d) %.3f s, B/A %.3f; nodes %s %s\n", r, ca, ta, cb, tb, tb / ta, na, nb }'
done
