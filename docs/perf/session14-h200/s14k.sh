#!/bin/bash
# Session 14: 512x16384x512 (32x32 tiles, nothing split) and 8192^3 whole waves: before the session, before the ksplit merge, after it
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm
L=$OUT/s14k.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 200 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim bash -c '"$@"' _ "$@" 2>&1 | grep -v "warnings generated" | grep "^matmul" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
new() { XDG_CACHE_HOME=${NOPTX:-$OUT/xn} TILEDCL_KERNEL_PATH=$PWD/build-dev/cl $PWD/build-dev/tiledcl --device gpu bench matmul --reps 20 --copy-size 512 "$@"; }
mid() { XDG_CACHE_HOME=${NOPTX:-$OUT/xm} TILEDCL_KERNEL_PATH=$PWD/.xfer/mid14/cl $PWD/.xfer/mid14/tiledcl --device gpu bench matmul --reps 20 --copy-size 512 "$@"; }
old() { XDG_CACHE_HOME=${NOPTX:-$OUT/xo} TILEDCL_KERNEL_PATH=$PWD/.xfer/old14/cl $PWD/.xfer/old14/tiledcl --device gpu bench matmul --reps 20 --copy-size 512 "$@"; }
export -f new old mid
{ nvidia-smi -L; uptime; } >>$L 2>&1
LARGE="bm=128 bn=256 bk=16 tm=8 tn=16 wx=8 wy=4 nbuf=1 aload=1 atrans=2 ksplit=1"
for i in 1 2; do
  step 30 old --shape 512x16384x512
  step 30 mid --shape 512x16384x512
  step 30 new --shape 512x16384x512
done
export NOPTX=/tmp/xc
step 30 old --size 8192
step 30 mid --size 8192 --params "$LARGE tail=1"
step 30 new --size 8192 --params "$LARGE tail=1"
rm -rf $OUT/xo/pocl $OUT/xm/pocl $OUT/xn/pocl; for f in $(find $OUT/xo $OUT/xm $OUT/xn -type f); do grep -q mm_gpu $f || rm $f; done; find $OUT/xo $OUT/xm $OUT/xn -type f >>$L
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
