# tiledcl life over several devices (--device LIST or all): every boundary
# and odd shapes, byte for byte against one device; refusals.
. "$(dirname "$0")/lib.sh"

# Three PoCL CPU devices of one core each (PoCL 3.1 reads
# POCL_MAX_PTHREAD_COUNT, later ones POCL_CPU_MAX_CU_COUNT).
export POCL_DEVICES="pthread pthread pthread" POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1
run devices
n=$(printf '%s\n' "$OUT" | grep -c '^ *\*\? *[0-9]*:[0-9]*  ')
if [ "$n" -lt 3 ]; then
    echo "1..0 # SKIP needs three OpenCL devices (PoCL with POCL_DEVICES), found $n"
    exit 0
fi
# the first platform's first three devices
ids=$(printf '%s\n' "$OUT" | sed -n 's/^ *\*\? *\([0-9]*:[0-9]*\)  .*/\1/p' | head -3)
D0=$(echo "$ids" | sed -n 1p); D1=$(echo "$ids" | sed -n 2p); D2=$(echo "$ids" | sed -n 3p)

# same DESC EXT ONE-ARGS -- SHARD-ARGS: both runs (with -o one.EXT and
# -o sh.EXT added) exit 0 with outputs byte-identical and not empty
same() {
    desc=$1
    ext=$2
    shift 2
    rm -f "$T/one.$ext" "$T/sh.$ext"
    one=""
    while [ "$1" != "--" ]; do one="$one $1"; shift; done
    shift
    # shellcheck disable=SC2086
    run $one -o "$T/one.$ext"
    rc1=$RC err1=$ERR
    run "$@" -o "$T/sh.$ext"
    if [ "$rc1" -ne 0 ] || [ "$RC" -ne 0 ]; then
        not_ok "$desc" "exit $rc1 and $RC" "stderr of one device: $(printf %s "$err1" | tr '\n' ' ')" \
            "stderr of the set: $(printf %s "$ERR" | tr '\n' ' ')"
    elif [ ! -s "$T/one.$ext" ] || ! cmp -s "$T/one.$ext" "$T/sh.$ext"; then
        not_ok "$desc" "outputs differ or are empty"
    else
        ok "$desc"
    fi
}

for b in dead torus clamp; do
    for shape in 64x48 67x53 129x7; do
        for devs in "$D0,$D1" "$D0,$D1,$D2"; do
            same "$b $shape on $devs: .rle identical to one device" rle \
                --device "$D0" life --size "$shape" --density 0.35 --gens 41 --boundary "$b" -- \
                --device "$devs" life --size "$shape" --density 0.35 --gens 41 --boundary "$b"
        done
    done
done

# the result is not trivially empty: the soup above lives on
run --device "$D0" life --size 67x53 --density 0.35 --gens 41 --boundary torus -o "$T/a.rle"
if grep -q 'o' "$T/a.rle"; then ok "the compared grids have live cells"; else not_ok "the compared grids have live cells"; fi

# .npy output, the bytes kernel, a B0 rule on a torus, forced halos up to
# the thinnest band (the automatic one is cut to it: 129x7 above)
same ".npy identical, bits kernel, halo 3" npy \
    --device "$D0" life --size 90x31 --gens 25 -- \
    --device "$D0,$D1,$D2" life --size 90x31 --gens 25 --halo 3
same "bytes kernel over 3 devices" rle \
    --device "$D0" life --size 40x40 --gens 12 --kernel bytes --boundary torus -- \
    --device "$D0,$D1,$D2" life --size 40x40 --gens 12 --kernel bytes --boundary torus
same "B0 rule (B0123478/S34678) on a torus over 2 devices" rle \
    --device "$D0" life --size 33x21 --gens 17 --rule B0123478/S34678 --boundary torus -- \
    --device "$D0,$D1" life --size 33x21 --gens 17 --rule B0123478/S34678 --boundary torus
same "bands of 3, 2 and 2 rows with a halo of 2 (7 rows, 3 devices)" rle \
    --device "$D0" life --size 50x7 --gens 9 --boundary clamp -- \
    --device "$D0,$D1,$D2" life --size 50x7 --gens 9 --boundary clamp --halo 2
same "a device named twice (two shards on one device), torus" rle \
    --device "$D0" life --size 70x70 --gens 30 --boundary torus -- \
    --device "$D0,$D0" life --size 70x70 --gens 30 --boundary torus
same "--device all" rle \
    --device "$D0" life --size 80x60 --gens 20 -- \
    --device all life --size 80x60 --gens 20
same "a pattern file (the Gosper gun) on a torus" rle \
    --device "$D0" life "$TDCL_DATA/gosper-gun.rle" --size 80x60 --gens 120 --boundary torus -- \
    --device "$D0,$D1,$D2" life "$TDCL_DATA/gosper-gun.rle" --size 80x60 --gens 120 --boundary torus

# --every: the populations reduced over the shards are the one device's
run --device "$D0" life --size 64x64 --gens 30 --every 10 -o "$T/e1.rle"
e1=$(printf '%s\n' "$ERR" | grep population)
run --device "$D0,$D1,$D2" life --size 64x64 --gens 30 --every 10 -o "$T/e2.rle"
e2=$(printf '%s\n' "$ERR" | grep population)
expect_eq "$(printf '%s\n' "$e2" | wc -l)" 4 "--every 10 over 30 generations: 4 population lines"
expect_eq "$e2" "$e1" "--every: three shards give the one device's populations"

