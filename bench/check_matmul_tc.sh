#!/bin/bash
# Checks and times the tensor-core matmul on an NVIDIA GPU of
# compute capability 8.0 or later; the figures go to docs/PERFORMANCE.md.
#
#   bench/check_matmul_tc.sh [BUILD_DIR]      (default: build)
#
# 1. test_matmul_tc: exact small integer products (fragment layouts) and
#    random shapes, multiples of the tiles or not, every built-in tile, for
#    tf32 and 3xtf32 against a double host reference, beside the fp32 kernel;
#    on compute capability 9.x a second time with the wgmma kernel forced
#    (TILEDCL_TC_OPTIONS=-DWGMMA=1; by default it runs only where there are
#    enough tiles) and a third with it off (-DWGMMA=0).
# 2. bench_matmul -c: relative Frobenius error of the whole C against the
#    double host product, fp32 / tf32 / 3xtf32 on the same seeded inputs,
#    at odd and square sizes.
# 3. tiledcl bench matmul --precision P: median device time of 10 runs after
#    a warm-up (profiling events), N = 4096 and 8192.
# 4. tools/bench_tc_peak (a build with -Dtools=true; skipped otherwise): the
#    mma.sync m16n8k8 tf32 ceiling through this compiler
#    (register operands only), the figure the speeds are measured against.
# Not part of `meson test`: it needs the GPU and takes a minute or two.
set -u
BUILD=${1:-build}
export TILEDCL_KERNEL_PATH=${TILEDCL_KERNEL_PATH:-$BUILD/cl}
export TILEDCL_DEVICE=${TILEDCL_DEVICE:-gpu}
export CMOCKA_MESSAGE_OUTPUT=stdout
rc=0
date -u
"$BUILD/tiledcl" devices | grep -A2 '\*'
echo "== unit test (device suite)"
"$BUILD/tests/test_matmul_tc" | grep -v '^\[ RUN' || rc=1
for w in 1 0; do
    echo "== unit test, TILEDCL_TC_OPTIONS=-DWGMMA=$w"
    TILEDCL_TC_OPTIONS=-DWGMMA=$w "$BUILD/tests/test_matmul_tc" | grep -v '^\[ RUN' || rc=1
done
echo "== whole-matrix error against double (bench_matmul -c)"
for size in 1000x3001x1999 4096 8192; do
    for p in fp32 tf32 3xtf32; do
        # the host reference of N = 8192 takes half a minute: tf32 is skipped there
        [ "$size" = 8192 ] && [ "$p" = tf32 ] && continue
        "$BUILD/bench/bench_matmul" -r 3 -c -P "$p" "$size" | grep -v '^device' || rc=1
    done
done
echo "== speed (tiledcl bench)"
for n in 4096 8192; do
    for p in fp32 tf32 3xtf32; do
        "$BUILD/tiledcl" bench matmul --size "$n" --precision "$p" --reps 10 --copy-size 1024 |
            grep '^matmul' || rc=1
    done
done
echo "== mma.sync ceiling (bench_tc_peak)"
if [ -x "$BUILD/tools/bench_tc_peak" ]; then
    "$BUILD/tools/bench_tc_peak" 2 4 || rc=1
else
    echo "skipped: $BUILD/tools/bench_tc_peak not built (meson configure $BUILD -Dtools=true)"
fi
exit $rc
