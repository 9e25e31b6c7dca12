# tiledcl life over MPI ranks (the "mpi" transport) against one device, byte
# for byte; a killed rank stops the job; a build without MPI refuses to run
# as several ranks.
. "$(dirname "$0")/lib.sh"
export POCL_DEVICES="pthread pthread pthread" POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1
# Under ASan: full stacks, so that Open MPI's own leftovers match
# tests/lsan.supp by name (a no-op in a plain build)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"

run --version
if printf '%s\n' "$OUT" | grep -q '^mpi: no'; then
    # the launcher's environment, as mpirun sets it, without mpirun
    OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 run life --size 20x20 --gens 3 -o "$T/x.rle"
    expect_rc 1 "built without MPI: rank 0 of 2 refuses"
    expect_contains "$ERR" "built without MPI" "... saying why"
    [ ! -e "$T/x.rle" ] && ok "... writing nothing" || not_ok "... writing nothing"
    OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1 run life --size 20x20 --gens 3 -o "$T/x.rle"
    expect_rc 1 "rank 1 of 2 refuses too"
    expect_eq "$ERR" "" "... quietly (rank 0 says it once)"
    PMI_SIZE=1 run life --size 20x20 --gens 3 -o "$T/x.rle"
    expect_rc 0 "one rank runs as a plain process"
    done_testing
    exit
fi
if ! command -v mpirun >/dev/null 2>&1; then
    echo "1..0 # SKIP built with MPI but no mpirun on PATH"
    exit 0
fi
run devices
if [ "$(printf '%s\n' "$OUT" | grep -c '^ *\*\? *[0-9]*:[0-9]*  ')" -lt 1 ]; then
    echo "1..0 # SKIP no OpenCL device"
    exit 0
fi
D0=$(printf '%s\n' "$OUT" | sed -n 's/^ *\*\? *\([0-9]*:[0-9]*\)  .*/\1/p' | head -1)
MPIOPTS="--oversubscribe"
[ "$(id -u)" -eq 0 ] && MPIOPTS="$MPIOPTS --allow-run-as-root"

# mrun N ARGS...: tiledcl ARGS as N ranks; $RC, $OUT, $ERR as run sets them
mrun() {
    n=$1
    shift
    # shellcheck disable=SC2086
    timeout 120 mpirun $MPIOPTS -n "$n" "$TILEDCL" "$@" >"$T/.out" 2>"$T/.err" </dev/null
    RC=$?
    OUT=$(cat "$T/.out")
    ERR=$(cat "$T/.err")
}

# same N DESC EXT ARGS...: one device and N ranks, byte-identical, not empty
same() {
    n=$1 desc=$2 ext=$3
    shift 3
    rm -f "$T/one.$ext" "$T/mpi.$ext"
    run --device "$D0" "$@" -o "$T/one.$ext"
    rc1=$RC
    mrun "$n" "$@" -o "$T/mpi.$ext"
    if [ "$rc1" -ne 0 ] || [ "$RC" -ne 0 ]; then
        not_ok "$desc" "exit $rc1 and $RC" "stderr: $(printf %s "$ERR" | tr '\n' ' ' | head -c 600)"
    elif [ ! -s "$T/one.$ext" ] || ! cmp -s "$T/one.$ext" "$T/mpi.$ext"; then
        not_ok "$desc" "outputs differ or are empty"
    else
        ok "$desc"
    fi
}

for b in dead torus clamp; do
    same 2 "2 ranks, $b, 67x53: .rle identical to one device" rle \
        life --size 67x53 --density 0.35 --gens 41 --boundary "$b"
    same 3 "3 ranks, $b, 129x7 (bands of 3, 2, 2 rows): .rle identical" rle \
        life --size 129x7 --density 0.35 --gens 41 --boundary "$b"
done
same 3 "3 ranks, torus, halo 5: .npy identical" npy life --size 90x31 --gens 25 --boundary torus --halo 5
same 2 "2 ranks, B0 rule on a torus" rle life --size 33x21 --gens 17 --rule B0123478/S34678 --boundary torus

