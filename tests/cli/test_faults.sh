# OpenCL fault injection: tests/fault/clfault.so makes the Nth OpenCL call
# fail. For each command on small inputs, a clean run first counts the calls;
# then faulted runs check that a failure exits 3 with a message naming the
# call and the error (or, where a failure is harmless, such as saving the
# binary cache, succeeds with the same output), keeps an existing output
# file untouched and leaves no temporary behind. Under the ASan build
# LeakSanitizer turns any leak into a failed run.
#
# CI walks the first call of each entry point (once across commands) and the
# last call of each command; TDCL_FAULT_FULL=1 walks every call, and
# TDCL_FAULT_ERROR picks the error (default CL_OUT_OF_RESOURCES).
. "$(dirname "$0")/lib.sh"

SHIM=${TDCL_FAULT_SHIM:-$(dirname "$TILEDCL")/tests/fault/clfault.so}
ERROR=${TDCL_FAULT_ERROR:-CL_OUT_OF_RESOURCES}
export XDG_CACHE_HOME="$T/cache"
covered=" "

# frun N TRACE ARGS...: runs tiledcl with call N failing, tracing to TRACE.
frun() {
    _call=$1 _trace=$2
    shift 2
    rm -f "$_trace"
    TDCL_FAULT_CALL=$_call TDCL_FAULT_ERROR=$ERROR TDCL_FAULT_TRACE=$_trace \
        LD_PRELOAD="$PRELOAD" "$TILEDCL" "$@" >"$T/.out" 2>"$T/.err" </dev/null
    RC=$?
    ERR=$(cat "$T/.err")
}

# check_fault DESC OUTFILE N: judges the last faulted run of call N.
check_fault() {
    _name=$(sed -n 's/^[0-9]* \(cl[A-Za-z]*\) FAULT$/\1/p' "$T/trace")
    _why=""
    if [ -z "$_name" ]; then
        _why="call $3 never happened"
    elif [ "$RC" -eq 0 ]; then
        # a tolerated failure: the result must be the clean run's
        if [ -n "$2" ] && ! cmp -s "$2" "$T/ref"; then _why="$_name failed, exit 0 but output differs"; fi
    elif [ "$RC" -ne 3 ]; then
        _why="$_name failed: exit $RC, expected 3: $ERR"
    else
        case "$ERR" in *"$_name"*"$ERROR"*) ;; *) _why="$_name failed: message lacks the call or error: $ERR" ;; esac
        if [ -n "$2" ] && [ "$(cat "$2")" != "old contents" ]; then _why="$_why; $_name failed: output changed"; fi
    fi
    if [ -n "$2" ] && ls "$2".tmp.* >/dev/null 2>&1; then _why="$_why; $_name failed: a temporary was left"; fi
    [ -n "$_why" ] && _bad="$_bad | call $3 ($_name): $_why"
    [ -n "$_name" ] && covered="$covered$_name "
}

# walk DESC OUTFILE ARGS...: the clean run, then the faulted ones. OUTFILE
# ('' when output goes to stdout) is set to "old contents" before each run.
walk() {
    _desc=$1 _outf=$2
    shift 2
    [ -n "$_outf" ] && rm -f "$_outf"
    # a first run fills the binary cache, so that the counted run is the
    # path every faulted run takes
    "$TILEDCL" "$@" >/dev/null 2>&1 </dev/null
    rm -f "$T/count"
    TDCL_FAULT_TRACE="$T/count" LD_PRELOAD="$PRELOAD" "$TILEDCL" "$@" >"$T/.out" 2>"$T/.err" </dev/null
    if [ $? -ne 0 ]; then not_ok "$_desc: clean run" "$(cat "$T/.err")"; return; fi
    if [ -n "$_outf" ] && [ ! -s "$_outf" ]; then not_ok "$_desc: clean run wrote no output"; return; fi
    [ -n "$_outf" ] && cp "$_outf" "$T/ref"
    _total=$(wc -l <"$T/count")
    _bad="" _runs=0
    for n in $(seq 1 "$_total"); do
        _nm=$(sed -n "${n}s/^[0-9]* //p" "$T/count")
        if [ "${TDCL_FAULT_FULL:-0}" != 1 ] && [ "$n" -ne "$_total" ]; then
            case "$covered" in *" $_nm "*) continue ;; esac
        fi
        [ -n "$_outf" ] && echo "old contents" >"$_outf"
        frun "$n" "$T/trace" "$@"
        check_fault "$_desc" "$_outf" "$n"
        _runs=$((_runs + 1))
    done
    if [ -z "$_bad" ]; then ok "$_desc: $_runs of $_total calls failed cleanly"; else not_ok "$_desc" "$_bad"; fi
}

# Under ASan the sanitizer's runtime must come before the shim, whose
# malloc would otherwise bypass it.
ASAN_LIB=$(ldd "$TILEDCL" 2>/dev/null | sed -n 's/.*libasan[^ ]* => \([^ ]*\).*/\1/p')
PRELOAD="${ASAN_LIB:+$ASAN_LIB }$SHIM"
if [ ! -f "$SHIM" ]; then
    echo "1..0 # SKIP no fault shim at $SHIM"
    exit 0
