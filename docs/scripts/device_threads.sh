#!/bin/bash
# Many-core scaling, one script for a lent 16-core machine (about 6 minutes):
# FFO #40-#52 exact at 1, 2, 4, 8 and 16 threads (time, nodes, the parallel
# search's counters), 16-thread variants of the table regions and split
# depths, and midgame time to depth 20 (and 24) on the first 20 XOT openings.
# Run from a folder holding the binary and the data (ANNEX, F, OPENINGS);
# everything goes to $OUT/log.
B=${ANNEX:-target/release/annex}
F=${F:-data/endgame/ffo/fforum-40-59.obf}
OPENINGS=${OPENINGS:-data/openings/xot/openingslarge.txt}
MID=${MID:-docs/scripts/midgame_depth.py}
OUT=${OUT:-.}
exec > >(tee -a "$OUT/log") 2>&1
export RUST_LOG=annex::parstats=info
TIMEFORMAT='  wall %R s, cpu %U s user %S s sys'
date -u; nproc; lscpu | grep -E "Model name|^CPU\(s\)|L3|Thread"; uptime
s() { # threads, config, label
  echo "== solve #40-#52 threads=$1 cfg=${2:--}"
  time ANNEX_CONFIG="$2" "$B" solve "$F" --threads "$1" --hash 1024 --only 1-13 2>"$OUT/stats-$3.txt" | tail -14
  grep -o "wasted [0-9.]*%" "$OUT/stats-$3.txt" | tr '\n' ' '; echo
}
s 1 "" t1
s 16 "" t16a
s 2 "" t2
s 4 "" t4
s 8 "" t8
s 16 "" t16b
s 16 "tt_near_empties=0,tt_mid_empties=0" t16noreg
s 16 "tt_near_mb=128,tt_mid_mb=512" t16bigreg
s 16 "split_min_empties=14" t16sme14
m() { echo "== midgame threads=$1 depth=$2 cfg=${3:--}"; python3 "$MID" "$B" "$1" "$2" 20 "$3" "$OPENINGS" 2>>"$OUT/stats-mid.txt"; }
for t in 1 2 4 8 16; do m $t 20; done
m 1 24; m 16 24
uptime; date -u
