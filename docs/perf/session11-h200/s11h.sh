#!/bin/bash
# Session 11: life_flow with device-scope fences (membar.gl) on NVIDIA: the fences the driver emitted for mem_fence, two MPI ranks against one (grids compared), flow against the tiles launched step by step over 1000 generations
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xch TMPDIR=/dev/shm
T=$PWD/build-dev/tiledcl
B=./build-dev/bench/bench_life
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s11h.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated\|pmix\|Perhaps\|dlopen" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
step 60 $B 16384 1000 2 dead bits auto auto auto auto "auto;mode=tiles,lx=16,ly=8,s=16,k=8;mode=tiles,lx=16,ly=8,s=16,k=8,flow=1"
for f in /tmp/xch/tiledcl/*.bin; do grep -q life_flow $f && { echo "# fences in $f:" >>$L; grep -a -n "membar\|fence\|bar.sync\|barrier" $f | head -20 >>$L; }; done
. .xfer/mpienv.sh
for i in 1 2 3; do step 90 mpirun.openmpi --allow-run-as-root -n 2 ./build-mpi/tiledcl --device $P:0 bench life --size 16384 --gens 1000 --reps 5; done
for b in dead torus clamp; do step 60 $B 16384 1000 2 $b bits auto auto auto auto "auto;mode=tiles,lx=16,ly=8,s=16,k=8;mode=tiles,lx=16,ly=8,s=18,k=8,flow=1"; done
step 60 $T --device $P:0,$P:0 bench life --size 16384 --gens 1000 --reps 5
step 60 $B 16384 100 5 dead bits auto auto auto auto "auto;mode=tiles,lx=16,ly=8,s=18,k=8,flow=1;mode=tiles,lx=16,ly=8,s=18,k=8,flow=2"
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
