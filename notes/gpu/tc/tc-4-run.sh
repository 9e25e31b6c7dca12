# tc call 4: STAGE_CVT, L1 prefetch (PF, CP_CA), 1-WG tiles. One line per measurement.
export LD_LIBRARY_PATH=$PWD/lib CMOCKA_MESSAGE_OUTPUT=stdout
R=$OUT/tc-4-sweep.txt
date -u > $R
timeout 90 ./test_matmul_tc > $OUT/tc-4-test.txt 2>&1; echo "test rc=$?" >> $OUT/tc-4-test.txt
m() { # precision tile options size
  local o; o=$(TILEDCL_CACHE=0 TILEDCL_TC_OPTIONS="$3 -cl-nv-verbose" timeout 60 ./bench_matmul -v -r 7 -P $1 -t $2 $4 2>&1)
  local gf=$(echo "$o" | grep -o 'device median *[0-9.]* ms ( *[0-9.]* GFLOP/s)' | sed 's/device median *//')
  local rg=$(echo "$o" | awk "/entry function 'matmul_tc'/{f=1} f&&/Used [0-9]+ registers/{match(\$0,/Used [0-9]+ registers/); print substr(\$0,RSTART,RLENGTH); exit}")
  local sp=$(echo "$o" | awk "/entry function 'matmul_tc'/{f=1} f&&/spill stores/{match(\$0,/[0-9]+ bytes spill stores/); print substr(\$0,RSTART,RLENGTH); exit}")
  local er=$(echo "$o" | grep -v 'spot error' | grep -v 'device 1:0' | grep -v 'compiled from' | grep -m1 -iE 'bench_matmul: [^m]|error|fail' | cut -c1-200)
  echo "$4 $1 t=$2 o=[$3] : ${gf:-NONE} | $rg | $sp | spot $(echo "$o" | grep -o 'spot error [0-9.e+-]*' | cut -d' ' -f3) $er" >> $R
}
B="128,128,8,64,64|-DSTAGES=6"
W="128,256,8,64,64|-DSTAGES=4"
for v in "$B" "$B -DSTAGE_CVT=1" "$B -DCP_CA=1" "$B -DPF=4 -DCP_CA=1" "$B -DPF=8 -DCP_CA=1" "$B -DPF=4" \
         "$W -DNO_COPY=1" "$W -DPF=4 -DCP_CA=1" "$W -DPF=8 -DCP_CA=1" "256,128,8,64,64|-DSTAGES=4 -DPF=6 -DCP_CA=1"; do
  m tf32 "${v%|*}" "${v#*|}" 8192
done
for v in "128,128,16,64,64|" "128,128,8,64,32|-DSTAGES=3 -DSTAGE_CVT=1" "128,128,8,64,32|-DSTAGES=3 -DSTAGE_CVT=1 -DPIPE=0" \
         "128,128,8,64,64|-DSTAGES=3 -DSTAGE_CVT=1 -DPIPE=0" "128,128,16,64,32|" "64,128,8,32,64|-DSTAGES=4 -DSTAGE_CVT=1" \
         "128,128,8,32,64|-DSTAGES=3 -DSTAGE_CVT=1" "128,128,16,64,32|-DPF=4 -DCP_CA=1" "128,128,8,64,32|-DSTAGES=3 -DSTAGE_CVT=1 -DPF=4 -DCP_CA=1"; do
  m 3xtf32 "${v%|*}" "${v#*|}" 8192
done
for v in "tf32|128,128,8,64,64|-DSTAGES=6 -DPF=4 -DCP_CA=1" "tf32|128,128,8,64,64|-DSTAGES=6" "3xtf32|128,128,8,64,32|-DSTAGES=3 -DSTAGE_CVT=1" "3xtf32|128,128,16,64,32|"; do
  IFS='|' read p t x <<< "$v"; m $p $t "$x" 4096
done
for x in "-DSTAGE_CVT=1 -DSTAGES=3" "-DSTAGE_CVT=1 -DSTAGES=3 -DPIPE=0"; do
  TILEDCL_TC_OPTIONS="$x" timeout 90 ./bench_matmul -r 3 -c -P 3xtf32 -t 128,128,8,64,32 4096 2>&1 | grep -E 'x|Frob' | sed "s/^/[$x] /" >> $OUT/tc-4-acc.txt
done
