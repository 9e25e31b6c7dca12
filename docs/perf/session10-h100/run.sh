#!/bin/bash
# Session 10: life's halo measured over rounds of its own depth: two MPI ranks on one H200, and two shards of one process on it
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=./build-dev/tiledcl
L=$OUT/halo10.log
t0=$(date +%s)
step() { local lim=$1; shift; echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" >>$L 2>&1; echo "rc=$?" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
. .xfer/mpienv.sh
M="mpirun.openmpi --allow-run-as-root"
for i in 1 2 3; do
  step 60 $M -n 2 ./build-mpi/tiledcl -v --device $P:0 bench life --size 16384 --gens 1000 --reps 5
done
step 60 $M -n 2 ./build-mpi/tiledcl --device $P:0 bench life --size 16384 --gens 4000 --reps 3
step 60 $T -v --device $P:0,$P:0 bench life --size 16384 --gens 1000 --reps 5
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
