# tiledcl tile-avg end to end: the seeds' example on stdout, every variant,
# edge tiles and --strict, .npy and image outputs checked by an independent
# Python computation, --verify, stdin, usage errors and exit codes.
. "$(dirname "$0")/lib.sh"
need_device
SEED=$TDCL_DATA/seed8x8.mtx

# The size line and numbers of a Matrix Market array file on one line.
mtx_values() { printf '%s\n' "$1" | grep -v '^%' | tr '\n' ' ' | sed 's/ $//'; }

run tile-avg --help
expect_rc 0 "--help exits 0"
expect_contains "$OUT" "Edge tiles" "--help explains edge tiles"
expect_contains "$OUT" "--strict" "--help lists --strict"
expect_contains "$OUT" "exit status" "--help documents exit codes"

# The seeds' example; Matrix Market arrays list columns first.
for v in cpu gpu band; do
    run tile-avg "$SEED" --tile 2 --variant $v
    expect_rc 0 "seed 8x8, 2x2 tiles ($v) exits 0"
    expect_eq "$(mtx_values "$OUT")" \
        "4 4 4.5 20.5 36.5 52.5 6.5 22.5 38.5 54.5 8.5 24.5 40.5 56.5 10.5 26.5 42.5 58.5" \
        "seed 8x8, 2x2 tiles ($v): the seeds' means"
    run tile-avg "$SEED" --tile 4x4 --variant $v
    expect_eq "$(mtx_values "$OUT")" "2 2 13.5 45.5 17.5 49.5" "seed 8x8, 4x4 tiles ($v)"
done

# Edge tiles average the cells they hold: 3x3 tiles of the 8x8 matrix.
run tile-avg "$SEED" --tile 3
expect_rc 0 "non-dividing tile exits 0"
expect_eq "$(mtx_values "$OUT")" "3 3 9 33 53 12 36 56 14.5 38.5 58.5" "3x3 tiles: edge tiles average what they hold"
run tile-avg "$SEED" --tile 3 --strict -o "$T/strict.mtx"
expect_rc 1 "--strict refuses a non-dividing tile (exit 1)"
expect_contains "$ERR" "not a whole number of 3x3 tiles" "--strict names the tile"
if [ -e "$T/strict.mtx" ]; then not_ok "a refused run writes no output"; else ok "a refused run writes no output"; fi
run tile-avg "$SEED" --tile 2 --strict
expect_rc 0 "--strict accepts a dividing tile"
run tile-avg "$SEED" --tile 9x1
expect_rc 1 "a tile taller than the matrix is refused"
expect_contains "$ERR" "larger than the 8x8 matrix" "the refusal names the matrix"

# .npy output, read back through convert.
run tile-avg "$SEED" --tile 1x8 -o "$T/rows.npy"
expect_rc 0 "-o .npy exits 0"
run convert "$T/rows.npy" -
expect_eq "$(mtx_values "$OUT")" "8 1 3.5 11.5 19.5 27.5 35.5 43.5 51.5 59.5" "1x8 tiles: row means, through .npy"

# stdin
"$TILEDCL" tile-avg - --tile 8 <"$SEED" >"$T/stdin.out" 2>"$T/stdin.err"
expect_eq "$(mtx_values "$(cat "$T/stdin.out")")" "1 1 31.5" "'-' reads the matrix from stdin"
# an image on stdin, or without its extension, is known by its first bytes
"$TILEDCL" convert "$SEED" "$T/seed.png" 2>/dev/null
"$TILEDCL" tile-avg - --tile 8 <"$T/seed.png" >"$T/stdin.out" 2>"$T/stdin.err"
# (an image's mean keeps its 8-bit type: 31.5 rounds half up)
expect_eq "$(mtx_values "$(cat "$T/stdin.out")")" "1 1 32" "'-' reads a PNG from stdin"
cp "$T/seed.png" "$T/seed_noext"
run tile-avg "$T/seed_noext" --tile 8
expect_eq "$(mtx_values "$OUT")" "1 1 32" "a PNG without its extension"
printf 'GIF89a\001\000\001\000' >"$T/a.gif"
run tile-avg "$T/a.gif" --tile 1
expect_contains "$ERR" "a.gif' is a GIF image; tiledcl reads PNG, JPEG, TIFF, BMP, PBM, PGM, PPM and PAM" "a GIF is named"
run matmul "$T/seed.png" "$SEED"
expect_contains "$ERR" "seed.png' is a PNG image, not a matrix (.mtx or .npy)" "matmul names an image it was given"

