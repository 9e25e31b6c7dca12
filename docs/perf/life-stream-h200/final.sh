#!/bin/bash
# final build sanity on one H200: the default's choice at 46336^2 (life_stream) against the tiles; e2e rows
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
B=./build-dev/bench/bench_life
T=./build-dev/tiledcl
L=$OUT/final.log
{ date -u; nvidia-smi -L; } > $L 2>&1
run() { echo "# ${*@Q}" >> $L; timeout 200 "$@" >> $L 2>&1; echo "rc=$?" >> $L; }
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
run $B 46336 100 3 clamp bits auto auto auto auto "auto;mode=tiles,lx=16,ly=8,s=16,k=8"
run $B 40960 100 3 torus bits auto auto auto auto "auto;mode=stream"
unset TILEDCL_KERNEL_PATH
run $T bench e2e --reps 5 --no-numpy
