# tiledcl tune matmul on this device: a tiny search (two sets, small sizes)
# stores a table that later matmul and bench runs use; candidate files,
# --dry-run, --no-cache and usage errors.
. "$(dirname "$0")/lib.sh"
need_device

# A private table; PoCL compiles cold here, so few builds.
export XDG_CACHE_HOME="$T/cache"

run tune --help
expect_rc 0 "tune --help exits 0"
expect_contains "$OUT" "--time-limit S" "help names --time-limit"
expect_contains "$OUT" "ksplit" "help explains the parameters"

run tune
expect_rc 2 "tune without a target is a usage error"
run tune conv
expect_rc 2 "tune of something else is a usage error"
expect_contains "$ERR" "'conv'" "the usage error names it"
run tune matmul --sizes 0
expect_rc 2 "--sizes 0 is a usage error"
run tune matmul --time-limit -1
expect_rc 2 "a negative time limit is a usage error"

# --min-gain -90: store whatever was tried, so that the table is there to test
run -v tune matmul --sizes 64,96 --time-limit 1 --max-sets 2 --min-gain -90
expect_rc 0 "tune matmul exits 0"
# the shape this device tunes (GPUs the gpu shape, others the cpu one): the
# candidate sets below take its keys, so the test runs on any default device
shape=$(printf '%s\n' "$ERR" | sed -n 's/.* now: kernel=\([a-z]*\) .*/\1/p' | head -n 1)
case "$shape" in
cpu | gpu) ok "tune -v names the shape it tunes ($shape)" ;;
*) not_ok "tune -v names the shape it tunes" "$ERR" ;;
esac
expect_contains "$OUT" "    64 " "a line for size 64"
expect_contains "$OUT" "    96 " "a line for size 96"
expect_contains "$OUT" "stored in $T/cache/tiledcl/tune-" "the table is stored in the cache"
table=$(cat "$T"/cache/tiledcl/tune-*.txt 2>/dev/null)
expect_contains "$table" "matmul float32 " "the table holds float32 entries"
expect_contains "$table" "device=" "the table is keyed by device"

# a later product of that size takes the tuned entry
python3 -c '
import random
random.seed(3)
for name, (r, c) in (("a", (70, 80)), ("b", (80, 90))):
    with open(__import__("sys").argv[1] + "/" + name + ".mtx", "w") as f:
        f.write("%%%%MatrixMarket matrix array real general\n%d %d\n" % (r, c))
        for i in range(r * c):
            f.write("%.6f\n" % random.uniform(-1, 1))
' "$T"
# (float32, the type tuned: a Matrix Market 'real' product is float64)
run -v matmul "$T/a.mtx" "$T/b.mtx" -o "$T/c.mtx" --verify --type f32
expect_rc 0 "matmul after tuning exits 0 and verifies"
expect_contains "$ERR" "params=tuned" "matmul -v says the tuned parameters were used"
run -v matmul "$T/a.mtx" "$T/b.mtx" -o "$T/c.mtx" --no-tune --type f32
expect_contains "$ERR" "params=default" "--no-tune: the defaults"
run bench matmul --size 72 --reps 2 --json
expect_contains "$OUT" "params=tuned" "bench's plan shows the tuned parameters"

# candidates: exactly those sets; errors name the line
if [ "$shape" = gpu ]; then
    set1="bm=32 bn=32 bk=32 tm=4 tn=4 wx=8 wy=4 nbuf=2 aload=2"
    set2="bm=32 bn=32 bk=16 tm=4 tn=4 wx=8 wy=4 nbuf=1 aload=1"
else
    set1="mr=4 nv=2"
    set2="mr=2 nv=1 kc=64"
fi
printf '# two sets\n%s\n\n%s  # small\n' "$set1" "$set2" >"$T/sets.txt"
rm -f "$T"/cache/tiledcl/tune-*.txt
run -v tune matmul --sizes 64 --candidates "$T/sets.txt" --dry-run
expect_rc 0 "tune --candidates --dry-run exits 0"
expect_contains "$ERR" "tune: $set1" "the first candidate was tried"
expect_contains "$ERR" "tune: $set2" "the second candidate was tried"
expect_contains "$OUT" "0 rejected" "neither was rejected"
expect_eq "$(ls "$T"/cache/tiledcl/tune-*.txt 2>/dev/null | wc -l | tr -d ' ')" "0" "--dry-run stores nothing"
printf '%s\n%s bogus=1\n' "$set1" "$set1" >"$T/bad.txt"
run tune matmul --sizes 64 --candidates "$T/bad.txt"
expect_rc 1 "a bad candidate line exits 1"
expect_contains "$ERR" "candidates:2:" "the error names the line"

# a candidate far slower than the current choice is never stored
# (1x1 blocks, the narrowest vectors: every product element nearly alone)
rm -f "$T"/cache/tiledcl/tune-*.txt
if [ "$shape" = gpu ]; then
    printf 'bm=16 bn=16 bk=4 tm=4 tn=4 wx=4 wy=4 nbuf=1 aload=1\n' >"$T/slow.txt"
else
    printf 'mr=1 nv=1 vw=2 kc=8\n' >"$T/slow.txt"
fi
run -v tune matmul --sizes 256 --candidates "$T/slow.txt" --min-gain 7.5
expect_rc 0 "tune with a slow candidate exits 0"
expect_contains "$OUT" "(the current choice, kept)" "the current choice is kept"
expect_contains "$OUT" "no set beat the current choice by 7.5%: nothing to store" \
    "and it says nothing was stored, naming the --min-gain given"
before=$(echo "$OUT" | awk '$1 == 256 { print $2 }')
after=$(echo "$OUT" | awk '$1 == 256 { print $4 }')
expect_eq "$before" "$after" "the reported rate is the current choice's ($before GFLOP/s)"
expect_eq "$(ls "$T"/cache/tiledcl/tune-*.txt 2>/dev/null | wc -l | tr -d ' ')" "0" "no table written"
run -v matmul "$T/a.mtx" "$T/b.mtx" -o "$T/c.mtx"
case "$ERR" in *"params=tuned"*) not_ok "later runs do not use the slow set" "$ERR" ;; *) ok "later runs do not use the slow set" ;; esac
run tune matmul --sizes 64 --min-gain x
expect_rc 2 "--min-gain x is a usage error"

run --no-cache tune matmul --sizes 64 --max-sets 1
expect_rc 0 "tune --no-cache exits 0"
expect_contains "$ERR" "not stored" "and says the result is not stored"

done_testing
