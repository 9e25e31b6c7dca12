#!/bin/bash
# Issue 22: bench e2e on one H200, this build against the build before (the product's space reserved early), alternating
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=./build-dev/tiledcl
L=$OUT/e2e2.log
t0=$(date +%s)
step() { echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout 200 "$@" >>$L 2>&1; echo "rc=$?" >>$L; }
{ nvidia-smi -L; uptime; } >>$L
for i in 1 2 3; do
  step $T bench e2e --reps 5 --no-numpy --exe $PWD/.xfer/old/tiledcl
  step $T bench e2e --reps 5 --no-numpy
done
dd if=/dev/urandom of=/dev/shm/x.bin bs=1M count=16 2>/dev/null
python3 - <<'PY' 2>/dev/null || true
PY
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
