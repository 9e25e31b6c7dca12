# tc call 2: peak, unit test, SASS, PIPE sweep. One line per measurement.
export LD_LIBRARY_PATH=$PWD/lib CMOCKA_MESSAGE_OUTPUT=stdout
R=$OUT/tc-2-sweep.txt
date -u > $R
timeout 30 ./bench_tc_peak 1 2 4 8 >> $R 2>&1
timeout 90 ./test_matmul_tc > $OUT/tc-2-test.txt 2>&1; echo "test rc=$?" >> $OUT/tc-2-test.txt
python3 - > $OUT/tc-2-ptx.txt 2>&1 <<'PY'
import glob, struct
for f in sorted(glob.glob('/tmp/c/tiledcl/**/*', recursive=True)):
    try: d = open(f, 'rb').read()
    except Exception: continue
    if not d.startswith(b'TDCLBIN1'): continue
    kl = struct.unpack('<Q', d[8:16])[0]; key = d[16:16+kl].decode(errors='replace')
    bl = struct.unpack('<Q', d[16+kl:24+kl])[0]; ptx = d[32+kl:32+kl+bl].decode(errors='replace').rstrip('\0')
    opt = [l for l in key.splitlines() if l.startswith('options')][0]
    for name, pat in (('tf32', 'PREC=1 -DBM=128 -DBN=256 -DBK=8 -DWM=64 -DWN=64 -DSTAGES=4 -DVEC_ALIGNED=1'),
                      ('3x', 'PREC=3 -DBM=128 -DBN=256 -DBK=8 -DWM=64 -DWN=64 -DSTAGES=4 -DVEC_ALIGNED=1')):
        if pat in opt:
            open('/tmp/%s.ptx' % name, 'w').write(ptx); print(name, opt)
PY
for n in tf32 3x; do
  [ -f /tmp/$n.ptx ] || continue
  ptxas -arch=sm_90 -v /tmp/$n.ptx -o /tmp/$n.cubin >> $OUT/tc-2-ptx.txt 2>&1
  cuobjdump -sass /tmp/$n.cubin > /tmp/$n.sass 2>&1
  awk '/Function : matmul_tc$/,/Function : matmul_tc_p/' /tmp/$n.sass > $OUT/tc-2-sass-$n.txt
  echo "$n SASS ops:" $(grep -oE '^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9.@!P_ ]*' $OUT/tc-2-sass-$n.txt | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -25 | tr '\n' ' ') >> $OUT/tc-2-ptx.txt
done
m() { # precision tile options size
  local o; o=$(TILEDCL_CACHE=0 TILEDCL_TC_OPTIONS="$3 -cl-nv-verbose" timeout 60 ./bench_matmul -v -r 7 -P $1 -t $2 $4 2>&1)
  local gf=$(echo "$o" | grep -o 'device median *[0-9.]* ms ( *[0-9.]* GFLOP/s)' | sed 's/device median *//')
  local rg=$(echo "$o" | grep -o 'Used [0-9]* registers' | head -1)
  local sp=$(echo "$o" | grep -o '[0-9]* bytes spill stores' | head -1)
  local er=$(echo "$o" | grep -v 'spot error' | grep -v 'device 1:0' | grep -m1 -iE 'bench_matmul: [^m]|error|fail' | cut -c1-200)
  echo "$4 $1 t=$2 o=[$3] : ${gf:-NONE} | $rg | $sp | spot $(echo "$o" | grep -o 'spot error [0-9.e+-]*' | cut -d' ' -f3) $er" >> $R
}
for v in "128,128,8,64,64|-DSTAGES=6" "128,128,8,64,64|-DSTAGES=5" "128,128,8,64,64|-DSTAGES=4" "128,128,8,64,64|-DSTAGES=6 -DPIPE=0" \
         "128,128,8,64,64|-DSTAGES=6 -DPIPE_COPY=1" "128,128,8,64,64|-DSTAGES=6 -DGROUP_M=16" "128,256,8,64,64|" "256,128,8,64,64|" \
         "128,256,8,64,64|-DGROUP_M=16" "128,128,8,64,32|-DSTAGES=6" "128,128,8,64,32|-DSTAGES=6 -cl-nv-maxrregcount 128" \
         "128,128,8,64,32|-DSTAGES=6 -cl-nv-maxrregcount=128" "128,128,8,32,64|-DSTAGES=6 -cl-nv-maxrregcount 128"; do
  m tf32 "${v%|*}" "${v#*|}" 8192
done
for v in "128,128,8,64,32|-DSTAGES=6" "128,128,8,64,32|-DSTAGES=6 -cl-nv-maxrregcount 128" "128,128,8,64,64|-DSTAGES=6" \
         "128,256,8,64,64|" "128,128,16,64,64|" "128,128,8,32,64|-DSTAGES=6" "128,128,8,32,64|-DSTAGES=6 -cl-nv-maxrregcount 128" \
         "128,128,8,64,32|-DSTAGES=6 -DPIPE_COPY=1"; do
  m 3xtf32 "${v%|*}" "${v#*|}" 8192
done
for v in "tf32|128,128,8,64,64|-DSTAGES=6" "tf32|128,256,8,64,64|" "3xtf32|128,128,8,64,32|-DSTAGES=6" "3xtf32|128,256,8,64,64|"; do
  IFS='|' read p t x <<< "$v"; m $p $t "$x" 4096
done
for t in 128,128,8,64,32 128,256,8,64,64; do
  TILEDCL_TC_OPTIONS=-DSTAGES=4 timeout 90 ./bench_matmul -r 3 -c -P 3xtf32 -t $t 4096 2>&1 | grep -E 'x|Frob' >> $OUT/tc-2-acc.txt
done
timeout 60 ./bench_matmul -r 3 -c -P fp32 4096 2>&1 | grep -E 'x|Frob' >> $OUT/tc-2-acc.txt