# --frames and --gif from the grid gathered on rank 0: the one device's files
run --device "$D0" life --size 40x30 --gens 12 --every 4 --frames "$T/f1" --gif "$T/g1.gif" -o "$T/fg1.rle"
mrun 3 life --size 40x30 --gens 12 --every 4 --frames "$T/f3" --gif "$T/g3.gif" -o "$T/fg3.rle"
expect_rc 0 "--frames and --gif over 3 ranks"
expect_eq "$(ls "$T/f3" | tr '\n' ' ')" "gen-00000000.png gen-00000004.png gen-00000008.png gen-00000012.png " "... a PNG per --every"
if [ -s "$T/g1.gif" ] && cmp -s "$T/g1.gif" "$T/g3.gif" && diff -r "$T/f1" "$T/f3" >/dev/null; then
    ok "... frames and GIF identical to one device's"
else
    not_ok "... frames and GIF identical to one device's"
fi
run --device "$D0" life --size 33x20 --gens 7 --gif "$T/h1.gif"
mrun 2 life --size 33x20 --gens 7 --gif "$T/h2.gif"
expect_same_file "$T/h1.gif" "$T/h2.gif" "--gif alone (a frame a generation) over 2 ranks: identical"
mrun 2 life --size 33x20 --gens 7 --gif "$T/nodir/x.gif"
if [ "$RC" -ne 0 ]; then ok "a GIF that cannot be written fails every rank"; else not_ok "a GIF that cannot be written fails every rank"; fi
expect_eq "$(printf '%s\n' "$ERR" | grep -c "nodir")" 1 "... with one message"

# a .npy input: each rank reads its own rows (and halos) by offset
run --device "$D0" life --size 83x59 --density 0.4 --gens 0 -o "$T/in.npy"
for b in dead torus; do
    same 3 "3 ranks, a .npy input read by rows, $b: .npy identical" npy life "$T/in.npy" --gens 29 --boundary "$b"
done
same 2 "2 ranks, a .npy input without --boundary (an array's dead edge): .rle identical" rle life "$T/in.npy" --gens 11
{
    printf '%%%%MatrixMarket matrix array real general\n6 4\n'
    for v in 0 0.5 -3 0 1e-300 0 2 0 0 7 0 0 -0.25 0 0 4 0 0 0 1 1 0 0 9; do printf '%s\n' "$v"; done
} >"$T/f.mtx"
run convert "$T/f.mtx" "$T/f.npy"
same 2 "2 ranks, a float .npy (nonzero is alive): identical" rle life "$T/f.npy" --gens 2
mrun 2 -v life "$T/in.npy" --gens 3 -o "$T/x2.npy"
expect_contains "$ERR" "read from the .npy file" "-v: each rank reads its rows of the .npy input"
mrun 2 -v life --size 64x40 --gens 3 -o "$T/x3.rle"
expect_contains "$ERR" "its rows of the soup sown here" "-v: each rank sows its rows of the soup"

run --device "$D0" life --size 64x64 --gens 30 --every 10 -o "$T/e1.rle"
e1=$(printf '%s\n' "$ERR" | grep population)
mrun 3 life --size 64x64 --gens 30 --every 10 -o "$T/e2.rle"
e2=$(printf '%s\n' "$ERR" | grep population)
expect_eq "$(printf '%s\n' "$e2" | wc -l)" 4 "--every over 3 ranks: 4 population lines, from rank 0 only"
expect_eq "$e2" "$e1" "--every: the ranks' summed populations are the one device's"

mrun 3 -v life --size 70x45 --gens 12 --boundary torus -o "$T/v3.npy"
expect_contains "$ERR" "rank 2: rows written into the output by offset" "-v: a .npy output written by every rank"
run --device "$D0" life --size 70x45 --gens 12 --boundary torus -o "$T/v1.npy"
if [ -s "$T/v1.npy" ] && cmp -s "$T/v1.npy" "$T/v3.npy"; then
    ok "... byte for byte the one device's .npy"
else
    not_ok "... byte for byte the one device's .npy"
