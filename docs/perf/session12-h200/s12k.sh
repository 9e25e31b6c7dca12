#!/bin/bash
# Session 12: 3xtf32 in two halves of 64 columns (SPLITN), each partial added while the other half's wgmma run, against the built-in kernel: unit test forced onto wgmma, checked products, bench
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm TILEDCL_KERNEL_PATH=$PWD/build-dev/cl TILEDCL_DEVICE=gpu
M=./build-dev/bench/bench_matmul
T=$PWD/build-dev/tiledcl
L=$OUT/s12k.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
export TILEDCL_TC_OPTIONS="-DWGMMA=1 -DSPLITN=1"; echo "## $TILEDCL_TC_OPTIONS" >>$L
step 120 ./build-dev/tests/test_matmul_tc
step 120 $M -r 3 -P 3xtf32 -c 7x13x5 130x17x259 1000x3001x1999 2048 4096
for r in 1 2; do
for o in "" "-DSPLITN=1"; do export TILEDCL_TC_OPTIONS="$o"; echo "## TILEDCL_TC_OPTIONS=$o" >>$L
step 120 $M -r 10 -P 3xtf32 -c 8192
done; done
for o in "" "-DSPLITN=1" "" "-DSPLITN=1"; do export TILEDCL_TC_OPTIONS="$o"; echo "## TILEDCL_TC_OPTIONS=$o" >>$L
step 60 $M -r 10 -P 3xtf32 8192
done
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
