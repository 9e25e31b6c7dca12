#!/bin/bash
# Session 14: the split last wave, pieces launched after the whole tiles in one launch, FP32 matmul
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
export T=$PWD/build-dev/tiledcl TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s14c.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" | grep "^matmul" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
LARGE="bm=128 bn=256 bk=16 tm=8 tn=16 wx=8 wy=4 nbuf=1 aload=1 atrans=2 ksplit=1"
for n in 6000 8192 2500 4097 3000 5000 7000 9000 16384 12000; do
  step 60 $T --device gpu bench matmul --reps 20 --copy-size 512 --size $n
  for s in 1 3 5 9 16 1; do
    step 60 $T --device gpu bench matmul --reps 20 --copy-size 512 --size $n --params "$LARGE tail=$s"
  done
done
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
