#!/bin/bash
# Device check (docs/parallel.md, "Sixteen cores"): FFO #40-#59 on 16 cores at one commit.
# On the device machine it ran with the binary and the suite copied into devrun/
# (ANNEX=devrun/annex F=devrun/fforum-40-59.obf). Output: $OUT/log.
B=${ANNEX:-target/release/annex}; F=${F:-data/endgame/ffo/fforum-40-59.obf}
OUT=${OUT:-.}
exec > >(tee -a $OUT/log) 2>&1
date -u; nproc; lscpu | grep -E "Model name|^CPU\(s\)|L3"; uptime
s() { echo "== threads=$1 only=$2"; $B solve $F --threads $1 --hash 1024 --only $2 | tail -${3:-1}; }
s 16 1-13 14
s 16 1-13
s 8 1-13
s 1 1-13 14
s 16 14-20 8
uptime; date -u
