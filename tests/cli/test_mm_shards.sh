# tiledcl matmul over several devices (--device LIST, the local transport)
# and over MPI ranks (SUMMA): every grid shape and type against one device
# (int64: byte for byte) and against numpy; uneven splits, non-square
# products, int64 overflow across shards; refusals. tile-avg over MPI ranks
# byte for byte against one device.
. "$(dirname "$0")/lib.sh"

# Four PoCL CPU devices of one core each (PoCL 3.1 reads
# POCL_MAX_PTHREAD_COUNT, later ones POCL_CPU_MAX_CU_COUNT).
export POCL_DEVICES="pthread pthread pthread pthread" POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
if ! python3 -c 'import numpy' 2>/dev/null; then
    echo "1..0 # SKIP needs python3 with numpy (the independent reference)"
    exit 0
fi
# four devices of one platform: a GPU beside PoCL would compare two
# implementations' rounding (and the killed rank's timing would be the
# GPU's), not the split
ids=$(same_platform_devices 4)
if [ -z "$ids" ]; then
    echo "1..0 # SKIP needs four OpenCL devices of one platform (PoCL with POCL_DEVICES)"
    exit 0
fi
D0=$(echo "$ids" | sed -n 1p); D1=$(echo "$ids" | sed -n 2p)
D2=$(echo "$ids" | sed -n 3p); D3=$(echo "$ids" | sed -n 4p)
# MPI ranks take the default devices: these four, not a GPU of the host
export TILEDCL_DEVICE="$D0,$D1,$D2,$D3"

# inputs: M x K by K x N with every dimension uneven over 2, 3 and 4
python3 - "$T" <<'PY'
import sys, numpy as np
t = sys.argv[1]
r = np.random.default_rng(23)
for name, (m, k, n) in {'': (37, 23, 29), 's': (13, 61, 5)}.items():
    np.save(f'{t}/a{name}.npy', r.standard_normal((m, k)).astype(np.float32))
    np.save(f'{t}/b{name}.npy', r.standard_normal((k, n)).astype(np.float32))
    np.save(f'{t}/a{name}64.npy', r.standard_normal((m, k)))
    np.save(f'{t}/b{name}64.npy', r.standard_normal((k, n)))
    np.save(f'{t}/a{name}i.npy', r.integers(-10**6, 10**6, (m, k)))
    np.save(f'{t}/b{name}i.npy', r.integers(-10**6, 10**6, (k, n)))
np.save(f'{t}/tinya.npy', r.integers(-9, 9, (2, 5)))
np.save(f'{t}/tinyb.npy', r.integers(-9, 9, (5, 3)))
a = r.integers(-10, 10, (9, 40)); b = r.integers(-10, 10, (40, 7))
a[6, :] = 2**40; a[2, :] = 2**33; b[:, 3] = 2**40; b[:, 5] = 2**30
np.save(f'{t}/ao.npy', a); np.save(f'{t}/bo.npy', b)
PY

# against A B C: C is numpy's product of the two inputs, within --verify's
# bound for floats (2 (K + 2) u |A| |B|), exactly for integers
against() {
    python3 - "$T/$1" "$T/$2" "$3" <<'PY'
import sys, numpy as np
a, b, c = (np.load(p) for p in sys.argv[1:4])
if c.dtype.kind == 'i':
    exact = [[sum(int(x) * int(y) for x, y in zip(row, col)) for col in b.T] for row in a]
    sys.exit(0 if c.tolist() == exact and c.shape == (a.shape[0], b.shape[1]) else 1)
u = 2.0**-24 if c.dtype == np.float32 else 2.0**-53
r = a.astype(np.float64) @ b.astype(np.float64)
bound = 2 * (a.shape[1] + 2) * u * np.linalg.norm(a) * np.linalg.norm(b)
sys.exit(0 if c.shape == r.shape and np.linalg.norm(c - r) <= bound else 1)
PY
}

# is_int NPY: the file holds integers
is_int() {
    python3 -c "import numpy,sys; sys.exit(numpy.load(sys.argv[1]).dtype.kind != 'i')" "$1"
}

