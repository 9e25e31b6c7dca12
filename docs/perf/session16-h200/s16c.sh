#!/bin/bash
# Session 16: FP32 matmul with slabs brought by cp.async.bulk into BSTAGES stages on mbarriers (no work-group barrier in the loop), against the built-in, alternating
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm XDG_CACHE_HOME=/tmp/xc TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s16c.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 500 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim bash -c '"$@"' _ "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
P="bm=128 bn=256 tm=8 tn=16 wx=8 wy=4 aload=1 atrans=2 ksplit=1 pad=1 nbuf=2"
# b SIZE [EXTRA BK]
b() { local n=$1 x=$2 k=$3
  if [ -z "$x" ]; then $PWD/build-dev/tiledcl --device gpu bench matmul --reps 20 --copy-size 512 --size $n
  else TILEDCL_MM_EXTRA="$x" $PWD/build-dev/tiledcl --device gpu bench matmul --reps 20 --copy-size 512 --size $n --params "$P bk=$k"; fi 2>&1 | grep -E "^matmul|rror|ismatch|fail" | sed -E "s/, [0-9.]+% of copy.*//; s|^|[$x bk=$k] |"; }
export -f b; export P
{ nvidia-smi -L; uptime; } >>$L 2>&1
step 40 b 8192
step 40 b 8192 "-DBULK=1 -DBSTAGES=3 -DBLAG=1" 8
step 40 b 8192
step 40 b 8192 "-DBULK=1 -DBSTAGES=3 -DBLAG=0" 8
step 40 b 8192
step 40 b 8192 "-DBULK=1 -DBSTAGES=7 -DBLAG=1" 4
step 40 b 8192
step 40 b 8192 "-DBULK=1 -DBSTAGES=6 -DBLAG=0" 4
step 40 b 8192
step 40 b 8192 "-DBULK=1 -DBSTAGES=7 -DBLAG=2" 4
step 40 b 8192
step 40 b 4096 "-DBULK=1 -DBSTAGES=7 -DBLAG=1" 4
step 40 b 4096
mkdir -p $OUT/bins; ls -S /tmp/xc/tiledcl/*.bin | head -8 | xargs -I{} cp {} $OUT/bins/
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
