#!/bin/bash
# Session 15: 3xtf32 with A split at packing, three wgmma from local memory (TILEDCL_WG_ASS=1), against the built-in (A split in registers)
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm XDG_CACHE_HOME=/tmp/xc TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s15d.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 400 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim bash -c '"$@"' _ "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
b() { $PWD/build-dev/tiledcl --device gpu bench matmul --reps 10 --copy-size 512 "$@" | grep -E "^matmul"; }
a0() { TILEDCL_WG_ASS=0 "$@"; }
a1() { TILEDCL_WG_ASS=1 "$@"; }
export -f b a0 a1
{ nvidia-smi -L; uptime; } >>$L 2>&1
step 90 a1 env TILEDCL_DEVICE=gpu TILEDCL_TC_OPTIONS=-DWGMMA=1 ./build-dev/tests/test_matmul_tc
for i in 1 2 3; do
  step 30 a0 b --size 8192 --precision 3xtf32
  step 30 a1 b --size 8192 --precision 3xtf32
done
for i in 1 2; do
  step 30 a0 b --size 4096 --precision 3xtf32
  step 30 a1 b --size 4096 --precision 3xtf32
done
step 40 a0 b --size 16384 --precision 3xtf32 --reps 5
step 40 a1 b --size 16384 --precision 3xtf32 --reps 5
step 60 a1 ./build-dev/bench/bench_matmul -r 3 -P 3xtf32 -c 8192
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