run -v tile-avg "$SEED" --tile 2 --verify
expect_rc 0 "--verify passes"
expect_contains "$ERR" "largest error against the float64 host reference" "-v reports the error"
expect_contains "$ERR" "time (ms)" "-v shows the timing breakdown"

# float64 near DBL_MAX: the mean of finite values is finite in every
# variant, and --verify checks it against a reference that is finite too.
{ echo '%%MatrixMarket matrix array real general'; echo '8 8'; for _ in $(seq 64); do echo 1.7e308; done; } >"$T/f64big.mtx"
for v in cpu gpu band; do
    run tile-avg "$T/f64big.mtx" --tile 4 --variant $v --verify
    expect_rc 0 "1.7e308, 4x4 tiles ($v) --verify exits 0"
    if mtx_values "$OUT" | awk '{ if ($1 != 2 || $2 != 2 || NF != 6) exit 1
        for (i = 3; i <= NF; i++) { d = $i - 1.7e308; if (!(d <= 1e293 && d >= -1e293)) exit 1 } }'; then
        ok "1.7e308, 4x4 tiles ($v): the means are 1.7e308"
    else not_ok "1.7e308, 4x4 tiles ($v): the means are 1.7e308" "$OUT"; fi
done

# Images: a PGM and an RGB PNG downsampled, checked pixel by pixel in Python.
cat >"$T/check.py" <<'EOF'
import struct, sys, zlib
def pgm(path):
    d = open(path, "rb").read()
    f = []
    i = 0
    while len(f) < 4:
        while d[i:i+1].isspace(): i += 1
        if d[i:i+1] == b"#":
            while d[i:i+1] != b"\n": i += 1
            continue
        j = i
        while not d[j:j+1].isspace(): j += 1
        f.append(d[i:j]); i = j
    w, h, mx = int(f[1]), int(f[2]), int(f[3])
    i += 1
    bps = 2 if mx > 255 else 1
    px = [int.from_bytes(d[i+k*bps:i+(k+1)*bps], "big") for k in range(w*h)]
    return w, h, 1, mx, px
