#!/bin/bash
# Issue 23: two MPI ranks on one H200, without and with NVIDIA's MPS daemon (does NVIDIA's OpenCL go through it?)
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=./build-dev/tiledcl
L=$OUT/mps.log
t0=$(date +%s)
step() { # step LIMIT_S command...
  local lim=$1; shift
  [ $(( $(date +%s)-t0+lim )) -gt 560 ] && { echo "# skipped (time): $*" >>$L; return; }
  echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L
  timeout $lim "$@" >>$L 2>&1; echo "rc=$?" >>$L
}
{ nvidia-smi -L; nvidia-smi --query-gpu=compute_mode --format=csv; which nvidia-cuda-mps-control nvidia-cuda-mps-server; ls /usr/bin/nvidia-* | head -30; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
. .xfer/mpienv.sh
M="mpirun.openmpi --allow-run-as-root"
runs() {
  step 60 $M -n 2 ./build-mpi/tiledcl -v --device $P:0 bench life --size 16384 --gens 1000 --reps 5
  step 45 $M -n 2 ./build-mpi/tiledcl -v --device $P:0 bench tile-avg --size 16384 --tile 4 --reps 5
  step 45 $M -n 2 ./build-mpi/tiledcl -v --device $P:0 bench matmul --size 8192 --reps 5
}
echo "## without MPS" >>$L
runs
if command -v nvidia-cuda-mps-control >/dev/null; then
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
  nvidia-cuda-mps-control -d >>$L 2>&1; echo "mps start rc=$?" >>$L
  echo "## with MPS" >>$L
  runs
  echo get_server_list | nvidia-cuda-mps-control >>$L 2>&1
  echo quit | nvidia-cuda-mps-control >>$L 2>&1
  cat /tmp/mps-log/control.log >>$L 2>&1
else
  echo "## no nvidia-cuda-mps-control on this machine" >>$L
fi
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
