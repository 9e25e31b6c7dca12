# tc call 11: wgmma pipeline variants (producer warp or work-item 0, tile shapes, LAG, KSUB),
# each checked against double first; small-size comparison with mma.sync; errors at 4096.
# (Written back from the session after the run. The speed and small-size lines lost their
#  figures to a parsing slip: "(112058.2" is one field; the check and error files are whole.)
export LD_LIBRARY_PATH=$PWD/lib CMOCKA_MESSAGE_OUTPUT=stdout
C=$OUT/tc-11-check.txt S=$OUT/tc-11-speed.txt
date -u | tee $C > $S
B=./build/tests/bench_matmul
v() { # precision variant
  local p=$1 x=$2 o rc
  echo "== $p [$x]" >> $C
  o=$(TILEDCL_CACHE=0 TILEDCL_TC_OPTIONS="$x -cl-nv-verbose" timeout 30 $B -v -r 3 -c -P $p 7x13x5 130x17x259 1000x3001x1999 1024 2>&1); rc=$?
  echo "$o" | grep -v "^device:" | grep -i "median\|frobenius\|fail\|wgmma\|Used\|error\|warn" | grep -v "noinline" | cut -c1-260 >> $C
  echo "rc=$rc" >> $C
  if [ $rc -ne 0 ] || echo "$o" | grep -q "FAIL\|exceeds"; then echo "$p [$x] skipped: check rc=$rc" >> $S; return; fi
  TILEDCL_TC_OPTIONS="$x" timeout 45 $B -r 7 -P $p 2048 4096 8192 2>&1 | grep median |
    awk -v p="$p" -v x="$x" '{for(i=1;i<=NF;i++) if($i=="GFLOP/s)") g=$(i-1); d=$0; sub(/.*\[/,"[",d); print p, "[" x "]", $1, g/1000, "TFLOP/s", d}' >> $S
}
v tf32 ""
v 3xtf32 ""
v tf32 "-DWG_BN=128"
v tf32 "-DWG_NWG=1"
v tf32 "-DWG_NWG=1 -DWG_BN=128"
v tf32 "-DWG_PRODUCER=1 -DWG_NOLIMIT=1"
v tf32 "-DWG_LAG=1"
v tf32 "-DWG_NWG=4 -DWG_BN=128"
v 3xtf32 "-DWG_NWG=1"
v 3xtf32 "-DWG_NWG=1 -DWG_KSUB=8"
v 3xtf32 "-DWG_NWG=1 -DWG_LAG=1"
v 3xtf32 "-DWG_NWG=1 -DWG_PRODUCER=0"
v 3xtf32 "-DWG_NWG=1 -DWG_BK=16"
date -u >> $S
Z=$OUT/tc-11-small.txt
date -u > $Z
for p in tf32 3xtf32; do for x in "" "-DWG_NWG=1" "-DWGMMA=0"; do
  TILEDCL_TC_OPTIONS="$x" timeout 30 $B -r 9 -P $p 256 512 1024 1536 2048 1000x3001x1999 3000x2000x5000 2>&1 | grep median |
    awk -v p="$p" -v x="$x" '{for(i=1;i<=NF;i++) if($i=="GFLOP/s)") g=$(i-1); d=$0; sub(/.*\[/,"[",d); print p, "[" x "]", $1, g/1000, "TFLOP/s", d}' >> $Z
done; done
E=$OUT/tc-11-error.txt
date -u > $E
for px in "fp32|" "tf32|" "3xtf32|" "3xtf32|-DWG_NWG=1" "3xtf32|-DWGMMA=0"; do p=${px%%|*} x=${px#*|}
  echo "== $p [$x]" >> $E
  TILEDCL_TC_OPTIONS="$x" timeout 40 $B -r 3 -c -P $p 4096 2>&1 | grep -v "^device" | cut -c1-250 >> $E
done
date -u >> $E
