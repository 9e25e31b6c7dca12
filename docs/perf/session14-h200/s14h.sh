#!/bin/bash
# Session 14: the final build against the build before it (figures in PERFORMANCE.md)
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm XDG_CACHE_HOME=/tmp/xc
T=$PWD/build-dev/tiledcl
O=$PWD/.xfer/old14/tiledcl
L=$OUT/s14h.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim bash -c '"$@"' _ "$@" 2>&1 | grep -v "warnings generated" | grep "^matmul" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
new() { TILEDCL_KERNEL_PATH=$PWD/build-dev/cl $T --device gpu bench matmul --reps 20 --copy-size 512 "$@"; }
old() { TILEDCL_KERNEL_PATH=$PWD/.xfer/old14/cl $O --device gpu bench matmul --reps 20 --copy-size 512 "$@"; }
export -f new old; export T O
{ nvidia-smi -L; uptime; } >>$L 2>&1
LARGE="bm=128 bn=256 bk=16 tm=8 tn=16 wx=8 wy=4 nbuf=1 aload=1 atrans=2 ksplit=1"
H2560="bm=64 bn=128 bk=16 tm=8 tn=8 wx=8 wy=4 nbuf=2 aload=1 atrans=2 ksplit=1"
for a in "--size 8192" "--size 16384" "--size 12000" "--size 6000" "--size 5000" "--size 4097" "--size 4096" "--size 3000" "--size 2500" "--size 2048" "--size 1700" "--size 1024" "--shape 2000x3000x1000" "--shape 3000x2000x5000" "--size 8192"; do
  step 60 old $a
  step 60 new $a
done
step 120 old --size 8192 --type f64 --reps 5
step 120 new --size 8192 --type f64 --reps 5
step 60 old --size 4096 --type i64 --reps 5
step 60 new --size 4096 --type i64 --reps 5
step 60 new --size 8192 --params "$LARGE tail=1"
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
