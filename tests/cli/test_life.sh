# tiledcl life: soups, patterns, rules, boundaries, formats, progress, errors.
. "$(dirname "$0")/lib.sh"
need_device

# cells FILE: the rows of a .cells file without its comment lines
cells() { grep -v '^!' "$1"; }

run life --help
expect_rc 0 "--help exits 0"
expect_contains "$OUT" "--boundary" "--help lists the options"
expect_contains "$OUT" "exit status" "--help gives the exit codes"
expect_contains "$OUT" "examples:" "--help has examples"

# soups: the same on every run, different for another seed
run life --size 64x48 --gens 10 -o "$T/a.rle"
expect_rc 0 "a soup runs"
expect_contains "$(cat "$T/a.rle")" "x = 64, y = 48, rule = B3/S23:P64,48" "RLE header keeps the grid, the rule and the boundary"
run life --size 64x48 --gens 10
expect_rc 0 "RLE on stdout when it is not a terminal"
expect_eq "$OUT" "$(cat "$T/a.rle")" "the same soup and run give the same pattern"
run life --size 64x48 --gens 10 --seed 2
expect_ne "$OUT" "$(cat "$T/a.rle")" "another seed, another soup"
run life --size 64x48 --gens 10 --kernel bytes
expect_eq "$OUT" "$(cat "$T/a.rle")" "the bytes kernel agrees with the bits kernel"

# the MATLAB seed's updateGrid, as a reference for --boundary clamp
run life --size 37x23 --density 0.4 --gens 0 -o "$T/c0.cells"
run life --size 37x23 --density 0.4 --gens 15 --boundary clamp -o "$T/c15.cells"
expect_rc 0 "clamp runs"
python3 - "$T/c0.cells" "$T/c15.cells" <<'PY' && ok "clamp is the MATLAB seed's updateGrid, bit for bit" || not_ok "clamp is the MATLAB seed's updateGrid, bit for bit"
import sys
def read(p):
    return [[1 if c == 'O' else 0 for c in l.rstrip('\n')] for l in open(p) if not l.startswith('!')]
g, want = read(sys.argv[1]), read(sys.argv[2])
N, M = len(g), len(g[0])
p = [1] + list(range(1, N)); q = list(range(2, N + 1)) + [N]      # p = [1 1:N-1], q = [2:N N]
pc = [1] + list(range(1, M)); qc = list(range(2, M + 1)) + [M]
for _ in range(15):
    G = lambda i, j: g[i - 1][j - 1]
    n = [[G(p[i], j + 1) + G(q[i], j + 1) + G(i + 1, pc[j]) + G(i + 1, qc[j]) + G(p[i], pc[j]) +
          G(q[i], qc[j]) + G(p[i], qc[j]) + G(q[i], pc[j]) for j in range(M)] for i in range(N)]
    g = [[1 if n[i][j] == 3 or (g[i][j] and n[i][j] == 2) else 0 for j in range(M)] for i in range(N)]
sys.exit(0 if g == want else 1)
PY

# a glider on a torus comes back after 4 * 8 generations
run life "$TDCL_DATA/glider.rle" --size 8x8 --boundary torus --gens 0 -o "$T/g0.cells"
run life "$TDCL_DATA/glider.rle" --size 8x8 --boundary torus --gens 32 -o "$T/g32.cells"
expect_rc 0 "glider on a torus runs"
expect_eq "$(cells "$T/g32.cells")" "$(cells "$T/g0.cells")" "the glider is back after 32 generations on an 8x8 torus"
run life "$TDCL_DATA/glider.rle" --size 8x8 --boundary torus --gens 4 -o "$T/g4.cells"
expect_eq "$(cells "$T/g4.cells")" "........
........
........
....O...
.....O..
...OOO..
........
........" "after 4 generations the glider moved one cell down and right"

