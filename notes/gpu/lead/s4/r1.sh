#!/usr/bin/env bash
# Session 4: why 3xtf32 slows down over consecutive runs (power? clocks?), and candidate tiles.
cd "$(dirname "$0")/../.."
S=gpu-stage/s4; B=$S/b
export LD_LIBRARY_PATH=$PWD/$S/lib TILEDCL_KERNEL_PATH=$PWD/$B/cl XDG_CACHE_HOME=/tmp/c TILEDCL_DEVICE=gpu
{ date -u; nvidia-smi -q -d POWER,CLOCK,PERFORMANCE,TEMPERATURE; } > $OUT/s4r1-info.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,enforced.power.limit,temperature.gpu,temperature.memory,clocks_event_reasons.active --format=csv -lms 50 > $OUT/s4r1-smi.csv 2>&1 &
M=$!
sleep 1
T=$B/tiledcl
run() { echo "== $1"; TILEDCL_TC_OPTIONS="$1" timeout 60 $T -v bench matmul --size 8192 --precision 3xtf32 --reps 30 --copy-size 1024 2>&1 | grep -E "wgmma [0-9]|^matmul|rror" | awk '/wgmma [0-9]/{printf "%s ", $4; next} {print ""; print}'; date -u +%T.%N; sleep 4; }
( run ""
  run "-DWG_KSUB=16"
  run "-DWG_NWG=2"
  run "-DWG_STAGES=3"
  run "-DWG_GROUP_M=16"
  run "-DWG_PRODUCER=0"
  echo "== tf32"; timeout 60 $T -v bench matmul --size 8192 --precision tf32 --reps 30 --copy-size 1024 2>&1 | grep -E "wgmma [0-9]|^matmul" | awk '/wgmma [0-9]/{printf "%s ", $4; next} {print ""; print}'
  echo "== fp32"; timeout 60 $T bench matmul --size 8192 --reps 30 --copy-size 1024
) > $OUT/s4r1-bench.txt 2>&1
sleep 1
kill $M
echo done >> $OUT/s4r1-info.txt
