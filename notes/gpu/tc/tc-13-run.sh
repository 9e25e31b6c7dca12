# tc call 13: wgmma variants around the 64-row tiles (producer warp or work-item 0, LAG, tile band, KSUB),
# each checked against double first (7x13x5 130x17x259 1000x3001x1999 1024), then timed at 2048, 4096, 8192.
export LD_LIBRARY_PATH=$PWD/lib CMOCKA_MESSAGE_OUTPUT=stdout
C=$OUT/tc-13-check.txt S=$OUT/tc-13-speed.txt
date -u | tee $C > $S
B=./build/tests/bench_matmul
summ() { awk -F'[()]' -v p="$1" -v x="$2" '/median/{split($2,a," "); n=split($0,w," "); d=$0; sub(/.*\[/,"[",d); print p, "[" x "]", w[1], a[1]/1000, "TFLOP/s", d; print "   raw:", $0}'; }
v() { # precision variant sizes...
  local p=$1 x=$2 o rc; shift 2
  echo "== $p [$x]" >> $C
  o=$(TILEDCL_CACHE=0 TILEDCL_TC_OPTIONS="$x -cl-nv-verbose" timeout 30 $B -v -r 3 -c -P $p 7x13x5 130x17x259 1000x3001x1999 1024 2>&1); rc=$?
  echo "$o" | grep -v "^device:" | grep -i "median\|frobenius\|fail\|wgmma\|Used\|error\|warn" | grep -v noinline | cut -c1-260 >> $C
  echo "rc=$rc" >> $C
  if [ $rc -ne 0 ] || echo "$o" | grep -q "FAIL\|exceeds"; then echo "$p [$x] skipped: check rc=$rc" >> $S; return; fi
  TILEDCL_TC_OPTIONS="$x" timeout 45 $B -r 7 -P $p "$@" 2>&1 | summ "$p" "$x" >> $S
}
for x in "-DWG_NWG=1" "-DWG_NWG=1 -DWG_PRODUCER=0" "-DWG_NWG=1 -DWG_PRODUCER=0 -DWG_LAG=1" "-DWG_NWG=1 -DWG_LAG=1" \
         "-DWG_NWG=1 -DWG_GROUP_M=16" "-DWG_NWG=1 -DWG_GROUP_M=4" "-DWG_NWG=1 -DWG_BN=128 -DWG_PRODUCER=0" \
         "-DWG_NWG=1 -DWG_PRODUCER=0 -DWG_GROUP_M=16"; do
  v tf32 "$x" 2048 4096 8192
done
for x in "-DWG_NWG=1 -DWG_KSUB=8" "-DWG_NWG=1 -DWG_KSUB=8 -DWG_PRODUCER=0" "-DWG_NWG=1 -DWG_KSUB=16 -DWG_PRODUCER=0" \
         "-DWG_NWG=1 -DWG_KSUB=16" "-DWG_NWG=1 -DWG_KSUB=8 -DWG_PRODUCER=0 -DWG_LAG=1" \
         "-DWG_NWG=1 -DWG_KSUB=8 -DWG_PRODUCER=0 -DWG_GROUP_M=16"; do
  v 3xtf32 "$x" 2048 4096 8192
done
date -u >> $S
E=$OUT/tc-13-error.txt
date -u > $E
for x in "-DWG_NWG=1 -DWG_KSUB=8" "-DWG_NWG=1 -DWG_KSUB=16 -DWG_PRODUCER=0"; do
  echo "== 3xtf32 [$x]" >> $E
  TILEDCL_TC_OPTIONS="$x" timeout 40 $B -r 3 -c -P 3xtf32 4096 2>&1 | grep -v "^device" | cut -c1-250 >> $E
done
date -u >> $E
