#!/usr/bin/env bash
# Lead's final check of merged main on the H200: GPU unit tests, then the headline benches.
cd "$(dirname "$0")/../.."   # repo root
S=gpu-stage/lead
export LD_LIBRARY_PATH=$PWD/$S/lib TILEDCL_KERNEL_PATH=$PWD/gpu-stage/lead/b/cl XDG_CACHE_HOME=/tmp/c TILEDCL_DEVICE=gpu
B=$S/b
{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  ldd $B/tiledcl | grep -i 'not found'
  git log --oneline -1 2>/dev/null
} > $OUT/lead-info.txt 2>&1
( for t in test_matmul test_matmul_tc test_life test_tile_avg test_clrt test_bench_ops; do
    s=$(date +%s); timeout 120 $B/tests/$t >/tmp/$t.log 2>&1; rc=$?
    echo "$t rc=$rc $(( $(date +%s)-s ))s $(grep -cE '^\[  (PASSED|FAILED|  SKIPPED) \]' /tmp/$t.log) summary: $(grep -E '^\[  (PASSED|FAILED)' /tmp/$t.log | tr '\n' ' ')"
    [ $rc -ne 0 ] && tail -30 /tmp/$t.log
  done ) > $OUT/lead-tests.txt 2>&1
T=$B/tiledcl
( for n in 8192 4096 2048 1024 256; do $T bench matmul --size $n --reps 10 --copy-size 1024 --json; done
  for s in 3000x3000x3000 3072x3072x3072 3000x2000x5000 2000x3000x1000 4097x4097x4097; do $T bench matmul --shape $s --reps 10 --copy-size 1024 --json; done
  for p in tf32 3xtf32; do for n in 8192 4096; do $T bench matmul --size $n --precision $p --reps 10 --copy-size 1024 --json; done; done
) > $OUT/lead-matmul.jsonl 2>$OUT/lead-matmul.err
( for t in 2x2 4x4 16x16 64x64 1x256; do $T bench tile-avg --tile $t --reps 10 --json; done
  $T bench life --reps 5 --json; $T bench life --size 500 --gens 200 --reps 7 --json
  for b in dead torus clamp; do $B/tests/bench_life 16384 100 5 $b; $B/tests/bench_life 2000 200 5 $b; done
) > $OUT/lead-other.txt 2>&1
echo done >> $OUT/lead-info.txt
