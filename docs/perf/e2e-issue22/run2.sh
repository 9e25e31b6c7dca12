#!/bin/bash
# Issue 22 (helper e2e), H200 run 2: outputs of the old and new builds
# compared, matmul/tile-avg phases under staging variants, then
# `bench e2e --reps 5 --no-numpy` of the new build and of the old via --exe.
# Run from .xfer/e2e with LD_LIBRARY_PATH, TILEDCL_KERNEL_PATH,
# XDG_CACHE_HOME and TMPDIR=/dev/shm set; logs go to $OUT.
set -u
O=${OUT:-/tmp/out}
mkdir -p "$O"
echo "== $(date -u) $(uptime)"
nvidia-smi -L 2>&1 | head -2
./tiledcl bench e2e --help 2>&1 | head -3
D=/dev/shm/t1
rm -rf $D && mkdir -p $D
gen() { ./tiledcl life --size 8192x8192 --gens 0 --seed $1 -o $D/s.npy && ./tiledcl convert $D/s.npy $D/$2 --dtype float32 && rm $D/s.npy; }
gen 1 A.npy; gen 2 B.npy; ls -la $D
./tiledcl matmul $D/A.npy $D/B.npy -o $D/C.npy; old/tiledcl matmul $D/A.npy $D/B.npy -o $D/Cold.npy
cmp $D/C.npy $D/Cold.npy && echo "matmul: outputs identical"
./tiledcl tile-avg $D/A.npy --tile 4 -o $D/T.npy; old/tiledcl tile-avg $D/A.npy --tile 4 -o $D/Told.npy
cmp $D/T.npy $D/Told.npy && echo "tile-avg: outputs identical"
rm -f $D/Cold.npy $D/Told.npy
now() { date +%s.%N; }
v() {
  tag=$1 exe=$2 cmd=$3; shift 3
  for r in 1 2 3; do
    s=$(now); env "$@" $exe -v $cmd >/dev/null 2>$D/err; rc=$?; e=$(now)
    echo "$tag rc=$rc wall $(awk "BEGIN{printf \"%.0f\", ($e-$s)*1000}") ms:$(grep -E 'time \(ms\)' $D/err | sed 's/.*time (ms)://') $(grep -i 'staging' $D/err)"
  done
}
MM="matmul $D/A.npy $D/B.npy -o $D/C.npy"
TA="tile-avg $D/A.npy --tile 4 -o $D/T.npy"
{
v mm-old old/tiledcl "$MM"
v mm-new ./tiledcl "$MM"
v mm-t8c1m ./tiledcl "$MM" TILEDCL_STAGING_THREADS=8 TILEDCL_STAGING_CHUNK=1048576
v mm-t8c2m ./tiledcl "$MM" TILEDCL_STAGING_THREADS=8 TILEDCL_STAGING_CHUNK=2097152
v mm-t4c1m ./tiledcl "$MM" TILEDCL_STAGING_CHUNK=1048576
v mm-t16c1m ./tiledcl "$MM" TILEDCL_STAGING_THREADS=16 TILEDCL_STAGING_CHUNK=1048576
v mm-nostage ./tiledcl "$MM" TILEDCL_STAGING=0
v ta-new ./tiledcl "$TA"
v ta-t8c1m ./tiledcl "$TA" TILEDCL_STAGING_THREADS=8 TILEDCL_STAGING_CHUNK=1048576
} 2>&1 | tee $O/variants2.log
rm -rf $D
echo "== bench new $(date -u)"
./tiledcl bench e2e --reps 5 --no-numpy 2>&1 | tee $O/bench-new2.txt
echo "== bench new t8c1m $(date -u)"
TILEDCL_STAGING_THREADS=8 TILEDCL_STAGING_CHUNK=1048576 ./tiledcl bench e2e --reps 5 --no-numpy 2>&1 | tee $O/bench-new-t8c1m.txt
echo "== end $(date -u)"
