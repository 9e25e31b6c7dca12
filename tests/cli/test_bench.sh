# tiledcl bench: tiny sizes, --reps 2 --json; every line parses, carries the
# issue's fields, and its numbers are positive and consistent.
. "$(dirname "$0")/lib.sh"
need_device

# check_jsonl OPS: stdin holds JSON lines; each must parse, carry the common
# fields and its op's rate, with positive numbers; OPS lists the ops expected.
check_jsonl() {
    python3 -c '
import json, sys
want = sys.argv[1].split(",")
rate = {"copy": "gbps", "read": "gbps", "tile-avg": "gbps", "peak": "gflops", "matmul": "gflops",
        "life-peak": "cells_per_s", "life": "cells_per_s"}
frac = {"copy": "frac_copy", "read": "frac_read", "peak": "frac_peak", "life-peak": "frac_life_peak"}
lines = [l for l in sys.stdin.read().splitlines() if l.strip()]
ops = []
for l in lines:
    d = json.loads(l)
    ops.append(d["op"])
    for k in ("op", "device", "size", "tile", "reps", "median_ms", "min_ms", "max_ms", "copy_gbps", rate[d["op"]]):
        assert k in d, (k, l)
    assert d["reps"] == 2, l
    for k in ("median_ms", "min_ms", "max_ms", "copy_gbps", rate[d["op"]], "total_ms"):
        assert isinstance(d[k], (int, float)) and d[k] > 0, (k, l)
    assert d["min_ms"] <= d["median_ms"] <= d["max_ms"], l
    assert d["size"] is None or d["size"] > 0, l
    # every figure names its ceiling, and its fraction is of that one
    assert d["ceiling"] in frac, l
    assert d["frac_ceiling"] == d[frac[d["ceiling"]]], l
for w in want:
    assert w in ops, (w, ops)
assert ops[0] == "copy", ops
' "$1"
}

run bench copy --size 64 --reps 2 --json
expect_rc 0 "bench copy --json exits 0"
if printf '%s\n' "$OUT" | check_jsonl copy 2>"$T/py.err"; then
    ok "bench copy --json: one parseable line with positive figures"
else
    not_ok "bench copy --json: one parseable line with positive figures" "$(cat "$T/py.err")" "$OUT"
fi
expect_eq "$(printf '%s\n' "$OUT" | wc -l | tr -d ' ')" "1" "bench copy prints one line"
expect_contains "$OUT" '"size": 64' "bench copy --size sets the copy size"

# A profiling timer that does not run (the shim's: resolution 0, every
# command 1 ns long, as Mesa's rusticl) would give 32,768 GB/s for this
# copy of 32 KiB: the figures come from the host's clock, and it says so.
# (Under ASan the sanitizer's runtime comes before the shim.)
SHIM=$(dirname "$TILEDCL")/tests/fault/clfault.so
ASAN_LIB=$(ldd "$TILEDCL" 2>/dev/null | sed -n 's/.*libasan[^ ]* => \([^ ]*\).*/\1/p')
if [ -f "$SHIM" ]; then
    LD_PRELOAD="${ASAN_LIB:+$ASAN_LIB }$SHIM" TDCL_FAULT_TIMER=0 run bench copy --size 64 --reps 2 --json
    expect_contains "$ERR" "no usable kernel times" "a timer that does not run is said"
    if printf '%s\n' "$OUT" | python3 -c 'import json, sys; sys.exit(not 0 < json.loads(sys.stdin.readline())["gbps"] < 1000)'; then
        ok "a timer that does not run: the copy's GB/s from the host's clock"
    else
        not_ok "a timer that does not run: the copy's GB/s from the host's clock" "$OUT"
    fi
else
    ok "# SKIP no fault shim at $SHIM: the dead timer is not tried"
fi

run bench all --size 32 --copy-size 64 --gens 3 --reps 2 --json
expect_rc 0 "bench all --json exits 0"
if printf '%s\n' "$OUT" | check_jsonl copy,read,peak,life-peak,matmul,tile-avg,life 2>"$T/py.err"; then
    ok "bench all --json: every line parses with positive figures"
else
    not_ok "bench all --json: every line parses with positive figures" "$(cat "$T/py.err")" "$OUT"
fi

# the seeds' CUDA table: size 16 with 16x16 tiles
run bench matmul --size 16 --tile 16 --copy-size 64 --reps 2 --json
expect_rc 0 "bench matmul --size 16 --tile 16 exits 0"
if printf '%s\n' "$OUT" | check_jsonl copy,peak,matmul 2>"$T/py.err"; then
    ok "bench matmul --json: copy, peak and matmul lines"
