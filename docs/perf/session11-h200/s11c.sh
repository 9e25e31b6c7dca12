#!/bin/bash
# Session 11: life_flow (every step in one launch, tickets and flags) against the tiles launched step by step
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
B=./build-dev/bench/bench_life
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s11c.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=$?" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
t() { echo "mode=tiles,lx=16,ly=8,s=$1,k=8$2"; }
step 60 $B 2048 40 3 dead bits auto auto auto auto "auto;$(t 16 ,flow=1)"
step 120 $B 16384 96 5 dead bits auto auto auto auto "auto;$(t 16 ,flow=1);$(t 20 ,flow=1);$(t 18 ,flow=1);$(t 12 ,flow=1)"
step 60 $B 16384 96 5 torus bits auto auto auto auto "auto;$(t 16 ,flow=1);$(t 20 ,flow=1)"
step 60 $B 16384 100 5 clamp bits auto auto auto auto "auto;$(t 16 ,flow=1);$(t 20 ,flow=1)"
step 60 $B 8192 96 7 dead bits auto auto auto auto "auto;$(t 16 ,flow=1);$(t 20 ,flow=1)"
step 60 $B 32768 96 3 dead bits auto auto auto auto "auto;$(t 16 ,flow=1);$(t 20 ,flow=1)"
step 90 $B 65536 96 3 dead bits auto auto auto auto "auto;$(t 16 ,flow=1);$(t 20 ,flow=1)"
step 60 $B 16384 1000 3 torus bits auto auto auto auto "auto;$(t 20 ,flow=1)"
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
