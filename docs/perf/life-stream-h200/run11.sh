#!/bin/bash
# life_stream: loops made for where a warp lies (left/right edges without row checks)
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc
B=./build-dev/bench/bench_life
T=./build-dev/tiledcl
L=$OUT/stream11.log
t0=$(date +%s)
{ date -u; nvidia-smi -L; } > $L 2>&1
run() { echo "# (+$(( $(date +%s)-t0 )) s) ${*@Q}" >> $L; timeout 200 "$@" >> $L 2>&1; echo "rc=$?" >> $L; }
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
TL="mode=tiles,lx=16,ly=8,s=16,k=8"
for b in dead torus clamp; do run $B 65536 96 3 $b bits auto auto auto auto "auto;$TL"; done
run $B 46336 96 3 dead bits auto auto auto auto "auto;mode=stream"
for b in dead torus clamp; do run $T --device gpu bench life --size 65536 --reps 3 --boundary $b; done
for b in dead torus clamp; do run $B 20000 43 1 $b bits auto auto auto auto "$TL;mode=stream;mode=stream,s=64,k=5"; done
mkdir -p $OUT/cache; for f in /tmp/xc/tiledcl/*.bin; do grep -aq "LIFE_KERNEL=7.*-DS=192 -DK=8" $f && cp $f $OUT/cache/; done
echo "# done +$(( $(date +%s)-t0 )) s" >> $L