# a sparse (coordinate) matrix is read straight into the grid, nonzero
# entries alive (the explicit 0 at 1,1 is not); the same glider, 4 generations on
printf '%%%%MatrixMarket matrix coordinate integer general\n8 8 6\n2 3 1\n3 4 7\n4 2 1\n4 3 -1\n4 4 1\n1 1 0\n' >"$T/glider.mtx"
run life "$T/glider.mtx" --gens 4 -o "$T/gm4.cells"
expect_eq "$(cells "$T/gm4.cells")" "........
........
...O....
....O...
..OOO...
........
........
........" "a coordinate .mtx is a grid of its nonzero entries"

# a blinker from stdin as .cells; its period is 2
printf '.....\n..O..\n..O..\n..O..\n.....\n' >"$T/blinker.cells"
# (on the unbounded plane the output is the live cells' box)
"$TILEDCL" life - --gens 1 -o "$T/b1.cells" <"$T/blinker.cells"
expect_eq "$(cells "$T/b1.cells")" "OOO" "a blinker from stdin turns"
run life "$T/blinker.cells" --gens 100 -o "$T/b100.cells"
expect_eq "$(cells "$T/b100.cells")" "$(printf 'O\nO\nO')" "and is back after an even number of generations"
run life "$T/blinker.cells" --gens 100 --boundary dead -o "$T/b100.cells"
expect_eq "$(cells "$T/b100.cells")" "$(cells "$T/blinker.cells")" "--boundary keeps the file's grid"

# the rule and Golly's bounded grid come from the RLE file unless options say otherwise
printf 'x = 3, y = 1, rule = B36/S23:T20,10\n3o!\n' >"$T/t.rle"
run life "$T/t.rle" --gens 2
expect_contains "$OUT" "rule = B36/S23:T20,10" "an RLE's rule and torus are kept"
run life "$T/t.rle" --gens 2 --rule 23/3 --boundary dead
expect_contains "$OUT" "rule = B3/S23:P20,10" "--rule and --boundary override the file"
run life "$T/t.rle" --gens 2 --boundary clamp
expect_contains "$OUT" "#C tiledcl boundary=clamp" "clamp has no Golly suffix and says so in a comment"
run life --rule b0123478/s01234678 --boundary torus --size 10x10 --gens 1
expect_rc 0 "a B0 rule runs on a torus"
expect_contains "$OUT" "rule = B0123478/S01234678:T10,10" "the B0 rule is written back"

