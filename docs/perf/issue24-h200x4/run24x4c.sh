#!/bin/bash
# Issue 24 batch C on a 4-GPU host, after: shards make their matmul plans at once; matmul --shards; life halo up to 256
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=./build-dev/tiledcl
L=$OUT/scale4c.log
t0=$(date +%s)
step() { # step LIMIT_S command...
  local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 585 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" | tee -a $L
  timeout $lim "$@" >>$L 2>&1; echo "rc=$?" >>$L
}
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
TWO="$P:0,$P:1"
nvidia-smi -L >>$L
step 60 $T -v --device gpu:all bench matmul --size 32768 --reps 2
step 60 $T -v --device gpu:all bench matmul --size 32768 --reps 2 --shards 4x1
g22=$(grep -A3 "shards 2x2" $L | grep -m1 -o "shards 2x2: *[0-9.]*" | awk '{print $3}')
g41=$(grep -o "shards 4x1: *[0-9.]*" $L | awk '{print $3}')
G=2x2; awk -v a="$g22" -v b="$g41" 'BEGIN{exit !(b>0 && b<a)}' && G=4x1
echo "# 32768: 2x2 $g22 ms, 4x1 $g41 ms: grid $G for what follows" >>$L
step 45 $T -v --device $TWO bench matmul --size 23168 --reps 3
step 60 $T -v --device $TWO bench matmul --size 32768 --reps 2
step 120 $T -v --device gpu:all bench matmul --size 65536 --reps 1 --warmup 0 --shards $G
step 120 $T -v --device gpu:all bench matmul --size 65536 --reps 1 --warmup 0 --shards $G --precision 3xtf32
step 60 $T -v --device gpu:all bench life --size 131072 --gens 1000 --reps 3
step 60 $T -v --device gpu:all bench life --size 131072 --gens 1000 --reps 3 --boundary torus
step 45 $T -v --device $TWO bench life --size 92672 --gens 1000 --reps 3
step 100 $T --device $P:0 bench e2e --reps 5
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
