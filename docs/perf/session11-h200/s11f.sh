#!/bin/bash
# Session 11: life_flow's tile height, 128 rows against 144, at the grids where it is the default
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
B=./build-dev/bench/bench_life
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s11f.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=$?" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
t() { echo "mode=tiles,lx=16,ly=8,s=$1,k=8,flow=1"; }
for n in 6144 8192 12288 16384 20480 24576 32768 40960; do
  step 60 $B $n 96 5 dead bits auto auto auto auto "auto;$(t 18);$(t 16);$(t 18)"
done
step 60 $B 16384 100 5 torus bits auto auto auto auto "auto;$(t 18)"
step 60 $B 16384 100 5 clamp bits auto auto auto auto "auto;$(t 18)"
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
