#!/bin/bash
# Device check (docs/parallel.md, "The midgame"): the midgame's parallel PV nodes from depth 6
# at any thread count (`split_pv_wide_threads=1`) against none (`split_pv_wide_threads=1000`)
# at 8 and 4 threads, alternated; depth-24 searches of the first 20 XOT openings. On the
# device machine: ANNEX=devrun/annex OPEN=devrun/openingslarge.txt.
B=${ANNEX:-target/release/annex}; O=${OPEN:-data/openings/xot/openingslarge.txt}
OUT=${OUT:-.}
exec > >(tee -a $OUT/log) 2>&1
date -u; nproc; uptime
m() { python3 docs/scripts/midgame_depth.py $B $1 24 20 $2 $O; }
for t in 8 4; do for r in 1 2; do m $t split_pv_wide_threads=1000; m $t split_pv_wide_threads=1,split_pv_wide_depth=6; done; done
uptime; date -u
