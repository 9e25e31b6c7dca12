#!/bin/sh
# Builds the libFuzzer targets with clang under ASan/UBSan and runs each for
# SECONDS (default 30), as many at once as there are cores.
#
#   tests/fuzz/run-fuzzers.sh [SECONDS] [TARGET...]     (targets: mtx npy rle
#   cells lif mc image rule device tile; default all)
#
# Needs clang and its runtime (Debian: clang-14, libclang-rt-14-dev or the
# clang package's bundled compiler-rt). The build goes to $TDCL_FUZZ_BUILD
# (default build-fuzz/); new corpus entries to build-fuzz/fuzz-corpus/NAME,
# crashes to build-fuzz/fuzz-artifacts/. A line per target (executions,
# seconds, status) is appended to build-fuzz/fuzz-summary.txt. Exits 1 if any
# target found a crash: copy the artifact into tests/fuzz/corpus_NAME as a
# regression input once fixed.
set -eu
secs=${1:-30}
[ $# -gt 0 ] && shift
src=$(cd "$(dirname "$0")/../.." && pwd)
bd=${TDCL_FUZZ_BUILD:-$src/build-fuzz}
targets=${*:-mtx npy rle cells lif mc image rule device tile}
if [ ! -f "$bd/build.ninja" ]; then
    CC=clang CXX=clang++ meson setup "$bd" "$src" -Db_sanitize=address,undefined -Db_lundef=false
fi
ninja -C "$bd" $(for t in $targets; do printf 'tests/fuzz/fuzz_%s ' "$t"; done)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
mkdir -p "$bd/fuzz-artifacts"
# Each target runs on one core; as many run at once as there are cores.
fuzz_one() {
    t=$1
    mkdir -p "$bd/fuzz-corpus/$t"
    log="$bd/fuzz-artifacts/$t.log"
    start=$(date +%s)
    if "$bd/tests/fuzz/fuzz_$t" -max_total_time="$secs" -print_final_stats=1 \
        -artifact_prefix="$bd/fuzz-artifacts/$t-" "$bd/fuzz-corpus/$t" \
        "$src/tests/fuzz/corpus_$t" >"$log" 2>&1; then
        result=ok
    else
        result="FAILED (see $log)"
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    echo "$(date -u +%Y-%m-%dT%H:%MZ) fuzz_$t execs=${execs:-?} secs=$(($(date +%s) - start)) $result" \
        >"$bd/fuzz-artifacts/$t.result"
}
jobs=$(nproc 2>/dev/null || echo 1)
running=0
for t in $targets; do
    rm -f "$bd/fuzz-artifacts/$t.result"
    fuzz_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait
        running=0
    fi
done
wait
failed=0
for t in $targets; do
    line=$(cat "$bd/fuzz-artifacts/$t.result" 2>/dev/null || echo "fuzz_$t FAILED (no result)")
    echo "$line" | tee -a "$bd/fuzz-summary.txt"
    case "$line" in *" ok") ;; *) failed=1 ;; esac
done
exit $failed
