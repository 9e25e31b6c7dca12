#!/usr/bin/env bash
# Session 4, final check: GROUP_M 32 and KSUB 16 (K >= 8192) for 3xtf32.
cd "$(dirname "$0")/../.."
S=gpu-stage/s4; B=$S/f
export LD_LIBRARY_PATH=$PWD/$S/lib XDG_CACHE_HOME=/tmp/c TILEDCL_DEVICE=gpu TILEDCL_KERNEL_PATH=$PWD/$B/cl
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 100 > $OUT/s4r12-smi.csv 2>&1 &
M=$!
bash $S/check_matmul_tc.sh $B > $OUT/s4r12-check.txt 2>&1
T=$B/tiledcl
( for i in 1 2 3; do sleep 10; date -u +%T; $T -v bench matmul --size 8192 --precision 3xtf32 --copy-size 1024 2>&1 | grep -E "wgmma [0-9]|^matmul" | awk '/wgmma [0-9]/{printf "%s ", $4; next} {print ""; print}'; done
  for i in 1 2; do sleep 10; date -u +%T; $T bench matmul --size 8192 --precision tf32 --copy-size 1024 | grep ^matmul; done
  sleep 10; echo "== hot start: 30 runs, then the default at once"; date -u +%T
  $T bench matmul --size 8192 --precision 3xtf32 --reps 30 --copy-size 1024 | grep ^matmul
  $T -v bench matmul --size 8192 --precision 3xtf32 --copy-size 1024 2>&1 | grep -E "wgmma [0-9]|^matmul" | awk '/wgmma [0-9]/{printf "%s ", $4; next} {print ""; print}'
) > $OUT/s4r12-bench.txt 2>&1
kill $M
( timeout 200 $B/tests/test_matmul > /tmp/tm.log 2>&1; echo "test_matmul rc=$?"; grep -E "^\[  (PASSED|FAILED)" /tmp/tm.log
  timeout 100 $B/tests/test_clrt > /tmp/tc.log 2>&1; echo "test_clrt rc=$?"; grep -E "^\[  (PASSED|FAILED)" /tmp/tc.log ) > $OUT/s4r12-tests.txt 2>&1
