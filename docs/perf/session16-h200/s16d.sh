#!/bin/bash
# Session 16: how fast the FP32 kernel's multiply-adds run without its slab traffic: PROBE=1 (slab 0's multiply-adds again and again: no global loads, no stores, no barriers) and PROBE=2 (loads and stores, no barriers: wrong results), against the kernel, alternating
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm XDG_CACHE_HOME=/tmp/xc TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s16d.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 500 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim bash -c '"$@"' _ "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
b() { TILEDCL_MM_EXTRA="$1" $PWD/build-dev/bench/bench_matmul -r 20 -k gpu $2 2>&1 | sed -E "s|^|[$1] |"; }
export -f b
{ nvidia-smi -L; uptime; } >>$L 2>&1
for n in 8192 16384 8192; do
  step 60 b "" $n
  step 60 b "-DPROBE=1" $n
  step 60 b "-DPROBE=2" $n
done
step 60 b "" 8192
step 40 $PWD/build-dev/tiledcl --device gpu bench matmul --reps 20 --copy-size 512 --size 8192
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
