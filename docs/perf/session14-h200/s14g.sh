#!/bin/bash
# Session 14: the table's fallback row (64x128 at 2560) where the nearest row's tiles are too few
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm XDG_CACHE_HOME=/tmp/xc
T=$PWD/build-dev/tiledcl
O=$PWD/.xfer/old14/tiledcl
L=$OUT/s14g.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim bash -c '"$@"' _ "$@" 2>&1 | grep -v "warnings generated" | grep "^matmul" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
new() { TILEDCL_KERNEL_PATH=$PWD/build-dev/cl $T --device gpu bench matmul --reps 20 --copy-size 512 "$@"; }
old() { TILEDCL_KERNEL_PATH=$PWD/.xfer/old14/cl $O --device gpu bench matmul --reps 20 --copy-size 512 "$@"; }
export -f new old; export T O
{ nvidia-smi -L; uptime; } >>$L 2>&1
H2560="bm=64 bn=128 bk=16 tm=8 tn=8 wx=8 wy=4 nbuf=2 aload=1 atrans=2 ksplit=1"
H1024="bm=64 bn=64 bk=32 tm=8 tn=4 wx=8 wy=4 nbuf=2 aload=1 atrans=2 ksplit=1"
for a in "--size 1650" "--size 1700" "--size 1790" "--shape 2000x3000x1000" "--shape 1500x4000x1500" "--size 2500" "--size 3000" "--size 8192"; do
  step 60 old $a
  step 60 new $a
done
for a in "--size 1650" "--size 1700" "--size 1790" "--shape 1500x4000x1500"; do
  step 60 new $a --params "$H2560"
  step 60 new $a --params "$H1024"
done
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
