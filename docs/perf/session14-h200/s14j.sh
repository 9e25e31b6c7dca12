#!/bin/bash
# Session 14: ksplit through the split tiles (one reduce kernel), against the build before the session
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm XDG_CACHE_HOME=/tmp/xc
T=$PWD/build-dev/tiledcl
O=$PWD/.xfer/old14/tiledcl
L=$OUT/s14j.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 280 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim bash -c '"$@"' _ "$@" 2>&1 | grep -v "warnings generated" | grep "^matmul" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
new() { TILEDCL_KERNEL_PATH=$PWD/build-dev/cl $T --device gpu bench matmul --reps 20 --copy-size 512 "$@"; }
old() { TILEDCL_KERNEL_PATH=$PWD/.xfer/old14/cl $O --device gpu bench matmul --reps 20 --copy-size 512 "$@"; }
export -f new old; export T O
{ nvidia-smi -L; uptime; } >>$L 2>&1
LARGE="bm=128 bn=256 bk=16 tm=8 tn=16 wx=8 wy=4 nbuf=1 aload=1 atrans=2 ksplit=1"
H2560="bm=64 bn=128 bk=16 tm=8 tn=8 wx=8 wy=4 nbuf=2 aload=1 atrans=2 ksplit=1"
for a in "--size 8192" "--shape 256x8192x256" "--shape 512x16384x512" "--size 4096" "--size 2500"; do
  step 60 old $a
  step 60 new $a
done
step 60 old --size 3000 --params "$H2560"
step 60 new --size 3000 --params "$H2560 tail=1"
step 60 new --size 8192 --params "$LARGE tail=1"
step 60 old --size 8192
step 60 new --size 8192
TILEDCL_DEVICE=gpu TILEDCL_KERNEL_PATH=$PWD/build-dev/cl timeout 100 ./build-dev/tests/test_matmul >>$L 2>&1; echo "test_matmul rc=$?" >>$L
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
