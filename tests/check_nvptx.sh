#!/usr/bin/env bash
# The NVIDIA-only paths of the kernels, compiled for NVPTX by clang; then
# every kernel file's helpers and life kernels' warnings; TAP.
# Those paths (inline PTX: wgmma, mma.sync, cp.async, mbarriers, lop3, shfl) run
# only on NVIDIA GPUs, so PoCL, the device of the tests, never builds them.
# clang (a dependency of PoCL, so present wherever the tests run) parses
# them as NVIDIA's compiler would: the OpenCL C, and each asm statement's
# operands against the %N its text names. It cannot check the PTX text
# itself, and for matmul/wg.cl the sm_90a instructions are PTX comments
# anyway (see its header), so each build is also checked for the
# instructions it must contain. The option sets follow the host's
# (src/ops/*): the matmul ones are written from its format strings (the
# tf32 and 3xtf32 wgmma built-ins, one tuning-aid shape, mma.sync, the
# cp.async FP32 kernel), the life ones (lop3, shfl) copied from `tiledcl
# -v` logs on an H200.
#
# Helpers must be static: a plain C99 "inline" definition gives no symbol,
# so a call clang leaves out of line fails to link (AMD's and SPIR-V's
# pipelines). Each file is checked by its text, and the life programs are
# compiled for SPIR at -O0, where nothing is inlined unless forced, and
# must declare no function of their own. Those compiles also take clang's
# default warnings as failures: PoCL prints "N warnings generated." on the
# user's terminal for each warning a build has.
#
#   tests/check_nvptx.sh [CL_DIR]       (default: cl beside tests/)
set -u
cl=${1:-$(cd "$(dirname "$0")/../cl" && pwd)}
cc=""
for c in clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14; do
    command -v "$c" >/dev/null 2>&1 && { cc=$c; break; }
done
if [ -z "$cc" ]; then echo "1..0 # SKIP no clang"; exit 0; fi
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
if ! echo '__kernel void k(void) {}' >"$out/probe.cl" ||
    ! "$cc" -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -S -o "$out/probe.ptx" "$out/probe.cl" \
        >/dev/null 2>&1; then
    echo "1..0 # SKIP $cc has no NVPTX target"
    exit 0
fi

# life_src OPTS: the files of the life program OPTS names (its
# -DLIFE_PROG_<NAME>=1), as src/ops/life/life_prog.c lists them, joined as
# the runtime joins them into one source; prints the joined file's path
prog_c="$cl/../src/ops/life/life_prog.c"
life_src() {
    local prog files f
    prog=$(sed -nE 's/.*-DLIFE_PROG_([A-Z0-9]+)=1.*/\1/p' <<<"$1")
    files=$(grep -E "^\s*\[TDCL_LIFE_PROG_$prog\] = \{" "$prog_c" | grep -oE 'F\("[a-z0-9_]+"\)' |
        sed -E 's/F\("(.*)"\)/\1/')
    f="$out/life_$prog.cl"
    : >"$f"
    for x in $files; do
        printf '#line 1 "life/%s.cl"\n' "$x" >>"$f"
        cat "$cl/life/$x.cl" >>"$f"
    done
    printf '%s\n' "$f"
}

# mm_src FAMILY: matmul's prelude and cl/matmul/FAMILY.cl joined, as
# src/ops/matmul/mm_prog.c builds them; prints the joined file's path
mm_src() {
    local f="$out/matmul_$1.cl" x
    : >"$f"
    for x in prelude "$1"; do
        printf '#line 1 "matmul/%s.cl"\n' "$x" >>"$f"
        cat "$cl/matmul/$x.cl" >>"$f"
    done
    printf '%s\n' "$f"
}

