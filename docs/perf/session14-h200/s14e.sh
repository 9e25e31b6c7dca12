#!/bin/bash
# Session 14: the split last wave with TAILS built only where a wave is split; against the build before it
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm
T=$PWD/build-dev/tiledcl
O=$PWD/.xfer/old14/tiledcl
L=$OUT/s14e.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim bash -c '"$@"' _ "$@" 2>&1 | grep -v "warnings generated" | grep "^matmul" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
new() { TILEDCL_KERNEL_PATH=$PWD/build-dev/cl $T --device gpu bench matmul --reps 20 --copy-size 512 "$@"; }
old() { TILEDCL_KERNEL_PATH=$PWD/.xfer/old14/cl $O --device gpu bench matmul --reps 20 --copy-size 512 "$@"; }
export -f new old; export T O
{ nvidia-smi -L; uptime; } >>$L 2>&1
LARGE="bm=128 bn=256 bk=16 tm=8 tn=16 wx=8 wy=4 nbuf=1 aload=1 atrans=2 ksplit=1"
H3072="bm=64 bn=128 bk=16 tm=8 tn=8 wx=8 wy=4 nbuf=2 aload=1 atrans=2 ksplit=1"
# the programs' PTX, for ptxas -v here
export XDG_CACHE_HOME=$OUT/xc
step 60 new --size 8192 --reps 3
step 60 new --size 8192 --reps 3 --params "$LARGE tail=1"
step 60 new --size 3000 --reps 3 --params "$H3072"
step 60 new --size 3000 --reps 3 --params "$H3072 tail=1"
export XDG_CACHE_HOME=$OUT/xo
step 60 old --size 8192 --reps 3
step 60 old --size 3000 --reps 3
export XDG_CACHE_HOME=/tmp/xc
for i in 1 2; do
  step 60 old --size 8192
  step 60 new --size 8192
  step 60 new --size 8192 --params "$LARGE tail=1"
done
for a in "--size 3000" "--size 3072" "--size 2500" "--size 2048" "--size 1500" "--shape 2000x3000x1000" "--shape 3000x2000x5000" "--size 4097" "--size 6000" "--size 5000" "--size 16384" "--size 12000" "--size 1024" "--size 256"; do
  step 60 old $a
  step 60 new $a
done
for a in "--size 3000" "--shape 2000x3000x1000"; do
  step 60 new $a --params "$H3072"
  step 60 new $a --params "$H3072 tail=1"
done
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
