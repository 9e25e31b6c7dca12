#!/bin/bash
# Session 10: life larger than the device (streamed in bands) and tile-avg past the largest buffer (bands), on one H200, the device's limits lowered by the fault shim
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=$PWD/build-dev/tiledcl
SHIM=$PWD/build-dev/tests/fault/clfault.so
L=$OUT/stream10.log
t0=$(date +%s)
step() { local lim=$1; shift; echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout $lim "$@" >>$L 2>&1; echo "rc=$?" >>$L; }
{ nvidia-smi -L; uptime; } >>$L 2>&1
P=$($T devices | grep -m1 "\[GPU\]" | awk '{print $2}' | cut -d: -f1)
cd /dev/shm
for b in dead torus; do
  step 60 $T -v --device $P:0 life --size 16384x16384 --gens 1000 --boundary $b -o full-$b.npy
  step 60 env TDCL_FAULT_MAX_ALLOC=8388608 LD_PRELOAD=$SHIM $T -v --device $P:0 life --size 16384x16384 --gens 1000 --boundary $b -o str-$b.npy
  step 30 cmp full-$b.npy str-$b.npy
done
step 60 env TDCL_FAULT_MAX_ALLOC=33554432 LD_PRELOAD=$SHIM $T -v --device $P:0 life --size 16384x16384 --gens 1000 -o str32.npy
step 30 cmp full-dead.npy str32.npy
step 60 $T -v --device $P:0 life --size 16384x16384 --gens 0 -o soup.npy
step 60 $T -v --device $P:0 tile-avg soup.npy --tile 4 -o ta-full.npy
step 60 $T -v --device $P:0 tile-avg soup.npy --tile 4 -o ta-full.npy
step 60 env TDCL_FAULT_MAX_ALLOC=16777216 LD_PRELOAD=$SHIM $T -v --device $P:0 tile-avg soup.npy --tile 4 -o ta-band.npy
step 60 env TDCL_FAULT_MAX_ALLOC=16777216 LD_PRELOAD=$SHIM $T -v --device $P:0 tile-avg soup.npy --tile 4 -o ta-band.npy
step 30 cmp ta-full.npy ta-band.npy
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
