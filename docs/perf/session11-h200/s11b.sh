#!/bin/bash
# Session 11: life tiles' height against wave quantisation (4 groups a multiprocessor at 128 registers x 128 work-items)
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
B=./build-dev/bench/bench_life
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s11b.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=$?" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
t() { echo "mode=tiles,lx=16,ly=8,s=$1,k=8"; }
step 120 $B 16384 96 5 dead bits auto auto auto auto "auto;$(t 17);$(t 14);$(t 15);$(t 18);$(t 19);$(t 20);$(t 13);$(t 12);$(t 16)"
step 60 $B 16384 96 5 torus bits auto auto auto auto "auto;$(t 17);$(t 18);$(t 16)"
step 60 $B 16384 100 5 clamp bits auto auto auto auto "auto;$(t 17);$(t 18);$(t 16)"
step 60 $B 8192 96 7 dead bits auto auto auto auto "auto;$(t 12);$(t 13);$(t 14);$(t 16)"
step 60 $B 12288 96 5 dead bits auto auto auto auto "auto;$(t 16);$(t 17);$(t 13)"
step 60 $B 20480 96 5 dead bits auto auto auto auto "auto;$(t 18);$(t 16);$(t 19)"
step 60 $B 24576 96 3 dead bits auto auto auto auto "auto;$(t 17);$(t 19);$(t 16)"
step 60 $B 32768 96 3 dead bits auto auto auto auto "auto;mode=tiles,lx=16,ly=8,s=16,k=8;$(t 20);$(t 19);$(t 18)"
step 60 $B 16384 96 5 dead bits auto auto auto auto "auto;$(t 17);$(t 16);$(t 17);$(t 16)"
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
