# tc call 9: the wgmma tf32 prototype's variants (slab K, stages, LAG, register cap, 256x128 tiles): error against double, speed.
export LD_LIBRARY_PATH=$PWD/lib
W=$OUT/tc-9-wgmma.txt
date -u > $W
for v in "" "-DWG_LAG=1" "-DWG_BK=8" "-DWG_BK=8 -DWG_LAG=1" "-DWG_BK=8 -DWG_STAGES=4 -DWG_LAG=1" \
         "-cl-nv-maxrregcount=80" "-DWG_BK=8 -DWG_LAG=1 -cl-nv-maxrregcount=80" \
         "-DWG_NWG=4 -DWG_BK=8" "-DWG_NWG=4 -DWG_BK=8 -DWG_LAG=1" "-DWG_NWG=4" \
         "-DCP_CG=1" "-DNO_PFENCE=1"; do
  echo "== variant [$v]" >> $W
  o=$(TILEDCL_CACHE=0 TILEDCL_TC_OPTIONS="-DWGMMA=1 -cl-nv-verbose $v" timeout 40 ./build/tests/bench_matmul -v -r 3 -c -P tf32 130x17x259 1000x3001x1999 2>&1)
  echo "$o" | grep -o "Used [0-9]* registers.*smem" | head -1 >> $W
  echo "$o" | grep -i "median\|frobenius\|error\|fail" | grep -v "^device" | cut -c1-200 >> $W
  for n in 2048 4096 8192; do
    TILEDCL_TC_OPTIONS="-DWGMMA=1 $v" timeout 40 ./build/tests/bench_matmul -r 7 -P tf32 $n 2>&1 | grep median | cut -c1-240 >> $W
  done
done
date -u >> $W
