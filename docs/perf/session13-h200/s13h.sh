#!/bin/bash
# Session 13: the current build (REG_UNROLL, three loops) against variant B (the bits past the row's end only in the top/bottom loop, where right-edge tiles of a part last word then go), alternating; the PTX of both
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm
B=./build-dev/bench/bench_life
T=$PWD/build-dev/tiledcl
A=$PWD/build-dev/cl; V=$PWD/.xfer/clB
L=$OUT/s13h.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
for k in A V; do export TILEDCL_KERNEL_PATH=${!k}; echo "# kernels $k: $TILEDCL_KERNEL_PATH" >>$L
  XDG_CACHE_HOME=$OUT/xc$k step 60 $T --device $P:0 life --size 16384x16384 --gens 96 --boundary clamp -o /dev/shm/x.npy; done
export XDG_CACHE_HOME=/tmp/xc
for r in 1 2; do for k in A V; do export TILEDCL_KERNEL_PATH=${!k}; echo "# kernels $k" >>$L
  for b in dead torus clamp; do step 60 $T --device $P:0 bench life --size 16384 --reps 5 --boundary $b; done
  step 60 $B 16400 96 5 clamp bits auto auto auto auto "auto"
done; done
export TILEDCL_KERNEL_PATH=$V
cd /dev/shm
c() { step 120 $T --device $P:0 life "$@" -o a.npy; step 120 $T --device $P:0 life "$@" --kernel bytes -o b.npy; step 30 cmp a.npy b.npy; }
c --size 16400x16384 --gens 77 --boundary clamp
c --size 20011x12345 --gens 333 --boundary dead
rm -f /dev/shm/*.npy
cd - >/dev/null
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
