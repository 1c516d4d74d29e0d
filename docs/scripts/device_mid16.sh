#!/bin/bash
# Device check (docs/parallel.md, "The midgame"): the midgame's probable cuts at split points
# (`split_mid_cut_max`) and parallel PV nodes (`split_pv_min_depth`) on 16 cores,
# depth-24 searches of the first 20 XOT openings, alternated. On the device machine
# it ran with ANNEX=devrun/annex OPEN=devrun/openingslarge.txt. Output: $OUT/log.
B=${ANNEX:-target/release/annex}; O=${OPEN:-../shared/data/openings/xot/openingslarge.txt}
OUT=${OUT:-.}
exec > >(tee -a $OUT/log) 2>&1
date -u; nproc; uptime
m() { python3 docs/scripts/midgame_depth.py $B $1 24 20 $2 $O; }
m 16 split_mid_cut_max=0
m 16 split_mid_cut_max=8
m 16 split_mid_cut_max=0
m 16 split_mid_cut_max=8
m 16 split_mid_cut_max=4
m 16 split_mid_cut_max=8,split_pv_min_depth=6
m 16 split_pv_min_depth=6
m 1 split_mid_cut_max=0
uptime; date -u
