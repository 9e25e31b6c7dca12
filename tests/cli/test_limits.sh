# Limits met with messages: host memory limits (ulimit -v) before a
# product's device buffers on a CPU device and a Life grid, grids past half
# the available memory needing --max-bytes, usage errors (exit 2) for bad
# option values and output extensions, binary data and gzip claims given
# as Matrix Market.
. "$(dirname "$0")/lib.sh"
D=$TDCL_DATA
export TILEDCL_CACHE=0
run devices
if [ "$RC" -ne 0 ]; then
    echo "1..0 # SKIP no OpenCL device"
    exit 0
fi
# the memory checks are about CPU devices, whose buffers are host memory
run --device cpu tile-map 4x4 --tile 2
if [ "$RC" -ne 0 ]; then
    echo "1..0 # SKIP no CPU OpenCL device"
    exit 0
fi

gen() { # FILE ROWS COLS VALUE: a dense Matrix Market array
    python3 -c '
import sys
r, c = int(sys.argv[2]), int(sys.argv[3])
with open(sys.argv[1], "w") as f:
    f.write("%%%%MatrixMarket matrix array real general\n%d %d\n" % (r, c))
    f.write((sys.argv[4] + "\n") * (r * c))' "$@"
}
# run under `ulimit -v KB`; sets RC, OUT, ERR like run
run_limited() {
    kb=$1
    shift
    (ulimit -v "$kb" && exec "$TILEDCL" "$@") >"$T/.out" 2>"$T/.err" </dev/null
    RC=$?
    OUT=$(cat "$T/.out")
    ERR=$(cat "$T/.err")
}

# --- host memory ---------------------------------------------------------
# AddressSanitizer reserves terabytes of address space: ulimit -v cannot
# be tested under it; nor where an OpenCL platform (a GPU driver reserving
# more address space than the limit) cannot start under it
limited_rc=0
if ! under_asan; then
    (ulimit -v 1000000 && exec "$TILEDCL" --device cpu tile-map 4x4 --tile 2) >/dev/null 2>"$T/.err" </dev/null
    limited_rc=$?
fi
if under_asan; then
    echo "# skipped under AddressSanitizer: ulimit -v"
elif [ "$limited_rc" -ne 0 ]; then
    skip_ok "host memory limits under ulimit -v" "a CPU device does not start under ulimit -v 1000000: $(head -n 1 "$T/.err")"
else
    gen "$T/tall.mtx" 20000 2 1.5
    gen "$T/wide.mtx" 2 20000 0.5
    run_limited 1000000 --device cpu matmul "$T/tall.mtx" "$T/wide.mtx" -o "$T/p.npy"
    expect_rc 1 "a 20000x2 * 2x20000 product under ulimit -v 1000000 fails (no abort: exit 1)"
    expect_contains "$ERR" "needs 6.4 GB" "saying how much it needs (float64, as the .mtx inputs)"
    expect_contains "$ERR" "RLIMIT_AS, ulimit -v" "and which limit stops it"
    [ ! -e "$T/p.npy" ] && ok "nothing written" || not_ok "nothing written"
    gen "$T/tall2.mtx" 300 2 1.5
    gen "$T/wide2.mtx" 2 300 0.5
    run_limited 1000000 --device cpu matmul "$T/tall2.mtx" "$T/wide2.mtx" -o "$T/p2.npy" --verify
    expect_rc 0 "a product that fits runs under the same limit"
    run_limited 1000000 --device cpu convert "$T/p2.npy" -
    expect_eq "$(printf "%s\n" "$OUT" | tail -n +4 | sort -u)" "1.5" "and is right (1.5 * 0.5 + 1.5 * 0.5)"
    # a 90-byte RLE asking for a 100000 x 100000 torus
    printf '#N glider\nx = 3, y = 3, rule = B3/S23:T100000,100000\nbo$2bo$3o!\n' >"$T/huge.rle"
    run_limited 4000000 --device cpu life "$T/huge.rle" --gens 4 -o "$T/o.rle"
    expect_rc 1 "a 100000 x 100000 grid under ulimit -v 4000000 is refused"
    expect_contains "$ERR" "a grid of 100000 x 100000 cells is larger than the limit" "with its size"
    expect_contains "$ERR" "process's limits (ulimit -v" "and the limit that set it"
    run_limited 4000000 --device cpu life "$T/huge.rle" --gens 4 -o "$T/o.rle" --max-bytes 30000000000
    expect_rc 1 "--max-bytes cannot go past the process's limit"
    run_limited 1000000 --device cpu tile-avg "$T/tall2.mtx" --tile 2 -o "$T/t.npy"
    expect_rc 0 "tile-avg runs under ulimit -v 1000000"
    # a soup past the limit is refused before it is sown: at once, and with
    # the same figure whatever its size (the soup is not counted against
    # itself)
    figs=
    for s in 30000 60000; do
        run_limited 2000000 --device cpu life --size ${s}x$s --gens 1 -o "$T/soup.npy"
        expect_rc 1 "a ${s}x$s soup under ulimit -v 2000000 is refused"
        expect_contains "$ERR" "(ulimit -v, -d)" "naming the limit"
        figs="$figs $(printf '%s\n' "$ERR" | sed -n 's/.*more than the \([0-9]*\) cells.*/\1/p')"
    done
    set -- $figs
    if [ $# -eq 2 ] && [ "$1" = "$2" ]; then ok "the same limit for both sizes ($1 cells)"; else not_ok "the same limit for both sizes" "$figs"; fi
fi
# without a ulimit: over half the available memory needs --max-bytes
avail=$(awk '/^MemAvailable:/ {a = $2} /^SwapFree:/ {s = $2} END {print (a + s) * 1024}' /proc/meminfo)
side=$(python3 -c "import math; print(int(math.sqrt($avail / 2 / 2.25 * 1.2)) + 64)")
printf '#N glider\nx = 3, y = 3, rule = B3/S23:T%s,%s\nbo$2bo$3o!\n' "$side" "$side" >"$T/big.rle"
run --device cpu life "$T/big.rle" --gens 1 -o "$T/o.rle"
expect_rc 1 "a grid past half the available memory is refused without --max-bytes"
expect_contains "$ERR" "a grid of $side x $side cells" "naming its size"
expect_contains "$ERR" "allow more bytes to go ahead) (--max-bytes)" "and the way to go ahead"
printf '#N glider\nx = 3, y = 3, rule = B3/S23:T300,200\nbo$2bo$3o!\n' >"$T/small.rle"
run --device cpu life "$T/small.rle" --gens 4 -o "$T/s.rle" --max-bytes 100000
expect_rc 1 "--max-bytes below the grid's need refuses it"
expect_contains "$ERR" "the byte limit given" "saying so"
# --max-bytes as the binding limit is named as such, and the option too
run --device cpu life --max-bytes 10 --size 10x10 -o "$T/s.rle"
expect_rc 1 "--max-bytes 10 refuses a 10x10 soup"
expect_contains "$ERR" "the byte limit given) (--max-bytes)" "naming the limit given and the option"
case "$ERR" in *ulimit* | *--size*) not_ok "neither ulimit nor --size is blamed" "$ERR" ;; *) ok "neither ulimit nor --size is blamed" ;; esac
run --device cpu life "$T/small.rle" --gens 4 -o "$T/s.rle" --max-bytes 200000
expect_rc 0 "--max-bytes above it goes ahead"
expect_contains "$(cat "$T/s.rle")" "x = 300, y = 200" "and writes the grid"

