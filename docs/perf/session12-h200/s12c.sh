#!/bin/bash
# Session 12: the rule in three gates found by search (NET3) against the rule's own four (net=1): bench_life A/B, tiledcl bench with life-peak, a bits-vs-bytes check, the PTX for SASS counts
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
B=./build-dev/bench/bench_life
T=$PWD/build-dev/tiledcl
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s12c.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
f=",k=8,flow=1"
t() { echo "mode=tiles,$1$f"; }
for b in dead torus clamp; do
step 120 $B 16384 96 5 $b bits auto auto auto auto "auto;$(t lx=16,ly=8,s=18,net=1);$(t lx=16,ly=8,s=18);$(t lx=16,ly=8,s=32,dbuf=0,net=1);$(t lx=16,ly=8,s=32,dbuf=0);auto"
done
step 120 $B 65536 96 3 dead bits auto auto auto auto "auto;mode=stream,net=1;auto"
for b in dead torus clamp; do step 90 $T -v --device $P:0 bench life --size 16384 --reps 5 --boundary $b; done
step 90 $T --device $P:0 bench life --size 65536 --reps 3
cd /dev/shm
step 60 $T --device $P:0 life --size 6007x5001 --gens 77 --boundary torus -o bits.npy
step 60 $T --device $P:0 life --size 6007x5001 --gens 77 --boundary torus --kernel bytes -o bytes.npy
step 20 cmp bits.npy bytes.npy
step 60 $T --device $P:0 life --size 3001x2999 --gens 50 --boundary clamp --rule B36/S23 -o bits.npy
step 60 $T --device $P:0 life --size 3001x2999 --gens 50 --boundary clamp --rule B36/S23 --kernel bytes -o bytes.npy
step 20 cmp bits.npy bytes.npy
rm -f /dev/shm/*.npy
cd - >/dev/null
mkdir -p $OUT/cache; find /tmp/xc -type f -size -3M -newer $L -exec cp {} $OUT/cache/ \; 2>/dev/null; ls $OUT/cache | wc -l >>$L
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
