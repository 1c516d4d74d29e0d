#!/bin/bash
# (On the device machine it ran with the binary and data copied into a carried folder.)
# Device check for the parallel PV nodes (docs/parallel.md). Output: $OUT/log.
# "On" is the midgame's PV nodes splitting from depth 6 at every thread count, the default
# when it ran (since f7cdadf only from `split_pv_wide_threads` threads).
B=${ANNEX:-target/release/annex}; F=data/endgame/ffo/fforum-40-59.obf; OUT=${OUT:-.}
OFF=split_pv_min_empties=64,split_pv_wide_threads=1000
exec > >(tee -a $OUT/log) 2>&1
date -u; nproc; lscpu | grep -E "Model name|^CPU\(s\)|L3"; uptime
s() { echo "== $1 threads=$2 only=$3"; ANNEX_CONFIG=$1 $B solve $F --threads $2 --hash 1024 --only $3 | tail -${4:-1}; }
s $OFF 16 1-13
s split_pv_min_empties=12,split_pv_wide_threads=1,split_pv_wide_depth=6 16 1-13
s $OFF 16 1-13
s split_pv_min_empties=12,split_pv_wide_threads=1,split_pv_wide_depth=6 16 1-13
echo "== midgame time to depth 24, 20 XOT openings"
python3 docs/scripts/midgame_depth.py $B 16 24 20 $OFF
python3 docs/scripts/midgame_depth.py $B 16 24 20 split_pv_min_empties=12,split_pv_wide_threads=1,split_pv_wide_depth=6
python3 docs/scripts/midgame_depth.py $B 1 24 20
s split_pv_min_empties=12 1 1-13 14
s split_pv_min_empties=12,split_pv_wide_threads=1,split_pv_wide_depth=6 16 14-20 8
uptime; date -u
