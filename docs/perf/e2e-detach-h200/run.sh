#!/bin/bash
# Issue 22: bench e2e (each run on a quiet device: helpers awaited) this build against the one before, alternating
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=$PWD/build-dev/tiledcl
O=$PWD/.xfer/old/tiledcl
L=$OUT/e2e-detach.log
t0=$(date +%s)
{ nvidia-smi -L; uptime; } >>$L 2>&1
step() { echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout 200 "$@" >>$L 2>&1; echo "rc=$?" >>$L; }
for i in 1 2 3; do
  step $T bench e2e --reps 5 --no-numpy --exe $O
  step $T bench e2e --reps 5 --no-numpy
done
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