# --- usage errors --------------------------------------------------------
for p in "tm=3" "vw=6" "bm=64 tm=12" "mr=40" "ksplit=100" "bogus=1"; do
    run matmul "$D/a.mtx" "$D/b.mtx" --params "$p"
    expect_rc 2 "matmul --params '$p' is a usage error"
    run bench matmul --params "$p" --size 64
    expect_rc 2 "bench matmul --params '$p' is a usage error"
done
run matmul "$D/a.mtx" "$D/b.mtx" -o "$T/c.txt"
expect_rc 2 "matmul -o with an unknown extension is a usage error"
run tile-avg "$D/seed8x8.mtx" --tile 2 -o "$T/c.txt"
expect_rc 2 "tile-avg -o with an unknown extension is a usage error"
run convert "$D/a.mtx" "$T/c.txt"
expect_rc 2 "convert to an unknown extension is a usage error"
run life --gens 1 -o "$T/c.txt"
expect_rc 2 "life -o with an unknown extension is a usage error"
run life --depth 64 --word-bits 32 --gens 1 -o "$T/d.rle"
expect_rc 2 "life --depth past --word-bits is a usage error"

# --- binary data and gzip claims -----------------------------------------
printf '\177ELF\002\001\001\000\000\033[31mred\n' >"$T/bin.mtx"
run convert "$T/bin.mtx" -
expect_rc 1 "binary data as Matrix Market fails"
expect_contains "$ERR" "bin.mtx: not a Matrix Market file (binary data)" "as binary data"
case "$ERR" in *$'\033'*|*$'\177'*) not_ok "no raw bytes echoed" ;; *) ok "no raw bytes echoed" ;; esac
gzip -c "$T/bin.mtx" >"$T/bin.mtx.gz"
run matmul "$T/bin.mtx.gz" "$D/b.mtx"
expect_contains "$ERR" "not a Matrix Market file (binary data)" "gzip-compressed binary data too"
printf '%%%%MatrixMarket matrix array real general\n100000 100000\n1\n' | gzip -c >"$T/claim.mtx.gz"
size=$(stat -c %s "$T/claim.mtx.gz")
run convert "$T/claim.mtx.gz" -
expect_contains "$ERR" "$size bytes of gzip inflate to at most $((size * 1032)) bytes" "the gzip claim names the compressed size and its bound"
printf '%%%%MatrixMarket matrix array real general\n2 2\n1\n\001\n' >"$T/ctl.mtx"
run convert "$T/ctl.mtx" -
case "$ERR" in *$'\001'*) not_ok "a control byte in an entry is not echoed" "$ERR" ;; *) ok "a control byte in an entry is not echoed" ;; esac

done_testing