# same DESC A B ONE-DEVICE-ARGS -- SET-ARGS: both runs exit 0, the set's C
# matches numpy and, for int64, the one device's byte for byte
same() {
    desc=$1 a=$2 b=$3
    shift 3
    one=""
    while [ "$1" != "--" ]; do one="$one $1"; shift; done
    shift
    rm -f "$T/one.npy" "$T/sh.npy"
    # shellcheck disable=SC2086
    run $one matmul "$T/$a" "$T/$b" -o "$T/one.npy"
    rc1=$RC
    run "$@" "$T/$a" "$T/$b" -o "$T/sh.npy"
    if [ "$rc1" -ne 0 ] || [ "$RC" -ne 0 ]; then
        not_ok "$desc" "exit $rc1 and $RC" "stderr: $(printf %s "$ERR" | tr '\n' ' ' | head -c 600)"
    elif ! against "$a" "$b" "$T/sh.npy"; then
        not_ok "$desc" "C differs from numpy's product"
    elif is_int "$T/sh.npy" && ! cmp -s "$T/one.npy" "$T/sh.npy"; then
        not_ok "$desc" "int64 C differs from one device's"
    else
        ok "$desc"
    fi
}

for c in ":$D0,$D1" ":$D0,$D1,$D2" ":$D0,$D1,$D2,$D3" "64:$D0,$D1,$D2" "i:$D0,$D1" "i:$D0,$D1,$D2,$D3"; do
    t=${c%%:*} devs=${c#*:}
    same "local ${t:-f32} 37x23*23x29 on $devs (default grid)" "a$t.npy" "b$t.npy" \
        --device "$D0" -- --device "$devs" matmul
done
for t in "" i; do
    for g in 1x3 3x1; do
        same "local ${t:-f32} 13x61*61x5, --shards $g" "as$t.npy" "bs$t.npy" \
            --device "$D0" -- --device "$D0,$D1,$D2" matmul --shards "$g"
    done
done
same "local f32 --verify on a 2x2 grid" a.npy b.npy --device "$D0" -- --device "$D0,$D1,$D2,$D3" matmul --verify --shards 2x2
same "local: one device named twice" ai.npy bi.npy --device "$D0" -- --device "$D0,$D0" matmul
same "local: a 2x5*5x3 product over 1x3 shards (a column each)" tinya.npy tinyb.npy \
    --device "$D0" -- --device "$D0,$D1,$D2" matmul --shards 1x3

# row panels overlapped with their copies, forced small: panels of 5 rows
# (the last one short) in two slots, staged through 4 KiB chunks
export TILEDCL_MM_PANEL_ROWS=5 TILEDCL_STAGING=1 TILEDCL_STAGING_CHUNK=4096
for t in i ""; do
    same "local ${t:-f32} 37x23*23x29 in overlapped panels of 5 rows" "a$t.npy" "b$t.npy" \
        --device "$D0" -- --device "$D0,$D1" matmul
done
run -v --device "$D0,$D1" matmul "$T/a.npy" "$T/b.npy" -o "$T/p.npy"
expect_contains "$ERR" "4 panels of 5 rows overlapped with their copies" "-v: the panels overlapped"
expect_contains "$ERR" "hidden behind the kernels" "-v: the copies' time hidden and exposed"
export TILEDCL_MM_PANEL_ROWS=2
run --device "$D0,$D1,$D2,$D3" matmul "$T/ao.npy" "$T/bo.npy" -o "$T/p.npy"
expect_contains "$ERR" "element (3, 4) of C" "overlapped panels: int64 overflow names the first element"
unset TILEDCL_MM_PANEL_ROWS TILEDCL_STAGING TILEDCL_STAGING_CHUNK

run -v --device "$D0,$D1,$D2,$D3" matmul "$T/a.npy" "$T/b.npy" -o "$T/v.npy"
expect_contains "$ERR" "4 shards in a 4x1 grid" "-v: the grid (bands of rows by default)"
expect_contains "$ERR" "shard 3: rows 28-36, columns 0-28 on $D3" "-v: each shard's block and device"
expect_contains "$ERR" "exchange" "-v: each shard's times"

run --device "$D0,$D1" bench matmul --size 48 --reps 1 --shards 1x2
expect_rc 0 "bench matmul --shards 1x2 over two devices exits 0"
expect_contains "$OUT" "2 shards 1x2:" "bench: the grid asked for"
expect_contains "$OUT" "the products agree" "bench: the grid's product against one device's"
run --device "$D0,$D1" bench matmul --size 48 --reps 1 --shards 2x2
expect_rc 1 "bench --shards 2x2 over two devices fails"

run --device "$D0,$D1,$D2,$D3" matmul "$T/ao.npy" "$T/bo.npy" -o "$T/x.npy"
expect_rc 1 "local: int64 overflow in several shards is an error"
expect_contains "$ERR" "element (3, 4) of C" "... naming the first element of the whole C"
[ ! -e "$T/x.npy" ] && ok "... writing nothing" || not_ok "... writing nothing"
run --device "$D0" matmul "$T/ao.npy" "$T/bo.npy" --wrap -o "$T/w1.npy"
run --device "$D0,$D1,$D2" matmul "$T/ao.npy" "$T/bo.npy" --wrap -o "$T/w3.npy"
expect_same_file "$T/w1.npy" "$T/w3.npy" "local: --wrap gives one device's wrapped sums"

run --device "$D0,$D1,$D2" matmul "$T/tinya.npy" "$T/tinyb.npy" -o "$T/x.npy"
expect_rc 1 "local: more shard rows than rows of C is refused"
expect_contains "$ERR" "a 3x1 grid of shards for a 2x3 product" "... saying so"
[ ! -e "$T/x.npy" ] && ok "... writing nothing" || not_ok "... writing nothing"
run --device "$D0,$D1,$D2" matmul "$T/a.npy" "$T/b.npy" --shards 2x2 -o "$T/x.npy"
expect_rc 1 "local: a grid that is not the device count is refused"
expect_contains "$ERR" "2x2 grid of shards needs 4 devices, but there are 3" "... saying so"
run --device "$D0" matmul "$T/a.npy" "$T/b.npy" --shards 1x2 -o "$T/x.npy"
expect_rc 1 "--shards on one device is refused"
run matmul "$T/a.npy" "$T/b.npy" --shards 2y2
expect_rc 2 "--shards needs RxC"

run --device "$D0,$D1" bench matmul --size 64 --reps 1 --json
expect_contains "$OUT" '"shards":2,"grid":"2x1"' "bench matmul over 2 devices: one line of JSON"
expect_contains "$OUT" '"checked":true' "... after the products were compared"
if printf %s "$OUT" | python3 -c 'import json,sys; r=json.load(sys.stdin); sys.exit(not (r["kernel_ms"] > 0 and r["one_kernel_ms"] > 0 and r["ms"] > r["kernel_ms"]))'; then
    ok "... with the kernels' time beside the whole call's"
else
    not_ok "... with the kernels' time beside the whole call's" "$OUT"
fi
run --device "$D0,$D1,$D2" bench tile-avg --size 200 --tile 3x5 --reps 1 --json
expect_contains "$OUT" '"tile":"3x5","shards":3' "bench tile-avg over 3 devices: one line of JSON"
expect_contains "$OUT" '"checked":true' "... after the means were compared byte for byte"

# ---- sparse operands over a set: bands of A's rows by work -----------------
# a skewed 60x60 coordinate .mtx (R-MAT-like: two hub rows of 40 entries,
# the rest 0-3), a dense block beside it on either side
python3 - "$T" <<'PY'
import sys, numpy as np
t = sys.argv[1]
r = np.random.default_rng(41)
n = 60
ent = [(i, j) for i in range(n) for j in r.choice(n, 40 if i in (2, 9) else int(r.integers(0, 4)), replace=False)]
v = r.standard_normal(len(ent)).astype(np.float32)
with open(f'{t}/sp.mtx', 'w') as f:
    f.write(f'%%MatrixMarket matrix coordinate real general\n{n} {n} {len(ent)}\n')
    f.writelines(f'{i + 1} {j + 1} {x:.7g}\n' for (i, j), x in zip(ent, v))
np.save(f'{t}/spd.npy', r.standard_normal((n, 6)).astype(np.float32))
np.save(f'{t}/spl.npy', r.standard_normal((5, n)).astype(np.float32))
PY
# mtx_against A B C: C (coordinate .mtx) is A*A of the .mtx A within
# float32's bound, as numpy computes it from the files' text
mtx_against() {
    python3 - "$1" "$2" <<'PY'
import sys, numpy as np
def load(p):
    rows = [l.split() for l in open(p) if not l.startswith('%')]
    m, n, _ = map(int, rows[0]); d = np.zeros((m, n))
    for i, j, x in rows[1:]: d[int(i) - 1, int(j) - 1] += float(x)
    return d
a, c = load(sys.argv[1]), load(sys.argv[2])
r = a @ a
sys.exit(0 if np.linalg.norm(c - r) <= 2 * 62 * 2.0**-24 * np.linalg.norm(a) ** 2 else 1)
PY
}
run --device "$D0" matmul "$T/sp.mtx" "$T/sp.mtx" -o "$T/sp1.mtx"
run -v --device "$D0,$D1" matmul "$T/sp.mtx" "$T/sp.mtx" -o "$T/sp2.mtx"
expect_same_file "$T/sp1.mtx" "$T/sp2.mtx" "local SpGEMM of a skewed .mtx over 2 devices: one device's .mtx byte for byte"
if mtx_against "$T/sp.mtx" "$T/sp2.mtx"; then ok "... numpy's product"; else not_ok "... numpy's product"; fi
expect_contains "$ERR" "SpGEMM on 2 devices" "... sparse, not made dense"
expect_contains "$ERR" "band 0 on" "-v: the bands and their work"
w0=$(printf '%s\n' "$ERR" | sed -n 's/.*band 0 on .*rows \([0-9]*\)-\([0-9]*\) .*work \([0-9]*\),.*/\2 \3/p')
w1=$(printf '%s\n' "$ERR" | sed -n 's/.*band 1 on .*work \([0-9]*\),.*/\1/p')
# balanced by work, not rows: the hub rows put band 0's end far before row 30
if [ -n "$w0" ] && [ "${w0%% *}" -lt 29 ] && [ $((${w0#* } * 10)) -lt $((w1 * 15)) ] && [ $((w1 * 10)) -lt $((${w0#* } * 15)) ]; then
    ok "... bands balanced by work (band 0 ends at row ${w0%% *}: work ${w0#* } and $w1)"
else
    not_ok "... bands balanced by work" "band 0: $w0, band 1: $w1"
fi
run --device "$D0" matmul "$T/sp.mtx" "$T/spd.npy" -o "$T/spd1.npy"
run --device "$D0,$D1,$D2" matmul "$T/sp.mtx" "$T/spd.npy" -o "$T/spd3.npy" --verify
expect_same_file "$T/spd1.npy" "$T/spd3.npy" "local SpMM (sparse x dense) over 3 devices: one device's byte for byte, verified"
run --device "$D0" matmul "$T/spl.npy" "$T/sp.mtx" -o "$T/spl1.npy"
run --device "$D0,$D1" matmul "$T/spl.npy" "$T/sp.mtx" -o "$T/spl2.npy" --verify
expect_same_file "$T/spl1.npy" "$T/spl2.npy" "local SpMM (dense x sparse) over 2 devices: one device's byte for byte, verified"

# ---- MPI ranks: SUMMA ------------------------------------------------------
run --version
if printf '%s\n' "$OUT" | grep -q '^mpi: no'; then
    OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 run matmul "$T/a.npy" "$T/b.npy" -o "$T/x.npy"
    expect_rc 1 "built without MPI: matmul as rank 0 of 2 refuses"
    expect_contains "$ERR" "built without MPI" "... saying why"
    [ ! -e "$T/x.npy" ] && ok "... writing nothing" || not_ok "... writing nothing"
    done_testing
    exit
fi
if ! command -v mpirun >/dev/null 2>&1; then
    done_testing
    exit
fi
MPIOPTS="--oversubscribe"
[ "$(id -u)" -eq 0 ] && MPIOPTS="$MPIOPTS --allow-run-as-root"
mrun() {
    n=$1
    shift
    # shellcheck disable=SC2086
    timeout 120 mpirun $MPIOPTS -n "$n" "$TILEDCL" "$@" >"$T/.out" 2>"$T/.err" </dev/null
    RC=$?
    OUT=$(cat "$T/.out")
    ERR=$(cat "$T/.err")
}
# msame N DESC A B ARGS...: one device, then N ranks with ARGS
msame() {
    n=$1 desc=$2 a=$3 b=$4
    shift 4
    run --device "$D0" matmul "$T/$a" "$T/$b" -o "$T/one.npy"
    rc1=$RC
    rm -f "$T/mpi.npy"
    mrun "$n" matmul "$T/$a" "$T/$b" -o "$T/mpi.npy" "$@"
    if [ "$rc1" -ne 0 ] || [ "$RC" -ne 0 ]; then
        not_ok "$desc" "exit $rc1 and $RC" "stderr: $(printf %s "$ERR" | tr '\n' ' ' | head -c 600)"
    elif ! against "$a" "$b" "$T/mpi.npy"; then
        not_ok "$desc" "C differs from numpy's product"
    elif ! is_int "$T/mpi.npy" || cmp -s "$T/one.npy" "$T/mpi.npy"; then
        ok "$desc"
    else
        not_ok "$desc" "int64 C differs from one device's"
    fi
}
msame 2 "2 ranks, f32 37x23*23x29, --verify" a.npy b.npy --verify -v
expect_contains "$ERR" "rank 1 of 2: grid position 1,0 of 2x1, rows 19-36" "mpi -v: each rank's block and device"
expect_contains "$ERR" "exchange" "mpi -v: each rank's exchange time"
expect_contains "$ERR" "blocks read from the .npy files" "mpi: .npy inputs are read by each rank, its blocks only"
expect_contains "$ERR" "with the whole of B (bands: no panels)" "mpi: by default, bands of C's rows with all of B on each rank"
msame 3 "3 ranks, int64, panels of 5 (padded, across both splits)" ai.npy bi.npy --panel 5
msame 3 "3 ranks, f64 13x61*61x5, --shards 1x3, panels of 7" as64.npy bs64.npy --shards 1x3 --panel 7


# Matrix Market inputs: rank 0 reads them and sends each rank its blocks
run convert "$T/asi.npy" "$T/asi.mtx"
run convert "$T/bsi.npy" "$T/bsi.mtx"
run --device "$D0" matmul "$T/asi.mtx" "$T/bsi.mtx" -o "$T/one.npy"
mrun 2 -v matmul "$T/asi.mtx" "$T/bsi.mtx" -o "$T/mtx2.npy" --panel 9 --shards 1x2
expect_same_file "$T/one.npy" "$T/mtx2.npy" "mpi: .mtx inputs over a 1x2 grid, int64 identical to one device"
expect_contains "$ERR" "blocks from rank 0" "... the blocks sent by rank 0"
expect_contains "$ERR" "C written into the output by offset" "... C written by every rank into the .npy by offset"
mrun 3 -v matmul "$T/asi.mtx" "$T/bsi.mtx" -o "$T/mtx3.npy"
expect_same_file "$T/one.npy" "$T/mtx3.npy" "mpi: .mtx inputs in bands over 3 ranks (B broadcast from rank 0): int64 identical"
expect_contains "$ERR" "rank 2 of 3: grid position 2,0 of 3x1" "... a grid of one column"
expect_contains "$ERR" "with the whole of B (bands: no panels)" "... every rank holding all of B"

mrun 3 matmul "$T/ao.npy" "$T/bo.npy" -o "$T/x.npy"
if [ "$RC" -ne 0 ]; then ok "mpi: int64 overflow is an error"; else not_ok "mpi: int64 overflow is an error"; fi
expect_eq "$(printf '%s\n' "$ERR" | grep -c 'element (3, 4) of C')" 1 "... one message naming the first element"
[ ! -e "$T/x.npy" ] && ok "... writing nothing" || not_ok "... writing nothing"
mrun 3 matmul "$T/tinya.npy" "$T/tinyb.npy" -o "$T/x.npy"
if [ "$RC" -ne 0 ]; then ok "mpi: more ranks than rows is refused"; else not_ok "mpi: more ranks than rows is refused"; fi
expect_eq "$(printf '%s\n' "$ERR" | grep -c 'grid of shards for a 2x3 product')" 1 "... with one message"

mrun 2 bench matmul --size 48 --reps 1 --json
expect_contains "$OUT" '"ranks":2,"grid":"2x1"' "bench matmul under mpirun -n 2: one line of JSON"
expect_contains "$OUT" '"checked":true' "... after rank 0's product alone and the ranks' were compared"
expect_contains "$OUT" '"layout":"bands"' "... in bands of C's rows"
mrun 2 bench matmul --size 48 --reps 1 --json --shards 1x2
expect_contains "$OUT" '"grid":"1x2","layout":"summa"' "bench matmul under mpirun --shards 1x2: SUMMA"
expect_contains "$OUT" '"checked":true' "... checked against rank 0's product alone"
mrun 3 bench tile-avg --size 100 --tile 3 --reps 1 --json
expect_contains "$OUT" '"ranks":3' "bench tile-avg under mpirun -n 3: one line of JSON"
expect_contains "$OUT" '"checked":true' "... the means gathered and compared with rank 0's alone"

# tile-avg over ranks: bands of whole blocks of 8 tile rows, rank 0 reads
# and writes; byte-identical to one device
python3 -c "import numpy as np; np.save('$T/ta.npy', np.random.default_rng(5).standard_normal((300, 500)).astype(np.float32))"
run --device "$D0" tile-avg "$T/ta.npy" --tile 7x9 -o "$T/ta1.npy"
mrun 3 -v tile-avg "$T/ta.npy" --tile 7x9 --verify -o "$T/ta3.npy"
expect_rc 0 "mpi tile-avg, 3 ranks, 7x9 tiles, --verify"
expect_same_file "$T/ta1.npy" "$T/ta3.npy" "... .npy identical to one device"
expect_contains "$ERR" "rank 2 of 3: rows 224-299 on $D2" "... -v: each rank's rows"
expect_contains "$ERR" "read from the .npy file" "... each rank reading its band of the .npy"
run convert "$T/ta.npy" "$T/ta.mtx"
run --device "$D0" tile-avg "$T/ta.mtx" --tile 7x9 -o "$T/tm1.npy"
mrun 2 tile-avg "$T/ta.mtx" --tile 7x9 -o "$T/tm2.npy"
expect_same_file "$T/tm1.npy" "$T/tm2.npy" "mpi tile-avg of a .mtx over 2 ranks (rank 0 sends the bands): identical"
mrun 3 -v tile-avg "$T/ta.npy" --tile 7x9 -o "$T/ta3w.npy"
expect_same_file "$T/ta1.npy" "$T/ta3w.npy" "mpi tile-avg to .npy without --verify: identical to one device"
expect_contains "$ERR" "rank 2: means written into the output by offset" "... each rank writing its means by offset"
mrun 2 tile-avg "$T/ta.mtx" --tile 7x9 -o "$T/tm2.mtx"
run --device "$D0" tile-avg "$T/ta.mtx" --tile 7x9 -o "$T/tm1.mtx"
expect_same_file "$T/tm1.mtx" "$T/tm2.mtx" "mpi tile-avg to .mtx: gathered on rank 0, identical"
mrun 3 tile-avg "$T/ta.npy" --tile 40x4 -o "$T/tx.npy"
if [ "$RC" -ne 0 ]; then ok "mpi tile-avg: fewer blocks than ranks is refused"; else not_ok "mpi tile-avg: fewer blocks than ranks is refused"; fi
expect_eq "$(printf '%s\n' "$ERR" | grep -c '3 shards for 300 rows in tiles of 40 rows')" 1 "... with one message"
[ ! -e "$T/tx.npy" ] && ok "... writing nothing" || not_ok "... writing nothing"

# sparse operands over ranks: rank 0 reads, bands by work, rank 0 gathers
mrun 2 -v matmul "$T/sp.mtx" "$T/sp.mtx" -o "$T/spm.mtx"
expect_same_file "$T/sp1.mtx" "$T/spm.mtx" "mpi SpGEMM of a skewed .mtx over 2 ranks: one device's .mtx byte for byte"
expect_contains "$ERR" "SpGEMM on 2 MPI ranks" "... sparse, not made dense"
mrun 2 matmul "$T/sp.mtx" "$T/spd.npy" -o "$T/spdm.npy"
expect_same_file "$T/spd1.npy" "$T/spdm.npy" "mpi SpMM (sparse x dense) over 2 ranks: identical"
mrun 2 matmul "$T/spl.npy" "$T/sp.mtx" -o "$T/splm.npy"
expect_same_file "$T/spl1.npy" "$T/splm.npy" "mpi SpMM (dense x sparse) over 2 ranks: identical"

# kill one rank mid-run: the others stop within seconds, nothing is written
python3 -c "import numpy as np; np.save('$T/big.npy', np.ones((2048, 2048), np.float32))"
# shellcheck disable=SC2086
kill_a_rank "mpi: a killed rank stops the matmul" "$T/k.npy" \
    timeout 120 mpirun $MPIOPTS -n 2 "$TILEDCL" matmul "$T/big.npy" "$T/big.npy" --type f64 --tile 1 \
    --panel 16 -o "$T/k.npy"

done_testing
