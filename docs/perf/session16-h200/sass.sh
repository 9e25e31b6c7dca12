#!/bin/bash
# Session 16: the FP32 matmul kernel's machine code, counted.
# Usage: sass.sh CACHE.bin  (a tiledcl kernel-cache entry of matmul.cl from the
# H200, here the 8192^3 build with TAILS=1; its program binary is NVIDIA's PTX)
# Needs ptxas (CUDA 13.0, the driver 580's version; on this machine under
# /usr/local/cuda/bin) and nvdisasm (PyPI wheel nvidia-cuda-nvdisasm 13.5.37,
# nvidia/cu13/bin/nvdisasm inside it).
set -e
bin=$1; d=$(mktemp -d)
python3 -c "import sys; b=open(sys.argv[1],'rb').read(); i=b.find(b'//\n// Generated'); open(sys.argv[2],'wb').write(b[i:].rstrip(b'\0'))" "$bin" $d/k.ptx
grep -a -m1 -o 'options=.*' "$bin"
ptxas -arch=sm_90 -O3 -v -o $d/k.cubin $d/k.ptx 2>&1 | grep -A3 "entry function 'mm_gpu'" | grep Used
${NVDISASM:-nvdisasm} -c $d/k.cubin | awk '/\.text\.mm_gpu:/{f=1} /\.text\.mm_(transpose|reduce)/{if(f)exit} f' > $d/mm.sass
count() { grep -oE "^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_.]+" | awk '{print $NF}' | sort | uniq -c | sort -rn; }
echo "== mm_gpu, whole function"; count < $d/mm.sass | head -12
# the unguarded slab's multiply-adds: from the label before the first FFMA to the loop's
# backward branch after the last one
first=$(grep -n FFMA $d/mm.sass | head -1 | cut -d: -f1); last=$(grep -n FFMA $d/mm.sass | tail -1 | cut -d: -f1)
start=$(head -n $first $d/mm.sass | grep -n '^\.L_x_' | tail -1 | cut -d: -f1)
end=$(tail -n +$last $d/mm.sass | grep -n 'BRA' | sed -n 2p | cut -d: -f1); end=$((last + end - 1))
echo "== the multiply part of one unguarded slab of 16 k-steps, its stores and barriers (lines $start-$end)"; sed -n "${start},${end}p" $d/mm.sass | count
rm -rf $d
