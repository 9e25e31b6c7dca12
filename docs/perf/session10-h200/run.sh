#!/bin/bash
# Session 10 final build: bench e2e twice (one H200), two MPI ranks on it (matmul bands, tile-avg, life), and a half life grid alone
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=./build-dev/tiledcl
L=$OUT/final10.log
t0=$(date +%s)
step() { # step LIMIT_S command...
  local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 560 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L
  timeout $lim "$@" >>$L 2>&1; echo "rc=$?" >>$L
}
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
step 120 $T bench e2e --reps 5 --no-numpy
step 120 $T bench e2e --reps 5 --no-numpy
step 60 $T -v --device $P:0 life --size 16384x16384 --gens 1000 -o /dev/shm/l.npy
step 60 $T -v --device $P:0 life --size 16384x8448 --gens 1000 -o /dev/shm/l.npy
step 60 $T -v --device $P:0 life --size 16384x8192 --gens 1000 -o /dev/shm/l.npy
. .xfer/mpienv.sh
M="mpirun.openmpi --allow-run-as-root"
step 90 $M -n 2 ./build-mpi/tiledcl --device $P:0 bench matmul --size 8192 --reps 5
step 90 $M -n 2 ./build-mpi/tiledcl --device $P:0 bench matmul --size 8192 --reps 5 --precision 3xtf32
step 60 $M -n 2 ./build-mpi/tiledcl --device $P:0 bench tile-avg --size 16384 --tile 4 --reps 5
step 60 $M -n 2 ./build-mpi/tiledcl -v --device $P:0 bench life --size 16384 --gens 1000 --reps 5
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