# file (life: the program's files; matmul/F: the prelude and F) | options | a pattern the PTX must contain
wg="-DNWG=1 -DBK=8 -DSTAGES=4 -DLAG=1"
life="-DBIRTH=0x8 -DSURVIVE=0xc -DWBITS=64 -DLY=8 -DVX=1 -DFULLW=0 -DSINGLE=0"
net3="-DNET3=1 -DN3_A0=k0 -DN3_B0=x -DN3_C0=y -DN3_T0=0x16 -DN3_A1=s0 -DN3_B1=y -DN3_C1=g0 -DN3_T1=0x26 -DN3_A2=s0 -DN3_B2=alive -DN3_C2=g1 -DN3_T2=0xa4"
builds=(
    "matmul/wg|-DPREC=1 $wg -DBN=256 -DKSUB=16 -DGROUP_M=16 -DPRODUCER=0|TDCL_SM90A wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32"
    "matmul/wg|-DPREC=3 $wg -DBN=128 -DKSUB=16 -DGROUP_M=32 -DPRODUCER=1|TDCL_SM90A wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32"
    "matmul/wg|-DPREC=3 -DNWG=2 -DBK=16 -DSTAGES=2 -DLAG=0 -DBN=64 -DKSUB=4 -DGROUP_M=8 -DPRODUCER=0|cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
    "matmul/tc|-DPREC=1 -DBM=128 -DBN=128 -DBK=16 -DWM=64 -DWN=64 -DSTAGES=3 -DVEC_ALIGNED=1 -DIDX=int|mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
    "matmul/tc|-DPREC=3 -DBM=128 -DBN=128 -DBK=8 -DWM=64 -DWN=32 -DSTAGES=3 -DVEC_ALIGNED=0 -DIDX=long|cp.async"
    "matmul/gemm|-DVARIANT=3 -DIDX=int -DBM=128 -DBN=256 -DBK=16 -DTM=8 -DTN=16 -DWX=8 -DWY=4 -DNBUF=2 -DALOAD=0 -DATRANS=1 -DTT=1 -DVEC_ALIGNED=1 -DUNROLL=1 -DPADL=0 -DFRAG=0 -DCPASYNC=1 -DCP_EMULATE=0 -DSWZ=0 -DTAILS=1|cp.async.cg.shared.global"
    "life|-DLIFE_PROG_BITS=1 $life -DLX=16 -DS=18 -DK=8 -DDBUF=1 -DFLOW=1 -DFLOWNV=1 -DLOP3ASM=1 -DLUT_B0=0x0 -DLUT_B1=0x14 -DLUT_S0=0x42 -DLUT_S1=0x14 -DHALVES=1|lop3.b32"
    "life|-DLIFE_PROG_BITS=1 $life -DLX=32 -DS=24 -DK=8 -DDBUF=0 -DFLOW=1 -DFLOWNV=1 -DREGT=1 -DSHFL=1 $net3 -DLOP3ASM=1 -DHALVES=1|shfl.sync.up.b32"
    "life|-DLIFE_PROG_SPARSE=1 -DLIST_WG=64 $life -DLX=16 -DS=16 -DK=16 -DDBUF=1 $net3 -DLOP3ASM=1 -DHALVES=1|lop3.b32"
    "life|-DLIFE_PROG_PEAK=1 -DBIRTH=0x8 -DSURVIVE=0xc -DWBITS=32 -DVW=1 -DITERS=4096 -DPK=8 $net3 -DLOP3ASM=1|lop3.b32"
)
# life: one set per kernel family, over rules whose tables are empty on
# one side (B2/S, B36/S23, B3678/S34678) and Golly's mapped grids (Klein,
# cross-surface, sphere)
bits="-DWBITS=64 -DLX=16 -DLY=8 -DS=18 -DK=8 -DFULLW=0 -DSINGLE=0"
topo="-DLIFE_PROG_BYTES=1 -DTS_X=16 -DTS_Y=16 -DSHIFT_H=0 -DSHIFT_V=0 -DOPEN_X=0 -DOPEN_Y=0"
spir=(
    "-DLIFE_PROG_BITS=1 -DBIRTH=0x4 -DSURVIVE=0x0 $bits -DDBUF=1 -DVX=2"
    "-DLIFE_PROG_BITS=1 -DBIRTH=0x48 -DSURVIVE=0xc $bits -DDBUF=1 -DVX=1 -DHALVES=1 -DFLOW=1 -DFLOWNV=0"
    "-DLIFE_PROG_BITS=1 -DBIRTH=0x1c8 -DSURVIVE=0x1d8 $bits -DVX=1 -DHALVES=1 -DREGT=1 -DSHFL=0 -DDBUF=0"
    "-DLIFE_PROG_STREAM=1 -DBIRTH=0x48 -DSURVIVE=0xc -DWBITS=32 -DLX=8 -DLY=2 -DS=7 -DK=5 -DVX=1 -DHALVES=1 -DSHFL=0"
    "-DLIFE_PROG_BAND=1 -DBIRTH=0x4 -DSURVIVE=0x0 -DWBITS=64 -DK=8 -DVW=8"
    "-DLIFE_PROG_BITS1=1 -DSPARSE1=1 -DBIRTH=0x1c8 -DSURVIVE=0x1d8 -DWBITS=64 -DLIST_WG=64 -DS=8 -DVW=8"
    "-DLIFE_PROG_SPARSE=1 -DBIRTH=0x48 -DSURVIVE=0xc -DLIST_WG=64 $bits -DDBUF=1 -DVX=1 -DHALVES=1"
    "$topo -DBIRTH=0x48 -DSURVIVE=0xc -DTOPO=3 -DTWIST_H=1 -DTWIST_V=0"
    "$topo -DBIRTH=0x8 -DSURVIVE=0xc -DTOPO=4 -DTWIST_H=1 -DTWIST_V=1"
    "$topo -DBIRTH=0x4 -DSURVIVE=0x0 -DTOPO=5 -DTWIST_H=0 -DTWIST_V=0"
)
echo "1..$((${#builds[@]} + 1 + ${#spir[@]}))"
n=0
for b in "${builds[@]}"; do
    n=$((n + 1))
    IFS='|' read -r file opts want <<<"$b"
    src="$cl/$file"
    [ "$file" = life ] && src=$(life_src "$opts")
    case $file in matmul/*) src=$(mm_src "${file#matmul/}") ;; esac
    # shellcheck disable=SC2086
    if ! "$cc" -x cl -cl-std=CL1.2 -O2 -Dasm=__asm__ -target nvptx64-nvidia-nvcl \
        -Xclang -finclude-default-header -Wno-everything -S -o "$out/k.ptx" $opts \
        "$src" >"$out/log" 2>&1; then
        echo "not ok $n - $file $opts"
        sed 's/^/# /' "$out/log" | head -20
    elif ! grep -qF "$want" "$out/k.ptx"; then
        echo "not ok $n - $file $opts: no '$want' in the PTX"
    else
        echo "ok $n - $file $opts"
    fi
done

n=$((n + 1))
# a line that starts a definition with "inline" (a macro's body included)
plain=$(grep -nE '^[[:space:]]*(__attribute__\(\([^)]*\)\)[[:space:]]*)?inline[[:space:]]' "$cl"/*.cl "$cl"/*/*.cl)
if [ -n "$plain" ]; then
    echo "not ok $n - helpers are static, never a plain 'inline'"
    printf '%s\n' "$plain" | sed 's/^/# /' | head -20
else
    echo "ok $n - helpers are static, never a plain 'inline'"
fi

for opts in "${spir[@]}"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    if ! "$cc" -x cl -cl-std=CL1.2 -O0 -target spir64 -Xclang -finclude-default-header -S \
        -emit-llvm -o "$out/k.ll" $opts "$(life_src "$opts")" >"$out/log" 2>&1; then
        echo "not ok $n - life $opts for SPIR"
        sed 's/^/# /' "$out/log" | head -20
    elif [ -s "$out/log" ]; then
        echo "not ok $n - life $opts for SPIR: warnings"
        sed 's/^/# /' "$out/log" | head -20
    elif own=$(grep '^declare' "$out/k.ll" | grep -v '@_Z\|@llvm\.'); [ -n "$own" ]; then
        echo "not ok $n - life $opts for SPIR: helpers left undefined"
        printf '%s\n' "$own" | sed 's/^/# /' | head -20
    else
        echo "ok $n - life $opts for SPIR"
    fi
done
