# Numbers are never silently wrong: int64 products that leave int64,
# narrowing conversions, tile means of huge values, --verify on NaN and
# infinities, and PBM bits against grey levels, each against values worked
# out here (Python integers and floats).
. "$(dirname "$0")/lib.sh"
export TILEDCL_CACHE=0
run devices
if [ "$RC" -ne 0 ]; then
    echo "1..0 # SKIP no OpenCL device"
    exit 0
fi

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
run matmul "$T/big.mtx" "$T/big.mtx" --verify --type f32
expect_rc 1 "--verify fails a float32 product that overflowed where the host's is finite"
expect_contains "$ERR" "infinite where it is finite" "naming the rule"

# --- narrowing conversions -----------------------------------------------
mtx_real "$T/r.mtx" 2 2 1099511627781 1.2e17 5 -7.9
run convert --dtype int32 "$T/r.mtx" "$T/r32.npy"
expect_rc 1 "convert --dtype int32 refuses 2^40 + 5"
expect_contains "$ERR" "value 1099511627781 at row 1, column 1 does not fit in int32" "naming the value and where it is"
expect_contains "$ERR" "--clip" "and the way to saturate"
[ ! -e "$T/r32.npy" ] && ok "nothing written" || not_ok "nothing written"
run convert --dtype int32 --clip "$T/r.mtx" -
expect_rc 0 "--clip saturates"
expect_eq "$(body /dev/stdin <<<"$OUT")" "2147483647 2147483647 5 -7" "to int32's ends, fractions truncated"
for v in inf nan 1e308; do
    mtx_real "$T/v.mtx" 1 2 3 "$v"
    run convert --dtype int32 "$T/v.mtx" -
    expect_rc 1 "convert --dtype int32 refuses $v"
    expect_contains "$ERR" "at row 1, column 2" "naming where $v is"
done
run convert --dtype int64 --clip "$T/v.mtx" -
expect_eq "$(body /dev/stdin <<<"$OUT")" "3 9223372036854775807" "--clip saturates 1e308 to int64's end"
mtx_real "$T/v.mtx" 1 2 3 nan
run convert --dtype int64 --clip "$T/v.mtx" -
expect_rc 1 "NaN to an integer is refused even with --clip"
mtx_real "$T/f.mtx" 1 3 1e308 -1e39 0.1
run convert --dtype float32 "$T/f.mtx" "$T/f.npy"
expect_rc 1 "float64 -> float32 refuses a finite value that would become inf"
expect_contains "$ERR" "value 1e+308 at row 1, column 1 does not fit in float32" "naming it"
run convert --dtype float32 --clip "$T/f.mtx" -
expect_eq "$(body /dev/stdin <<<"$OUT")" "3.4028235e+38 -3.4028235e+38 0.1" "--clip saturates to float32's largest finite value"
mtx_real "$T/f.mtx" 1 3 inf nan 0.1
run convert --dtype float32 "$T/f.mtx" -
expect_eq "$(body /dev/stdin <<<"$OUT")" "inf nan 0.1" "NaN and infinities stay what they are in float32"
mtx_int "$T/big.mtx" 1 3 0 70000 -1
run convert "$T/big.mtx" "$T/big.pgm"
expect_rc 1 "a matrix to PGM refuses samples past 16 bits"
expect_contains "$ERR" "value 70000 at row 1, column 2" "naming the first"
run convert --clip "$T/big.mtx" "$T/big.pgm"
expect_rc 0 "--clip clamps them"
run convert "$T/big.pgm" -
expect_eq "$(body /dev/stdin <<<"$OUT")" "0 65535 0" "to 0..65535"

