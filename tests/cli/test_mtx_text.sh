# Matrix Market text at size: a 1000x1000 real array file of ~12 MB (several
# rounds of the threaded reader, parts split inside numbers and lines) in
# the spellings real files use, read against Python's own float() of every
# value (correctly rounded, independent of tiledcl), mapped, through a gzip
# stream on stdin, with an error deep in a later part, and written back.
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null; then
    echo "1..0 # SKIP python3 is the reference and is not installed"
    exit 0
fi

# make_file OUT WANT [BAD_INDEX]: writes the file and, in WANT, the
# row-major float64 values Python reads from its text; a bad value
# replaces entry BAD_INDEX (column-major) when given.
make_file() {
    python3 - "$@" <<'PY'
import random, struct, sys
out, want_path = sys.argv[1], sys.argv[2]
bad = int(sys.argv[3]) if len(sys.argv) > 3 else -1
n = 1000
rng = random.Random(2026)
vals = [0.0] * (n * n)
lines = ["%%MatrixMarket matrix array real general\n", "% spellings of every sort\n",
         "%d %d\n" % (n, n)]
before = 3  # lines before the next entry
for k in range(n * n):
    x = (rng.random() * 2 - 1) * 10.0 ** rng.randint(-6, 6)
    r = rng.randrange(100)
    if r < 70:
        s = "%.9g" % x
    elif r < 80:
        s = repr(x)
    elif r < 85:
        s = "%+.6e" % x
    elif r < 90:
        s = "%.4E" % (x * 1e150)
    else:
        s = "%.12f" % x
    if k == bad:
        s = "oops"
    vals[(k % n) * n + k // n] = float(s) if k != bad else 0.0
    pre = "\n  \n" if r == 3 else ("  " if r == 4 else "")
    post = " \t" if r == 5 else ""
    end = "\r\n" if rng.randrange(9) == 0 else "\n"
    if k == bad:
        before += pre.count("\n")
        print(before + 1)  # the bad value's 1-based line
    before += (pre + end).count("\n")
    lines.append(pre + s + post + end)
with open(out, "w", newline="") as f:
    f.write("".join(lines))
with open(want_path, "wb") as f:
    f.write(struct.pack("<%dd" % len(vals), *vals))
PY
}

# npy_body NPY: the raw little-endian float64 data of a 2-D .npy, after
# checking its header says so.
npy_body() {
    python3 - "$1" "$2" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
major = b[6]
hl = struct.unpack("<H", b[8:10])[0] if major == 1 else struct.unpack("<I", b[8:12])[0]
start = (10 if major == 1 else 12) + hl
hdr = b[:start].decode("latin1")
assert "'<f8'" in hdr and "'fortran_order': False" in hdr and "(1000, 1000)" in hdr, hdr
open(sys.argv[2], "wb").write(b[start:])
PY
}

make_file "$T/big.mtx" "$T/want.bin" >/dev/null
run convert "$T/big.mtx" "$T/big.npy"
expect_rc 0 "a 12 MB array file in assorted spellings is read"
npy_body "$T/big.npy" "$T/got.bin"
expect_same_file "$T/got.bin" "$T/want.bin" "every value has the bits of Python's float() of its text"

gzip -c "$T/big.mtx" >"$T/big.mtx.gz"
"$TILEDCL" convert - "$T/gz.npy" <"$T/big.mtx.gz" 2>"$T/gz.err"
expect_eq "$?" "0" "the same file gzip-compressed on stdin (the streamed path)"
npy_body "$T/gz.npy" "$T/gz.bin"
expect_same_file "$T/gz.bin" "$T/want.bin" "and gives the same bits"

# written back: the shortest text of each value reads back exactly, and
# Python reads the same values from it
run convert "$T/big.npy" "$T/back.mtx"
expect_rc 0 "written back as Matrix Market"
python3 - "$T/back.mtx" "$T/back.bin" <<'PY'
import struct, sys
lines = open(sys.argv[1]).read().split("\n")
n = 1000
assert lines[2] == "1000 1000", lines[:3]
vals = [0.0] * (n * n)
for k, s in enumerate(lines[3:3 + n * n]):
    vals[(k % n) * n + k // n] = float(s)
open(sys.argv[2], "wb").write(struct.pack("<%dd" % len(vals), *vals))
PY
expect_same_file "$T/back.bin" "$T/want.bin" "the written text reads back in Python as the same values"
run convert "$T/back.mtx" "$T/back.npy"
expect_same_file "$T/back.npy" "$T/big.npy" "and in tiledcl as the same .npy"

# an error three quarters in: in a later part and round than the first
line=$(make_file "$T/bad.mtx" "$T/unused.bin" 750000)
run convert "$T/bad.mtx" "$T/bad.npy"
expect_rc 1 "a bad value deep in the file fails"
expect_contains "$ERR" "bad.mtx:$line: expected a real number, got 'oops'" "named by its own line ($line)"
if [ -e "$T/bad.npy" ]; then not_ok "nothing is written"; else ok "nothing is written"; fi
done_testing
