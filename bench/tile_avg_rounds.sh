#!/usr/bin/env bash
# Rounds of `tiledcl bench tile-avg` over the tile shapes of docs/PERFORMANCE.md,
# one line per run with the load average beside it: on a shared machine,
# compare runs of similar load (the CPU tile-avg row of docs/PERFORMANCE.md).
#
# usage: bench/tile_avg_rounds.sh [ROUNDS] [-- extra 'tiledcl bench tile-avg' options]
#
#   ROUNDS      default 3
#   $TILEDCL    the binary (default: build/tiledcl beside this script's repository)
#   $MAX_LOAD   wait (15 s at a time) until the 1-minute load average is under it
#               before each run (default: no wait)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tiledcl=${TILEDCL:-$repo/build/tiledcl}
rounds=${1:-3}
[ $# -gt 0 ] && shift
[ "${1:-}" = -- ] && shift
for r in $(seq 1 "$rounds"); do
    for t in 2 4 16 64 1x256; do
        if [ -n "${MAX_LOAD:-}" ]; then
            while ! awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v m="$MAX_LOAD" 'BEGIN{exit !(l < m)}'; do sleep 15; done
        fi
        l=$(cut -d' ' -f1 /proc/loadavg)
        out=$("$tiledcl" bench tile-avg --tile "$t" --reps 10 "$@" 2>&1) || { echo "$out" >&2; exit 1; }
        c=$(echo "$out" | sed -n 's/^copy.*ceiling (fastest run) \([0-9.]*\) GB.*/\1/p')
        f=$(echo "$out" | sed -n 's/^tile-avg.* \([0-9.]*\)% of copy.*/\1/p')
        m=$(echo "$out" | sed -n 's/^tile-avg.*median \([0-9.e+-]*\) ms.*/\1/p')
        v=$(echo "$out" | sed -n 's/^tile-avg.*\[variant=\([a-z]*\).*/\1/p')
        echo "$(date -u +%H:%M:%S) round=$r load=$l tile=$t copy_gbps=$c median_ms=$m frac_copy=$f variant=$v"
    done
done