# --- PBM and grey levels -------------------------------------------------
printf 'P2\n4 1\n255\n255 255 255 255\n' >"$T/white.pgm"
run convert "$T/white.pgm" "$T/white.pbm"
run convert "$T/white.pbm" -
expect_eq "$(body /dev/stdin <<<"$OUT")" "0 0 0 0" "a white PGM becomes a white PBM (0 bits)"
printf 'P2\n4 1\n1000\n0 499 500 1000\n' >"$T/g.pgm"
run convert "$T/g.pgm" "$T/g.pbm"
run convert "$T/g.pbm" -
expect_eq "$(body /dev/stdin <<<"$OUT")" "1 1 0 0" "grey to bits: black below half the maxval (16-bit)"
run convert "$T/g.pbm" "$T/g8.pgm"
run convert "$T/g8.pgm" -
expect_eq "$(body /dev/stdin <<<"$OUT")" "0 0 255 255" "bits to grey: the full range, black 0, white 255"
run convert "$T/g.pbm" "$T/g8.png"
run convert "$T/g8.png" -
expect_eq "$(body /dev/stdin <<<"$OUT")" "0 0 255 255" "bits to PNG: the same"
# tile-avg: grey means to PBM, PBM means to grey
printf 'P2\n4 2\n255\n255 255 0 0\n255 200 0 100\n' >"$T/t.pgm"
run tile-avg "$T/t.pgm" --tile 2 -o "$T/t.pbm"
run convert "$T/t.pbm" -
expect_eq "$(body /dev/stdin <<<"$OUT")" "0 1" "tile-avg: a light tile is white in PBM, a dark one black"
printf 'P1\n4 2\n1 1 0 0\n1 0 0 0\n' >"$T/b.pbm"
run tile-avg "$T/b.pbm" --tile 2 -o "$T/b.pgm"
run convert "$T/b.pgm" -
expect_eq "$(body /dev/stdin <<<"$OUT")" "64 255" "tile-avg: PBM means become grey (3/4 black: 64, white: 255)"
# life reads a white PGM as dead and writes PBM back as black = alive
printf 'P2\n3 1\n255\n255 0 255\n' >"$T/l.pgm"
run life "$T/l.pgm" --gens 0 -o "$T/l.pbm"
run convert "$T/l.pbm" -
expect_eq "$(body /dev/stdin <<<"$OUT")" "0 1 0" "life: grey in, PBM out: only the dark cell is alive"

# --- tile-avg of huge and non-finite values ------------------------------
python3 -c '
print("%%MatrixMarket matrix array real general"); print(32, 32)
for i in range(32 * 32): print("3.4e38" if i % 97 else "3.3e38")' >"$T/huge.mtx"
run convert --dtype float32 "$T/huge.mtx" "$T/huge.npy"
# the cpu variant keeps float register sums for float input; those overflow
for v in cpu gpu band; do
    for t in 16 4 2x8 32 3x5; do
        run tile-avg "$T/huge.npy" --tile "$t" --variant "$v" --verify
        expect_rc 0 "tile-avg --variant $v --tile $t of values near FLT_MAX: finite means, verified"
        case "$OUT" in *inf*) not_ok "no inf among the means ($v, $t)" "$OUT" ;; *) ok "no inf among the means ($v, $t)" ;; esac
    done
done
run tile-avg "$T/huge.npy" --tile 16 --variant cpu
expect_eq "$(body /dev/stdin <<<"$OUT")" "$(python3 -c '
import struct
f = lambda x: struct.unpack("f", struct.pack("f", x))[0]
# tile (i, j) of 16x16 holds the flat indices i*16+r + 32*(j*16+c) (column-major)
print(" ".join("%.8g" % f(sum(f(3.3e38) if (i * 16 + r + 32 * (j * 16 + c)) % 97 == 0 else f(3.4e38)
                               for r in range(16) for c in range(16)) / 256)
               for j in range(2) for i in range(2)))')" "the cpu variant's 16x16 means are the means"
mtx_real "$T/nf.mtx" 2 4 inf 1 inf 2 -inf inf 1 2
for v in cpu gpu band; do
    run tile-avg "$T/nf.mtx" --tile 2 --variant "$v" --verify
    expect_rc 0 "tile-avg --verify passes inf for inf and NaN for NaN ($v)"
    expect_eq "$(body /dev/stdin <<<"$OUT")" "inf nan" "the means are inf and NaN ($v)"
done

# --- float64 inputs -------------------------------------------------------
# computed in float64 (Matrix Market 'real' reads as float64), unless
# --type f32 asks for float32, which refuses what float32 cannot hold
mtx_real "$T/e300.mtx" 1 2 1e300 1
mtx_real "$T/one2.mtx" 2 1 1 1
run matmul "$T/e300.mtx" "$T/one2.mtx"
expect_rc 0 "float64 inputs make a float64 product"
expect_eq "$(body /dev/stdin <<<"$OUT")" "1e+300" "which holds 1e300"
run matmul "$T/e300.mtx" "$T/one2.mtx" --type f32 -o "$T/e.mtx"
expect_rc 1 "a float64 input past float32's range is refused for a float32 product"
expect_contains "$ERR" "A: value 1.0000000000000001e+300 at row 1, column 1 does not fit in float32" "naming the matrix and the element"
expect_contains "$ERR" "--type f64" "and the way to compute it"

# --- limits of counts -----------------------------------------------------
# --gens and --every state their upper limit, 2^62 - 1
run life --size 8x8 --gens 4611686018427387904
expect_rc 2 "--gens 2^62 is a usage error"
expect_contains "$ERR" "--gens needs an integer from 0 to 4611686018427387903, got '4611686018427387904'" "stating the limit"
run life --size 8x8 --gens 10 --every 9223372036854775807
expect_rc 2 "--every 2^63 - 1 is a usage error"
expect_contains "$ERR" "--every needs an integer from 1 to 4611686018427387903" "stating the limit"
done_testing
