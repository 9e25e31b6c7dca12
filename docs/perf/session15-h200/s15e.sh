#!/bin/bash
# Session 15: the 3xtf32 wgmma pipeline's tuning aids (TILEDCL_TC_OPTIONS read by tiledcl in this build), each against the built-in, alternating
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm XDG_CACHE_HOME=/tmp/xc TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s15e.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 400 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim bash -c '"$@"' _ "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
b() { TILEDCL_TC_OPTIONS="$1" $PWD/build-dev/tiledcl --device gpu bench matmul --reps 10 --copy-size 512 --precision 3xtf32 --size $2 | grep -E "^matmul" | sed "s/^/[$1] /"; }
export -f b
{ nvidia-smi -L; uptime; } >>$L 2>&1
for v in "-DWG_BK=16" "-DWG_STAGES=3" "-DWG_STAGES=2" "-DWG_KSUB=32" "-DWG_KSUB=8" "-DWG_LAG=0" "-DWG_PRODUCER=0" "-DWG_GROUP_M=8" "-DWG_BK=16 -DWG_KSUB=32"; do
  step 30 b "" 8192
  step 30 b "$v" 8192
done
step 30 b "" 8192
step 30 b "" 4096
step 30 b "-DWG_BK=16" 4096
step 30 b "" 4096
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
