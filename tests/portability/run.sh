#!/usr/bin/env bash
# The kernels on a second OpenCL implementation (TAP): every case of
# tests/portability/cases on each device below; a case passes when it exits
# 0 (or, marked may-refuse, is refused by a message naming the device's
# limit), the implementation reports nothing and its result matches the
# host reference. Then every .cl file under cl/ must have been built by
# some case (or be listed with 'skip').
#
#   run.sh oclgrind CASES DEVSHIM.so   Oclgrind's simulator with its
#                                      data-race, bounds and API checks, on
#                                      emulated devices
#   run.sh rusticl CASES               Mesa's rusticl on llvmpipe
#
# Only the implementation's .icd is named (OCL_ICD_VENDORS), for these runs
# alone. Known false positives and the implementations' own limits:
# tests/portability/README.md.
. "$(dirname "$0")/../cli/lib.sh"
impl=$1
cases=$2
shim=${3-}
case "$impl" in
oclgrind) icd=/usr/lib/oclgrind/liboclgrind-rt-icd.so ;;
rusticl) icd=$(ls /usr/lib/*/libRusticlOpenCL.so.1 2>/dev/null | head -n 1) ;;
*) echo "usage: run.sh oclgrind|rusticl CASES [DEVSHIM]" >&2 && exit 2 ;;
esac
if [ -z "$icd" ] || [ ! -f "$icd" ]; then
    echo "1..0 # SKIP no $impl (.ci/install-deps --tests installs it)"
    exit 0
fi
if ! python3 -c 'import numpy' 2>/dev/null; then
    echo "1..0 # SKIP no numpy for the references"
    exit 0
fi
ref="$(dirname "$0")/ref.py"
mkdir -p "$T/vendors"
echo "$icd" >"$T/vendors/oclgrind.icd"
python3 "$ref" inputs "$T"

export OCL_ICD_VENDORS=$T/vendors TILEDCL_DEVICE=
if [ "$impl" = rusticl ]; then
    profiles=("rusticl: RUSTICL_ENABLE=llvmpipe")
else
    # Oclgrind with its checks; no kernel cache (its key does not see
    # OCLGRIND_BUILD_OPTIONS). Oclgrind 21.10's interpreter lacks the
    # llvm.fshl and llvm.experimental.noalias.scope.decl intrinsics that
    # optimisation and inlined restrict pointers bring in.
    export TILEDCL_CACHE=0 OCLGRIND_CHECK_API=1 OCLGRIND_DATA_RACES=1
    export OCLGRIND_BUILD_OPTIONS="-cl-opt-disable -Drestrict="
    # name: the emulated device (sizes through Oclgrind; type and fp64
    # through the shim, devshim.c): the OpenCL minimum of local memory with
    # a small work-group and Oclgrind's own type (every bit: tiledcl takes
    # its CPU paths), an AMD-like GPU, an Intel-like GPU without fp64
    profiles=(
        "minimum: OCLGRIND_MAX_WGSIZE=64 OCLGRIND_LOCAL_MEM_SIZE=32768"
        "amd: OCLGRIND_MAX_WGSIZE=256 OCLGRIND_LOCAL_MEM_SIZE=65536 OCLGRIND_COMPUTE_UNITS=4 TDCL_SHIM_TYPE=gpu"
        "intel: OCLGRIND_MAX_WGSIZE=512 OCLGRIND_LOCAL_MEM_SIZE=65536 OCLGRIND_COMPUTE_UNITS=4 TDCL_SHIM_TYPE=gpu TDCL_SHIM_FP64=0"
    )
fi

# arg VALUE-OF-FLAG DEFAULT ARGS...: the value after the first flag named.
arg() {
    local def=$2 f1=$1
    shift 2
    while [ $# -gt 0 ]; do
        case "$1" in "$f1" | "$f1"=*) [ "$1" = "$f1" ] && def=$2 || def=${1#*=} ;; esac
        shift
    done
    echo "$def"
}

# known_reports FILE: drops from FILE each Oclgrind report (a line, then
# its tab-indented details) that is a known false positive, listed with its
# reason in tests/portability/README.md: in the sparse kernels, a plain
# (volatile) load that seeds a compare-and-swap, racing another lane's
# compare-and-swap on the same word.
known_reports() {
    awk '
        function flush() {
            if (blk != "" && !(blk ~ /data race/ && blk ~ /of sparse\// &&
                blk ~ /load volatile/ && blk ~ /atom(ic)?_cmpxchg/))
                printf "%s", blk
            blk = ""
        }
        /^\t/ && blk != "" { blk = blk $0 "\n"; next }
        { flush(); blk = $0 "\n" }
        END { flush() }' "$1" >"$1.kept" && mv "$1.kept" "$1"
}

# check KIND ARGS...: runs one case in $T; REPORT holds what failed.
check() {
    local kind=$1
    shift
    local out=(-o "$T/out.npy") extra=()
    case "$kind" in
    life) extra=("$T/soup.npy") ;;
    plane) kind=life extra=("$T/soup.rle" --plane tiles) ;;
    matmul | tile-avg) extra=(--verify) ;;
    bench | tile-map) out=() ;;
    esac
    (cd "$T" && "$TILEDCL" -v "$kind" "${extra[@]}" "$@" "${out[@]}") >"$T/.out" 2>"$T/.err" </dev/null
    RC=$?
    grep -o 'kernel [^ ]*: compiled' "$T/.err" | sed 's/^kernel //; s/: compiled$//' | tr + '\n' >>"$T/built"
    REPORT=
    known_reports "$T/.err"
    if grep -q -E '^(Oclgrind - |OCLGRIND FATAL)|^	Kernel: ' "$T/.err"; then
        REPORT="Oclgrind: $(grep -m 3 -E '^(Oclgrind|OCLGRIND|Invalid|Uninitialized|.* data race)' "$T/.err")"
    elif [ "$RC" -ne 0 ]; then
        REPORT="exit $RC: $(grep -v '^tiledcl: \(kernel\|life: kernel\)' "$T/.err" | tail -n 3)"
    elif [ "${extra[0]-}" = "$T/soup.rle" ]; then
        REPORT=$(python3 "$ref" plane "$T/soup.npy" "$T/out.npy" "$(arg --gens 200 "$@")" \
            "$(arg -r B3/S23 "$@")" 2>&1) || REPORT="reference: $REPORT"
    elif [ "$kind" = life ]; then
        REPORT=$(python3 "$ref" life "$T/soup.npy" "$T/out.npy" "$(arg --gens 200 "$@")" \
            "$(arg -b dead "$@")" "$(arg -r B3/S23 "$@")" 2>&1) || REPORT="reference: $REPORT"
    fi
}

while IFS= read -r line; do
    case "$line" in '' | '#'* | skip\ *) continue ;; esac
    for p in "${profiles[@]}"; do
        name=${p%%:*}
        read -r -a words <<<"$line"
        refuse=0
        [ "${words[0]}" = may-refuse ] && refuse=1 && words=("${words[@]:1}")
        (
            for kv in ${p#*:}; do export "${kv?}"; done
            [ -n "$shim" ] && export LD_PRELOAD=$shim
            check "${words[@]}"
            if [ -z "$REPORT" ]; then exit 0; fi
            printf '%s\n' "$REPORT" >"$T/.report"
            # a refusal that names the device and what it lacks
            [ "$refuse" = 1 ] && [ "$RC" = 1 ] && grep -q "device '.*' \(has [0-9]\|has no\|cannot run\|allows\|runs it\)" "$T/.err" &&
                grep "device '" "$T/.err" | tail -n 1 >"$T/.report" && exit 3
            exit 1
        )
        case $? in
        0) ok "$name: $line" ;;
        3) ok "$name: $line # refused: $(cat "$T/.report")" ;;
        *) not_ok "$name: $line" "$(cat "$T/.report")" ;;
        esac
    done
done <"$cases"

# every kernel file is built by some case or skipped by name (on the
# checker; rusticl's device takes fewer of the automatic paths)
[ "$impl" = oclgrind ] || { done_testing; exit; }
src=${TDCL_SOURCE_ROOT:?run through meson test}/cl
missing=
while IFS= read -r f; do
    f=${f#"$src"/}
    grep -q -x -F "$f" "$T/built" 2>/dev/null && continue
    grep -q -E "^skip $f( |$)" "$cases" && continue
    missing="$missing $f"
done < <(find "$src" -name '*.cl' | sort)
if [ -z "$missing" ]; then ok "every kernel file under cl/ ran"; else not_ok "every kernel file under cl/ ran" "no case builds:$missing (add a line to $cases)"; fi
done_testing
