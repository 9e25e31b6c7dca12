#!/bin/bash
# Session 12: the rule's gates named (no array), life-peak per variant, the sparse path (gun) with NET3 as logic on NVIDIA
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
B=./build-dev/bench/bench_life
T=$PWD/build-dev/tiledcl
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s12d.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
step 90 $T -v --device $P:0 bench life --size 16384 --reps 5
step 120 $T --device $P:0 bench life --pattern data/gosper-gun.rle --size 65536 --gens 10000 --reps 3
step 120 $B 16384 96 5 dead bits auto auto auto auto "auto;mode=tiles,lx=16,ly=8,s=18,k=8,flow=1,net=1;auto"
