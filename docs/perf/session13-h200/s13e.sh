#!/bin/bash
# Session 13, final build (the tile in registers the default from 5 tiles a multiprocessor, before life_stream): tiledcl bench life with the ceilings, CLI outputs against bytes, the gun
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=$PWD/build-dev/tiledcl
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s13e.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
for b in dead torus clamp; do step 60 $T --device $P:0 bench life --size 16384 --reps 5 --boundary $b; done
for b in dead torus clamp; do step 90 $T --device $P:0 bench life --size 65536 --reps 3 --boundary $b; done
for n in 8192 12288 24576 32768 46336; do step 60 $T --device $P:0 bench life --size $n --reps 5; done
step 90 $T --device $P:0 bench life --pattern data/gosper-gun.rle --size 65536 --gens 10000 --reps 3
cd /dev/shm
c() { step 120 $T --device $P:0 life "$@" -o a.npy; step 120 $T --device $P:0 life "$@" --kernel bytes -o b.npy; step 30 cmp a.npy b.npy; }
c --size 46336x46336 --gens 21 --boundary torus
c --size 40000x30011 --gens 19 --boundary clamp
c --size 30011x40000 --gens 23 --boundary dead --rule B36/S23
rm -f /dev/shm/*.npy
cd - >/dev/null
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
