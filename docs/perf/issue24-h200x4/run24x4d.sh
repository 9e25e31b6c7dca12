#!/bin/bash
# Issue 24 batch D on a 4-GPU host: MPI life with the measured halo; 3xtf32 at 65536 downloading in place; 2 ranks on one GPU (issue 23)
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=./build-dev/tiledcl
L=$OUT/scale4d.log
t0=$(date +%s)
step() { # step LIMIT_S command...
  local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 585 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" | tee -a $L
  timeout $lim "$@" >>$L 2>&1; echo "rc=$?" >>$L
}
nvidia-smi -L >>$L
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
. .xfer/mpienv.sh
M="mpirun.openmpi --allow-run-as-root"
step 90 $M -n 4 ./build-mpi/tiledcl -v bench life --size 131072 --gens 1000 --reps 3
step 90 $M -n 4 ./build-mpi/tiledcl -v bench life --size 131072 --gens 1000 --reps 3 --boundary torus
step 60 $T -v --device gpu:all bench matmul --size 32768 --reps 2
step 130 $T -v --device gpu:all bench matmul --size 65536 --reps 1 --warmup 0 --precision 3xtf32
# issue 23: two ranks on one GPU, each half the problem, against one rank on the whole
step 60 $M -n 2 ./build-mpi/tiledcl -v --device $P:0 bench life --size 16384 --gens 1000 --reps 5
step 45 $M -n 2 ./build-mpi/tiledcl -v --device $P:0 bench tile-avg --size 16384 --tile 4 --reps 5
step 45 $M -n 2 ./build-mpi/tiledcl -v --device $P:0 bench matmul --size 8192 --reps 5
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
