#!/usr/bin/env bash
# Where sparse products stop beating dense ones on a device: times tiledcl's
# SpGEMM (A*A, sparse result) and SpMM (A times a dense block of $COLS
# columns) on seeded uniform random N x N float32 matrices at densities
# 0.1% .. 50%, beside the dense product of the same shape, and prints for
# each size the density where sparse stops winning. Those set SPGEMM_CROSS
# (a product of the operands' densities: the density squared for A*A) and
# SPMM_CROSS (A's density) in src/jobs/matmul_sparse.c.
#
# usage: bench/sparse_crossover.sh [DEVICE]
#
#   DEVICE     tiledcl's --device SPEC (gpu, cpu, 0:0; default: tiledcl's own)
#   $TILEDCL   the tiledcl binary (default: build/tiledcl beside this script)
#   $SIZES     the sizes N (default "2048 4096 8192" on a GPU, "500 1000" on
#              a CPU)
#   $COLS      SpMM's dense columns (default 256)
#   $REPS      timed runs per figure (default 5; one warm-up before)
#
# Every time is `tiledcl bench`'s median kernel time: bench spgemm / spmm
# (uniform:N:R, R = density x N columns drawn per row, duplicates summed;
# the density shown is the generated one) against bench matmul --shape.
# Reading the files, the same for both paths, is left out; the dense path's
# densifying of the operands too. Each product stops after the second
# density at which it lost, a size when both have (bench spgemm checks its
# product on the host once, which grows as N x (density x N)^2). Takes
# about 1-3 minutes on an H200.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
exe=${TILEDCL:-$repo/build/tiledcl}
dev=()
[ $# -gt 0 ] && dev=(--device "$1")
case "${1-}" in -h | --help)
    sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
esac
cols=${COLS:-256}
reps=${REPS:-5}
# columns drawn per row as a share of N; duplicates make the last (0.7)
# about 50% dense
densities="0.001 0.002 0.005 0.01 0.02 0.05 0.1 0.2 0.3 0.5 0.7"
# the device as tiledcl opens it: "tiledcl: device 0:0: NAME (PLATFORM, GPU), ..."
devline=$("$exe" -v "${dev[@]}" bench copy --size 64 --reps 1 2>&1 >/dev/null | grep -m 1 'tiledcl: device' || true)
if [[ $devline == *", GPU)"* ]]; then
    sizes=${SIZES:-2048 4096 8192}
else
    sizes=${SIZES:-500 1000}
fi

# field NAME: the number after "NAME": in the JSON line on stdin
field() { sed -n "s/.*\"$1\": *\([-0-9.e+]*\).*/\1/p" | head -n 1; }

bench() { "$exe" "${dev[@]}" bench "$@" --reps "$reps" --warmup 1 --json 2>/dev/null | tail -n 1; }

# crossover LOWER_D LOWER_RATIO UPPER_D UPPER_RATIO: the density where the
# ratio sparse/dense passes 1, log-linear between the two points
crossover() {
    awk -v d0="$1" -v r0="$2" -v d1="$3" -v r1="$4" 'BEGIN {
        if (d0 <= 0 || r0 <= 0 || r0 == "-") { printf "<%s", d1; exit }
        t = (0 - log(r0)) / (log(r1) - log(r0));
        printf "%.3g", exp(log(d0) + t * (log(d1) - log(d0))) }'
}

echo "${devline#tiledcl: }"
echo "host load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $sizes; do
    dense_mm=$(bench matmul --shape "${n}x${n}x${n}" | field median_ms)
    dense_mv=$(bench matmul --shape "${n}x${n}x${cols}" | field median_ms)
    echo
    echo "N = $n: dense ${n}^3 product $dense_mm ms; dense times $cols columns $dense_mv ms"
    printf '%-9s %-12s %12s %8s %12s %8s\n' density nnz spgemm_ms /dense spmm_ms /dense
    prev_d="" prev_g="" prev_m="" prev_r="" cross_g="" cross_m="" lost_g=0 lost_m=0
    for d in $densities; do
        r=$(awk -v d="$d" -v n="$n" 'BEGIN { r = int(d * n + 0.5); print r < 1 ? 1 : r }')
        [ "$r" = "$prev_r" ] && continue
        prev_r=$r
        # once a product has lost twice its column shows "-": SpGEMM's
        # host check grows fast with the density
        g="-" rg="-" m="-" rm="-"
        if [ "$lost_g" -lt 2 ]; then
            line=$(bench spgemm --matrix "uniform:$n:$r")
            g=$(printf '%s\n' "$line" | field median_ms)
            rg=$(awk -v a="$g" -v b="$dense_mm" 'BEGIN { printf "%.3g", a / b }')
        else
            line=$(bench spmm --matrix "uniform:$n:$r" --cols "$cols")
        fi
        nnz=$(printf '%s\n' "$line" | field nnz)
        real=$(awk -v z="$nnz" -v n="$n" 'BEGIN { printf "%.4g", z / n / n }')
        if [ "$lost_m" -lt 2 ]; then
            m=$(bench spmm --matrix "uniform:$n:$r" --cols "$cols" | field median_ms)
            rm=$(awk -v a="$m" -v b="$dense_mv" 'BEGIN { printf "%.3g", a / b }')
        fi
        printf '%-9s %-12s %12s %8s %12s %8s\n' "$real" "$nnz" "$g" "$rg" "$m" "$rm"
        if [ "$rg" != "-" ] && awk -v r="$rg" 'BEGIN { exit !(r >= 1) }'; then
            [ -z "$cross_g" ] && cross_g=$(crossover "${prev_d:-0}" "${prev_g:-0}" "$real" "$rg")
            lost_g=$((lost_g + 1))
        fi
        if [ "$rm" != "-" ] && awk -v r="$rm" 'BEGIN { exit !(r >= 1) }'; then
            [ -z "$cross_m" ] && cross_m=$(crossover "${prev_d:-0}" "${prev_m:-0}" "$real" "$rm")
            lost_m=$((lost_m + 1))
        fi
        prev_d=$real prev_g=$rg prev_m=$rm
        [ "$lost_g" -ge 2 ] && [ "$lost_m" -ge 2 ] && break
    done
    g_note=${cross_g:->$prev_d}
    if [[ $g_note =~ ^[0-9.e+-]+$ ]]; then
        g_note="$g_note (SPGEMM_CROSS, a product of densities: $(awk -v d="$g_note" 'BEGIN { printf "%.3g", d * d }'))"
    fi
    echo "N = $n: SpGEMM stops winning at density ${g_note}; SpMM ($cols columns) at ${cross_m:->$prev_d} (SPMM_CROSS)"
done
