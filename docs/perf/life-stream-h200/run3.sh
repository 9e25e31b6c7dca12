#!/bin/bash
# life_stream (prologue skipped) against the default tiles kernel on one GPU
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export XDG_CACHE_HOME=/tmp/xc TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
B=./build-dev/bench/bench_life
L=$OUT/stream3.log
t0=$(date +%s)
{ date -u; nvidia-smi -L; } > $L 2>&1
run() { echo "# (+$(( $(date +%s)-t0 )) s) ${*@Q}" >> $L; timeout 150 "$@" >> $L 2>&1; echo "rc=$?" >> $L; }
run $B 65536 32 3 dead bits auto auto auto auto "auto;mode=stream;mode=stream,ly=2;mode=stream,ly=8;mode=stream,s=192;mode=stream,s=320;mode=stream,k=10;mode=stream,regs=168"
run $B 65536 32 3 torus bits auto auto auto auto "auto;mode=stream"
run $B 65536 32 3 clamp bits auto auto auto auto "auto;mode=stream"
run $B 32768 64 3 dead bits auto auto auto auto "auto;mode=stream;mode=stream,s=128"
run $B 16384 96 5 dead bits auto auto auto auto "auto;mode=stream,s=64;mode=stream,s=128"
run $B 65536 32 3 dead bits auto auto auto auto "auto;mode=stream"
mkdir -p $OUT/cache; for f in /tmp/xc/tiledcl/*.bin; do grep -aq "LIFE_KERNEL=7.*-DS=256 -DK=8 .*maxrregcount=128" $f && grep -aq "DLY=4" $f && cp $f $OUT/cache/; done
echo "# done +$(( $(date +%s)-t0 )) s" >> $L
