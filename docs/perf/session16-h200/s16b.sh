#!/bin/bash
# Session 16: FP32 matmul with the k loop of a slab unrolled KUNROLL times instead of fully (code size against the instruction cache), against the built-in, alternating
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm XDG_CACHE_HOME=/tmp/xc
L=$OUT/s16b.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 500 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim bash -c '"$@"' _ "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
P="bm=128 bn=256 tm=8 tn=16 wx=8 wy=4 aload=1 atrans=2 ksplit=1"
# b CLDIR SIZE [PARAMS]
b() { local d=$1 n=$2; shift 2; export TILEDCL_KERNEL_PATH=$PWD/$d
  if [ -z "$1" ]; then $PWD/build-dev/tiledcl --device gpu bench matmul --reps 20 --copy-size 512 --size $n; else $PWD/build-dev/tiledcl --device gpu bench matmul --reps 20 --copy-size 512 --size $n --params "$P $*"; fi | grep -E "^matmul|rror" | sed -E "s/, [0-9.]+% of copy.*//; s|^|[$d] |"; }
export -f b; export P
{ nvidia-smi -L; uptime; } >>$L 2>&1
for d in .xfer/clk1 .xfer/clk2 .xfer/clk4 .xfer/clk8; do
  step 40 b build-dev/cl 8192
  step 40 b $d 8192
done
step 40 b build-dev/cl 8192
for d in .xfer/clk2 .xfer/clk4; do
  step 40 b $d 8192 bk=24 nbuf=1
  step 40 b $d 8192 bk=32 nbuf=1 pad=1
  step 40 b $d 8192 bk=16 nbuf=2 pad=1
  step 40 b $d 8192 bk=8 nbuf=2
done
step 40 b build-dev/cl 8192
step 60 b build-dev/cl 16384
step 60 b .xfer/clk2 16384
step 60 b .xfer/clk4 16384
step 60 b build-dev/cl 16384
mkdir -p $OUT/bins; ls -S /tmp/xc/tiledcl/*.bin | head -6 | xargs -I{} cp {} $OUT/bins/
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
