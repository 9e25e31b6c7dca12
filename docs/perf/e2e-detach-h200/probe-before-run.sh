#!/bin/bash
# Issue 22: where the ~65 ms of each run outside the phases go: spawn -> constructor -> _exit -> reaped
mkdir -p /etc/OpenCL/vendors; echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=$PWD/.xfer/lib XDG_CACHE_HOME=/tmp/xc TMPDIR=/dev/shm
T=$PWD/build-dev/tiledcl
S=$PWD/.xfer/probe/spawn
P=$PWD/.xfer/probe/probe.so
L=$OUT/probe.log
{ nvidia-smi -L; uptime; ls /etc/OpenCL/vendors; which strace perf ltrace; ldd $T; } >>$L 2>&1
cd /dev/shm
$S gen A.npy 8192; $S gen B.npy 8192
run() { echo "## $*" >>$L; LD_PRELOAD=$P $S "$@" >>$L 2>&1; }
run 2 $T -v life --gens 200
run 5 $T -v life --gens 200
run 5 $T -v tile-avg A.npy --tile 4 -o T.npy
run 5 $T -v matmul A.npy B.npy -o C.npy
run 3 $T devices
run 3 $T --version
echo "## statistics" >>$L
LD_DEBUG=statistics $T -v life --gens 200 >>$L 2>&1
echo "## strace -c" >>$L
command -v strace >/dev/null && strace -f -c -o $OUT/strace-c.txt $T -v tile-avg A.npy --tile 4 -o T.npy >>$L 2>&1
command -v strace >/dev/null && strace -f -tt -T -o $OUT/strace-tt.txt $T -v tile-avg A.npy --tile 4 -o T.npy >>$L 2>&1
echo done >>$L
