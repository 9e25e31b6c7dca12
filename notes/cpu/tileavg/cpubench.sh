#!/bin/bash
# rounds of tiledcl bench tile-avg on the CPU, one line per run
cd /work/wt-tileavg
export TILEDCL_KERNEL_PATH=$PWD/cl
R=${1:-3}
for r in $(seq 1 $R); do
  for t in 2 4 16 64 1x256; do
    l=$(cut -d' ' -f1 /proc/loadavg)
    out=$(build/tiledcl bench tile-avg --tile $t --reps 10 2>&1)
    c=$(echo "$out" | grep '^copy' | sed 's/.*ceiling (fastest run) \([0-9.]*\) GB.*/\1/')
    f=$(echo "$out" | grep '^tile-avg' | sed 's/.* \([0-9.]*\)% of copy.*/\1/')
    m=$(echo "$out" | grep '^tile-avg' | sed 's/.*median \([0-9.]*\) ms.*/\1/')
    v=$(echo "$out" | grep '^tile-avg' | sed 's/.*\[variant=\([a-z]*\).*/\1/')
    echo "$(date -u +%H:%M:%S) load=$l tile=$t copy=$c median_ms=$m frac=$f $v"
  done
done