def png(path):
    d = open(path, "rb").read()
    pos, idat, hdr = 8, b"", None
    while pos < len(d):
        n, t = struct.unpack(">I4s", d[pos:pos+8]); c = d[pos+8:pos+8+n]; pos += 12 + n
        if t == b"IHDR": hdr = struct.unpack(">IIBBBBB", c)
        if t == b"IDAT": idat += c
    w, h, bits, ctype = hdr[0], hdr[1], hdr[2], hdr[3]
    ch = {0: 1, 4: 2, 2: 3, 6: 4}[ctype]; bpp = ch * bits // 8; stride = w * bpp
    raw, out, prev = zlib.decompress(idat), [], bytearray(stride)
    for y in range(h):
        ft, row = raw[y*(stride+1)], bytearray(raw[y*(stride+1)+1:(y+1)*(stride+1)])
        for x in range(stride):
            a = row[x-bpp] if x >= bpp else 0; b = prev[x]; c = prev[x-bpp] if x >= bpp else 0
            if ft == 1: row[x] = (row[x] + a) & 255
            elif ft == 2: row[x] = (row[x] + b) & 255
            elif ft == 3: row[x] = (row[x] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c; pa, pb, pc = abs(p-a), abs(p-b), abs(p-c)
                row[x] = (row[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += row; prev = row
    bps = bits // 8
    px = [int.from_bytes(out[k*bps:(k+1)*bps], "big") for k in range(w*h*ch)]
    return w, h, ch, (1 << bits) - 1, px
def load(p): return png(p) if p.endswith(".png") else pgm(p)
src, dst, t, u = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
w, h, ch, mx, a = load(src)
ow, oh, och, omx, b = load(dst)
assert (ow, oh, och, omx) == (-(-w // u), -(-h // t), ch, mx), (ow, oh, och, omx)
for ty in range(oh):
    for tx in range(ow):
        for c in range(ch):
            cells = [a[(y*w + x)*ch + c] for y in range(ty*t, min(h, ty*t+t)) for x in range(tx*u, min(w, tx*u+u))]
            want = int(sum(cells) / len(cells) + 0.5)
            got = b[(ty*ow + tx)*ch + c]
            assert abs(got - want) <= (1 if (sum(cells) * 2) % len(cells) == 0 else 0), (ty, tx, c, got, want)
print("ok")
EOF
check_image() { # SRC DST T U DESC
    if python3 "$T/check.py" "$1" "$2" "$3" "$4" >"$T/py.out" 2>&1; then ok "$5"; else not_ok "$5" "$(cat "$T/py.out")"; fi
}
run tile-avg "$TDCL_DATA/rings.pgm" --tile 4 -o "$T/rings4.pgm"
expect_rc 0 "PGM in, PGM out exits 0"
check_image "$TDCL_DATA/rings.pgm" "$T/rings4.pgm" 4 4 "PGM 4x4 tile means, rounded to 8 bits"
run tile-avg "$TDCL_DATA/rings.pgm" --tile 5x7 -o "$T/rings57.png" --variant gpu
check_image "$TDCL_DATA/rings.pgm" "$T/rings57.png" 5 7 "PGM to PNG, 5x7 tiles with edges (gpu)"
run tile-avg "$TDCL_DATA/rings-rgb.png" --tile 4x6 -o "$T/rgb.png"
expect_rc 0 "RGB PNG exits 0"
check_image "$TDCL_DATA/rings-rgb.png" "$T/rgb.png" 4 6 "RGB PNG averaged per channel"
python3 -c '
import sys
w, h = 10, 6
px = [(y * 7919 + x * 104729) % 65536 for y in range(h) for x in range(w)]
sys.stdout.buffer.write(b"P5\n%d %d\n65535\n" % (w, h) + b"".join(v.to_bytes(2, "big") for v in px))
' >"$T/deep.pgm"
run tile-avg "$T/deep.pgm" --tile 3x4 -o "$T/deep3.pgm"
check_image "$T/deep.pgm" "$T/deep3.pgm" 3 4 "16-bit PGM keeps 16 bits"
run tile-avg "$TDCL_DATA/rings-rgb.png" --tile 4
expect_rc 1 "an RGB result on stdout is refused"
expect_contains "$ERR" "needs an image output" "the refusal says what to do"

# --op and --alpha against numpy, on images written here (seeded) and
# matrices: an 8-bit RGB median (the histogram path), an RGBA mean weighted
# by alpha, an int32 mode (ties: the smallest), a float32 min with a NaN.
python3 - "$T" <<'EOF'
import struct, sys, zlib
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(42)
def png(path, a):
    h, w, ch = a.shape
    raw = b"".join(b"\0" + a[y].tobytes() for y in range(h))
    def chunk(t, c): return struct.pack(">I", len(c)) + t + c + struct.pack(">I", zlib.crc32(t + c))
    hdr = struct.pack(">IIBBBBB", w, h, 8, {3: 2, 4: 6}[ch], 0, 0, 0)
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", hdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
rgb = rng.integers(0, 256, (7, 10, 3), dtype=np.uint8); png(d + "/rgb.png", rgb); np.save(d + "/rgb_in.npy", rgb)
rgba = rng.integers(0, 256, (6, 9, 4), dtype=np.uint8); rgba[:3, :2, 3] = 0
png(d + "/rgba.png", rgba); np.save(d + "/rgba_in.npy", rgba)
np.save(d + "/i.npy", rng.integers(-3, 4, (9, 11)).astype(np.int32))
# 37 rows: bands of 6 rows in 3-row tiles leave a last band of one row
tall = rng.integers(0, 256, (37, 29, 3), dtype=np.uint8); png(d + "/tall.png", tall)
np.save(d + "/tall_in.npy", tall)
png(d + "/tall4.png", rng.integers(0, 256, (37, 29, 4), dtype=np.uint8))
raw = open(d + "/tall.png", "rb").read(); open(d + "/cut.png", "wb").write(raw[:len(raw) * 3 // 5])
f = rng.standard_normal((9, 11)).astype(np.float32); f[4, 4] = np.nan; np.save(d + "/f.npy", f)
EOF
cat >"$T/ops.py" <<'EOF'
import sys
import numpy as np
src, got, op, t, u = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
a = np.load(src)
if got.endswith(".png"): # check.py's independent PNG decoder
    exec(open(sys.argv[6]).read().split("def load(")[0])
    w, h, ch, mx, px = png(got)
    g = np.array(px, dtype=a.dtype).reshape(h, w, ch)
else:
    g = np.load(got)
if a.ndim == 2: a = a[:, :, None]
h, w, ch = a.shape
want = np.zeros((-(-h // t), -(-w // u), ch))
for i in range(want.shape[0]):
    for j in range(want.shape[1]):
        tile = a[i*t:(i+1)*t, j*u:(j+1)*u].reshape(-1, ch).astype(np.float64)
        al = tile[:, ch - 1]
        for c in range(ch):
            v = tile[:, c]
            if op == "mean": r = np.floor(v.mean() + 0.5)
            elif op == "median": r = np.floor(np.median(v) + 0.5)
            elif op == "mode":
                vals, n = np.unique(v, return_counts=True); r = vals[np.argmax(n)]
            elif op == "min": r = np.min(v)
            elif c == ch - 1: r = np.floor(al.mean() + 0.5)
            else: r = 0 if al.sum() == 0 else np.floor((v * al).sum() / al.sum() + 0.5)
            want[i, j, c] = r
assert g.dtype == a.dtype, (g.dtype, a.dtype)
assert np.array_equal(g.reshape(want.shape).astype(np.float64), want, equal_nan=True), (g, want)
print("ok")
EOF
check_op() { # SRC_NPY GOT OP T U DESC
    if python3 "$T/ops.py" "$1" "$2" "$3" "$4" "$5" "$T/check.py" >"$T/py.out" 2>&1; then ok "$6"; else not_ok "$6" "$(cat "$T/py.out")"; fi
}
run tile-avg "$T/rgb.png" --tile 2x3 --op median -o "$T/rgb_med.png" --verify
expect_rc 0 "--op median of an RGB PNG exits 0"
check_op "$T/rgb_in.npy" "$T/rgb_med.png" median 2 3 "8-bit RGB medians, uint8, even counts rounded half up"
run tile-avg "$T/rgba.png" --tile 3x2 --alpha weighted -o "$T/rgba_w.png" --verify
expect_rc 0 "--alpha weighted exits 0"
check_op "$T/rgba_in.npy" "$T/rgba_w.png" weighted 3 2 "RGBA means weighted by alpha, 0 where it is all 0"
run tile-avg "$T/i.npy" --tile 2x3 --op mode -o "$T/i_mode.npy" --verify
check_op "$T/i.npy" "$T/i_mode.npy" mode 2 3 "int32 modes, the smallest among ties"
run tile-avg "$T/f.npy" --tile 3x2 --op min -o "$T/f_min.npy" --verify
check_op "$T/f.npy" "$T/f_min.npy" min 3 2 "float32 minima, NaN where a tile holds one"
run tile-avg "$T/f.npy" --tile 2 --op max --alpha weighted
expect_rc 1 "--alpha weighted with another reduction is refused"
expect_contains "$ERR" "alpha weighting applies to the mean" "the refusal says why"
run tile-avg "$SEED" --tile 2 --op avg
expect_rc 2 "an unknown --op is a usage error"
run tile-avg "$SEED" --tile 2x4 --type i32
expect_eq "$(mtx_values "$OUT")" "4 2 6 22 38 54 10 26 42 58" "--type i32 rounds means half up"

# Images stream through the device in bands of rows; the streamed results
# equal the whole image's, bit for bit, RGB and RGBA, with a last band
# shorter than a tile; a file that fails mid-stream leaves no output.
run -v tile-avg "$T/tall.png" --tile 3x4 --band-rows 6 -o "$T/tall_s.png"
expect_rc 0 "a PNG streamed in bands of 6 rows exits 0"
expect_contains "$ERR" "streamed in 7 bands of 6 rows" "-v reports the bands"
check_op "$T/tall_in.npy" "$T/tall_s.png" mean 3 4 "streamed RGB means, the last band one row, against numpy"
run tile-avg "$T/tall.png" --tile 3x4 --band-rows whole -o "$T/tall_w.png"
if cmp -s "$T/tall_s.png" "$T/tall_w.png"; then ok "streamed RGB equals the whole image's"; else not_ok "streamed RGB equals the whole image's"; fi
# a kernel that allows fewer work-items than its groups (the shim answers
# 32, as Mesa's llvmpipe does for any kernel): rebuilt narrower, same means
SHIM=$(dirname "$TILEDCL")/tests/fault/clfault.so
ASAN_LIB=$(ldd "$TILEDCL" 2>/dev/null | sed -n 's/.*libasan[^ ]* => \([^ ]*\).*/\1/p')
if [ -f "$SHIM" ]; then
    LD_PRELOAD="${ASAN_LIB:+$ASAN_LIB }$SHIM" TDCL_FAULT_KERNEL_WG=32 run -v tile-avg "$T/tall.png" --tile 3x4 --band-rows 6 -o "$T/tall_32.png"
    # the strip of tiles a group takes depends on the device; the width is the limit's
    if printf '%s\n' "$ERR" | grep -q "kernel=imean op=mean in=uchar channels=3 strip=[0-9]* tiles wg=32 "; then
        ok "a kernel limit of 32: the image mean rebuilt for groups of 32"
    else
        not_ok "a kernel limit of 32: the image mean rebuilt for groups of 32" "$ERR"
    fi
    check_op "$T/tall_in.npy" "$T/tall_32.png" mean 3 4 "image means in groups of 32 against numpy"
else
    ok "# SKIP no fault shim at $SHIM: a kernel limit is not tried"
    ok "# SKIP no fault shim at $SHIM"
fi
run tile-avg "$T/tall4.png" --tile 4x3 --band-rows 1 -o "$T/tall4_s.png" --verify
expect_rc 0 "RGBA streamed in bands of one tile row, verified band by band"
run tile-avg "$T/tall4.png" --tile 4x3 --band-rows whole -o "$T/tall4_w.png"
if cmp -s "$T/tall4_s.png" "$T/tall4_w.png"; then ok "streamed RGBA equals the whole image's"; else not_ok "streamed RGBA equals the whole image's"; fi
mkdir -p "$T/cut"
run tile-avg "$T/cut.png" --tile 3x4 --band-rows 3 -o "$T/cut/out.png"
expect_rc 1 "a PNG cut short fails mid-stream (exit 1)"
expect_contains "$ERR" "truncated" "the failure says the file is cut short"
if [ -z "$(ls -A "$T/cut")" ]; then ok "a failure mid-stream leaves no output or temporary file"; else not_ok "a failure mid-stream leaves no output or temporary file" "$(ls -A "$T/cut")"; fi
run tile-avg "$T/tall.png" --tile 2 --band-rows 0
expect_rc 2 "--band-rows 0 is a usage error"

# A plain .npy streams in bands read by offset (--band-rows, or when it is
# larger than memory); the results equal the whole matrix's bit for bit:
# float32 means whose last band takes rows short of a tile, float64 means
# near DBL_MAX (a mean overflows in the first pass: every band again,
# prescaled, as a whole run does), int32 sums and float32 minima (numpy).
python3 - "$T" <<'EOF'
import sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(7)
np.save(d + "/sf.npy", (rng.standard_normal((50, 13)) * 1e3).astype(np.float32))
np.save(d + "/sbig.npy", np.full((66, 8), 1.7e308))
np.save(d + "/si.npy", rng.integers(-2**31, 2**31, (41, 9)).astype(np.int32))
np.lib.format.open_memmap(d + "/huge.npy", mode="w+", dtype=np.float64, shape=(25600, 1024))
EOF
rss() { printf '%s\n' "$1" | sed -n 's/.*peak rss \([0-9]*\).*/\1/p'; }
run -v tile-avg "$T/sf.npy" --tile 3x2 --band-rows 1 -o "$T/sf_s.npy" --verify
rs0=$(rss "$ERR")
expect_rc 0 "a .npy streamed in bands of 8 tile rows, verified, exits 0"
expect_contains "$ERR" "streamed in 2 bands of 24 rows read by offset" "-v reports the .npy's bands"
run tile-avg "$T/sf.npy" --tile 3x2 --band-rows whole -o "$T/sf_w.npy"
expect_same_file "$T/sf_s.npy" "$T/sf_w.npy" "streamed float32 means equal the whole matrix's"
run -v tile-avg "$T/sbig.npy" --tile 4 --band-rows 1 -o "$T/sbig_s.npy"
expect_contains "$ERR" "the bands again, scaled" "1.7e308 streamed: the bands run again prescaled"
run tile-avg "$T/sbig.npy" --tile 4 --band-rows whole -o "$T/sbig_w.npy"
expect_same_file "$T/sbig_s.npy" "$T/sbig_w.npy" "streamed float64 means near DBL_MAX equal the whole matrix's"
run tile-avg "$T/si.npy" --tile 2x4 --op sum --band-rows 1 -o "$T/si_s.npy"
run tile-avg "$T/sf.npy" --tile 5x2 --op min --band-rows 2 -o "$T/sf_min.npy"
if python3 - "$T" >"$T/py.out" 2>&1 <<'EOF'; then ok "streamed int32 sums and float32 minima (numpy)"; else not_ok "streamed int32 sums and float32 minima (numpy)" "$(cat "$T/py.out")"; fi
import sys
import numpy as np
d = sys.argv[1]
def tiles(a, t, u, f):
    return np.array([[f(a[i:i+t, j:j+u]) for j in range(0, a.shape[1], u)] for i in range(0, a.shape[0], t)])
a, g = np.load(d + "/si.npy"), np.load(d + "/si_s.npy")
w = tiles(a.astype(np.int64), 2, 4, np.sum)
assert g.dtype == np.int64 and np.array_equal(g, w), (g, w)
a, g = np.load(d + "/sf.npy"), np.load(d + "/sf_min.npy")
w = tiles(a, 5, 2, np.min)
assert g.dtype == np.float32 and np.array_equal(g, w), (g, w)
EOF
# 200 MiB of float64 (a sparse file, zeros) in bands of 256 rows: the peak
# memory stays within 100 MB of a tiny matrix's (under ASan, without its
# quarantine of freed blocks, which would count each band's plan again)
nq=
under_asan && nq="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"
ASAN_OPTIONS=${nq:-$ASAN_OPTIONS} run -v tile-avg "$T/huge.npy" --tile 4 --band-rows 256 -o "$T/huge_s.npy"
rs=$(rss "$ERR")
if [ -n "$rs0" ] && [ -n "$rs" ] && [ "$rs" -lt $((rs0 + 100)) ]; then
    ok "200 MiB .npy streamed: peak rss ${rs} MB (a 50x13 matrix: ${rs0} MB)"
else
    not_ok "200 MiB .npy streamed: peak rss ${rs:-?} MB (a 50x13 matrix: ${rs0:-?} MB)"
fi
rm -f "$T/huge.npy" "$T/huge_s.npy"

# Pillow, where Debian's python3 has it, as the image tools' reference:
# Image.reduce over 2x2 tiles (exact halves rounded up, as here) weights an
# RGBA's colour by alpha through premultiplied samples, each rounded to 8
# bits, so --alpha weighted lies within 383 / (A - 1/2) + 2 levels of it
# (A the tile's mean alpha; equal where A is 0) with the alpha equal;
# --alpha straight equals Pillow's reduce of each channel alone; a PGM of
# maxval 1000 reads as Pillow rescales it (to 65535, netpbm's formula),
# checked through 1x4 means.
PIL_PY=/usr/bin/python3
if [ -x "$PIL_PY" ] && "$PIL_PY" -c 'import PIL.Image, numpy' 2>/dev/null; then
    "$PIL_PY" - "$T" <<'EOF'
import sys
import numpy as np
from PIL import Image
d = sys.argv[1]
rng = np.random.default_rng(11)
a = rng.integers(0, 256, (12, 15, 4), dtype=np.uint8)
a[:4, :4, 3] = 0
a[4:8, 4:8, 3] = rng.integers(0, 4, (4, 4))
Image.fromarray(a, "RGBA").save(d + "/pil.png")
px = [(k * 137 + 5) % 1001 for k in range(7 * 5)]
open(d + "/m1000.pgm", "wb").write(b"P5\n7 5\n1000\n" + b"".join(v.to_bytes(2, "big") for v in px))
EOF
    run tile-avg "$T/pil.png" --tile 2 --alpha weighted -o "$T/pil_w.png"
    run tile-avg "$T/pil.png" --tile 2 -o "$T/pil_s.png"
    run tile-avg "$T/m1000.pgm" --tile 1x4 -o "$T/m1000.npy"
    if "$PIL_PY" - "$T" >"$T/py.out" 2>&1 <<'EOF'; then ok "RGBA weighted and straight means, a maxval-1000 PGM, against Pillow"; else not_ok "RGBA weighted and straight means, a maxval-1000 PGM, against Pillow" "$(cat "$T/py.out")"; fi
import sys
import numpy as np
from PIL import Image
d = sys.argv[1]
src = Image.open(d + "/pil.png")
want = np.asarray(src.reduce(2)).astype(float)
got = np.asarray(Image.open(d + "/pil_w.png")).astype(float)
A = want[..., 3]
assert np.array_equal(got[..., 3], A), ("alpha", got[..., 3], A)
gap = np.abs(got[..., :3] - want[..., :3]).max(axis=2)
bound = np.where(A > 0, 383 / np.maximum(A - 0.5, 0.5) + 2, 0)
assert (gap <= bound).all(), ("weighted", gap, bound)
assert (A == 0).any() and (gap[A > 100] <= 5).all(), gap
straight = np.stack([np.asarray(c.reduce(2)) for c in src.split()], axis=2)
assert np.array_equal(np.asarray(Image.open(d + "/pil_s.png")), straight), "straight"
m = Image.open(d + "/m1000.pgm")
assert m.mode == "I", m.mode
got = np.load(d + "/m1000.npy")
assert got.dtype == np.uint16 and np.array_equal(got, np.asarray(m.reduce((4, 1)))), (got, np.asarray(m.reduce((4, 1))))
EOF
else
    skip_ok "RGBA weighted and straight means, a maxval-1000 PGM, against Pillow" "no Pillow for $PIL_PY"
fi

# Usage errors (exit 2) and bad input (exit 1).
run tile-avg "$SEED"
expect_rc 2 "missing --tile is a usage error"
run tile-avg "$SEED" --tile 0
expect_rc 2 "--tile 0 is a usage error"
run tile-avg "$SEED" --tile 2x
expect_rc 2 "--tile 2x is a usage error"
expect_contains "$ERR" "expected --tile T or TxU" "--tile errors say what is expected"
run tile-avg "$SEED" --tile 2 --variant fast
expect_rc 2 "an unknown --variant is a usage error"
run tile-avg --tile 2
expect_rc 2 "a missing input is a usage error"
run tile-avg "$SEED" "$SEED" --tile 2
expect_rc 2 "two inputs are a usage error"
run tile-avg "$SEED" --tile 2 --bogus
expect_rc 2 "an unknown option is a usage error"
run tile-avg "$T/nope.mtx" --tile 2
expect_rc 1 "a missing file exits 1"
printf '%%%%MatrixMarket matrix array real general\n2 2\n1\n2\nx\n4\n' >"$T/bad.mtx"
run tile-avg "$T/bad.mtx" --tile 1
expect_rc 1 "a malformed matrix exits 1"
expect_contains "$ERR" "bad.mtx" "the parse error names the file"

# A sparse (coordinate) matrix: reduced from its entries, zeros counted,
# never made dense; numpy on scipy's dense reading is the reference.
cat >"$T/sp.mtx" <<'M'
%%MatrixMarket matrix coordinate real symmetric
7 7 6
1 1 2.5
4 1 -1
5 3 8
6 6 0.25
7 2 3
7 7 -4.5
M
sparse_check() { # OUT OP DESC: OUT against numpy's 3x2 tiles of sp.mtx
    if python3 - "$T/sp.mtx" "$1" "$2" >"$T/py.out" 2>&1 <<'EOF'; then ok "$3"; else not_ok "$3" "$(cat "$T/py.out")"; fi
import sys, numpy as np, scipy.io
a = scipy.io.mmread(sys.argv[1]).toarray()
got = np.load(sys.argv[2])
f = getattr(np, sys.argv[3])
want = np.array([[f(a[i:i+3, j:j+2]) for j in range(0, 7, 2)] for i in range(0, 7, 3)])
assert got.shape == want.shape and got.dtype == np.float64, (got.shape, got.dtype)
assert np.allclose(got, want, rtol=1e-12, atol=0), (got, want)
EOF
}
if python3 -c 'import scipy.io, numpy' 2>/dev/null; then
    run -v tile-avg "$T/sp.mtx" --tile 3x2 --verify -o "$T/spmean.npy"
    expect_rc 0 "a sparse matrix's tile means exit 0 with --verify"
    expect_contains "$ERR" "sparse 7x7 float64, 9 entries (CSR)" "-v says the input stayed sparse"
    sparse_check "$T/spmean.npy" mean "sparse means over every cell of each tile, edges too (numpy)"
    run tile-avg "$T/sp.mtx" --tile 3x2 --op max --verify -o "$T/spmax.npy"
    sparse_check "$T/spmax.npy" max "sparse max counts the implicit zeros (numpy)"
    TILEDCL_TA_SPARSE=band run -v tile-avg "$T/sp.mtx" --tile 3x2 --verify -o "$T/spband.npy"
    expect_contains "$ERR" "sparse band kernel" "TILEDCL_TA_SPARSE=band forces the band kernel"
    sparse_check "$T/spband.npy" mean "the band kernel's sparse means (numpy)"
    # A wide map (2x200 tiles of 20x2 over 40 rows): the band kernel by itself.
    printf '%%%%MatrixMarket matrix coordinate real general\n40 400 4\n1 1 2\n20 400 -6\n21 5 1.5\n40 8 3\n' >"$T/spw.mtx"
    run -v tile-avg "$T/spw.mtx" --tile 20x2 --verify -o "$T/spw.npy"
    case "$ERR" in
    *", CPU)"*) expect_contains "$ERR" "the sparse band kernel (rows x map columns large" "-v names the band kernel and why" ;;
    *) expect_contains "$ERR" "kernel (a tile column a work-item" "-v names the kernel a GPU's width chose, and why" ;;
    esac
    want="$(python3 -c 'import numpy as np
g = np.load("'"$T/spw.npy"'")
print(g.shape, g[0, 0], g[0, 199], g[1, 2], g[1, 3], np.count_nonzero(g))')"
    expect_eq "$want" "(2, 200) 0.05 -0.15 0.0375 0.075 4" "the band kernel's wide map: each entry over its 40 cells"
else
    skip_ok "sparse tile means against numpy" "no scipy"
    skip_ok "sparse max against numpy" "no scipy"
    skip_ok "the band kernel's sparse means" "no scipy"
fi
run tile-avg "$T/sp.mtx" --tile 2 --op median
expect_rc 1 "median of a sparse matrix is refused"
expect_contains "$ERR" "median of a sparse matrix's tiles is not computed" "the refusal says why"
printf '%%%%MatrixMarket matrix coordinate real general\n100000000 100000000 1\n1 1 5\n' >"$T/sphuge.mtx"
run tile-avg "$T/sphuge.mtx" --tile 2 -o "$T/sphuge.npy"
expect_rc 1 "a result larger than memory is refused"
expect_contains "$ERR" "the 50000000x50000000 result needs" "the refusal names the result's size"

# writers' options reach the image writer, streamed and whole: the
# JPEG's DC quantiser is libjpeg's 16 scaled for quality 30 (27), the
# TIFF's compression tag (259) is LZW's 5
python3 -c 'import sys
px = bytes(v for i in range(128) for v in (i * 2, 255 - i, i % 16 * 16))
open(sys.argv[1], "wb").write(b"P6\n16 8\n255\n" + px)' "$T/wo.ppm"
cat >"$T/wo.py" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
if b[:2] == b'\xff\xd8':
    print(b[b.index(b'\xff\xdb') + 5])
else:
    e = '<' if b[:2] == b'II' else '>'
    off = struct.unpack(e + 'I', b[4:8])[0]
    for k in range(struct.unpack(e + 'H', b[off:off + 2])[0]):
        tag, typ, cnt, val = struct.unpack(e + 'HHI4s', b[off + 2 + 12 * k:off + 14 + 12 * k])
        if tag == 259:
            print(struct.unpack(e + 'H', val[:2])[0])
EOF
for band in 2 whole; do
    run tile-avg "$T/wo.ppm" --tile 2 --band-rows $band --quality 30 -o "$T/wo.jpg"
    expect_eq "$(python3 "$T/wo.py" "$T/wo.jpg")" "27" "--quality 30 (--band-rows $band): the JPEG's DC quantiser is 27"
    run tile-avg "$T/wo.ppm" --tile 2 --band-rows $band --compress lzw -o "$T/wo.tif"
    expect_eq "$(python3 "$T/wo.py" "$T/wo.tif")" "5" "--compress lzw (--band-rows $band): TIFF compression tag 5"
done
printf '%%%%MatrixMarket matrix coordinate real general\n8 8 3\n1 1 200\n5 5 100\n8 8 50\n' >"$T/wo.mtx"
run tile-avg "$T/wo.mtx" --tile 2 --quality 30 -o "$T/wo_sparse.jpg"
expect_eq "$(python3 "$T/wo.py" "$T/wo_sparse.jpg")" "27" "--quality 30 of a sparse matrix's means: the JPEG's DC quantiser is 27"
run tile-avg "$T/wo.ppm" --tile 2 --compress lzw -o "$T/wo.png"
expect_rc 2 "--compress to a PNG: a usage error"
expect_contains "$ERR" "--compress is for TIFF outputs (.tif, .tiff), not" "--compress to a PNG: says which outputs take it"

done_testing
