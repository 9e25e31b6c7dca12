#!/bin/bash
# Issue 24 re-check on four H200s: life weak scaling with life_stream, now the default for these grids
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=./build-dev/tiledcl
L=$OUT/x4life.log
t0=$(date +%s)
step() { local lim=$1; shift; echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" >>$L 2>&1; echo "rc=$?" >>$L; }
{ date -u; nvidia-smi -L; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
step 200 $T -v --device gpu:all bench life --size 131072 --gens 1000 --reps 3
step 200 $T -v --device gpu:all bench life --size 131072 --gens 1000 --reps 3 --boundary torus
step 150 $T -v --device $P:0,$P:1 bench life --size 92672 --gens 1000 --reps 3
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
