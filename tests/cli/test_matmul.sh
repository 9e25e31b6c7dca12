# tiledcl matmul end to end: the seeds' examples and the quick-start data
# against independent products (Python integers; NumPy in double when it is
# installed), every kernel shape, types, panels, --verify, stdin, errors,
# exit codes and atomic output.
. "$(dirname "$0")/lib.sh"
need_device
D=$TDCL_DATA
# Exporting a binary for tiledcl's cache makes PoCL compile each program
# twice (test_clrt covers the cache); PoCL's own cache still applies.
export TILEDCL_CACHE=0

# The Matrix Market array body (after the size line) as one row-major line
# per matrix row, for comparing with Python's output.
rows_of() {
    python3 -c '
import sys
lines = [l for l in open(sys.argv[1]) if not l.startswith("%")]
r, c = map(int, lines[0].split())
v = [x.strip() for x in lines[1:1 + r * c]]
for i in range(r):
    print(" ".join(v[j * r + i] for j in range(c)))
' "$1"
}

# The exact integer product of two Matrix Market files, row by row.
int_product() {
    python3 -c '
import sys
def load(p):
    lines = [l for l in open(p) if not l.startswith("%")]
    r, c = map(int, lines[0].split())
    v = [int(x) for x in lines[1:1 + r * c]]
    return [[v[j * r + i] for j in range(c)] for i in range(r)]
a, b = load(sys.argv[1]), load(sys.argv[2])
for row in a:
    print(" ".join(str(sum(x * b[k][j] for k, x in enumerate(row))) for j in range(len(b[0]))))
' "$1" "$2"
}

# --- the seeds' examples -------------------------------------------------
run matmul "$D/seed3x2.mtx" "$D/seed2x3.mtx"
expect_rc 0 "3x2 by 2x3 integer example exits 0"
expect_contains "$OUT" "array integer general" "an integer product is written with the integer field"
printf '%s\n' "$OUT" >"$T/c.mtx"
expect_eq "$(rows_of "$T/c.mtx")" "47 52 57
64 71 78
81 90 99" "3x2 by 2x3 gives 47 52 57 / 64 71 78 / 81 90 99"

run matmul --tile 2 "$D/seed4x4.mtx" "$D/seed4x4.mtx" -o "$T/c4.mtx"
expect_rc 0 "4x4 example with 2x2 tiles exits 0"
expect_eq "$(rows_of "$T/c4.mtx" | head -1 | cut -d' ' -f1)" "34" "4x4 example: C[0][0] = 34"
expect_eq "$(rows_of "$T/c4.mtx")" "34 44 54 64
82 108 134 160
34 44 54 64
82 108 134 160" "4x4 example: every element"

# --- quick-start data: exact integers, floats checked -----------------------
int_product "$D/ai.mtx" "$D/bi.mtx" >"$T/want_i.txt"
for k in auto cpu gpu; do # auto is the tiled kernel at this size
    run matmul --kernel $k "$D/ai.mtx" "$D/bi.mtx" -o "$T/ci_$k.mtx" --verify
    expect_rc 0 "integer 64x48 by 48x32, kernel $k, exits 0"
    expect_eq "$(rows_of "$T/ci_$k.mtx")" "$(cat "$T/want_i.txt")" "kernel $k: exact integer product"
    expect_contains "$ERR" "verify: exact" "kernel $k: --verify reports an exact match"
done

