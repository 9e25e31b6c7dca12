#!/usr/bin/env bash
# Session 4: the same check on an H100.
cd "$(dirname "$0")/../.."
S=gpu-stage/s4; B=$S/f
export LD_LIBRARY_PATH=$PWD/$S/lib XDG_CACHE_HOME=/tmp/c TILEDCL_DEVICE=gpu TILEDCL_KERNEL_PATH=$PWD/$B/cl
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $OUT/h100-info.txt 2>&1
bash $S/check_matmul_tc.sh $B > $OUT/h100-check.txt 2>&1
T=$B/tiledcl
( for i in 1 2; do sleep 10; date -u +%T; $T bench matmul --size 8192 --precision 3xtf32 --copy-size 1024 | grep ^matmul; done
  sleep 10; date -u +%T; $T bench matmul --size 8192 --precision tf32 --copy-size 1024 | grep ^matmul
  sleep 5; echo "== 30 runs"; $T bench matmul --size 8192 --precision 3xtf32 --reps 30 --copy-size 1024 | grep ^matmul
) > $OUT/h100-bench.txt 2>&1
