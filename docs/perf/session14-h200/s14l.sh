#!/bin/bash
# Session 14: whole tiles take all of K in the builds with pieces (TAILS), against the kept build (mid14), alternating
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm XDG_CACHE_HOME=/tmp/xc
L=$OUT/s14l.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 200 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim bash -c '"$@"' _ "$@" 2>&1 | grep -v "warnings generated" | grep "^matmul" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
new() { TILEDCL_KERNEL_PATH=$PWD/build-dev/cl $PWD/build-dev/tiledcl --device gpu bench matmul --reps 20 --copy-size 512 "$@"; }
mid() { TILEDCL_KERNEL_PATH=$PWD/.xfer/mid14/cl $PWD/.xfer/mid14/tiledcl --device gpu bench matmul --reps 20 --copy-size 512 "$@"; }
export -f new mid
{ nvidia-smi -L; uptime; } >>$L 2>&1
for a in "--size 8192" "--size 2500" "--size 6000" "--size 3000" "--size 4097" "--size 8192"; do
  step 30 mid $a
  step 30 new $a
done
step 40 mid --size 8192 --type f64 --reps 5
step 40 new --size 8192 --type f64 --reps 5
TILEDCL_DEVICE=gpu TILEDCL_KERNEL_PATH=$PWD/build-dev/cl timeout 60 ./build-dev/tests/test_matmul >>$L 2>&1; echo "test_matmul rc=$?" >>$L
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
