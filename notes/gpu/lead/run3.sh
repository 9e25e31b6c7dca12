#!/usr/bin/env bash
# Lead's check of merged main on the H200 (session 3): tensor-core tests and figures.
cd "$(dirname "$0")/../.."
S=gpu-stage/lead; B=$S/b
export LD_LIBRARY_PATH=$PWD/$S/lib TILEDCL_KERNEL_PATH=$PWD/$B/cl XDG_CACHE_HOME=/tmp/c TILEDCL_DEVICE=gpu
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ldd $B/tiledcl | grep -i 'not found'; } > $OUT/lead3-info.txt 2>&1
( for t in test_matmul_tc test_matmul test_clrt; do
    s=$(date +%s); timeout 100 $B/tests/$t >/tmp/$t.log 2>&1; rc=$?
    echo "$t rc=$rc $(( $(date +%s)-s ))s $(grep -E '^\[  (PASSED|FAILED)' /tmp/$t.log | tr '\n' ' ')"
    [ $rc -ne 0 ] && tail -30 /tmp/$t.log
  done ) > $OUT/lead3-tests.txt 2>&1
T=$B/tiledcl
( for p in 3xtf32 tf32; do for n in 8192 4096; do timeout 60 $T -v bench matmul --size $n --precision $p --reps 10 --copy-size 1024; done; done
  timeout 60 $T bench matmul --size 8192 --reps 10 --copy-size 1024
  timeout 60 $T bench matmul --shape 1000x3001x1999 --precision 3xtf32 --reps 10 --copy-size 1024
) > $OUT/lead3-bench.txt 2>&1
( timeout 100 $B/tests/bench_matmul -r 3 -c -P 3xtf32 8192 ) > $OUT/lead3-err.txt 2>&1
echo done >> $OUT/lead3-info.txt
