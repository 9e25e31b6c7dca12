# tc call 7: test_matmul_tc with the new tf32 tile; wgmma probes with OpenCL's parameter ABI (c3-c5); tile sweep.
export LD_LIBRARY_PATH=$PWD/lib CMOCKA_MESSAGE_OUTPUT=stdout
T=$OUT/tc-7-test.txt
date -u > $T
timeout 100 ./build/tests/test_matmul_tc 2>&1 | grep -v '^\[ RUN' >> $T; echo "test rc=$?" >> $T
R=$OUT/tc-7-probe.txt
mkdir -p /tmp/ptx; date -u > $R
for p in c3 c4 c5; do TC_PROBE_DUMP=/tmp/ptx timeout 60 ./build/tests/bench_tc_probe c $p >> $R 2>&1; echo "$p rc=$?" >> $R; done
for f in /tmp/ptx/wg_*; do echo "==== $f"; head -c 30000 $f; done > $OUT/tc-7-ptx.txt 2>&1
S=$OUT/tc-7-sweep.txt
date -u > $S
m() { # precision tile size [extra]
  local tt=""; [ "$2" != "-" ] && tt="-t $2"
  local o; o=$(timeout 60 ./build/tests/bench_matmul -v -r 7 $4 -P $1 $tt $3 2>&1)
  local gf=$(echo "$o" | grep -o 'device median *[0-9.]* ms ( *[0-9.]* GFLOP/s)' | sed 's/device median *//')
  local er=$(echo "$o" | grep -io 'frobenius[^,]*' | head -1)
  local ds=$(echo "$o" | grep -o '\[kernel=tc[^]]*\]' | head -1)
  echo "$3 $1 t=$2 $4 : ${gf:-NONE} | $er | $ds" >> $S
}
for n in 1024 1280 1536 2048 4096 8192 1000x3001x1999; do m tf32 - $n; done
for n in 1280 1536; do m tf32 64,64,16,32,32 $n; done
for n in 2048 4096 1000x3001x1999; do m 3xtf32 - $n; m 3xtf32 128,128,16,64,32 $n; done
m tf32 - 1000x3001x1999 -c; m tf32 - 4096 -c
for p in tf32 3xtf32; do ./build/tiledcl bench matmul --size 8192 --precision $p --reps 10 --copy-size 1024 2>&1 | grep '^matmul' >> $S; done
date -u >> $S
