# tc call 8: wgmma tf32 prototype (cl/matmul_wg.cl, -DWGMMA=1) checked against double and timed;
# 3xtf32 k-step on wgmma (c6); test_matmul_tc with the 3/4 tile threshold for both precisions.
export LD_LIBRARY_PATH=$PWD/lib CMOCKA_MESSAGE_OUTPUT=stdout
W=$OUT/tc-8-wgmma.txt
date -u > $W
w() { # size reps [-c]
  local o; o=$(TILEDCL_CACHE=0 TILEDCL_TC_OPTIONS="-DWGMMA=1 $4" timeout 60 ./build/tests/bench_matmul -v -r $2 $3 -P tf32 $1 2>&1)
  echo "== $1 -r $2 $3 $4" >> $W
  echo "$o" | grep -v "^device:" | grep -i "median\|frobenius\|error\|fail\|wgmma\|ptxas\|spot\|warn" | cut -c1-600 >> $W
}
w 7x13x5 3 -c -cl-nv-verbose
w 130x17x259 3 -c
w 1000x3001x1999 5 -c
w 4096 5 -c
w 2048 7
w 8192 7
R=$OUT/tc-8-probe.txt
date -u > $R
timeout 90 ./build/tests/bench_tc_probe c c6 2>&1 | grep "^c6" >> $R; echo "c6 rc=$?" >> $R
T=$OUT/tc-8-test.txt
date -u > $T
timeout 100 ./build/tests/test_matmul_tc 2>&1 | grep -v '^\[ RUN' >> $T
S=$OUT/tc-8-sweep.txt
date -u > $S
for n in 1000x3001x1999 1280; do ./build/tests/bench_matmul -r 7 -c -P 3xtf32 $n 2>&1 | grep -v "^device" >> $S; done
for n in 4096 8192; do for p in tf32 3xtf32; do ./build/tiledcl bench matmul --size $n --precision $p --reps 10 --copy-size 1024 2>&1 | grep '^matmul' >> $S; done; done
date -u >> $S
