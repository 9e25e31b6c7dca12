#!/bin/bash
# Session 13: the bits past the row's end in a loop of their own (right-edge tiles of a part last word): bench life, bench_life against the build before, CLI outputs against bytes, the PTX
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm
B=./build-dev/bench/bench_life
T=$PWD/build-dev/tiledcl
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s13g.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
XDG_CACHE_HOME=$OUT/xc step 60 $T -v --device $P:0 life --size 16384x16384 --gens 96 --boundary clamp -o /dev/shm/x.npy
export XDG_CACHE_HOME=/tmp/xc
for b in dead torus clamp; do step 60 $T --device $P:0 bench life --size 16384 --reps 5 --boundary $b; done
for b in dead clamp; do step 60 $B 16400 96 5 $b bits auto auto auto auto "auto;auto"; done
for b in dead clamp; do step 60 $T --device $P:0 bench life --size 65536 --reps 3 --boundary $b; done
cd /dev/shm
c() { step 120 $T --device $P:0 life "$@" -o a.npy; step 120 $T --device $P:0 life "$@" --kernel bytes -o b.npy; step 30 cmp a.npy b.npy; }
c --size 16400x16384 --gens 77 --boundary dead
c --size 16400x16384 --gens 77 --boundary clamp
c --size 20011x12345 --gens 333 --boundary clamp
c --size 16384x16384 --gens 100 --boundary clamp
c --size 16384x16384 --gens 100 --boundary dead --rule B36/S23
rm -f /dev/shm/*.npy
cd - >/dev/null
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
