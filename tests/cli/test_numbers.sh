# Numbers are never silently wrong: int64 products that leave int64,
# narrowing conversions, tile means of huge values, --verify on NaN and
# infinities, and PBM bits against grey levels, each against values worked
# out here (Python integers and floats).
. "$(dirname "$0")/lib.sh"
export TILEDCL_CACHE=0

mtx_int() { # FILE ROWS COLS V... (column-major, as the array format stores it)
    f=$1 r=$2 c=$3
    shift 3
    { echo '%%MatrixMarket matrix array integer general'; echo "$r $c"; printf '%s\n' "$@"; } >"$f"
}
mtx_real() {
    f=$1 r=$2 c=$3
    shift 3
    { echo '%%MatrixMarket matrix array real general'; echo "$r $c"; printf '%s\n' "$@"; } >"$f"
}
# the values of a Matrix Market array file after its size line
body() { grep -v '^%' "$1" | tail -n +2 | tr '\n' ' ' | sed 's/ $//'; }

# --- int64 matmul --------------------------------------------------------
# 2^62 * 2 + 2^62 * 2 = 2^64: wraps to 0 in int64
mtx_int "$T/a.mtx" 1 2 4611686018427387904 4611686018427387904
mtx_int "$T/b.mtx" 2 1 2 2
for k in tiled cpu gpu; do
    run matmul "$T/a.mtx" "$T/b.mtx" --verify -k "$k" -o "$T/c.mtx"
    expect_rc 1 "int64 overflow fails ($k kernel)"
    expect_contains "$ERR" "element (1, 1) of C" "the message names the element ($k)"
    expect_contains "$ERR" "--wrap" "and the way to accept wrap-around ($k)"
    [ ! -e "$T/c.mtx" ] && ok "nothing written ($k)" || not_ok "nothing written ($k)"
done
run matmul "$T/a.mtx" "$T/b.mtx" --max-alloc 8
expect_rc 1 "int64 overflow fails in panels"
# A = [1 1 1; 2^62 2^62 2^62], B = [1 1 1; 1 1 1; 1 -1 1]: C(2,2) = 3*2^62
# overflows, C(2,1) and C(2,3) pass through 2^63 and come back to 2^62
mtx_int "$T/a2.mtx" 2 3 1 4611686018427387904 1 4611686018427387904 1 -4611686018427387904
mtx_int "$T/b2.mtx" 3 3 1 1 1 1 1 -1 1 1 1
run matmul "$T/a2.mtx" "$T/b2.mtx"
expect_contains "$ERR" "element (2, 2) of C" "the first element outside int64 is named"
want=$(python3 -c '
a=[[1,1,1],[2**62,2**62,-2**62]]; b=[[1,1,1],[1,1,1],[1,-1,1]]
c=[[sum(a[i][k]*b[k][j] for k in range(3)) for j in range(3)] for i in range(2)]
print(" ".join(str(((c[i][j] + 2**63) % 2**64) - 2**63) for j in range(3) for i in range(2)))')
run matmul "$T/a2.mtx" "$T/b2.mtx" --wrap --verify -o "$T/w.mtx"
expect_rc 0 "--wrap accepts it"
expect_eq "$(body "$T/w.mtx")" "$want" "--wrap gives the sums modulo 2^64"
expect_contains "$ERR" "modulo 2^64 (1 wrapped" "--verify says the product is exact only modulo 2^64"
case "$ERR" in *"verify: exact"*) not_ok "--verify never calls a wrapped product exact" ;; *) ok "--verify never calls a wrapped product exact" ;; esac
# partial sums past 2^63 that come back are exact, not an error
mtx_int "$T/b3.mtx" 3 1 1 1 1
run matmul "$T/a2.mtx" "$T/b3.mtx" --verify
expect_rc 0 "a result inside int64 passes although its partial sums wrapped"
expect_eq "$(body /dev/stdin <<<"$OUT")" "3 4611686018427387904" "and is exact"
run matmul --help
expect_contains "$OUT" "--wrap" "matmul --help documents --wrap"

# --- --verify on non-finite values ---------------------------------------
mtx_real "$T/n.mtx" 3 2 nan inf 2 1 1 3
mtx_real "$T/one.mtx" 2 1 1 1
run matmul "$T/n.mtx" "$T/one.mtx" --verify -o "$T/nc.mtx"
expect_rc 0 "--verify passes NaN for NaN and inf for inf"
expect_eq "$(body "$T/nc.mtx")" "nan inf 5" "the product holds them"
expect_contains "$ERR" "infinite elements match" "and says what it checked"
case "$ERR" in *"exceeds the bound"*) not_ok "no 'exceeds the bound' on non-finite values" "$ERR" ;; *) ok "no 'exceeds the bound' on non-finite values" ;; esac
# 1e30 * 1e30 fits a double but not a float32: the float product is inf
mtx_real "$T/big.mtx" 1 1 1e30
run matmul "$T/big.mtx" "$T/big.mtx" --verify
expect_rc 1 "--verify fails a float32 product that overflowed where the host's is finite"
expect_contains "$ERR" "infinite where it is finite" "naming the rule"
