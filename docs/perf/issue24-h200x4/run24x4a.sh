#!/bin/bash
# Issue 24 batch A on a 4-GPU host: local transport (--device gpu:all, and a list of 2)
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=./build-dev/tiledcl
L=$OUT/scale4a.log
t0=$(date +%s)
step() { # step LIMIT_S command...
  local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 575 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" | tee -a $L
  timeout $lim "$@" >>$L 2>&1; echo "rc=$?" >>$L
}
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=name,power.limit,clocks.max.sm,memory.total --format=csv; nvidia-smi topo -m; nproc; free -g | head -2; ls /etc/OpenCL/vendors; } >$OUT/machine.log 2>&1
$T devices >>$OUT/machine.log 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
TWO="$P:0,$P:1"
echo "# GPU platform $P; two GPUs = $TWO" >>$L
# life weak, dead: 65536^2 per GPU -> 92672^2 on 2, 131072^2 on 4 (also strong 131072^2, 1 vs 4)
step 60 $T -v --device $TWO bench life --size 92672 --gens 1000 --reps 3
step 100 $T -v --device gpu:all bench life --size 131072 --gens 1000 --reps 3
step 60 $T -v --device $TWO bench life --size 92672 --gens 1000 --reps 3 --boundary torus
step 100 $T -v --device gpu:all bench life --size 131072 --gens 1000 --reps 3 --boundary torus
# life strong 131072^2 on 2
step 90 $T -v --device $TWO bench life --size 131072 --gens 1000 --reps 3
# matmul FP32 weak: 16384 on 1, 23168 on 2, 32768 on 4 (also strong 32768: 1 vs 4, 1 vs 2)
step 30 $T --device gpu bench matmul --size 16384 --reps 5
step 45 $T -v --device $TWO bench matmul --size 23168 --reps 3
step 60 $T -v --device gpu:all bench matmul --size 32768 --reps 2
step 60 $T -v --device $TWO bench matmul --size 32768 --reps 2
# tile-avg 65536^2 --tile 4
step 45 $T -v --device gpu:all bench tile-avg --size 65536 --tile 4 --reps 3
step 45 $T -v --device $TWO bench tile-avg --size 65536 --tile 4 --reps 3
# 3xtf32 32768 with the plan's uploads through the pinned ring (new)
step 90 $T -v --device gpu:all bench matmul --size 32768 --reps 1 --warmup 0 --precision 3xtf32
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
