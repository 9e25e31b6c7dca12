#!/bin/bash
# Issue 23: two MPI ranks on one H200 against one rank: matmul in bands (fp32, 3xtf32), tile-avg and life, each rank holding its inputs
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=./build-dev/tiledcl
L=$OUT/mpi2.log
t0=$(date +%s)
step() { # step LIMIT_S command...
  local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 560 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L
  timeout $lim "$@" >>$L 2>&1; echo "rc=$?" >>$L
}
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
. .xfer/mpienv.sh
M="mpirun.openmpi --allow-run-as-root"
for i in 1 2; do
  step 90 $M -n 2 ./build-mpi/tiledcl -v --device $P:0 bench matmul --size 8192 --reps 5
  step 60 $M -n 2 ./build-mpi/tiledcl -v --device $P:0 bench tile-avg --size 16384 --tile 4 --reps 5
done
step 90 $M -n 2 ./build-mpi/tiledcl --device $P:0 bench matmul --size 8192 --reps 5 --precision 3xtf32
step 90 $M -n 2 ./build-mpi/tiledcl --device $P:0 bench matmul --size 16384 --reps 3
step 60 $M -n 2 ./build-mpi/tiledcl --device $P:0 bench life --size 16384 --gens 1000 --reps 5
step 60 $M -n 2 ./build-mpi/tiledcl --device $P:0 bench life --size 16384 --gens 4000 --reps 3
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
