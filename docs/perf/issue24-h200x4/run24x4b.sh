#!/bin/bash
# Issue 24 batch B on a 4-GPU host: matmul at N = 65536 (local transport), then one rank per GPU under mpirun
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=./build-dev/tiledcl
L=$OUT/scale4b.log
t0=$(date +%s)
step() { # step LIMIT_S command...
  local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 585 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" | tee -a $L
  timeout $lim "$@" >>$L 2>&1; echo "rc=$?" >>$L
}
step 150 $T -v --device gpu:all bench matmul --size 65536 --reps 1 --warmup 0
# under mpirun: Debian's Open MPI 4.1 carried under .xfer/mpi/root (OPAL_PREFIX), one rank per GPU
. .xfer/mpienv.sh
M="mpirun.openmpi --allow-run-as-root -n 4"
step 20 $M hostname
step 100 $M ./build-mpi/tiledcl -v bench life --size 131072 --gens 1000 --reps 3
step 90 $M ./build-mpi/tiledcl -v bench matmul --size 32768 --reps 2
step 60 $M ./build-mpi/tiledcl -v bench tile-avg --size 65536 --tile 4 --reps 3
step 230 $T -v --device gpu:all bench matmul --size 65536 --reps 1 --warmup 1 --precision 3xtf32
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
