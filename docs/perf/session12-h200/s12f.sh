#!/bin/bash
# Session 12: the sparse path with the searched gates as lop3 on NVIDIA (gun in 65536^2), the default plans at other sizes, sparse against dense through the CLI
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=$PWD/build-dev/tiledcl
L=$OUT/s12f.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
step 150 $T -v --device $P:0 bench life --pattern data/gosper-gun.rle --size 65536 --gens 10000 --reps 3
for n in 8192 12288; do step 60 $T --device $P:0 bench life --size $n --reps 5; done
step 60 $T --device $P:0 bench life --size 32768 --reps 3
step 60 $T --device $P:0 bench life --size 16384 --gens 1000 --reps 3
cd /dev/shm
step 60 $T --device $P:0 life $OLDPWD/data/gosper-gun.rle --size 20000x20000 --gens 3000 -o sparse.npy
step 60 $T --device $P:0 life $OLDPWD/data/gosper-gun.rle --size 20000x20000 --gens 3000 --sparse off -o dense.npy
step 20 cmp sparse.npy dense.npy
step 60 $T --device $P:0 life --size 20011x12345 --gens 333 --boundary torus -o bits.npy
step 60 $T --device $P:0 life --size 20011x12345 --gens 333 --boundary torus --kernel bytes -o bytes.npy
step 20 cmp bits.npy bytes.npy
rm -f /dev/shm/*.npy
cd - >/dev/null
step 150 $T --device $P:0 bench e2e --reps 3 --no-numpy
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
