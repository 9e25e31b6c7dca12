#!/bin/bash
# Session 12, final build: tiledcl bench life with the ceilings (searched rule gates), and the life_flow program's PTX for SASS counts
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=$PWD/build-dev/tiledcl
L=$OUT/s12h.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
for b in dead torus clamp; do step 90 $T --device $P:0 bench life --size 16384 --reps 5 --boundary $b; done
for b in dead torus clamp; do step 90 $T --device $P:0 bench life --size 65536 --reps 3 --boundary $b; done
mkdir -p $OUT/ptx
XDG_CACHE_HOME=$OUT/ptx step 60 $T -v --device $P:0 life --size 16384x16384 --gens 96 -o /dev/shm/x.npy
rm -f /dev/shm/x.npy
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
