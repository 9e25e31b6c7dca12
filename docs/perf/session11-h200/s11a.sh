#!/bin/bash
# Session 11: life_stream with 32-bit words (twice the warps) against the tiles and 64-bit life_stream; two MPI ranks on one GPU at larger grids
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=./build-dev/tiledcl
B=./build-dev/bench/bench_life
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s11a.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" >>$L 2>&1; echo "rc=$?" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
step 150 $B 16384 96 5 dead bits auto auto auto auto "auto;mode=stream;mode=stream,w=32;mode=stream,w=32,s=128;mode=stream,w=32,s=96;mode=stream,w=32,s=256;mode=stream,w=32,ly=8;mode=stream,w=32,k=16"
step 60 $B 16384 96 5 torus bits auto auto auto auto "auto;mode=stream,w=32;mode=stream,w=32,s=128"
step 60 $B 16384 96 5 clamp bits auto auto auto auto "auto;mode=stream,w=32;mode=stream,w=32,s=128"
step 60 $B 16384 100 5 clamp bits auto auto auto auto "auto;mode=stream,w=32;mode=stream,w=32,s=128"
step 60 $B 32768 96 3 dead bits auto auto auto auto "auto;mode=stream,w=32;mode=stream,w=32,s=256"
step 90 $B 65536 96 3 dead bits auto auto auto auto "auto;mode=stream,w=32;mode=stream,w=32,s=384"
. .xfer/mpienv.sh
M="mpirun.openmpi --allow-run-as-root"
step 90 $M -n 2 ./build-mpi/tiledcl -v --device $P:0 bench life --size 32768 --gens 1000 --reps 3
step 150 $M -n 2 ./build-mpi/tiledcl -v --device $P:0 bench life --size 65536 --gens 400 --reps 3
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