fi
[ -z "$(ls "$T" | grep '\.tmp\.')" ] && ok "... no temporary left" || not_ok "... no temporary left" "$(ls "$T")"
mrun 2 -v life --size 64x40 --gens 10 -o "$T/v.rle"
expect_contains "$ERR" "rank 1 of 2: rows 20-39" "-v: each rank's rows and device"
expect_contains "$ERR" "exchange" "-v: each rank's exchange time"

mrun 3 life --size 10x2 --gens 3 -o "$T/x.rle"
if [ "$RC" -ne 0 ]; then ok "more ranks than rows is refused"; else not_ok "more ranks than rows is refused"; fi
expect_eq "$(printf '%s\n' "$ERR" | grep -c 'shards for a grid of 2 rows')" 1 "... with one message"
[ ! -e "$T/x.rle" ] && ok "... writing nothing" || not_ok "... writing nothing"
mrun 2 tile-map --help
if [ "$RC" -ne 0 ]; then ok "a one-process command refuses several ranks"; else not_ok "a one-process command refuses several ranks"; fi
expect_contains "$ERR" "not as 2 MPI ranks" "... saying so"

mrun 2 life --size 10x8 --gens 3 --halo 5 -o "$T/x.rle"
if [ "$RC" -ne 0 ]; then ok "a halo deeper than the thinnest band is refused"; else not_ok "a halo deeper than the thinnest band is refused"; fi
expect_contains "$ERR" "halo of 5 rows is more than the 4 rows" "... saying so"

# bench over the ranks, each against rank 0 alone in the same run (bench
# compares the results byte for byte itself)
mrun 2 bench life --size 97 --gens 23 --reps 1 --boundary torus
expect_rc 0 "bench life under mpirun -n 2"
expect_contains "$OUT" "life 97x97 torus, 23 generations" "... on the boundary asked for"
expect_contains "$OUT" "the grids agree" "... the ranks' grid is rank 0's alone"
mrun 3 bench life --size 61 --gens 19 --reps 1 --boundary clamp --json
expect_contains "$OUT" '"boundary":"clamp","size":61,"gens":19,"ranks":3' \
    "bench life under mpirun -n 3: JSON with the ranks"
expect_eq "$(printf '%s\n' "$OUT" | grep -c '"checked":true')" 1 "... one line, from rank 0 only"
mrun 3 bench tile-avg --size 203 --tile 3x5 --reps 1
expect_rc 0 "bench tile-avg under mpirun -n 3"
expect_contains "$OUT" "the means are identical" "... the ranks' means are rank 0's alone"
expect_contains "$OUT" "3 ranks" "... over 3 ranks"

# Ranks that disagree (each rank in its own directory, as hosts without a
# shared file system): refused on every rank with one message naming the
# rank and what differs, within seconds, never a hang, a crash or a mixed
# result.
# mtx ROWS COLS FIRST: a ROWS x COLS Matrix Market array, FIRST then ones
mtx() {
    printf '%%%%MatrixMarket matrix array real general\n%s %s\n%s\n' "$1" "$2" "$3"
    i=1
    while [ "$i" -lt $(($1 * $2)) ]; do echo 1; i=$((i + 1)); done
}
mkdir -p "$T/r0" "$T/r1" "$T/r2"
mtx 3 2 1 >"$T/a3.mtx"
mtx 4 2 1 >"$T/a4.mtx"
mtx 16 2 1 >"$T/x1.mtx"
mtx 16 2 5 >"$T/x5.mtx"
mtx 2 2 1 >"$T/b.mtx"
run convert "$T/a3.mtx" "$T/r0/A.npy"
run convert "$T/a4.mtx" "$T/r1/A.npy"
run convert "$T/b.mtx" "$T/r0/B.npy"
run convert "$T/b.mtx" "$T/r1/B.npy"
# shellcheck disable=SC2086
timeout 60 mpirun $MPIOPTS -n 1 -wdir "$T/r0" "$TILEDCL" matmul A.npy B.npy -o C.npy : \
    -n 1 -wdir "$T/r1" "$TILEDCL" matmul A.npy B.npy -o C.npy >/dev/null 2>"$T/.err" </dev/null
