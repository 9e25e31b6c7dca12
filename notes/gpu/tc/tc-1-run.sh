# tc call 1: unit test, PTX check, sweep. One line per measurement.
export LD_LIBRARY_PATH=$PWD/lib CMOCKA_MESSAGE_OUTPUT=stdout
R=$OUT/tc-1-sweep.txt
{
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
ldd ./tiledcl ./bench_matmul ./test_matmul_tc | grep -i "not found" || echo "ldd: all found"
which ptxas cuobjdump nvdisasm python3 2>&1 | tr '\n' ' '; echo
} > $OUT/tc-1-env.txt 2>&1
timeout 100 ./test_matmul_tc > $OUT/tc-1-test.txt 2>&1; echo "test rc=$?" >> $OUT/tc-1-test.txt
# PTX of the cached binaries: the cp.async operands
python3 - > $OUT/tc-1-ptx.txt 2>&1 <<'PY'
import glob, struct
for f in sorted(glob.glob('/tmp/c/tiledcl/**/*', recursive=True)):
    try: d = open(f, 'rb').read()
    except Exception: continue
    if not d.startswith(b'TDCLBIN1'): continue
    kl = struct.unpack('<Q', d[8:16])[0]; key = d[16:16+kl].decode(errors='replace')
    if 'STAGES' not in key: continue
    bl = struct.unpack('<Q', d[16+kl:24+kl])[0]; ptx = d[32+kl:32+kl+bl].decode(errors='replace')
    print('==', [l for l in key.splitlines() if l.startswith('options')])
    lines = ptx.splitlines()
    for pat in ('.target', '.version', 'cp.async', 'mma.sync', 'ld.shared', 'bar.sync', '.shared'):
        hits = [l.strip() for l in lines if pat in l]
        print(pat, len(hits), hits[:4])
    open('/tmp/one.ptx', 'w').write(ptx)
PY
if command -v ptxas >/dev/null; then ptxas -arch=sm_90 -v /tmp/one.ptx -o /tmp/one.cubin >> $OUT/tc-1-ptx.txt 2>&1; fi
m() { # precision tile options size
  local o; o=$(TILEDCL_CACHE=0 TILEDCL_TC_OPTIONS="$3 -cl-nv-verbose" timeout 60 ./bench_matmul -v -r 7 -P $1 -t $2 $4 2>&1)
  local gf=$(echo "$o" | grep -o 'device median *[0-9.]* ms ( *[0-9.]* GFLOP/s)' | sed 's/device median *//')
  local rg=$(echo "$o" | grep -o 'Used [0-9]* registers' | head -1)
  local sp=$(echo "$o" | grep -o '[0-9]* bytes spill stores' | head -1)
  local er=$(echo "$o" | grep -v 'spot error' | grep -m1 -iE 'bench_matmul: [^m]|error|fail' | cut -c1-200)
  echo "$4 $1 t=$2 o=[$3] : ${gf:-NONE} | $rg | $sp | spot $(echo "$o" | grep -o 'spot error [0-9.e+-]*' | cut -d' ' -f3) $er" >> $R
}
for v in "128,128,16,64,64|" "128,128,16,64,64|-DGROUP_M=1" "128,128,16,64,64|-DGROUP_M=16" "128,128,16,64,64|-DRND=0" \
         "128,128,16,64,64|-DCP_ADDR=1" "128,128,16,64,32|" "128,128,16,32,64|" "128,256,8,64,64|" "256,128,8,64,64|" \
         "128,128,8,64,64|-DSTAGES=4" "128,128,8,64,64|-DSTAGES=6" "128,256,16,64,64|-DSTAGES=2" "256,128,16,64,64|-DSTAGES=2" \
         "64,128,32,32,64|"; do
  m tf32 "${v%|*}" "${v#*|}" 8192
done
for v in "128,128,16,64,32|" "128,128,16,64,64|" "128,128,16,32,64|" "128,256,8,64,64|" "128,128,8,64,32|-DSTAGES=4" \
         "128,128,16,64,32|-cl-nv-maxrregcount=128" "128,128,16,64,32|-DRND=0" "256,128,8,64,64|" "128,128,16,64,32|-DGROUP_M=1"; do
  m 3xtf32 "${v%|*}" "${v#*|}" 8192
done
for v in "tf32|128,128,16,64,64|" "tf32|128,256,8,64,64|" "3xtf32|128,128,16,64,32|" "3xtf32|128,256,8,64,64|"; do
  IFS='|' read p t x <<< "$v"; m $p $t "$x" 4096
done
# accuracy (whole C against double), default tiles
for p in fp32 3xtf32 tf32; do timeout 60 ./bench_matmul -r 3 -c -P $p 2048 1000x3001x1999 2>&1 | grep -E 'x|Frob' >> $OUT/tc-1-acc.txt; done
TILEDCL_TC_OPTIONS=-DRND=0 timeout 60 ./bench_matmul -r 3 -c -P 3xtf32 2048 2>&1 | grep -E 'x|Frob' >> $OUT/tc-1-acc.txt
