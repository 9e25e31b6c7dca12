#!/bin/bash
# Session 11: life_flow's work-group shape and register cap at 16384^2
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
B=./build-dev/bench/bench_life
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s11j.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=$?" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
f=",k=8,flow=1"
step 200 $B 16384 96 5 dead bits auto auto auto auto "auto;mode=tiles,lx=16,ly=16,s=9$f;mode=tiles,lx=16,ly=4,s=36$f;mode=tiles,lx=16,ly=8,s=18,regs=96$f;mode=tiles,lx=16,ly=8,s=18,regs=80$f;mode=tiles,lx=16,ly=12,s=12$f;mode=tiles,lx=32,ly=4,s=18$f;auto"
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
