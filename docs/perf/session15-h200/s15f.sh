#!/bin/bash
# Session 15: FP32 matmul 8192^3 with extra build options for matmul.cl (TILEDCL_MM_EXTRA, a switch of this run's build), each against the built-in, alternating
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm XDG_CACHE_HOME=/tmp/xc TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s15f.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 400 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim bash -c '"$@"' _ "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
b() { TILEDCL_MM_EXTRA="$1" $PWD/build-dev/tiledcl --device gpu bench matmul --reps 20 --copy-size 512 --size 8192 | grep -E "^matmul" | sed -E "s/^/[$1] /; s/, [0-9.]+% of copy.*//"; }
export -f b
{ nvidia-smi -L; uptime; } >>$L 2>&1
for v in "-cl-nv-maxrregcount=255" "-cl-nv-maxrregcount=224" "-cl-nv-opt-level=2" "-cl-fast-relaxed-math" "-DUNROLL=0" "-cl-nv-maxrregcount=248"; do
  step 40 b ""
  step 40 b "$v"
done
step 40 b ""
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
