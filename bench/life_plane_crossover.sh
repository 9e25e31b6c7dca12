#!/usr/bin/env bash
# Where Life's tile plane stops beating a dense grid on a device: runs
# random soups of S x S cells at densities 0.5% .. 30% as patterns on the
# unbounded plane, `tiledcl life SOUP --plane tiles` beside `--plane dense`,
# and prints for each size the density where the tiles stop winning. That
# sets TDCL_LIFE_PLANE_DENSITY_CPU / _GPU in src/jobs/life_plane_job.h
# (the share of the box alive below which the automatic choice takes the
# tiles).
#
# usage: bench/life_plane_crossover.sh [DEVICE]
#
#   DEVICE     tiledcl's --device SPEC (gpu, cpu, 0:0; default: tiledcl's own)
#   $TILEDCL   the tiledcl binary (default: build/tiledcl beside this script)
#   $SIZES     the soups' sides S (default "4096 16384" on a GPU, "2048 4096"
#              on a CPU)
#   $GENS      generations per run (default 1000 on a GPU, 256 on a CPU)
#   $REPS      timed runs per figure (default 3; one warm-up before)
#
# The times are whole commands (reading the soup's RLE, the run, writing
# the result's RLE), median of REPS: what the automatic choice decides.
# A soup is made by tiledcl itself (life --size SxS --density D --gens 0,
# seed 1) and read back as a pattern, so that it sits on the unbounded
# plane. A size stops after the second density at which the tiles lost.
# Takes about 1-3 minutes on an H200.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
exe=${TILEDCL:-$repo/build/tiledcl}
case "${1-}" in -h | --help)
    sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
esac
dev=()
[ $# -gt 0 ] && dev=(--device "$1")
reps=${REPS:-3}
densities="0.005 0.01 0.02 0.03 0.05 0.08 0.12 0.2 0.3"
# the device as tiledcl opens it: "tiledcl: device 0:0: NAME (PLATFORM, GPU), ..."
devline=$("$exe" -v "${dev[@]}" bench copy --size 64 --reps 1 2>&1 >/dev/null | grep -m 1 'tiledcl: device' || true)
gpu=0
[[ $devline == *", GPU)"* ]] && gpu=1
if [ "$gpu" = 1 ]; then
    sizes=${SIZES:-4096 16384} gens=${GENS:-1000}
else
    sizes=${SIZES:-2048 4096} gens=${GENS:-256}
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/life-plane-XXXXXX")
trap 'rm -rf "$dir"' EXIT

# median_ms ARGS...: the median wall of REPS runs of tiledcl ARGS after a
# warm-up, in ms
median_ms() {
    "$exe" -q "${dev[@]}" "$@" >/dev/null
    local i t0 t1 times=()
    for ((i = 0; i < reps; i++)); do
        t0=$(date +%s%N)
        "$exe" -q "${dev[@]}" "$@" >/dev/null
        t1=$(date +%s%N)
        times+=($(((t1 - t0) / 1000)))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{ t[NR] = $1 } END { printf "%.1f", t[int((NR + 1) / 2)] / 1000 }'
}

# same_cells A B: the two RLE files hold the same cells at the same place
# (two empty patterns agree whatever position they name)
same_cells() {
    if grep -q '^x = 0, y = 0' "$1" && grep -q '^x = 0, y = 0' "$2"; then
        return 0
    fi
    cmp -s "$1" "$2"
}

# crossover LOWER_D LOWER_RATIO UPPER_D UPPER_RATIO: the density where the
# ratio tiles/dense passes 1, log-linear between the two points
crossover() {
    awk -v d0="$1" -v r0="$2" -v d1="$3" -v r1="$4" 'BEGIN {
        if (d0 <= 0 || r0 <= 0) { printf "<%s", d1; exit }
        t = (0 - log(r0)) / (log(r1) - log(r0));
        printf "%.3g", exp(log(d0) + t * (log(d1) - log(d0))) }'
}

echo "${devline#tiledcl: }"
echo "host load average: $(cut -d' ' -f1-3 /proc/loadavg); $gens generations a run"
for s in $sizes; do
    echo
    printf '%-7s %-9s %10s %10s %8s\n' S density tiles_ms dense_ms tiles/dense
    prev_d="" prev_r="" cross="" lost=0
    for d in $densities; do
        soup="$dir/soup.rle"
        # the soup's bounded grid (rule suffix :P) dropped: a pattern on the plane
        "$exe" -q "${dev[@]}" life --size "${s}x${s}" --density "$d" --seed 1 --gens 0 -o "$soup"
        sed -i '/^x = /s/:P[0-9]*,[0-9]*$//' "$soup"
        t=$(median_ms life "$soup" --gens "$gens" --plane tiles -o "$dir/t.rle")
        g=$(median_ms life "$soup" --gens "$gens" --plane dense -o "$dir/d.rle")
        if ! same_cells "$dir/t.rle" "$dir/d.rle"; then
            echo "life_plane_crossover: tiles and dense disagree on $s x $s at $d" >&2
            exit 1
        fi
        r=$(awk -v a="$t" -v b="$g" 'BEGIN { printf "%.3g", a / b }')
        printf '%-7s %-9s %10s %10s %8s\n' "$s" "$d" "$t" "$g" "$r"
        if awk -v r="$r" 'BEGIN { exit !(r >= 1) }'; then
            [ -z "$cross" ] && cross=$(crossover "${prev_d:-0}" "${prev_r:-0}" "$d" "$r")
            lost=$((lost + 1))
        fi
        prev_d=$d prev_r=$r
        [ "$lost" -ge 2 ] && break
    done
    echo "S = $s: the tiles stop winning at density ${cross:->$prev_d} (TDCL_LIFE_PLANE_DENSITY_$([ "$gpu" = 1 ] && echo GPU || echo CPU))"
done