RC=$?
ERR=$(grep '^tiledcl' "$T/.err")
if [ "$RC" -ne 0 ] && [ "$RC" -ne 124 ]; then ok ".npy inputs of other shapes on two ranks are refused"; else not_ok ".npy inputs of other shapes on two ranks are refused" "exit $RC"; fi
expect_eq "$ERR" "tiledcl: rank 1 read a different 'A.npy' (4x2 float64) from rank 0 (3x2 float64)" \
    "... with one message naming the rank, the file and both shapes"
[ ! -e "$T/r0/C.npy" ] && ok "... writing nothing" || not_ok "... writing nothing"
run convert "$T/x1.mtx" "$T/r0/X.npy"
run convert "$T/x5.mtx" "$T/r1/X.npy"
# shellcheck disable=SC2086
timeout 60 mpirun $MPIOPTS -n 1 -wdir "$T/r0" "$TILEDCL" tile-avg X.npy --tile 1 -o M.npy : \
    -n 1 -wdir "$T/r1" "$TILEDCL" tile-avg X.npy --tile 1 -o M.npy >/dev/null 2>"$T/.err" </dev/null
expect_eq "$(grep '^tiledcl' "$T/.err")" \
    "tiledcl: rank 1 read a different 'X.npy' from rank 0 (both 16x2 float64, other contents)" \
    "a .npy input of the same shape, other values on rank 1: refused, naming it"
# patterns go through rank 0: rank 1's other pattern and rank 2's missing
# one change nothing
printf 'x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n' >"$T/r0/p.rle"
printf 'x = 4, y = 2, rule = B3/S23\n4o$4o!\n' >"$T/r1/p.rle"
run --device "$D0" life "$T/r0/p.rle" --size 12x12 --gens 5 -o "$T/p1.rle"
# shellcheck disable=SC2086
timeout 60 mpirun $MPIOPTS -n 1 -wdir "$T/r0" "$TILEDCL" life p.rle --size 12x12 --gens 5 -o p3.rle : \
    -n 1 -wdir "$T/r1" "$TILEDCL" life p.rle --size 12x12 --gens 5 -o p3.rle : \
    -n 1 -wdir "$T/r2" "$TILEDCL" life p.rle --size 12x12 --gens 5 -o p3.rle >/dev/null 2>"$T/.err" </dev/null
RC=$?
ERR=$(cat "$T/.err")
expect_rc 0 "a pattern other on rank 1 and missing on rank 2: runs"
expect_same_file "$T/p1.rle" "$T/r0/p3.rle" "... on rank 0's pattern, as one device does"
# options that differ: refused at once (before, the ranks waited on each
# other until killed)
# shellcheck disable=SC2086
timeout 30 mpirun $MPIOPTS -n 1 "$TILEDCL" life --size 16x16 --gens 10 -o "$T/g.rle" : \
    -n 1 "$TILEDCL" life --size 16x16 --gens 50 -o "$T/g.rle" >/dev/null 2>"$T/.err" </dev/null
RC=$?
if [ "$RC" -ne 0 ] && [ "$RC" -ne 124 ]; then ok "ranks started with other --gens are refused, not left waiting"; else not_ok "ranks started with other --gens are refused, not left waiting" "exit $RC"; fi
expect_eq "$(grep '^tiledcl' "$T/.err")" \
    "tiledcl: rank 1 was started with different arguments (life --size 16x16 --gens 50 -o $T/g.rle) from rank 0 (life --size 16x16 --gens 10 -o $T/g.rle)" \
    "... with one message naming the rank and both command lines"
[ ! -e "$T/g.rle" ] && ok "... writing nothing" || not_ok "... writing nothing"

# kill one rank mid-run: the others stop within seconds, nothing is written
# shellcheck disable=SC2086
kill_a_rank "a killed rank stops the job" "$T/k.rle" \
    timeout 120 mpirun $MPIOPTS -n 2 "$TILEDCL" life --size 1000x1000 --gens 100000000 -o "$T/k.rle"

done_testing
