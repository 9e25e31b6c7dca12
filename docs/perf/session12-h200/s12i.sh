#!/bin/bash
# Session 12: the creep skipped (top and bottom row blocks walked from the tile's edge, one warp) against the kernel before (HEAD's cl/life.cl, same host build), alternating
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
B=./build-dev/bench/bench_life
L=$OUT/s12i.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
NEW=$PWD/build-dev/cl OLD=$PWD/.xfer/oldcl
t="mode=tiles,lx=16,ly=8,k=8,flow=1"
for r in 1 2; do for b in dead torus clamp; do for k in OLD NEW; do
  echo "## kernel $k" >>$L
  export TILEDCL_KERNEL_PATH=${!k}; step 60 $B 16384 96 5 $b bits auto auto auto auto "bytes;auto;$t,s=32,dbuf=0"
done; done; done
for k in OLD NEW; do echo "## kernel $k" >>$L; export TILEDCL_KERNEL_PATH=${!k}; step 60 $B 8192 96 5 dead bits auto auto auto auto "auto"; done
for k in OLD NEW; do echo "## kernel $k" >>$L; export TILEDCL_KERNEL_PATH=${!k}; step 90 $B 32768 96 3 dead bits auto auto auto auto "auto"; done
for k in OLD NEW; do echo "## kernel $k" >>$L; export TILEDCL_KERNEL_PATH=${!k}; step 90 $B 20011 43 3 torus bits auto auto auto auto "bytes;auto;$t,s=32,dbuf=0"; done
for k in OLD NEW; do echo "## kernel $k" >>$L; export TILEDCL_KERNEL_PATH=${!k}; step 90 $B 20011 43 3 clamp bits auto auto auto auto "bytes;auto"; done
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
