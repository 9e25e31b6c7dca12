#!/usr/bin/env bash
# One command measures everything on an NVIDIA machine: registers NVIDIA's
# OpenCL driver with the ICD loader when no vendor file does, builds tiledcl
# (or uses the binary in $TILEDCL, e.g. a build copied there), and runs the
# whole bench, one JSON object per line.
#
# usage: bench/gpu.sh [-o OUT.jsonl] [-- extra 'tiledcl bench' options]
#
#   OUT          default bench-gpu-YYYYMMDD-HHMMSS.jsonl in the current directory;
#                OUT.devices.json gets 'tiledcl devices --json', OUT.log stderr
#   $TILEDCL     a tiledcl binary to use instead of building one
#   $DEVICE      the --device SPEC (default: gpu)
#   $NO_NVIDIA_CHECK  set: skip the check for an NVIDIA GPU made before building
#
# Runs: bench all (f32), matmul in f64, matmul on tensor cores (--precision
# tf32 and 3xtf32: they fail on a GPU without them), and a small matmul table
# (sizes 16, 160, 1600 with 16x16 tiles). Exit status: 0 when every run
# succeeded, else the first failure's.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
out="bench-gpu-$(date -u +%Y%m%d-%H%M%S).jsonl"
while [ $# -gt 0 ]; do
    case "$1" in
    -o) out=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
extra=("$@")
device=${DEVICE:-gpu}

# NVIDIA ships libnvidia-opencl with the driver, but containers often lack
# the ICD vendor file that points the loader at it: make a private one.
register_nvidia_icd() {
    if ls /etc/OpenCL/vendors/*nvidia*.icd >/dev/null 2>&1; then
        return 0
    fi
    local lib
    lib=$(ldconfig -p 2>/dev/null | awk '/libnvidia-opencl\.so\.1 /{print $NF; exit}')
    if [ -z "$lib" ]; then
        for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/nvidia/lib64 /usr/lib/aarch64-linux-gnu; do
            if [ -e "$d/libnvidia-opencl.so.1" ]; then lib="$d/libnvidia-opencl.so.1"; break; fi
        done
    fi
    if [ -z "$lib" ]; then
        echo "gpu.sh: no libnvidia-opencl.so.1 found; is the NVIDIA driver installed?" >&2
        return 0 # another vendor's device may still be there
    fi
    local dir
    dir=$(mktemp -d "${TMPDIR:-/tmp}/tiledcl-icd-XXXXXX")
    echo "$lib" >"$dir/nvidia.icd"
    export OCL_ICD_VENDORS="$dir"  # ocl-icd
    export OCL_ICD_FILENAMES="$lib" # the Khronos loader
    echo "gpu.sh: registered $lib through $dir/nvidia.icd" >&2
}

build_tiledcl() {
    if [ -n "${TILEDCL:-}" ]; then
        echo "$TILEDCL"
        return
    fi
    local b="$repo/build-bench"
    if [ ! -d "$b" ]; then
        meson setup "$b" "$repo" --buildtype=release >&2
    fi
    ninja -C "$b" tiledcl >&2
    echo "$b/tiledcl"
}

# Before anything is built: is there an NVIDIA GPU at all?
check_nvidia() {
    if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
        return 0
    fi
    if ls /dev/nvidia[0-9]* >/dev/null 2>&1 || grep -qs . /proc/driver/nvidia/gpus/*/information; then
        return 0
    fi
    echo "gpu.sh: no NVIDIA GPU found (no nvidia-smi GPU, no /dev/nvidia0); nothing built or run" >&2
    echo "gpu.sh: set DEVICE and NO_NVIDIA_CHECK=1 to bench another device" >&2
    exit 3
}

[ -n "${NO_NVIDIA_CHECK:-}" ] || check_nvidia
register_nvidia_icd
exe=$(build_tiledcl)
export TILEDCL_KERNEL_PATH="$repo/cl${TILEDCL_KERNEL_PATH:+:$TILEDCL_KERNEL_PATH}"
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$(mktemp -d "${TMPDIR:-/tmp}/tiledcl-cache-XXXXXX")}

"$exe" devices --json >"$out.devices.json"
: >"$out"
status=0
run() {
    echo "gpu.sh: tiledcl --device $device bench $*" >&2
    local rc=0
    "$exe" --device "$device" bench "$@" --json >>"$out" 2>>"$out.log" || rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "gpu.sh: failed ($rc): bench $* (see $out.log)" >&2
        [ "$status" -ne 0 ] || status=$rc
    fi
}
run all "${extra[@]}"
run matmul --type f64 "${extra[@]}"
for p in tf32 3xtf32; do
    run matmul --precision "$p" "${extra[@]}"
done
for n in 16 160 1600; do
    run matmul --size "$n" --tile 16 "${extra[@]}"
done
echo "gpu.sh: $(wc -l <"$out") figures in $out" >&2
exit "$status"
