#!/bin/bash
# Session 12: two 64-bit words a work-item (vx=2) with lop3, 32-bit halves and the searched gates, in life_flow tiles at 16384^2
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
B=./build-dev/bench/bench_life
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s12j.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=$?" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
f=",k=8,flow=1"
t() { echo "mode=tiles,$1$f"; }
for b in dead torus; do step 200 $B 16384 96 5 $b bits auto auto auto auto "auto;$(t lx=8,vx=2,ly=16,s=9);$(t lx=16,vx=2,ly=16,s=9,dbuf=0);$(t lx=16,vx=2,ly=8,s=18,dbuf=0);$(t lx=16,vx=2,ly=16,s=8,dbuf=0);$(t lx=16,vx=2,ly=16,s=11,dbuf=0);$(t lx=16,vx=2,ly=8,s=16,dbuf=0);$(t lx=8,vx=2,ly=16,s=9,regs=168);auto"; done
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
