#!/bin/bash
# Session 12: wider life_flow tiles at 16384^2 (less horizontal halo)
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
B=./build-dev/bench/bench_life
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s12a.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=$?" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
f=",k=8,flow=1"
t() { echo "mode=tiles,$1$f"; }
step 240 $B 16384 96 5 dead bits auto auto auto auto "auto;$(t lx=20,ly=8,s=18);$(t lx=18,ly=8,s=20);$(t lx=22,ly=8,s=16);$(t lx=16,ly=8,s=18,dbuf=0);$(t lx=24,ly=8,s=18,dbuf=0);$(t lx=32,ly=8,s=18,dbuf=0);$(t lx=32,ly=4,s=36,dbuf=0);$(t lx=16,vx=2,ly=8,s=18,dbuf=0);$(t lx=20,ly=8,s=16);auto"
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
