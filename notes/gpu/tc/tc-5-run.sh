# tc call 5: the repo's check script with the final defaults, then a sweep around them.
export LD_LIBRARY_PATH=$PWD/lib CMOCKA_MESSAGE_OUTPUT=stdout
timeout 200 bash check_matmul_tc.sh build > $OUT/tc-5-check.txt 2>&1; echo "check rc=$?" >> $OUT/tc-5-check.txt
R=$OUT/tc-5-sweep.txt
date -u > $R
m() { # precision tile options size
  local tt=""; [ "$2" != "-" ] && tt="-t $2"
  local o; o=$(TILEDCL_CACHE=0 TILEDCL_TC_OPTIONS="$3 -cl-nv-verbose" timeout 30 ./build/tests/bench_matmul -v -r 7 -P $1 $tt $4 2>&1)
  local gf=$(echo "$o" | grep -o 'device median *[0-9.]* ms ( *[0-9.]* GFLOP/s)' | sed 's/device median *//')
  local rg=$(echo "$o" | awk "/entry function 'matmul_tc'/{f=1} f&&/Used [0-9]+ registers/{match(\$0,/Used [0-9]+ registers/); print substr(\$0,RSTART,RLENGTH); exit}")
  local sp=$(echo "$o" | awk "/entry function 'matmul_tc'/{f=1} f&&/spill stores/{match(\$0,/[0-9]+ bytes spill stores/); print substr(\$0,RSTART,RLENGTH); exit}")
  local ds=$(echo "$o" | grep -o '\[kernel=tc[^]]*\]' | head -1)
  echo "$4 $1 t=$2 o=[$3] : ${gf:-NONE} | $rg | $sp | $ds" >> $R
}
for v in "-|" "-|-DCP_CA=0" "-|-DGROUP_M=1" "128,128,8,64,64|-DSTAGES=4" "128,128,8,64,64|-DPIPE=0" "128,128,16,64,64|" \
         "128,256,8,64,64|" "256,128,8,64,64|" "128,128,8,64,32|"; do
  m tf32 "${v%|*}" "${v#*|}" 8192
done
for v in "-|" "-|-DCP_CA=0" "128,128,16,64,64|" "128,256,8,64,64|" "128,128,8,64,32|" "128,64,16,64,32|"; do
  m 3xtf32 "${v%|*}" "${v#*|}" 8192
done
