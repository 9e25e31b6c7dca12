#!/bin/bash
# Session 15: 3xtf32's cross terms in f16 where the range allows (decided on the device), against the build before (mid14), alternating
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm XDG_CACHE_HOME=/tmp/xc
L=$OUT/s15c.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 500 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim bash -c '"$@"' _ "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
new() { TILEDCL_KERNEL_PATH=$PWD/build-dev/cl $PWD/build-dev/tiledcl --device gpu bench matmul --reps 10 --copy-size 512 "$@" | grep -E "^matmul"; }
old() { TILEDCL_KERNEL_PATH=$PWD/.xfer/mid14/cl $PWD/.xfer/mid14/tiledcl --device gpu bench matmul --reps 10 --copy-size 512 "$@" | grep -E "^matmul"; }
t() { TILEDCL_DEVICE=gpu TILEDCL_KERNEL_PATH=$PWD/build-dev/cl "$@"; }
export -f new old t
{ nvidia-smi -L; uptime; } >>$L 2>&1
step 90 t ./build-dev/tests/test_matmul_tc
step 90 t env TILEDCL_TC_OPTIONS=-DWGMMA=1 ./build-dev/tests/test_matmul_tc
for i in 1 2 3; do
  step 30 old --size 8192 --precision 3xtf32
  step 30 new --size 8192 --precision 3xtf32
done
for i in 1 2; do
  step 30 old --size 4096 --precision 3xtf32
  step 30 new --size 4096 --precision 3xtf32
  step 30 old --size 8192 --precision tf32
  step 30 new --size 8192 --precision tf32
done
step 30 old --size 3000 --precision 3xtf32
step 30 new --size 3000 --precision 3xtf32
step 60 t ./build-dev/bench/bench_matmul -r 3 -P 3xtf32 -c 8192
step 120 t ./build-dev/tests/test_matmul
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