else
    not_ok "bench matmul --json: copy, peak and matmul lines" "$(cat "$T/py.err")" "$OUT"
fi
expect_contains "$OUT" '"tile": 16, "plan": "kernel=tiled' "--tile 16 runs the 16x16 tiled kernel"

run bench matmul --shape 20x30x40 --type f64 --copy-size 64 --reps 2 --json
expect_rc 0 "bench matmul --shape --type f64 exits 0"
expect_contains "$OUT" '"type": "float64", "size": null, "m": 20, "k": 30, "n": 40' "--shape is reported as m, k, n"

run bench copy --size 64 --reps 2 --tile 4
expect_rc 0 "bench copy as text exits 0"
expect_contains "$OUT" "GB/s" "text output shows GB/s"
expect_contains "$OUT" "vec=4" "--tile sets the copy's vector width"

run bench life --size 48 --gens 5 --reps 2 --boundary torus --json
expect_rc 0 "bench life --boundary torus exits 0"
expect_contains "$OUT" "boundary=torus" "... the plan runs on a torus (checked against the host as ever)"
run bench life --boundary klein
expect_rc 2 "bench --boundary klein: a usage error"
expect_contains "$ERR" "expected --boundary dead, torus or clamp, got 'klein'" "... saying what it takes"

run bench --help
expect_rc 0 "bench --help exits 0"
expect_contains "$OUT" "exit status" "bench --help documents exit codes"
expect_contains "$OUT" "--reps R" "bench --help documents --reps"

run bench
expect_rc 2 "bench without an operation is a usage error"
run bench frob
expect_rc 2 "unknown operation is a usage error"
expect_contains "$ERR" "unknown operation 'frob'" "unknown operation is named"
run bench copy --size 0
expect_rc 2 "--size 0 is a usage error"
run bench copy --shape 2x3x4
expect_rc 2 "--shape is for matmul only"
run bench matmul --shape 2x3
expect_rc 2 "a malformed --shape is a usage error"
run bench copy --tile 3
expect_rc 2 "copy's --tile must be a vector width"
run bench matmul --type f16
expect_rc 2 "unknown --type is a usage error"
run bench matmul --precision f64
expect_rc 2 "--precision takes fp32, tf32, 3xtf32 or auto"
run bench copy --size 1048576 --reps 1
expect_rc 1 "a copy past the device's memory fails with 1"
expect_contains "$ERR" "float copy needs two buffers" "the size failure says why"

# each figure as text names the ceiling it is a fraction of; one past 100%
# says why
run bench all --size 32 --copy-size 64 --gens 3 --reps 2
expect_rc 0 "bench all as text exits 0"
expect_contains "$OUT" "read     64x64" "the read ceiling has its line"
expect_contains "$OUT" "life-peak -" "the life logic peak has its line"
expect_eq "$(printf '%s\n' "$OUT" | grep '^tile-avg' | grep -c '% of read ceiling [0-9.e+]* GB/s')" "1" \
    "tile-avg is a fraction of the read ceiling"
expect_eq "$(printf '%s\n' "$OUT" | grep '^matmul' | grep -c '% of measured peak [0-9.e+]* GFLOP/s')" "1" \
    "matmul is a fraction of the measured peak"
expect_eq "$(printf '%s\n' "$OUT" | grep '^life ' | grep -Ec '% of (life-peak [0-9.e+]* Gcells/s|copy)')" "1" \
    "life is a fraction of the logic peak (or of copy for the byte kernel)"
past=$(printf '%s\n' "$OUT" | grep -E '[0-9]{3,}\.[0-9]% of' | grep -vc '(above it: ' || true)
expect_eq "$past" "0" "no fraction past 100% without saying why"

run bench tile-avg --tile 2x4 --size 64 --copy-size 64 --reps 2 --json
expect_rc 0 "bench tile-avg takes a T x U tile"
expect_contains "$OUT" '"tile": 2, "tile_cols": 4' "a T x U tile is reported as tile and tile_cols"

