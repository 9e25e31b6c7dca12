# The compiled-kernel cache seen from the command line: a first run compiles,
# a second run of the same command loads the binary (-v says which), and
# --no-cache / TILEDCL_CACHE=0 compile every time.
. "$(dirname "$0")/lib.sh"
need_device

export XDG_CACHE_HOME="$T/cache"
run -v matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c1.mtx"
expect_rc 0 "first run succeeds"
expect_contains "$ERR" "compiled from source" "first run compiles the kernel"
expect_contains "$ERR" "time (ms): read" "-v prints the timing breakdown"
run -v matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c2.mtx"
expect_contains "$ERR" "loaded from cache" "second run loads the kernel from the cache"
expect_eq "$(cat "$T/c1.mtx")" "$(cat "$T/c2.mtx")" "cached kernel gives the same product"
run -v --no-cache matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c3.mtx"
expect_contains "$ERR" "compiled from source" "--no-cache compiles"
TILEDCL_CACHE=0 run -v matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c4.mtx"
expect_contains "$ERR" "compiled from source" "TILEDCL_CACHE=0 compiles"
# a corrupted entry is rebuilt, not trusted
for f in "$XDG_CACHE_HOME"/tiledcl/*.bin; do printf 'garbage' >"$f"; done
run -v matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c5.mtx"
expect_rc 0 "a corrupted cache entry does not fail the run"
expect_contains "$ERR" "compiled from source" "a corrupted entry is rebuilt"
expect_eq "$(cat "$T/c1.mtx")" "$(cat "$T/c5.mtx")" "the rebuilt kernel gives the same product"

done_testing
