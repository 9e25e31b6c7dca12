#!/bin/bash
# Session 13: the tile in registers in shards: two shards and two MPI ranks on one GPU at 32768^2 (halves of 25 tiles a multiprocessor), the grids compared with one shard's
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=$PWD/build-dev/tiledcl
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s13i.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated\|pmix\|Perhaps\|dlopen" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
step 90 $T -v --device $P:0,$P:0 bench life --size 32768 --gens 1000 --reps 3
step 90 $T -v --device $P:0,$P:0 bench life --size 32768 --gens 333 --reps 3 --boundary clamp
. .xfer/mpienv.sh
step 90 mpirun.openmpi --allow-run-as-root -n 2 ./build-mpi/tiledcl -v --device $P:0 bench life --size 32768 --gens 1000 --reps 3 --boundary torus
cd /dev/shm
step 90 mpirun.openmpi --allow-run-as-root -n 2 $OLDPWD/build-mpi/tiledcl --device $P:0 life --size 30011x20011 --gens 301 --boundary clamp -o m.npy
step 90 $T --device $P:0 life --size 30011x20011 --gens 301 --boundary clamp --kernel bytes -o b.npy
step 20 cmp m.npy b.npy
rm -f /dev/shm/*.npy
cd - >/dev/null
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
