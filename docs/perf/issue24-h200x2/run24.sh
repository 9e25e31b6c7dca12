#!/bin/bash
# Issue 24 batch on a 2-GPU host: local transport (--device gpu:all)
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=./build-dev/tiledcl
L=$OUT/scale2.log
t0=$(date +%s)
step() { # step LIMIT_S command...
  local lim=$1; shift
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" | tee -a $L
  timeout $lim "$@" >>$L 2>&1; echo "rc=$?" >>$L
}
{ date -u; nvidia-smi -L; nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv; nproc; free -g | head -2; ls /etc/OpenCL/vendors; } >$OUT/machine.log 2>&1
step 60 $T devices
# life weak: 65536^2 per GPU (2 GPUs: 92672^2 = 65536^2 x 2.0)
step 60 $T --device gpu bench life --size 65536 --gens 1000 --reps 3
step 90 $T -v --device gpu:all bench life --size 92672 --gens 1000 --reps 3
step 60 $T --device gpu bench life --size 65536 --gens 1000 --reps 3 --boundary torus
step 90 $T -v --device gpu:all bench life --size 92672 --gens 1000 --reps 3 --boundary torus
# matmul FP32 weak: 16384 on 1, 23168 on 2
step 40 $T --device gpu bench matmul --size 16384 --reps 5
step 60 $T -v --device gpu:all bench matmul --size 23168 --reps 3
# matmul strong 32768: fp32 and 3xtf32
step 90 $T -v --device gpu:all bench matmul --size 32768 --reps 2
step 90 $T -v --device gpu:all bench matmul --size 32768 --reps 2 --precision 3xtf32
# tile-avg 65536^2 --tile 4
step 90 $T -v --device gpu:all bench tile-avg --size 65536 --tile 4 --reps 3
# life strong 131072^2
step 120 $T -v --device gpu:all bench life --size 131072 --gens 200 --reps 2
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
