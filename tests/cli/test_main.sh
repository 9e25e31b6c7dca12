# tiledcl's entry point and what every command shares: a failed write to
# stdout exits 1 with a message (/dev/full), the unknown-command message
# lists the whole command table, and one element-type vocabulary
# (f32/float32, ...) for every command's type option.
. "$(dirname "$0")/lib.sh"
D=$TDCL_DATA
export XDG_CACHE_HOME="$T/cache"

# full ARGS...: runs tiledcl with stdout on /dev/full; $RC and $ERR.
full() {
    "$TILEDCL" "$@" >/dev/full 2>"$T/.err" </dev/null
    RC=$?
    ERR=$(cat "$T/.err")
}

# --- stdout errors (no device needed) ---------------------------------------
if [ -w /dev/full ]; then
    full --help
    expect_rc 1 "--help >/dev/full exits 1"
    expect_contains "$ERR" "cannot write to standard output" "--help >/dev/full says why"
    full --version
    expect_rc 1 "--version >/dev/full exits 1"
    full convert --help
    expect_rc 1 "convert --help >/dev/full exits 1"
    expect_contains "$ERR" "standard output" "convert --help >/dev/full says why"
    full convert "$D/a.mtx" -
    expect_rc 1 "convert to stdout on /dev/full exits 1"
    expect_contains "$ERR" "stdout" "convert names stdout"
    n=$(printf '%s\n' "$ERR" | grep -c .)
    expect_eq "$n" "1" "convert reports the failed write once"
else
    ok "# SKIP no /dev/full"
fi

# --- the unknown command lists the command table ----------------------------
run --help
expect_rc 0 "--help exits 0"
# the table as --help prints it: the lines between "commands:" and the blank line
table=$(printf '%s\n' "$OUT" | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 { print $1 }')
ntable=$(printf '%s\n' "$table" | grep -c .)
if [ "$ntable" -ge 8 ]; then ok "--help lists $ntable commands"; else not_ok "--help lists the commands" "$table"; fi
expect_contains "$table" "tune" "the table has tune"
run matmul --help
want=$OUT
run help matmul
expect_rc 0 "help matmul exits 0"
expect_eq "$OUT" "$want" "help matmul prints matmul's help, as matmul --help does"
run help frobnicate
expect_rc 2 "help of an unknown command is a usage error"
expect_contains "$ERR" "unknown command 'frobnicate'" "... naming it"
run frobnicate
expect_rc 2 "an unknown command is a usage error"
expect_contains "$ERR" "unknown command 'frobnicate'" "the unknown command is named"
listed=$(printf '%s\n' "$ERR" | sed -n "s/.*(commands: \(.*\))$/\1/p" | tr -d ' ' | tr ',' '\n')
expect_eq "$listed" "$table" "the unknown-command message lists every command of the table, in order"

# --- one dtype vocabulary ------------------------------------------------------
run convert --dtype f32 "$D/ai.mtx" -
expect_rc 0 "convert --dtype f32 exits 0"
short=$OUT
expect_contains "$short" "array real general" "convert --dtype f32 writes real values"
run convert --dtype float32 "$D/ai.mtx" -
expect_eq "$OUT" "$short" "convert --dtype float32 is --dtype f32"
run convert --dtype i64 "$D/ai.mtx" -
expect_rc 0 "convert --dtype i64 exits 0"
expect_contains "$OUT" "array integer general" "convert --dtype i64 writes integers"
# the values survive: the same numbers as the input file's body
want=$(grep -v '^%' "$D/ai.mtx" | tail -n +2)
got=$(printf '%s\n' "$OUT" | grep -v '^%' | tail -n +2)
if [ -n "$want" ]; then expect_eq "$got" "$want" "convert --dtype i64 keeps every value"; else not_ok "ai.mtx has values"; fi
run convert --dtype int8 "$D/ai.mtx" -
expect_rc 2 "convert --dtype int8 is a usage error"
expect_contains "$ERR" "--dtype takes f32, f64, i32 or i64" "the refusal names the short names"
expect_contains "$ERR" "float32, float64, int32 or int64" "and the long ones"
run matmul --type u8 "$D/ai.mtx" "$D/bi.mtx"
expect_rc 2 "matmul --type u8 is a usage error"
expect_contains "$ERR" "--type takes f32, f64 or i64" "matmul names the types it computes in"

# --- with a device: matmul to stdout ------------------------------------------
run devices
if [ "$RC" -ne 0 ]; then
    echo "# no OpenCL device: the device checks are skipped"
    ok "# SKIP no OpenCL device"
    done_testing
    exit $?
fi
if [ -w /dev/full ]; then
    full devices
    expect_rc 1 "devices >/dev/full exits 1"
    expect_contains "$ERR" "cannot write to standard output" "devices >/dev/full says why"
    full matmul "$D/ai.mtx" "$D/bi.mtx"
    expect_rc 1 "matmul to stdout on /dev/full exits 1"
    n=$(printf '%s\n' "$ERR" | grep -c .)
    expect_eq "$n" "1" "matmul reports the failed write once"
fi
# the exact product (Python integers), column-major as Matrix Market arrays are
want=$(python3 -c '
import sys
def load(p):
    v = [l.split() for l in open(p) if not l.startswith("%")]
    r, c = map(int, v[0]); x = [int(t[0]) for t in v[1:1 + r * c]]
    return r, c, [[x[j * r + i] for j in range(c)] for i in range(r)]
m, k, a = load(sys.argv[1]); k2, n, b = load(sys.argv[2])
for j in range(n):
    for i in range(m):
        print(sum(a[i][t] * b[t][j] for t in range(k)))
' "$D/ai.mtx" "$D/bi.mtx")
for t in i64 int64; do
    run matmul --type "$t" "$D/ai.mtx" "$D/bi.mtx"
    expect_rc 0 "matmul --type $t to stdout exits 0"
    got=$(printf '%s\n' "$OUT" | grep -v '^%' | tail -n +2)
    if [ -n "$want" ]; then expect_eq "$got" "$want" "matmul --type $t to stdout is the exact product"; else not_ok "the reference is empty"; fi
done
done_testing
