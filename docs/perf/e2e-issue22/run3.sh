#!/bin/bash
# Issue 22 (helper e2e), H200 run 3 (final build): outputs of the old and
# new builds compared (matmul, tile-avg, life 16384 x 10000), then
# `bench e2e --reps 5 --no-numpy` new, old (--exe), new again.
# Run from .xfer/e2e with LD_LIBRARY_PATH, TILEDCL_KERNEL_PATH,
# XDG_CACHE_HOME and TMPDIR=/dev/shm set; logs go to $OUT.
set -u
O=${OUT:-/tmp/out}
mkdir -p "$O"
echo "== $(date -u) $(uptime)"
D=/dev/shm/t3
rm -rf $D && mkdir -p $D
gen() { ./tiledcl life --size 8192x8192 --gens 0 --seed $1 -o $D/s.npy && ./tiledcl convert $D/s.npy $D/$2 --dtype float32 && rm $D/s.npy; }
gen 1 A.npy; gen 2 B.npy
for b in old/tiledcl ./tiledcl; do
  t=$(basename $(dirname $b))
  $b matmul $D/A.npy $D/B.npy -o $D/C-$t.npy
  $b tile-avg $D/A.npy --tile 4 -o $D/T-$t.npy
  $b life --size 16384x16384 --gens 10000 -o $D/L-$t.npy >/dev/null
done
for f in C T L; do cmp $D/$f-old.npy $D/$f-..npy && echo "$f: old and new outputs identical ($(stat -c %s $D/$f-..npy) bytes)"; done
rm -rf $D
for run in new old new; do
  echo "== bench $run $(date -u)"
  if [ $run = old ]; then x="--exe old/tiledcl"; else x=""; fi
  ./tiledcl bench e2e --reps 5 --no-numpy $x 2>&1 | tee -a $O/bench-$run.txt
done
echo "== end $(date -u)"
