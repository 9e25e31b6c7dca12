#!/bin/bash
# Session 12: depth and height of the one-buffer life_flow tiles with the searched rule gates
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
B=./build-dev/bench/bench_life
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s12g.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=$?" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
f=",flow=1"
t() { echo "mode=tiles,$1$f"; }
step 300 $B 16384 96 5 dead bits auto auto auto auto "auto;$(t lx=16,ly=8,s=32,dbuf=0,k=8);$(t lx=16,ly=8,s=32,dbuf=0,k=10);$(t lx=16,ly=8,s=32,dbuf=0,k=12);$(t lx=16,ly=8,s=32,dbuf=0,k=16);$(t lx=16,ly=8,s=24,dbuf=0,k=8);$(t lx=16,ly=8,s=40,dbuf=0,k=8);$(t lx=16,ly=8,s=40,dbuf=0,k=12);$(t lx=16,ly=8,s=32,dbuf=0,k=8,regs=168);$(t lx=16,ly=8,s=18,k=8,regs=96);auto"
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
