# tc call 3: copy plan, timing aids (NO_COPY/NO_SYNC/NO_MMA), occupancy. One line per measurement.
export LD_LIBRARY_PATH=$PWD/lib CMOCKA_MESSAGE_OUTPUT=stdout
R=$OUT/tc-3-sweep.txt
date -u > $R
timeout 90 ./test_matmul_tc > $OUT/tc-3-test.txt 2>&1; echo "test rc=$?" >> $OUT/tc-3-test.txt
m() { # precision tile options size
  local o; o=$(TILEDCL_CACHE=0 TILEDCL_TC_OPTIONS="$3 -cl-nv-verbose" timeout 60 ./bench_matmul -v -r 7 -P $1 -t $2 $4 2>&1)
  local gf=$(echo "$o" | grep -o 'device median *[0-9.]* ms ( *[0-9.]* GFLOP/s)' | sed 's/device median *//')
  local rg=$(echo "$o" | awk "/entry function 'matmul_tc'/{f=1} f&&/Used [0-9]+ registers/{match(\$0,/Used [0-9]+ registers/); print substr(\$0,RSTART,RLENGTH); exit}")
  local sp=$(echo "$o" | awk "/entry function 'matmul_tc'/{f=1} f&&/spill stores/{match(\$0,/[0-9]+ bytes spill stores/); print substr(\$0,RSTART,RLENGTH); exit}")
  local er=$(echo "$o" | grep -v 'spot error' | grep -v 'device 1:0' | grep -v 'compiled from' | grep -m1 -iE 'bench_matmul: [^m]|error|fail' | cut -c1-200)
  echo "$4 $1 t=$2 o=[$3] : ${gf:-NONE} | $rg | $sp | spot $(echo "$o" | grep -o 'spot error [0-9.e+-]*' | cut -d' ' -f3) $er" >> $R
}
B="128,128,8,64,64|-DSTAGES=6"
for v in "$B" "$B -DNO_COPY=1" "$B -DNO_SYNC=1" "$B -DNO_MMA=1" "$B -DRND=0" "$B -DPIPE=0" \
         "64,128,8,32,64|-DSTAGES=4" "128,64,8,64,32|-DSTAGES=4" "128,128,16,64,64|" "128,256,8,64,64|"; do
  m tf32 "${v%|*}" "${v#*|}" 8192
done
X="128,128,16,64,64|"
for v in "$X" "$X -DNO_COPY=1" "$X -DNO_SYNC=1" "$X -DNO_MMA=1" "$X -DRND=0" "128,128,16,64,32|" \
         "128,128,8,64,64|-DSTAGES=6" "128,256,8,64,64|" "128,64,16,64,32|-DSTAGES=4"; do
  m 3xtf32 "${v%|*}" "${v#*|}" 8192
done
for v in "tf32|128,128,8,64,64|-DSTAGES=6" "tf32|128,128,16,64,64|" "3xtf32|128,128,16,64,64|" "3xtf32|128,128,16,64,32|"; do
  IFS='|' read p t x <<< "$v"; m $p $t "$x" 4096
done
for x in "" "-DRND=0"; do
  TILEDCL_TC_OPTIONS="$x" timeout 90 ./bench_matmul -r 3 -c -P 3xtf32 -t 128,128,16,64,64 4096 2>&1 | grep -E 'x|Frob' | sed "s/^/[$x] /" >> $OUT/tc-3-acc.txt
done
