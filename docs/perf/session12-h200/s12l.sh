#!/bin/bash
# Session 12, final build after the review: the searched gates and the rule's own tables (net=1, rules without a network) against the bytes kernel, bench with the ceilings, the gun
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
B=./build-dev/bench/bench_life
T=$PWD/build-dev/tiledcl
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s12l.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
step 120 $B 16384 96 5 dead bits auto auto auto auto "bytes;auto;mode=tiles,lx=16,ly=8,s=18,k=8,flow=1,net=1;mode=stream,net=1;mode=stream"
cd /dev/shm
for r in B36/S23 B3/S1234 B3678/S34678; do
step 60 $T --device $P:0 life --size 9001x7003 --gens 101 --boundary clamp --rule $r -o bits.npy
step 60 $T --device $P:0 life --size 9001x7003 --gens 101 --boundary clamp --rule $r --kernel bytes -o bytes.npy
step 20 cmp bits.npy bytes.npy
done
step 60 $T --device $P:0 life $OLDPWD/data/gosper-gun.rle --size 20000x20000 --gens 3000 -o sparse.npy
step 60 $T --device $P:0 life $OLDPWD/data/gosper-gun.rle --size 20000x20000 --gens 3000 --sparse off -o dense.npy
step 20 cmp sparse.npy dense.npy
rm -f /dev/shm/*.npy
cd - >/dev/null
for b in dead torus clamp; do step 90 $T --device $P:0 bench life --size 16384 --reps 5 --boundary $b; done
step 150 $T --device $P:0 bench life --pattern data/gosper-gun.rle --size 65536 --gens 10000 --reps 3
step 150 $T --device $P:0 bench e2e --reps 3 --no-numpy
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
