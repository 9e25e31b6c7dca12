#!/bin/bash
# Session 16: FP32 matmul at 8192^3 and 16384^3 with longer K slabs (bk 24 and 32, one buffer), each against the built-in, alternating
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm XDG_CACHE_HOME=/tmp/xc TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s16a.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 420 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim bash -c '"$@"' _ "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
P="bm=128 bn=256 tm=8 tn=16 wx=8 wy=4 aload=1 atrans=2 ksplit=1"
b() { local n=$1; shift; if [ -z "$1" ]; then $PWD/build-dev/tiledcl --device gpu bench matmul --reps 20 --copy-size 512 --size $n; else $PWD/build-dev/tiledcl --device gpu bench matmul --reps 20 --copy-size 512 --size $n --params "$P $*"; fi | grep -E "^matmul|rror" | sed -E "s/, [0-9.]+% of copy.*//"; }
export -f b; export P
{ nvidia-smi -L; uptime; } >>$L 2>&1
for v in "bk=24 nbuf=1" "bk=32 nbuf=1 pad=1" "bk=24 nbuf=1 pad=1" "bk=24 nbuf=2 pad=1"; do
  step 40 b 8192 ""
  step 40 b 8192 $v
done
step 40 b 8192 ""
step 60 b 16384 ""
step 60 b 16384 bk=24 nbuf=1
step 60 b 16384 ""
# registers: ptxas info from the kernel cache's PTX is not available here; -v shows the build
step 40 bash -c "$PWD/build-dev/tiledcl -v --device gpu bench matmul --reps 3 --copy-size 64 --size 4096 --params '$P bk=24 nbuf=1' 2>&1 | grep -iE 'regist|spill|build|plan' | head"
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