# bench/gpu.sh looks for an NVIDIA GPU before it builds anything: a copy of
# it (so that the tree it would build is $T/gpu, not this one) exits 3 on a
# machine without one, with a message, leaving no build and no output.
if ! ls /dev/nvidia[0-9]* >/dev/null 2>&1 && ! command -v nvidia-smi >/dev/null 2>&1; then
    mkdir -p "$T/gpu/bench"
    cp "$(dirname "$TDCL_DATA")/bench/gpu.sh" "$T/gpu/bench/gpu.sh"
    (cd "$T/gpu" && env -u TILEDCL bash bench/gpu.sh -o "$T/gpu/out.jsonl") >/dev/null 2>"$T/gpu.err"
    RC=$? ERR=$(cat "$T/gpu.err")
    expect_rc 3 "bench/gpu.sh without an NVIDIA GPU exits 3"
    expect_contains "$ERR" "no NVIDIA GPU found" "bench/gpu.sh says why"
    expect_eq "$(ls -A "$T/gpu" | tr '\n' ' ')" "bench " "bench/gpu.sh built nothing and wrote no output"
else
    ok "# SKIP an NVIDIA GPU is here: gpu.sh's refusal is not tried"
fi

# io: no device; every figure parses and is positive; the files go.
check_io_jsonl() {
    python3 -c '
import json, sys
want = sys.argv[1].split(",")
lines = [json.loads(l) for l in sys.stdin.read().splitlines() if l.strip()]
for d in lines:
    assert d["op"] == "io", d
    for k in ("mb", "median_ms", "cpu_median_ms", "mbps", "mb_per_cpu_s", "threads"):
        assert isinstance(d[k], (int, float)) and d[k] > 0, (k, d)
seen = ["%s/%d" % (d["what"], d["threads"]) for d in lines]
for w in want:
    assert w in seen, (w, seen)
' "$1"
}

mkdir -p "$T/io"
run bench io --size 40 --nnz 300 --reps 2 --threads 3 --dir "$T/io" --json
expect_rc 0 "bench io exits 0"
if printf '%s\n' "$OUT" | check_io_jsonl "mtx read array/1,mtx read array/3,mtx read coordinate/3,mtx write array/1,mtx write array/3,mtx write coordinate/3,npy write float64/1,npy read float64/1,malloc + memcpy of the same bytes/1" 2>"$T/py.err"; then
    ok "bench io --json: every figure, 1 and 3 threads, positive"
else
    not_ok "bench io --json: every figure, 1 and 3 threads, positive" "$(cat "$T/py.err")" "$OUT"
fi
expect_eq "$(ls -A "$T/io" | wc -l | tr -d ' ')" "0" "bench io removes its files"

printf '%%%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4.5\n' > "$T/small.mtx"
run bench io --read "$T/small.mtx" --threads 1 --reps 2
expect_rc 0 "bench io --read exits 0"
expect_contains "$OUT" "io mtx read, 1 thread" "bench io --read times the file"
run bench io --read "$T/absent.mtx" --reps 1
expect_rc 1 "bench io --read of a missing file fails with 1"
expect_contains "$ERR" "absent.mtx" "the failure names the file"
run bench io --size 10 --reps 1 --dir "$T/no/such/dir"
expect_rc 1 "bench io into a missing directory fails with 1"
expect_contains "$ERR" "cannot create" "the failure says what could not be done"
run bench io --tile 4
expect_rc 2 "a device option with io is a usage error"
expect_contains "$ERR" "--tile is for the device operations" "the option is named"
run bench copy --nnz 5
expect_rc 2 "an io option with a device operation is a usage error"
run bench io --reps 40
expect_rc 2 "io takes at most 31 runs"

# bench e2e: whole commands as new processes beside their floors. The
# matmul row's inputs are two 256 x 256 float32 .npy files of 128-byte
# headers, its output one.
mkdir -p "$T/e2e"
run bench e2e --quick --reps 1 --no-numpy --no-vips --dir "$T/e2e" --json
expect_rc 0 "bench e2e --quick exits 0"
if printf '%s\n' "$OUT" | python3 -c '
import sys, json
rows = [json.loads(l) for l in sys.stdin if l.strip()]
names = [r["row"] for r in rows]
assert names == ["matmul 256 npy", "life 256 x 10 gens", "life 500x500 200 gens (default soup)",
                 "tile-avg 256 tile 4 npy", "tile-avg 64 RGB png 8x8", "tile-avg 64 RGB jpg 8x8",
                 "tile-avg 64 RGB16 tif 8x8"], names
for r in rows[4:]:  # the generated pictures and their 8x8 reductions, vips not asked for
    assert r["in_mb"] > 0 and r["out_mb"] > 0 and r["vips"] == "not asked for", r
