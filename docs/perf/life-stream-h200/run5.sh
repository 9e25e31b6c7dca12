#!/bin/bash
# life at 65536^2 with life_stream the default there (tiledcl bench, with the ceilings), and tunes
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
B=./build-dev/bench/bench_life
T=./build-dev/tiledcl
L=$OUT/stream5.log
t0=$(date +%s)
{ date -u; nvidia-smi -L; } > $L 2>&1
run() { echo "# (+$(( $(date +%s)-t0 )) s) ${*@Q}" >> $L; timeout 200 "$@" >> $L 2>&1; echo "rc=$?" >> $L; }
TL="mode=tiles,lx=16,ly=8,s=16,k=8"
run $B 65536 32 3 dead bits auto auto auto auto "auto;$TL;mode=stream,s=256"
run $B 65536 32 3 clamp bits auto auto auto auto "auto;$TL"
run $B 65536 32 3 torus bits auto auto auto auto "auto;$TL"
run $B 49152 48 3 dead bits auto auto auto auto "auto;$TL;mode=stream,s=192"
run $T --device gpu bench life --size 65536 --gens 32 --reps 3
run $T --device gpu bench life --size 65536 --gens 32 --reps 3 --boundary torus
run $T --device gpu bench life --size 65536 --gens 32 --reps 3 --boundary clamp
run $T --device gpu bench life --size 16384 --reps 5
run $T -v --device gpu life --size 65536x65536 --gens 1000 -o /dev/shm/L.npy
echo "# done +$(( $(date +%s)-t0 )) s" >> $L
for b in dead torus clamp; do run $B 20000 43 1 $b bits auto auto auto auto "$TL;mode=stream,s=100;mode=stream,s=64,k=5"; done
echo "# done2 +$(( $(date +%s)-t0 )) s" >> $L
