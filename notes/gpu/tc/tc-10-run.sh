# tc call 10: the wgmma pipeline (packed slabs, cp.async.bulk + mbarriers, producer warp):
# each variant checked against double on odd shapes and 1024 (multiple of every tile), then timed.
# (Written back from the session after the run; the GFLOP/s parse in the speed lines printed 0:
#  the raw line kept beside it has the figures.)
export LD_LIBRARY_PATH=$PWD/lib CMOCKA_MESSAGE_OUTPUT=stdout
C=$OUT/tc-10-check.txt S=$OUT/tc-10-speed.txt
date -u | tee $C > $S
ldd build/tiledcl | grep -i "not found" >> $C
B=./build/tests/bench_matmul
v() { # precision variant
  local p=$1 x=$2 o rc
  echo "== $p [$x]" >> $C
  o=$(TILEDCL_CACHE=0 TILEDCL_TC_OPTIONS="$x -cl-nv-verbose" timeout 30 $B -v -r 3 -c -P $p 7x13x5 130x17x259 1000x3001x1999 1024 2>&1); rc=$?
  echo "$o" | grep -v "^device:" | grep -i "median\|frobenius\|fail\|wgmma\|Used\|error\|warn" | cut -c1-260 >> $C
  echo "rc=$rc" >> $C
  if [ $rc -ne 0 ] || echo "$o" | grep -q "FAIL\|exceeds"; then echo "$p [$x] skipped: check rc=$rc" >> $S; return; fi
  TILEDCL_TC_OPTIONS="$x" timeout 45 $B -r 7 -P $p 2048 4096 8192 2>&1 | grep median |
    awk -v p="$p" -v x="$x" '{for(i=1;i<=NF;i++) if($i=="GFLOP/s)") g=$(i-1); print p, "[" x "]", $1, g/1000, "TFLOP/s", $0}' | cut -c1-330 >> $S
}
v tf32 ""
v 3xtf32 ""
v tf32 "-DWG_BN=128"
v tf32 "-DWG_BN=128 -DWG_BK=16"
v tf32 "-DWG_NWG=4 -DWG_BN=128"
v tf32 "-DWG_LAG=1"
v tf32 "-DWG_BN=128 -DWG_LAG=1"
v tf32 "-DWG_GROUP_M=16"
v 3xtf32 "-DWG_KSUB=2"
v 3xtf32 "-DWG_KSUB=8"
v 3xtf32 "-DWG_LAG=1"
v 3xtf32 "-DWG_NWG=1"
v tf32 "-DWGMMA=0"
v 3xtf32 "-DWGMMA=0"
date -u >> $S
T=$OUT/tc-10-test.txt
date -u > $T
timeout 60 ./build/tests/test_matmul_tc 2>&1 | grep -v '^\[ RUN' >> $T; echo "rc=$?" >> $T
