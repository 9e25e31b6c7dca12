#!/bin/bash
# Session 13: the tile in registers: 65536^2 against life_stream, two MPI ranks and two shards on one GPU, bench e2e
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
B=./build-dev/bench/bench_life
T=$PWD/build-dev/tiledcl
export TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s13d.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated\|pmix\|Perhaps\|dlopen" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
r() { echo "mode=tiles,reg=1,lx=32,k=8,flow=1,$1"; }
for b in dead torus clamp; do
step 100 $B 65536 96 3 $b bits auto auto auto auto "auto;$(r ly=8,s=24);auto;$(r ly=8,s=24)"
done
step 100 $B 65536 100 3 dead bits auto auto auto auto "auto;$(r ly=8,s=24)"
step 60 $T --device $P:0,$P:0 bench life --size 16384 --gens 1000 --reps 5
. .xfer/mpienv.sh
for i in 1 2; do step 90 mpirun.openmpi --allow-run-as-root -n 2 ./build-mpi/tiledcl --device $P:0 bench life --size 16384 --gens 1000 --reps 5; done
cd /dev/shm
step 60 mpirun.openmpi --allow-run-as-root -n 2 $OLDPWD/build-mpi/tiledcl --device $P:0 life --size 16384x16384 --gens 1000 --boundary torus -o m.npy
step 60 $T --device $P:0 life --size 16384x16384 --gens 1000 --boundary torus --kernel bytes -o b.npy
step 20 cmp m.npy b.npy
rm -f /dev/shm/*.npy
cd - >/dev/null
step 200 $T --device $P:0 bench e2e --reps 3 --no-numpy
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
