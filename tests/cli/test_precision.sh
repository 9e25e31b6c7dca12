#!/bin/bash
# tiledcl matmul --precision and tiledcl bench matmul --precision.
# On a device without NVIDIA tensor cores (PoCL in CI): tf32 and 3xtf32 fail
# with exit 1 naming the device, auto computes the exact float32 product. On
# a device with them: tf32 and 3xtf32 pass --verify.
. "$(dirname "$0")/lib.sh"
need_device
A=$TDCL_DATA/a.mtx
B=$TDCL_DATA/b.mtx

run matmul --help
expect_contains "$OUT" "--precision P" "--help documents --precision"
expect_contains "$OUT" "3xtf32" "--help names 3xtf32"
run matmul "$A" "$B" --precision tf16
expect_rc 2 "an unknown precision is a usage error"
expect_contains "$ERR" "'tf16'" "the usage error quotes the value"

run matmul "$A" "$B" -o "$T/fp32.mtx"
expect_rc 0 "fp32 product"
run -v matmul "$A" "$B" --precision auto --verify -o "$T/auto.mtx"
expect_rc 0 "auto product passes --verify"
run matmul "$A" "$B" --precision tf32 --type f64
expect_rc 1 "tf32 with --type f64 fails"
expect_contains "$ERR" "computes float32 products, not float64" "and says why"

run matmul "$A" "$B" --precision tf32 --verify -o "$T/tf32.mtx"
if [ "$RC" -eq 0 ]; then
    ok "tf32 runs on this device's tensor cores"
    run matmul "$A" "$B" --precision 3xtf32 --verify -o "$T/3x.mtx"
    expect_rc 0 "3xtf32 passes --verify"
else
    expect_rc 1 "tf32 without tensor cores fails with 1"
    expect_contains "$ERR" "precision 'tf32' needs NVIDIA tensor cores" "the error says what tf32 needs"
    expect_contains "$ERR" "device '" "the error names the device"
    run matmul "$A" "$B" --precision 3xtf32
    expect_rc 1 "3xtf32 without tensor cores fails with 1"
    expect_contains "$ERR" "precision '3xtf32' needs NVIDIA tensor cores" "the 3xtf32 error says so"
    expect_eq "$(cat "$T/auto.mtx")" "$(cat "$T/fp32.mtx")" "auto falls back to the fp32 product"
    run bench matmul --size 64 --copy-size 64 --reps 2 --precision 3xtf32
    expect_rc 1 "bench --precision 3xtf32 without tensor cores fails with 1"
    run bench matmul --size 64 --copy-size 64 --reps 2 --precision auto --json
    expect_rc 0 "bench --precision auto runs"
    expect_contains "$OUT" '"op": "matmul"' "and reports matmul"
fi
done_testing
