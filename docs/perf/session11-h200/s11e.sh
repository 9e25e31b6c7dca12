#!/bin/bash
# Session 11: the default life plan with life_flow on NVIDIA: bench with ceilings, CLI outputs against the tiles launched step by step, two MPI ranks on one GPU, e2e
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=$PWD/build-dev/tiledcl
L=$OUT/s11e.log
t0=$(date +%s)
step() { local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 580 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" 2>&1 | grep -v "warnings generated" >>$L; echo "rc=${PIPESTATUS[0]}" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
for b in dead torus clamp; do step 90 $T -v --device $P:0 bench life --size 16384 --reps 5 --boundary $b; done
step 60 $T --device $P:0 bench life --size 8192 --reps 5
step 60 $T --device $P:0 bench life --size 32768 --reps 3
step 90 $T --device $P:0 bench life --size 65536 --reps 3
cd /dev/shm
step 60 $T -v --device $P:0 life --size 16384x16384 --gens 1000 --boundary torus -o flow.npy
step 60 $T -v --device $P:0 life --size 16384x16384 --gens 1000 --boundary torus --tile 128 -o tiles.npy
step 20 cmp flow.npy tiles.npy
step 60 $T --device $P:0 life --size 20011x12345 --gens 333 --boundary clamp -o flow2.npy
step 60 $T --device $P:0 life --size 20011x12345 --gens 333 --boundary clamp --tile 128 -o tiles2.npy
step 20 cmp flow2.npy tiles2.npy
step 60 $T --device $P:0 life --size 20011x12345 --gens 333 --boundary torus -o flow3.npy
step 60 $T --device $P:0 life --size 20011x12345 --gens 333 --boundary torus --tile 128 -o tiles3.npy
step 20 cmp flow3.npy tiles3.npy
rm -f /dev/shm/*.npy
cd - >/dev/null
. .xfer/mpienv.sh
step 90 mpirun.openmpi --allow-run-as-root -n 2 ./build-mpi/tiledcl --device $P:0 bench life --size 16384 --gens 1000 --reps 5
step 150 $T --device $P:0 bench e2e --reps 3 --no-numpy
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
