#!/bin/bash
# Session 11: life_flow with L2-only reads (flow=1, ld.global.cg) against volatile reads (flow=2) and the tiles launched step by step; odd sizes checked against the tiles
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
B=./build-dev/bench/bench_life
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s11d.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=$?" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
t() { echo "mode=tiles,lx=16,ly=8,s=$1,k=${3:-8}$2"; }
step 120 $B 16384 96 5 dead bits auto auto auto auto "auto;$(t 16 ,flow=1);$(t 16 ,flow=2);$(t 20 ,flow=1);$(t 20 ,flow=2);$(t 18 ,flow=1);$(t 20 ,flow=1 10);$(t 20 ,flow=1 6)"
step 60 $B 16384 96 5 torus bits auto auto auto auto "auto;$(t 16 ,flow=1);$(t 20 ,flow=1);$(t 18 ,flow=1)"
step 60 $B 16384 100 5 clamp bits auto auto auto auto "auto;$(t 16 ,flow=1);$(t 20 ,flow=1);$(t 18 ,flow=1)"
step 60 $B 20000 43 3 torus bits auto auto auto auto "auto;$(t 20 ,flow=1);$(t 16 ,flow=2);mode=tiles,lx=4,ly=4,s=5,k=6,flow=1"
step 60 $B 20000 43 3 clamp bits auto auto auto auto "auto;$(t 20 ,flow=1);mode=tiles,lx=4,ly=4,s=5,k=6,flow=1"
step 60 $B 8192 96 7 dead bits auto auto auto auto "auto;$(t 16 ,flow=1);$(t 20 ,flow=1);$(t 12 ,flow=1)"
step 60 $B 4096 96 7 dead bits auto auto auto auto "auto;$(t 16 ,flow=1);$(t 12 ,flow=1)"
step 60 $B 24576 96 3 dead bits auto auto auto auto "auto;$(t 20 ,flow=1);$(t 18 ,flow=1)"
step 60 $B 32768 96 3 dead bits auto auto auto auto "auto;$(t 20 ,flow=1)"
step 60 $B 46336 96 3 dead bits auto auto auto auto "auto;$(t 20 ,flow=1)"
step 60 $B 16384 1000 3 dead bits auto auto auto auto "auto;$(t 20 ,flow=1);$(t 18 ,flow=1)"
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
