#!/bin/bash
# Session 13: the tile in registers as the default: tiledcl bench life with the ceilings, CLI outputs against bytes / the old tiles, the PTX
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm
T=$PWD/build-dev/tiledcl
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s13c.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
XDG_CACHE_HOME=$OUT/xc step 60 $T -v --device $P:0 life --size 16384x16384 --gens 96 -o /dev/shm/x.npy
export XDG_CACHE_HOME=/tmp/xc
for b in dead torus clamp; do step 90 $T --device $P:0 bench life --size 16384 --reps 5 --boundary $b; done
step 60 $T --device $P:0 bench life --size 16384 --reps 3 --gens 1000
step 90 $T --device $P:0 bench life --size 65536 --reps 3
cd /dev/shm
c() { step 120 $T --device $P:0 life "$@" -o a.npy; step 120 $T --device $P:0 life "$@" --kernel bytes -o b.npy; step 20 cmp a.npy b.npy; }
c --size 16384x16384 --gens 1000 --boundary torus
c --size 20011x12345 --gens 333 --boundary clamp
c --size 20011x12345 --gens 333 --boundary torus
c --size 16400x16384 --gens 77 --boundary dead
c --size 16384x16384 --gens 50 --boundary clamp --rule B36/S23
c --size 16384x16384 --gens 50 --boundary dead --rule B3/S1234
step 60 $T --device $P:0 life --size 16384x16384 --gens 1000 --boundary dead -o a.npy
step 60 $T --device $P:0 life --size 16384x16384 --gens 1000 --boundary dead --tile 128 -o b.npy
step 20 cmp a.npy b.npy
rm -f /dev/shm/*.npy
cd - >/dev/null
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
