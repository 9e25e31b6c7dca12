#!/bin/bash
# Session 14: the final build (split last wave, the 2560 and 3072 rows) against the build before it
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm XDG_CACHE_HOME=/tmp/xc
T=$PWD/build-dev/tiledcl
O=$PWD/.xfer/old14/tiledcl
L=$OUT/s14f.log
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
step 60 old --size 8192
step 60 new --size 8192
for a in "--size 3000" "--size 3072" "--size 2300" "--size 2500" "--size 2800" "--size 1500" "--shape 2000x3000x1000" "--shape 3000x2000x5000"; do
  step 60 old $a
  step 60 new $a
done
for a in "--size 2300" "--size 2500" "--size 2800"; do
  step 60 new $a --params "$LARGE"
  step 60 new $a --params "$H2560"
done
step 120 old --size 8192 --type f64 --reps 5
step 120 new --size 8192 --type f64 --reps 5
step 60 old --size 4096 --type i64 --reps 5
step 60 new --size 4096 --type i64 --reps 5
step 60 old --size 8192
step 60 new --size 8192
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
