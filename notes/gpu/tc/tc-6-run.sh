# tc call 6: probes of the PTX target (a-c), wgmma (c3-c4), L2 read bandwidth (d), tf32 tile sweep (e).
export LD_LIBRARY_PATH=$PWD/lib
E=$OUT/tc-6-env.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  ldd build/tests/bench_tc_probe build/tests/bench_matmul | grep -i "not found\|png\|libz\|stdc"; } > $E 2>&1
mkdir -p /tmp/ptx
R=$OUT/tc-6-probe.txt
TC_PROBE_DUMP=/tmp/ptx timeout 120 ./build/tests/bench_tc_probe a b c > $R 2>&1; echo "abc rc=$?" >> $R
timeout 60 ./build/tests/bench_tc_probe d >> $R 2>&1; echo "d rc=$?" >> $R
for f in /tmp/ptx/*; do echo "==== $f"; head -c 20000 $f; done > $OUT/tc-6-ptx.txt 2>&1
S=$OUT/tc-6-sweep.txt
date -u > $S
for n in 1024 2048 4096 8192 1000x3001x1999; do
  for t in - 128,128,16,64,64; do
    tt=""; [ "$t" != "-" ] && tt="-t $t"
    o=$(timeout 40 ./build/tests/bench_matmul -v -r 7 -P tf32 $tt $n 2>&1)
    gf=$(echo "$o" | grep -o 'device median *[0-9.]* ms ( *[0-9.]* GFLOP/s)' | sed 's/device median *//')
    ds=$(echo "$o" | grep -o '\[kernel=tc[^]]*\]' | head -1)
    echo "$n tf32 t=$t : ${gf:-NONE} | $ds" >> $S
  done
done
date -u >> $S
