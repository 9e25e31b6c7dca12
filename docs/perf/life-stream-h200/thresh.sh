#!/bin/bash
# life_stream against the tiles by grid size (where the default should switch)
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
B=./build-dev/bench/bench_life
L=$OUT/thresh.log
{ date -u; nvidia-smi -L; } > $L 2>&1
run() { echo "# ${*@Q}" >> $L; timeout 200 "$@" >> $L 2>&1; echo "rc=$?" >> $L; }
TL="mode=tiles,lx=16,ly=8,s=16,k=8"
for n in 24576 32768 40960 46336; do run $B $n 96 3 dead bits auto auto auto auto "$TL;mode=stream;mode=stream,s=128"; done