fi
need_device

D=$TDCL_DATA
walk "matmul, no cache" "$T/c.mtx" --no-cache matmul "$D/a.mtx" "$D/b.mtx" -o "$T/c.mtx"
walk "matmul, cached binary" "$T/c.mtx" matmul "$D/a.mtx" "$D/b.mtx" -o "$T/c.mtx"
walk "matmul f64 verify" "$T/c.npy" matmul "$D/seed4x4.mtx" "$D/seed4x4.mtx" --type f64 --verify -o "$T/c.npy"
"$TILEDCL" convert "$D/a.mtx" "$T/a32.npy" --dtype float32 >/dev/null 2>&1
"$TILEDCL" convert "$D/b.mtx" "$T/b32.npy" --dtype float32 >/dev/null 2>&1
walk "matmul npy, mapped buffers" "$T/c.npy" matmul "$T/a32.npy" "$T/b32.npy" -o "$T/c.npy"
# staged copies through the pinned ring (a GPU's path, forced here with
# 4 KiB chunks so that each input and the product take several): a failed
# ring allocation or map falls back to plain copies with the same output;
# any other failure is an error and writes nothing
awk 'BEGIN { print "%%MatrixMarket matrix array real general"; print "40 40";
     for (i = 0; i < 1600; i++) print (i * 7919) % 23 - 11 }' >"$T/big.mtx"
"$TILEDCL" convert "$T/big.mtx" "$T/big32.npy" --dtype float32 >/dev/null 2>&1
export TILEDCL_STAGING=1 TILEDCL_STAGING_CHUNK=4096 TILEDCL_MAPPED=0
walk "matmul npy, staged copies" "$T/c.npy" matmul "$T/big32.npy" "$T/big32.npy" -o "$T/c.npy"
unset TILEDCL_STAGING TILEDCL_STAGING_CHUNK TILEDCL_MAPPED
# a .npy input whose mapping fails is read instead, with the same product
"$TILEDCL" matmul "$T/big32.npy" "$T/big32.npy" -o "$T/ref.npy" >/dev/null 2>&1
rm -f "$T/mtrace"
TDCL_FAULT_MMAP=1 TDCL_FAULT_TRACE="$T/mtrace" LD_PRELOAD="$PRELOAD" "$TILEDCL" matmul \
    "$T/big32.npy" "$T/big32.npy" -o "$T/c.npy" >/dev/null 2>"$T/.err"
if [ $? -eq 0 ] && grep -q "mmap FAULT" "$T/mtrace" && cmp -s "$T/c.npy" "$T/ref.npy"; then
    ok "matmul npy: a failed mapping falls back to reading, same product"
else
    not_ok "matmul npy: a failed mapping falls back to reading" "$(cat "$T/.err")"
fi
# a .npy product's space is reserved while the device opens: a full file
# system fails there, naming the file, and leaves the existing one as it
# was; one that cannot reserve space is written as before
cp "$T/ref.npy" "$T/keep.npy"
rm -f "$T/ftrace"
TDCL_FAULT_FALLOCATE=ENOSPC TDCL_FAULT_TRACE="$T/ftrace" LD_PRELOAD="$PRELOAD" "$TILEDCL" matmul \
    "$T/big32.npy" "$T/big32.npy" -o "$T/keep.npy" >/dev/null 2>"$T/.err"
rc=$?
if [ $rc -ne 0 ] && grep -q "fallocate FAULT" "$T/ftrace" && grep -q "keep.npy" "$T/.err" &&
    grep -qi "no space" "$T/.err" && cmp -s "$T/keep.npy" "$T/ref.npy" &&
    ! ls "$T" | grep -q '\.tmp\.'; then
    ok "matmul npy: no space for the product fails before the work, the old file kept"
else
    not_ok "matmul npy: no space for the product fails before the work" "rc $rc: $(cat "$T/.err")"
fi
rm -f "$T/ftrace" "$T/c2.npy"
TDCL_FAULT_FALLOCATE=EOPNOTSUPP TDCL_FAULT_TRACE="$T/ftrace" LD_PRELOAD="$PRELOAD" "$TILEDCL" \
    matmul "$T/big32.npy" "$T/big32.npy" -o "$T/c2.npy" >/dev/null 2>"$T/.err"
if [ $? -eq 0 ] && grep -q "fallocate FAULT" "$T/ftrace" && cmp -s "$T/c2.npy" "$T/ref.npy"; then
    ok "matmul npy: a file system that cannot reserve space gets the same product"
else
    not_ok "matmul npy: a file system that cannot reserve space" "$(cat "$T/.err")"
fi
walk "tile-avg" "$T/t.mtx" --no-cache tile-avg "$D/seed8x8.mtx" --tile 2x4 -o "$T/t.mtx"
walk "life" "$T/g.rle" --no-cache life "$D/glider.rle" --size 16x16 --gens 6 -o "$T/g.rle"
walk "life gif" "$T/g.gif" --no-cache life "$D/glider.rle" --size 8x8 --gens 3 --gif "$T/g.gif"
walk "tile-map" "" --no-cache tile-map 6x6 --tile 3
walk "devices" "" devices
done_testing