m = rows[0]
assert abs(m["in_mb"] - 2 * (256 * 256 * 4 + 128) / 1e6) < 1e-6, m["in_mb"]
assert abs(m["out_mb"] - (256 * 256 * 4 + 128) / 1e6) < 1e-6, m["out_mb"]
t = rows[3]
assert abs(t["out_mb"] - (64 * 64 * 4 + 128) / 1e6) < 1e-6, t["out_mb"]
for r in rows:
    assert r["op"] == "e2e" and r["reps"] == 1
    assert r["wall_ms"] > 0 and r["maxrss_mb"] > 0 and r["setup_ms"] > 0, r
    assert r["release_ms"] >= 0, r
    s = sum(r[k] for k in ("floor_startup_ms", "floor_read_ms", "floor_upload_ms",
                           "floor_kernel_ms", "floor_download_ms", "floor_write_ms"))
    assert abs(s - r["floor_ms"]) <= 1e-3 * s + 1e-3, (s, r["floor_ms"])
    assert r["floor_overlap_ms"] <= r["floor_ms"] + 1e-6
    assert r["floor_kernel_ms"] == r["kernel_ms"]
' 2>"$T/py.err"; then
    ok "bench e2e --json: the seven rows, their file sizes, floors that add up"
else
    not_ok "bench e2e --json: the seven rows, their file sizes, floors that add up" "$(cat "$T/py.err")" "$OUT"
fi
expect_eq "$(ls -A "$T/e2e" | wc -l | tr -d ' ')" "0" "bench e2e removes its files"
run bench e2e --reps 40
expect_rc 2 "e2e takes at most 31 runs"

# bench e2e's sparse and golly rows beside scipy and bgolly, each with the
# two outputs compared. The Laplacian of a 5 x 5 grid squared has an entry
# for each pair of cells within two steps (none cancels); its 25 x 25
# tile means in tiles of 2 are 13 x 13; the glider keeps its 5 cells.
printf 'x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n' >"$T/glider.rle"
run bench e2e --quick --reps 1 --rows sparse,golly --matrix laplace:5 \
    --pattern "$T/glider.rle:8" --dir "$T/e2e" --json
expect_rc 0 "bench e2e --rows sparse,golly exits 0"
if printf '%s\n' "$OUT" | python3 -c '
import sys, json
rows = [json.loads(l) for l in sys.stdin if l.strip()]
names = [r["row"] for r in rows]
assert names == ["matmul laplace:5 mtx", "tile-avg laplace:5 mtx tile 2", "life glider.rle 8 gens"], names
nnz = sum(1 for y in range(5) for x in range(5) for dy in range(-2, 3) for dx in range(-2, 3)
          if abs(dx) + abs(dy) <= 2 and 0 <= x + dx < 5 and 0 <= y + dy < 5)
want = {0: "same entries (%d stored)" % nnz, 1: "same means (169 tiles)",
        2: "same cells (5 live, placed from their boxes\x27 corners)"}
for i, r in enumerate(rows):
    assert r["wall_ms"] > 0 and r["maxrss_mb"] > 0, r
    if "anchor_note" in r:  # scipy or bgolly missing: said, and nothing compared
        assert r["anchor_note"] in ("python3 has no scipy", "not installed") and r["check"] == "", r
    else:
        assert r["check"] == want[i] and r["anchor_ms"] > 0, (r["check"], want[i])
' 2>"$T/py.err"; then
    ok "bench e2e sparse and golly rows: tiledcl's outputs match scipy's and bgolly's"
else
    not_ok "bench e2e sparse and golly rows: tiledcl's outputs match scipy's and bgolly's" "$(cat "$T/py.err")" "$OUT"
fi
expect_eq "$(ls -A "$T/e2e" | wc -l | tr -d ' ')" "0" "bench e2e removes the sparse and golly files"
run bench e2e --rows dense
expect_rc 2 "an unknown set of rows is a usage error"

# bench spgemm on the Laplacian of a 30 x 30 grid: its square's entries
# are the cells within two steps of each cell (|dx| + |dy| <= 2).
run bench spgemm --matrix laplace:30 --reps 1 --warmup 0 --json
expect_rc 0 "bench spgemm runs"
want=$(python3 -c 'print(sum(1 for y in range(30) for x in range(30) for dy in range(-2, 3) for dx in range(-2, 3) if abs(dx) + abs(dy) <= 2 and 0 <= x + dx < 30 and 0 <= y + dy < 30))')
expect_contains "$OUT" "\"nnz_c\":$want," "bench spgemm's product has the Laplacian square's entries"
expect_contains "$OUT" "\"copy_gbps\":" "bench spgemm reports the copy ceiling beside it"
run bench spgemm --matrix nonsense
expect_rc 2 "an unknown matrix is a usage error"

done_testing
