#!/bin/bash
# Session 14: the final build's matmul tests on the GPU, and its bench at 4096 and 8192
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib TMPDIR=/dev/shm XDG_CACHE_HOME=/tmp/xc TILEDCL_KERNEL_PATH=$PWD/build-dev/cl
L=$OUT/s14i.log
{ nvidia-smi -L; date -u; } >>$L 2>&1
TILEDCL_DEVICE=gpu timeout 200 ./build-dev/tests/test_matmul >>$L 2>&1; echo "test_matmul rc=$?" >>$L
TILEDCL_DEVICE=gpu timeout 60 ./build-dev/tests/test_mm_table >>$L 2>&1; echo "test_mm_table rc=$?" >>$L
for n in 4096 8192 2500; do
  timeout 60 ./build-dev/tiledcl --device gpu bench matmul --reps 20 --copy-size 512 --size $n 2>&1 | grep "^matmul" >>$L
done