run -v matmul "$D/a.mtx" "$D/b.mtx" --verify -o "$T/c.npy"
expect_rc 0 "real 64x48 by 48x32 with --verify exits 0"
expect_contains "$ERR" "relative Frobenius error" "--verify prints the relative error"
expect_contains "$ERR" "bound" "--verify prints the bound"
expect_contains "$ERR" "kernel=" "-v shows the kernel chosen"
expect_contains "$ERR" "time (ms)" "-v shows the timing breakdown"
if python3 -c 'import numpy' 2>/dev/null; then
    check_npy() { # FILE DTYPE: the .npy against numpy's float64 product of the inputs
        python3 - "$D/a.mtx" "$D/b.mtx" "$1" "$2" <<'PY'
import sys, numpy as np
def load(p):
    lines = [l for l in open(p) if not l.startswith("%")]
    r, c = map(int, lines[0].split())
    return np.array([float(x) for x in lines[1:1 + r * c]]).reshape(c, r).T
a, b, c = load(sys.argv[1]), load(sys.argv[2]), np.load(sys.argv[3])
ref = a @ b
err = np.linalg.norm(c - ref) / np.linalg.norm(ref)
tol = 1e-6 if sys.argv[4] == "float32" else 1e-14
ok = c.dtype == np.dtype(sys.argv[4]) and c.shape == (64, 32) and err < tol
print("ok" if ok else "bad: %s %s %g" % (c.dtype, c.shape, err))
PY
    }
    # Matrix Market 'real' reads as float64, so the product is float64, as
    # numpy's product of float64 arrays is
    expect_eq "$(check_npy "$T/c.npy" float64)" "ok" "real inputs: a float64 .npy that matches numpy"
    run matmul --type f32 "$D/a.mtx" "$D/b.mtx" -o "$T/c32.npy"
    expect_eq "$(check_npy "$T/c32.npy" float32)" "ok" "--type f32: a float32 .npy that matches numpy"
    run matmul --kernel cpu "$D/a.mtx" "$D/b.mtx" -o "$T/ccpu.npy"
    expect_eq "$(check_npy "$T/ccpu.npy" float64)" "ok" "--kernel cpu matches numpy"
    run matmul --max-alloc 2048 "$D/a.mtx" "$D/b.mtx" -o "$T/cp.npy" --verify
    expect_rc 0 "a 2 KiB buffer limit splits into panels and still verifies"
    expect_eq "$(check_npy "$T/cp.npy" float64)" "ok" "panelled product matches numpy"
    # float64 .npy in, float64 .npy out, within the float64 bound; float32
    # with float64 is float64 too (numpy's promotion)
    python3 -c "