# A first build leaves stderr empty: PoCL prints "N warnings generated."
# there itself for a kernel that warns (rules with an empty birth or
# survival table, such as B36/S23, are the likely ones). A cache of its
# own, so that this run compiles.
XDG_CACHE_HOME="$T/cold" run life --rule B36/S23 --size 8x8 --gens 3 -o "$T/b36.rle"
expect_rc 0 "B36/S23 runs with a cold kernel cache"
if [ -z "$ERR" ]; then ok "a cold build prints nothing on stderr"; else not_ok "a cold build prints nothing on stderr" "stderr: $ERR"; fi
# a failed build's log comes line by line through tiledcl's own messages
mkdir -p "$T/badk/life"
cp "$(dirname "$0")"/../../cl/life/*.cl "$T/badk/life/"
printf '#error a kernel that does not build\n' >"$T/badk/life/prelude.cl"
XDG_CACHE_HOME="$T/cold" run --kernels "$T/badk" life --size 8x8 --gens 1 -o "$T/bad.rle"
expect_rc 3 "a kernel that does not build exits 3"
expect_contains "$ERR" "tiledcl: kernel life/prelude.cl+life/" "the build log is shown, prefixed"
raw=$(printf '%s\n' "$ERR" | grep 'a kernel that does not build' | grep -v '^tiledcl: ')
if [ -z "$raw" ]; then ok "no line of the build log is raw"; else not_ok "no line of the build log is raw" "$raw"; fi

# formats: write each, read it back, compare
run life --size 50x30 --gens 5 -o "$T/f.cells"
for ext in rle mtx npy pbm png; do
    run life --size 50x30 --gens 5 -o "$T/f.$ext"
    run life "$T/f.$ext" --gens 0 -o "$T/back-$ext.cells"
    expect_eq "$(cells "$T/back-$ext.cells")" "$(cells "$T/f.cells")" "the .$ext output reads back the same"
done
run life --size 50x30 --gens 5 -o "$T/s.png" --scale 3
expect_rc 0 "--scale 3 writes a PNG"
python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(24); w,h=struct.unpack(">II",d[16:24]); sys.exit(0 if (w,h)==(150,90) else 1)' "$T/s.png" \
    && ok "--scale 3 makes 3x3 pixels a cell" || not_ok "--scale 3 makes 3x3 pixels a cell"

# --every, --frames, --gif, -v
run life --size 40x40 --gens 10 --every 5 --frames "$T/frames" --gif "$T/run.gif" -o "$T/e.rle"
expect_rc 0 "--every with --frames and --gif runs"
expect_contains "$ERR" "generation 5: population" "--every reports generation and population"
expect_contains "$ERR" "generation 10: population" "--every reports the last generation"
[ -f "$T/frames/gen-00000000.png" ] && [ -f "$T/frames/gen-00000010.png" ] && ok "--frames writes a PNG per step" || not_ok "--frames writes a PNG per step" "$(ls "$T/frames" 2>&1)"
[ "$(head -c 6 "$T/run.gif")" = "GIF89a" ] && ok "--gif writes a GIF" || not_ok "--gif writes a GIF"
# on the unbounded plane the grid grows, but the frames keep the starting
# grid's window: one size, each holding the population --every reports
run -v life "$TDCL_DATA/gosper-gun.rle" --gens 80 --every 40 --frames "$T/pf" --scale 2 -o "$T/pf.rle"
case "$ERR" in # the dense plane's or the tile plane's closing line, as density chose
*"(B3/S23, plane)"* | *"generations on the tile plane (B3/S23)"*) ok "the closing line of an unbounded run says plane, not dead" ;;
*) not_ok "the closing line of an unbounded run says plane, not dead" "$(tail -2 "$T/.err")" ;;
esac
want=$(printf '%s\n' "$ERR" | sed -n 's/.*generation \([0-9]*\): population \([0-9]*\)$/\1 \2/p' | tr '\n' ' ')
got=$(python3 - "$T/pf" <<'PY'
import glob, struct, sys, zlib
# each frame: "GEN POP" (live cells: black 2x2 blocks of an 8-bit grey PNG)
# and its size; the sizes must be one
sizes = set()
for f in sorted(glob.glob(sys.argv[1] + '/gen-*.png')):
    d = open(f, 'rb').read()
    w, h, depth, ctype = struct.unpack('>IIBB', d[16:26])
    assert (depth, ctype) == (8, 0), (depth, ctype)
    sizes.add((w, h))
    pos, z = 8, b''
    while pos < len(d):
        n, kind = struct.unpack('>I4s', d[pos:pos + 8])
        if kind == b'IDAT':
            z += d[pos + 8:pos + 8 + n]
        pos += 12 + n
    raw, prev, black = zlib.decompress(z), bytearray(w), 0
    for y in range(h):
        ft, row = raw[y * (w + 1)], bytearray(raw[y * (w + 1) + 1:(y + 1) * (w + 1)])
        for x in range(w):
            a = row[x - 1] if x else 0
            b, c = prev[x], prev[x - 1] if x else 0
            p = a + b - c
            pred = [0, a, b, (a + b) // 2,
                    a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c][ft]
            row[x] = (row[x] + pred) & 255
        black += row.count(0)
        prev = row
    print(int(f[-12:-4]), black // 4, end=' ')
print('sizes', len(sizes))
PY
)
expect_eq "$got" "${want}sizes 1" "--frames on the plane: one size, each frame the reported population"
run -v life --size 40x40 --gens 10 -o "$T/v.rle"
expect_contains "$ERR" "cell updates/s" "-v gives a closing line with the rate"
expect_contains "$ERR" "kernel=bits" "-v names the kernel"
expect_contains "$ERR" "time (ms)" "-v gives the timing breakdown"
# a profiling timer that does not run (the shim's: as Mesa's rusticl) would
# make the rate absurd: the loop is timed on the host, and the line says so
SHIM=$(dirname "$TILEDCL")/tests/fault/clfault.so
ASAN_LIB=$(ldd "$TILEDCL" 2>/dev/null | sed -n 's/.*libasan[^ ]* => \([^ ]*\).*/\1/p')
if [ -f "$SHIM" ]; then
    LD_PRELOAD="${ASAN_LIB:+$ASAN_LIB }$SHIM" TDCL_FAULT_TIMER=0 run -v life --size 40x40 --gens 10 -o "$T/v.rle"
    expect_contains "$ERR" "ms on the host (the device's timer is unusable)" "a timer that does not run: the closing line times the host"
