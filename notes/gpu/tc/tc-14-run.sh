# tc call 14: the new defaults (tf32 64x256, 3xtf32 64x128, work-item 0 producer, LAG 1, KSUB 8) and
# 3xtf32 variants (128x64, 128x128 tiles), each checked against double first; errors at 4096/8192;
# unit tests (default, wgmma forced, wgmma off); tiledcl bench; small sizes auto / forced / off.
export LD_LIBRARY_PATH=$PWD/lib CMOCKA_MESSAGE_OUTPUT=stdout
C=$OUT/tc-14-check.txt S=$OUT/tc-14-speed.txt
date -u | tee $C > $S
B=./build/tests/bench_matmul
summ() { awk -F'[()]' -v p="$1" -v x="$2" '/median/{split($2,a," "); n=split($0,w," "); d=$0; sub(/.*\[/,"[",d); print p, "[" x "]", w[1], a[1]/1000, "TFLOP/s", d; print "   raw:", $0}'; }
v() { # precision variant sizes...
  local p=$1 x=$2 o rc; shift 2
  echo "== $p [$x]" >> $C
  o=$(TILEDCL_CACHE=0 TILEDCL_TC_OPTIONS="-DWGMMA=1 $x -cl-nv-verbose" timeout 30 $B -v -r 3 -c -P $p 7x13x5 130x17x259 1000x3001x1999 1024 2>&1); rc=$?
  echo "$o" | grep -v "^device:" | grep -i "median\|frobenius\|fail\|wgmma\|Used\|error\|warn" | grep -v noinline | cut -c1-260 >> $C
  echo "rc=$rc" >> $C
  if [ $rc -ne 0 ] || echo "$o" | grep -q "FAIL\|exceeds"; then echo "$p [$x] skipped: check rc=$rc" >> $S; return; fi
  TILEDCL_TC_OPTIONS="$x" timeout 45 $B -r 7 -P $p "$@" 2>&1 | summ "$p" "$x" >> $S
}
v tf32 "" 2048 4096 8192
v tf32 "-DWG_PRODUCER=1" 4096 8192
v 3xtf32 "" 2048 4096 8192
v 3xtf32 "-DWG_NWG=2 -DWG_BN=64" 4096 8192
v 3xtf32 "-DWG_NWG=2 -DWG_BN=64 -DWG_PRODUCER=1 -DWG_NOLIMIT=1" 4096 8192
v 3xtf32 "-DWG_NWG=2 -DWG_PRODUCER=1 -DWG_NOLIMIT=1" 4096 8192
v 3xtf32 "-DWG_KSUB=16" 4096 8192
v 3xtf32 "-DWG_PRODUCER=1" 4096 8192
date -u >> $S
T=$OUT/tc-14-test.txt
date -u > $T
for w in "" "-DWGMMA=1" "-DWGMMA=0"; do
  echo "== test_matmul_tc TILEDCL_TC_OPTIONS=[$w]" >> $T
  TILEDCL_TC_OPTIONS="$w" timeout 60 ./build/tests/test_matmul_tc 2>&1 | grep -v '^\[ RUN' >> $T; echo "rc=$?" >> $T
done
Z=$OUT/tc-14-small.txt
date -u > $Z
for p in tf32 3xtf32; do for x in "" "-DWGMMA=1" "-DWGMMA=0"; do
  TILEDCL_TC_OPTIONS="$x" timeout 30 $B -r 9 -P $p 512 1024 1280 1536 2048 1000x3001x1999 3000x2000x5000 2>&1 | summ $p "$x" | grep -v raw: >> $Z
done; done
for n in 4096 8192; do for p in fp32 tf32 3xtf32; do
  timeout 30 ./build/tiledcl bench matmul --size $n --precision $p --reps 10 --copy-size 1024 2>&1 | grep '^matmul' >> $Z
done; done
E=$OUT/tc-14-error.txt
date -u > $E
for s in 4096 8192; do for px in "fp32|" "3xtf32|" "3xtf32|-DWGMMA=0"; do p=${px%%|*} x=${px#*|}
  echo "== $s $p [$x]" >> $E
  o=$(TILEDCL_TC_OPTIONS="$x" timeout 50 $B -v -r 3 -c -P $p $s 2>&1)
  echo "$o" | grep -i "packing" | tail -1 >> $E
  echo "$o" | grep -i "median\|frob" | cut -c1-250 >> $E
done; done
echo "== 4096 tf32" >> $E
timeout 30 $B -r 3 -c -P tf32 4096 2>&1 | grep -v "^device" | cut -c1-250 >> $E
date -u >> $E