import numpy as np
r = np.random.default_rng(3)
np.save('$T/a64.npy', r.standard_normal((40, 30)))
np.save('$T/b64.npy', r.standard_normal((30, 20)))
np.save('$T/b32.npy', r.standard_normal((30, 20)).astype(np.float32))"
    for bb in b64 b32; do
        run matmul "$T/a64.npy" "$T/$bb.npy" -o "$T/c_$bb.npy"
        expect_rc 0 "float64 A times $bb B exits 0"
        res=$(python3 -c "
import numpy as np
a, b, c = np.load('$T/a64.npy'), np.load('$T/$bb.npy'), np.load('$T/c_$bb.npy')
ref = a @ b
err = np.linalg.norm(c - ref) / np.linalg.norm(ref)
bound = 2 * (30 + 2) * 2.0**-53 * np.linalg.norm(a) * np.linalg.norm(b) / np.linalg.norm(ref)
print('ok' if c.dtype == ref.dtype == np.float64 and err <= bound else 'bad: %s %g %g' % (c.dtype, err, bound))")
        expect_eq "$res" "ok" "float64 A times $bb B: float64, as numpy's, within the float64 bound"
    done
fi

# --- stdin, stdout, types ----------------------------------------------------
run matmul "$D/ai.mtx" "$D/bi.mtx" --type f32
expect_contains "$OUT" "array real general" "--type f32 writes a real product for integer inputs"
"$TILEDCL" matmul - "$D/seed2x3.mtx" <"$D/seed3x2.mtx" >"$T/stdin.mtx" 2>"$T/stdin.err"
expect_eq "$(rows_of "$T/stdin.mtx" | tail -1)" "81 90 99" "A read from stdin ('-')"
run matmul --type i64 "$D/a.mtx" "$D/b.mtx"
expect_rc 1 "--type i64 with real inputs exits 1"
expect_contains "$ERR" "integer inputs" "--type i64 needs integer inputs"

# --- errors ------------------------------------------------------------------
echo "keep me" >"$T/keep.mtx"
run matmul "$D/a.mtx" "$D/a.mtx" -o "$T/keep.mtx"
expect_rc 1 "a shape mismatch exits 1"
expect_contains "$ERR" "'$D/a.mtx' (64x48) by '$D/a.mtx' (64x48)" "the mismatch names both files and shapes"
expect_eq "$(cat "$T/keep.mtx")" "keep me" "a failed product leaves an existing output untouched"
run matmul --tile 1000 "$D/a.mtx" "$D/b.mtx"
expect_rc 1 "a tile the device cannot run exits 1"
expect_contains "$ERR" "largest" "the tile error names the largest tile that fits"
run matmul --tile 0 "$D/a.mtx" "$D/b.mtx"
expect_rc 2 "--tile 0 is a usage error"
run matmul --type f16 "$D/a.mtx" "$D/b.mtx"
expect_rc 2 "an unknown type is a usage error"
run matmul --kernel fast "$D/a.mtx" "$D/b.mtx"
expect_rc 2 "an unknown kernel is a usage error"
run matmul --kernel cpu --tile 8 "$D/a.mtx" "$D/b.mtx"
expect_rc 2 "--tile with --kernel cpu is a usage error"
run matmul "$D/a.mtx"
expect_rc 2 "one input is a usage error"
run matmul - - 
expect_rc 2 "two inputs from stdin is a usage error"
run matmul "$D/a.mtx" "$D/b.mtx" -o "$T/c.txt"
expect_rc 2 "an unknown output extension is a usage error (2)"
expect_contains "$ERR" ".mtx, .npy or .npz" "the extension error says what to use"
run matmul "$T/missing.mtx" "$D/b.mtx"
expect_rc 1 "a missing input exits 1"
run matmul --help
expect_rc 0 "--help exits 0"
for w in "--verify" "--tile" "--type" "examples" "exit status" "2 (K + 2) (u"; do
    expect_contains "$OUT" "$w" "--help mentions $w"
done

# The device opens on a thread while the inputs are read (NEEDS_DEVICE in
# main's table): a usage error or a bad input is reported as such, before
# a device that does not exist; a good run reports the device once.
run --device no-such-device-xyz matmul "$D/a.mtx"
expect_rc 2 "a usage error wins over a device still opening"
expect_eq "$(grep -c no-such-device "$T/.err")" "0" "the usage error does not mention the device"
run --device no-such-device-xyz matmul "$T/missing.mtx" "$D/b.mtx"
expect_rc 1 "a missing input is reported before the device"
expect_contains "$ERR" "missing.mtx" "the message names the missing input"
run --device no-such-device-xyz matmul "$D/a.mtx" "$D/b.mtx" -o "$T/nodev.npy"
expect_rc 3 "a device that does not exist: exit 3 after reading"
expect_contains "$ERR" "no device matches 'no-such-device-xyz'" "the device error names the spec"
[ -e "$T/nodev.npy" ] && not_ok "no output without a device" || ok "no output without a device"
run -v matmul "$D/a.mtx" "$D/b.mtx" -o "$T/once.npy"
expect_eq "$(grep -c 'time (ms)' "$T/.err")" "1" "-v prints the timing once"
expect_contains "$ERR" "waited" "-v says how long the command waited for the device"

# Without --verify the product is written without new memory: from the
# device's own memory on a CPU device (inputs computed on in place), else
# from A's host memory reused for the download; byte for byte the product
# the plain path gives and --verify checks on the host.
"$TILEDCL" convert "$D/a.mtx" "$T/a32.npy" --dtype float32 >/dev/null 2>&1
"$TILEDCL" convert "$D/b.mtx" "$T/b32.npy" --dtype float32 >/dev/null 2>&1
run -v matmul "$T/a32.npy" "$T/b32.npy" -o "$T/mapped.npy"
expect_rc 0 "matmul of float32 .npy files exits 0"
expect_contains "$ERR" "the product is written from" "-v says where the product was written from"
TILEDCL_MAPPED=0 run -v matmul "$T/a32.npy" "$T/b32.npy" -o "$T/streamed.npy"
expect_contains "$ERR" "the product is written from the download" "-v says so on a GPU's path too (streamed)"
run matmul "$T/a32.npy" "$T/b32.npy" --verify -o "$T/verified.npy"
expect_rc 0 "the plain path with --verify passes the host check"
if cmp -s "$T/mapped.npy" "$T/verified.npy"; then ok "mapped product == verified product"; else not_ok "mapped product == verified product"; fi
TILEDCL_MAPPED=0 "$TILEDCL" matmul "$T/a32.npy" "$T/b32.npy" -o "$T/plain.npy" 2>/dev/null
if cmp -s "$T/mapped.npy" "$T/plain.npy"; then ok "TILEDCL_MAPPED=0 gives the same bytes"; else not_ok "TILEDCL_MAPPED=0 gives the same bytes"; fi
# A GPU's path, forced here: uploads through the pinned staging ring and
# the product streamed from it to its place in the file, in 4 KiB chunks
# on 3 threads (a 600x600 product: 352 chunks); byte for byte the product
# that --verify checks on the host, which passes on staged copies too.
"$TILEDCL" life --size 600x600 --gens 0 --seed 3 -o "$T/s600.npy" >/dev/null 2>&1
"$TILEDCL" convert "$T/s600.npy" "$T/a600.npy" --dtype float32 >/dev/null 2>&1
"$TILEDCL" matmul "$T/a600.npy" "$T/a600.npy" --verify -o "$T/v600.npy" 2>/dev/null
expect_eq "$?" "0" "600x600 product passes the host check"
for env in "TILEDCL_MAPPED=0" "TILEDCL_STAGING=1 TILEDCL_STAGING_CHUNK=4096 TILEDCL_STAGING_THREADS=3 TILEDCL_MAPPED=0" \
    "TILEDCL_STAGING=0 TILEDCL_MAPPED=0"; do
    env $env "$TILEDCL" matmul "$T/a600.npy" "$T/a600.npy" -o "$T/s.npy" 2>/dev/null
    if cmp -s "$T/s.npy" "$T/v600.npy"; then ok "streamed product ($env) == verified product"; else
        not_ok "streamed product ($env) == verified product"; fi
done
TILEDCL_STAGING=1 TILEDCL_STAGING_CHUNK=4096 "$TILEDCL" matmul "$T/a600.npy" "$T/a600.npy" \
    --verify -o "$T/sv.npy" 2>/dev/null
expect_eq "$?" "0" "staged copies pass the host check"
if cmp -s "$T/sv.npy" "$T/v600.npy"; then ok "staged, verified: the same bytes"; else not_ok "staged, verified: the same bytes"; fi
run -v matmul "$D/a.mtx" "$D/b.mtx" --max-alloc 4096 -o "$T/panels.npy"
expect_contains "$ERR" "A's host memory, reused" "in panels, the product reuses A's host memory"
TILEDCL_MAPPED=0 "$TILEDCL" matmul "$D/a.mtx" "$D/b.mtx" --max-alloc 4096 -o "$T/panels0.npy" 2>/dev/null
if cmp -s "$T/panels.npy" "$T/panels0.npy"; then ok "in panels, the same bytes as into new memory"; else not_ok "in panels, the same bytes as into new memory"; fi
head -c 200 "$T/a32.npy" >"$T/short.npy"
echo "old contents" >"$T/keep.npy"
run matmul "$T/short.npy" "$T/b32.npy" -o "$T/keep.npy"
expect_rc 1 "a truncated .npy input fails"
expect_eq "$(cat "$T/keep.npy")" "old contents" "a truncated input leaves the output untouched"

# --- sparse operands -------------------------------------------------------
# Coordinate files stay sparse (SpGEMM, SpMM) and are checked against
# scipy's products; -v says what each operand and C were.
if python3 -c 'import scipy' 2>/dev/null; then
    python3 -c '
import sys, numpy as np, scipy.sparse as sp, scipy.io as sio
d = sys.argv[1]
a = sp.random(300, 200, density=0.02, random_state=1, format="csr", data_rvs=lambda n: np.arange(1, n + 1) % 7 - 3.0)
b = sp.random(200, 250, density=0.02, random_state=2, format="csr", data_rvs=lambda n: np.arange(1, n + 1) % 5 + 1.0)
sio.mmwrite(d + "/sa.mtx", a.astype(np.int64), field="integer")
sio.mmwrite(d + "/sb.mtx", b.astype(np.int64), field="integer")
np.save(d + "/db.npy", np.arange(200 * 40, dtype=np.float64).reshape(200, 40) % 11 - 5)
np.save(d + "/da.npy", np.arange(30 * 300, dtype=np.float64).reshape(30, 300) % 13 - 6)
' "$T"
    run -v matmul "$T/sa.mtx" "$T/sb.mtx" -o "$T/sc.mtx" --verify
    expect_rc 0 "sparse x sparse runs"
    expect_contains "$ERR" "sparse x sparse (SpGEMM)" "-v says SpGEMM was chosen"
    expect_contains "$ERR" "C sparse (CSR" "-v says C is sparse"
    expect_contains "$ERR" "verify: exact" "an int64 SpGEMM verifies exactly"
    expect_contains "$(head -1 "$T/sc.mtx")" "coordinate" "a sparse product is written as coordinate .mtx"
    run matmul "$T/sa.mtx" "$T/sb.mtx" -o "$T/sc.npz"
    run matmul "$T/sa.mtx" "$T/db.npy" -o "$T/sd.npy" -v
    expect_contains "$ERR" "sparse x dense (SpMM)" "-v says SpMM was chosen"
    run matmul "$T/da.npy" "$T/sa.mtx" -o "$T/ds.npy"
    run matmul "$T/sa.mtx" "$T/db.npy" -o "$T/sf.npy" --sparse --type f32
    expect_rc 0 "SpMM with --type f32 runs"
    run matmul "$T/sa.mtx" "$T/db.npy" --sparse --type i64
    expect_contains "$ERR" "needs integer inputs, but A is int64 and B float64" "SpMM with --type i64 refuses a float64 operand"
    # densities 0.1 x 0.1 lie between a GPU's crossover and a CPU's: -v names the kind
    python3 -c '
import sys, numpy as np, scipy.sparse as sp, scipy.io as sio
a = sp.random(60, 60, density=0.1, random_state=3, format="csr", data_rvs=lambda n: np.arange(1, n + 1) % 7 - 3.0)
sio.mmwrite(sys.argv[1] + "/s10.mtx", a.astype(np.int64), field="integer")
' "$T"
    run -v matmul "$T/s10.mtx" "$T/s10.mtx" -o "$T/s10c.mtx"
    case "$ERR" in
    *"= 0.01 below the crossover 0.02 (a CPU's)"* | *"= 0.01 above the crossover 0.002 (a GPU's)"*)
        ok "-v names the device kind whose crossover decided" ;;
    *) not_ok "-v names the device kind whose crossover decided" "$(grep crossover "$T/.err")" ;;
    esac
    run -v matmul "$T/sa.mtx" "$T/sb.mtx" -o "$T/dd.npy" --dense
    expect_contains "$ERR" "dense product: dense as asked" "--dense forces the dense product"
    res=$(python3 -c '
import sys, numpy as np, scipy.sparse as sp, scipy.io as sio
d = sys.argv[1]
a, b = sio.mmread(d + "/sa.mtx").tocsr(), sio.mmread(d + "/sb.mtx").tocsr()
c = (a @ b).toarray()
ok = lambda x: "ok" if x else "bad"
print(ok(np.array_equal(sio.mmread(d + "/sc.mtx").toarray(), c)), ok(np.array_equal(sp.load_npz(d + "/sc.npz").toarray(), c)),
      ok(np.allclose(np.load(d + "/sd.npy"), a @ np.load(d + "/db.npy"))),
      ok(np.allclose(np.load(d + "/ds.npy"), np.load(d + "/da.npy") @ a)), ok(np.array_equal(np.load(d + "/dd.npy"), c)))
f = np.load(d + "/sf.npy")
print(ok(f.dtype == np.float32 and np.array_equal(f, a @ np.load(d + "/db.npy"))))
' "$T")
    expect_eq "$res" "ok ok ok ok ok
ok" "SpGEMM (.mtx, .npz), SpMM on both sides, --dense and SpMM in float32 equal scipy's products"
else
    skip_ok "sparse operands" "no scipy"
fi

done_testing