# --frames and --gif from the gathered grid: the one device's files
run --device "$D0" life --size 40x30 --gens 12 --every 4 --frames "$T/f1" --gif "$T/g1.gif" -o "$T/fg1.rle"
run --device "$D0,$D1,$D2" life --size 40x30 --gens 12 --every 4 --frames "$T/f3" --gif "$T/g3.gif" -o "$T/fg3.rle"
expect_rc 0 "--frames and --gif over 3 devices"
expect_eq "$(ls "$T/f3" | tr '\n' ' ')" "gen-00000000.png gen-00000004.png gen-00000008.png gen-00000012.png " "... a PNG per --every"
if [ -s "$T/g1.gif" ] && cmp -s "$T/g1.gif" "$T/g3.gif" && diff -r "$T/f1" "$T/f3" >/dev/null; then
    ok "... frames and GIF identical to one device's"
else
    not_ok "... frames and GIF identical to one device's"
fi

# -v: the layout and the per-shard times
run -v --device "$D0,$D1" life --size 64x40 --gens 10 -o "$T/v.rle"
expect_contains "$ERR" "shard 1: rows 20-39" "-v shows each shard's rows"
expect_contains "$ERR" "exchange" "-v shows the exchange time"

# refusals
run --device "$D0,$D1,$D2" life --size 10x2 --gens 3 -o "$T/x.rle"
expect_rc 1 "more shards than rows is refused"
expect_contains "$ERR" "3 shards for a grid of 2 rows" "... saying so"
[ ! -e "$T/x.rle" ] && ok "... writing nothing" || not_ok "... writing nothing"
run --device "$D0,$D1" life --size 10x8 --gens 3 --halo 5 -o "$T/x.rle"
expect_rc 1 "a halo thicker than a band is refused"
expect_contains "$ERR" "halo of 5 rows is more than the 4 rows" "... saying so"
run --device "$D0,$D1" tile-map --help
expect_rc 2 "a command that runs on one device refuses a set"
expect_contains "$ERR" "runs on one device" "... saying so"
run --device "$D0,,$D1" life --gens 1 -o "$T/x.rle"
expect_rc 1 "an empty item in the list is refused"
run --device "$D0,9:9" life --gens 1 -o "$T/x.rle"
expect_rc 3 "a device that does not exist is refused"
expect_contains "$ERR" "no device matches '9:9'" "... naming it"

# ---- tile-avg: bands of whole tile rows, byte-identical to one device ----
gen() { # gen PATH ROWS COLS SEED: a Matrix Market array of Gaussian numbers
    python3 - "$@" <<'PY'
import sys, random
path, rows, cols, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
r = random.Random(seed)
with open(path, 'w') as f:
    f.write('%%MatrixMarket matrix array real general\n')
    f.write('%d %d\n' % (rows, cols))
    for _ in range(rows * cols):
        f.write('%.9g\n' % r.gauss(0, 1))
PY
}
gen "$T/a.mtx" 103 77 1
gen "$T/b.mtx" 300 500 2
run convert --dtype f32 "$T/a.mtx" "$T/a.npy"
run convert "$T/b.mtx" "$T/b.npy"
for c in a:3x5:auto a:2x77:gpu b:7x9:auto b:12x2:band b:1x64:cpu b:4x1:auto b:9x500:auto; do
    f=${c%%:*}; rest=${c#*:}; tile=${rest%%:*}; v=${rest#*:}
    for devs in "$D0,$D1" "$D0,$D1,$D2"; do
        same "tile-avg $f $tile ($v) on $devs: .npy identical to one device" npy \
            --device "$D0" tile-avg "$T/$f.npy" --tile "$tile" --variant "$v" -- \
            --device "$devs" tile-avg "$T/$f.npy" --tile "$tile" --variant "$v"
    done
done
same "tile-avg of an RGB image, 3x7 tiles, 2 devices: .png identical" png \
    --device "$D0" tile-avg "$TDCL_DATA/rings-rgb.png" --tile 3x7 -- \
    --device "$D0,$D1" tile-avg "$TDCL_DATA/rings-rgb.png" --tile 3x7
same "tile-avg --verify over 3 devices, .mtx output" mtx \
    --device "$D0" tile-avg "$T/b.npy" --tile 11x13 --verify -- \
    --device "$D0,$D1,$D2" tile-avg "$T/b.npy" --tile 11x13 --verify
run -v --device "$D0,$D1" tile-avg "$T/b.npy" --tile 10x10 -o "$T/v.npy"
expect_contains "$ERR" "shard 1: rows 160-299" "tile-avg -v: bands of 8 tile rows, the last takes the rest"
run --device "$D0,$D1,$D2" tile-avg "$T/a.npy" --tile 40x4 -o "$T/x.npy"
expect_rc 1 "tile-avg: fewer blocks of 8 tile rows than devices is refused"
expect_contains "$ERR" "3 shards for 103 rows in tiles of 40 rows: each shard needs 8 whole tile rows" "... saying so"
[ ! -e "$T/x.npy" ] && ok "... writing nothing" || not_ok "... writing nothing"

# bench over the set: each boundary against the first device alone, the
# grids compared byte for byte by bench itself
run --device "$D0,$D1,$D2" bench life --size 77 --gens 21 --reps 1 --boundary torus
expect_rc 0 "bench life --boundary torus over 3 devices"
expect_contains "$OUT" "life 77x77 torus, 21 generations" "... on the boundary asked for"
expect_contains "$OUT" "the grids agree" "... the set's grid is the one device's"
run --device "$D0,$D1" bench life --size 64 --gens 9 --reps 1 --boundary clamp --json
expect_contains "$OUT" '"op":"life","boundary":"clamp","size":64,"gens":9,"shards":2' \
    "bench life over 2 devices: one line of JSON with the boundary"
run --device "$D0,$D1" bench tile-avg --size 96 --tile 4 --reps 1
expect_contains "$OUT" "the kernel phase alone (the slowest device's kernels): 1 shard" \
    "bench tile-avg over a set: the kernel phase beside the whole call"

done_testing