else
    ok "# SKIP no fault shim at $SHIM: the dead timer is not tried"
fi

# on a terminal: a summary and a preview instead of RLE
if script -qec "$TILEDCL life --size 20x8 --gens 3" /dev/null >"$T/tty.out" 2>&1; then
    expect_contains "$(cat "$T/tty.out")" "population" "on a terminal a summary is printed"
    expect_contains "$(cat "$T/tty.out")" "...." "with a preview of a small grid"
else
    not_ok "life on a terminal" "$(cat "$T/tty.out")"
fi

# errors
run life --rule B9/S23
expect_rc 2 "a bad rule is a usage error"
expect_contains "$ERR" "rule 'B9/S23'" "the bad rule is quoted"
run life --boundary wrap
expect_rc 2 "a bad boundary is a usage error"
run life --size 0x5
expect_rc 2 "a bad size is a usage error"
run life --gens -1
expect_rc 2 "negative generations are a usage error"
run life --rule B03/S23 --size 10x10 -o "$T/nope.rle"
expect_rc 1 "B0 with a dead boundary is refused"
expect_contains "$ERR" "use a torus or clamped boundary (--boundary)" "the refusal says what to do, and the CLI names the flag"
[ ! -e "$T/nope.rle" ] && ok "a refused run writes nothing" || not_ok "a refused run writes nothing"
printf 'x = 3, y = 2\nooo$\nbbbo!\n' >"$T/bad.rle"
run life "$T/bad.rle" -o "$T/nope.rle"
expect_rc 1 "a bad RLE file is an input error"
expect_contains "$ERR" "bad.rle:3: row 2 has more than the header's x = 3 cells" "the error names path:line"
run life "$T/missing.rle"
expect_rc 1 "a missing file is an input error"
run life -o "$T/out.xyz"
expect_rc 2 "an unknown output format is a usage error"
run life --kernel bytes --tile 4096 --size 10x10
expect_rc 1 "a forced tile the device cannot run is refused"
expect_contains "$ERR" "tile 4096: " "and the message names it"
expect_contains "$ERR" "that fits (--tile)" "and the CLI the flag"
run life "$TDCL_DATA/gosper-gun.rle" --size 10x10
expect_rc 1 "a pattern larger than --size is refused"
expect_contains "$ERR" "does not fit in the 10x10 grid (--size)" "and says so, naming the flag"
run life --bogus
expect_rc 2 "an unknown option is a usage error"
expect_contains "$ERR" "unknown option '--bogus'" "and is named"
run life --seed
expect_contains "$ERR" "option '--seed' needs a value" "a missing value is named"
run life -x
expect_contains "$ERR" "unknown option '-x'" "an unknown short option is named"
run life --frames "$T/fr"
expect_rc 2 "--frames without --every is a usage error"
run life --gens 1 -o "$T/g.gif"
expect_rc 2 "life -o x.gif is a usage error"
expect_contains "$ERR" "is --gif FILE" "... pointing to --gif"

# The closing line's population (counted from the device's packed words)
# is the number of live cells in the grid written, counted here.
run -v life --size 333x211 --gens 9 --boundary torus -o "$T/pop.npy"
got=$(printf '%s\n' "$ERR" | sed -n 's/.*population \([0-9]*\),.*/\1/p' | head -n 1)
want=$(python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
n = int.from_bytes(d[8:10], "little")
print(sum(1 for b in d[10 + n:] if b))' "$T/pop.npy")
expect_eq "$got" "$want" "the reported population is the live cells written (333x211 torus)"

done_testing
