# tc call 12: wgmma variants (tile, producer warp, in-kernel B split for 3xtf32, LAG, KSUB),
# each checked against double first (7x13x5 130x17x259 1000x3001x1999 1024), then timed at 4096 and 8192.
export LD_LIBRARY_PATH=$PWD/lib CMOCKA_MESSAGE_OUTPUT=stdout
C=$OUT/tc-12-check.txt S=$OUT/tc-12-speed.txt
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
for x in "" "-DWG_PRODUCER=1 -DWG_NOLIMIT=1" "-DWG_BN=128" "-DWG_BN=128 -DWG_PRODUCER=1 -DWG_NOLIMIT=1" \
         "-DWG_NWG=1" "-DWG_NWG=1 -DWG_BN=128" "-DWG_LAG=1" "-DWGMMA=0"; do
  v tf32 "$x" 2048 4096 8192
done
for x in "" "-DWG_NWG=1" "-DWG_NWG=1 -DWG_SPLIT_IN=1" "-DWG_SPLIT_IN=1" "-DWG_SPLIT_IN=1 -DWG_PRODUCER=1 -DWG_NOLIMIT=1" \
         "-DWG_NWG=1 -DWG_SPLIT_IN=1 -DWG_KSUB=8" "-DWG_NWG=1 -DWG_SPLIT_IN=1 -DWG_LAG=1" "-DWG_NWG=1 -DWG_KSUB=8" "-DWGMMA=0"; do
  v 3xtf32 "$x" 2048 4096 8192
done
date -u >> $S
Z=$OUT/tc-12-small.txt
date -u > $Z
for x in "" "-DWG_NWG=1" "-DWG_NWG=1 -DWG_BN=128" "-DWGMMA=0"; do
  TILEDCL_TC_OPTIONS="$x" timeout 30 $B -r 9 -P tf32 512 1024 1536 1000x3001x1999 3000x2000x5000 2>&1 | summ tf32 "$x" | grep -v raw: >> $Z
done
for x in "-DWG_NWG=1" "-DWG_NWG=1 -DWG_SPLIT_IN=1" "-DWGMMA=0"; do
  TILEDCL_TC_OPTIONS="$x" timeout 30 $B -r 9 -P 3xtf32 512 1024 1536 1000x3001x1999 3000x2000x5000 2>&1 | summ 3xtf32 "$x" | grep -v raw: >> $Z
done
date -u >> $Z
