#!/bin/bash
# Session 13, the build after the review (initial_cfg returns the registers' shape early): the plans chosen and their rates
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=$PWD/build-dev/tiledcl
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s13j.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
for b in dead torus clamp; do step 60 $T --device $P:0 bench life --size 16384 --reps 5 --boundary $b; done
for n in 8192 12288 65536; do step 60 $T --device $P:0 bench life --size $n --reps 3; done
step 60 $T --device $P:0 bench life --size 16384 --reps 3 --rule B2/S34H
step 60 $T --device $P:0 bench life --size 16384 --reps 3 --depth 16
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
