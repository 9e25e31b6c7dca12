#!/bin/bash
# Session 13: the tile in registers, edge loops split; rows a work-item; sizes 8192..65536
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
B=./build-dev/bench/bench_life
T=$PWD/build-dev/tiledcl
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s13b.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
r() { echo "mode=tiles,reg=1,lx=32,k=8,flow=1,$1"; }
for b in dead torus clamp; do
step 100 $B 16384 96 5 $b bits auto auto auto auto "auto;$(r ly=8,s=32);$(r ly=8,s=28);$(r ly=8,s=24);$(r ly=8,s=20);$(r ly=4,s=48);$(r ly=8,s=24,regs=168);auto"
done
step 100 $B 16384 1000 3 dead bits auto auto auto auto "auto;$(r ly=8,s=32);$(r ly=8,s=24)"
for n in 8192 12288 24576 32768 46336; do
step 100 $B $n 96 5 dead bits auto auto auto auto "auto;$(r ly=8,s=32);$(r ly=8,s=24);$(r ly=4,s=32)"
done
for b in dead torus clamp; do
step 100 $B 65536 96 3 $b bits auto auto auto auto "auto;$(r ly=8,s=32);$(r ly=8,s=24)"
done
step 100 $B 4096 96 5 dead bits auto auto auto auto "auto;$(r ly=8,s=32);$(r ly=4,s=32);$(r ly=4,s=16)"
step 100 $B 6007 77 1 torus bits auto auto auto auto "bytes;$(r ly=8,s=24)"
step 100 $B 3001 50 1 clamp bits auto auto auto auto "bytes;$(r ly=8,s=24)"
step 100 $B 3001 50 1 dead bits auto auto auto auto "bytes;$(r ly=8,s=24)"
mkdir -p $OUT/cache; find /tmp/xc -type f -size -3M -newer $L -exec cp {} $OUT/cache/ \; 2>/dev/null; ls $OUT/cache | wc -l >>$L
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
