#!/usr/bin/env bash
cd "$(dirname "$0")/../.."
S=gpu-stage/lead; B=$S/b
export LD_LIBRARY_PATH=$PWD/$S/lib TILEDCL_KERNEL_PATH=$PWD/$B/cl XDG_CACHE_HOME=/tmp/c TILEDCL_DEVICE=gpu
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu,clocks_event_reasons.active --format=csv -lms 200 > $OUT/lead4-smi.csv 2>&1 &
M=$!
sleep 1
( $B/tiledcl -v bench matmul --size 8192 --precision 3xtf32 --reps 20 --copy-size 1024 2>&1 | grep -E "wgmma [0-9]|^matmul"
  sleep 5
  $B/tiledcl bench matmul --size 8192 --precision tf32 --reps 20 --copy-size 1024
  sleep 5
  $B/tiledcl bench matmul --size 8192 --precision 3xtf32 --reps 5 --copy-size 1024 ) > $OUT/lead4-bench.txt 2>&1
kill $M
