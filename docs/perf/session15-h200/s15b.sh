#!/bin/bash
# Session 15: 3xtf32 with B only as f16 (small,big) pairs (X16=2) against f16 cross terms (1) and three tf32 (0)
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm XDG_CACHE_HOME=/tmp/xc TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s15b.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 420 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim bash -c '"$@"' _ "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
b() { $PWD/build-dev/tiledcl --device gpu bench matmul --reps 10 --copy-size 512 "$@" | grep -E "^matmul|peak"; }
x0() { TILEDCL_WG_X16=0 "$@"; }
x1() { TILEDCL_WG_X16=1 "$@"; }
export -f b x0 x1
{ nvidia-smi -L; uptime; } >>$L 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv -lms 50 > $OUT/smi.csv 2>&1 &
SMI=$!
x2() { TILEDCL_WG_X16=2 "$@"; }
export -f x2
step 60 x2 env TILEDCL_DEVICE=gpu ./build-dev/tests/test_matmul_tc
step 40 x2 ./build-dev/bench/bench_matmul -r 3 -P 3xtf32 -c 4096
for i in 1 2; do
  step 30 x0 b --size 8192 --precision 3xtf32
  step 30 x1 b --size 8192 --precision 3xtf32
  step 30 x2 b --size 8192 --precision 3xtf32
done
step 30 x0 b --size 4096 --precision 3xtf32
step 30 x2 b --size 4096 --precision 3xtf32
step 30 x0 b --size 16384 --precision 3xtf32 --reps 5
step 30 x2 b --size 16384 --precision 3xtf32 --reps 5
step 90 x2 ./build-dev/bench/bench_matmul -r 3 -P 3xtf32 -c 8192
kill $SMI
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
