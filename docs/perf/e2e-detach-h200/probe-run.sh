#!/bin/bash
# Issue 22: the device's release left to a helper (tdcl_proc_detach_teardown): spawn -> constructor -> _exit -> reaped, and bench e2e against the build before, alternating
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=$PWD/build-dev/tiledcl
O=$PWD/.xfer/old/tiledcl
S=$PWD/.xfer/probe/spawn
P=$PWD/.xfer/probe/probe.so
L=$OUT/detach.log
t0=$(date +%s)
{ nvidia-smi -L; uptime; ls /etc/OpenCL/vendors; } >>$L 2>&1
cd /dev/shm
$S gen A.npy 8192; $S gen B.npy 8192
run() { echo "## $*" >>$L; LD_PRELOAD=$P $S "$@" >>$L 2>&1; }
for x in $O $T; do
  run 4 $x -v life --gens 200
  run 4 $x -v tile-avg A.npy --tile 4 -o T.npy
  run 4 $x -v matmul A.npy B.npy -o C.npy
done
for x in $O $T; do
  echo "## 10 x life --gens 200 back to back: $x" >>$L
  s=$(date +%s.%N); for i in 1 2 3 4 5 6 7 8 9 10; do $x life --gens 200 >/dev/null; done; e=$(date +%s.%N)
  echo "total $(echo "$e - $s" | bc) s" >>$L
done
cd - >/dev/null
step() { echo "# $(date -u +%FT%TZ) (+$(( $(date +%s)-t0 )) s) $*" >>$L; timeout 200 "$@" >>$L 2>&1; echo "rc=$?" >>$L; }
for i in 1 2 3; do
  step $T bench e2e --reps 5 --no-numpy --exe $O
  step $T bench e2e --reps 5 --no-numpy
done
echo "# done +$(( $(date +%s)-t0 )) s" >>$L
