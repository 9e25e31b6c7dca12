# Exhaustion: on a device that reports little memory (the fault shim lowers
# CL_DEVICE_MAX_MEM_ALLOC_SIZE and CL_DEVICE_GLOBAL_MEM_SIZE and refuses
# larger buffers, as such a device would), each operation either splits the
# work and gives the same result as on the full device, or refuses before
# allocating with a message naming the limit, never a failed clCreateBuffer.
# Then host allocation failures (the shim fails the Nth malloc, calloc or
# realloc made by tiledcl itself) give exit 1 "out of memory", keep an
# existing output and leave no temporary. CI tries every 10th allocation;
# TDCL_FAULT_FULL=1 tries them all.
. "$(dirname "$0")/lib.sh"

SHIM=${TDCL_FAULT_SHIM:-$(dirname "$TILEDCL")/tests/fault/clfault.so}
export XDG_CACHE_HOME="$T/cache"
# Under ASan the sanitizer's runtime must come before the shim, whose
# malloc would otherwise bypass it.
ASAN_LIB=$(ldd "$TILEDCL" 2>/dev/null | sed -n 's/.*libasan[^ ]* => \([^ ]*\).*/\1/p')
PRELOAD="${ASAN_LIB:+$ASAN_LIB }$SHIM"
if [ ! -f "$SHIM" ]; then
    echo "1..0 # SKIP no fault shim at $SHIM"
    exit 0
fi
need_device

# small DESC OUT ARGS...: runs ARGS on the full device, then on a 64 KiB /
# 256 KiB device, and compares.
small() {
    _desc=$1 _out=$2
    shift 2
    "$TILEDCL" "$@" -o "$T/full-$_out" >/dev/null 2>"$T/.err" </dev/null
    if [ $? -ne 0 ]; then not_ok "$_desc: full device run" "$(cat "$T/.err")"; return; fi
    echo "old contents" >"$T/$_out"
    TDCL_FAULT_MAX_ALLOC=65536 TDCL_FAULT_GLOBAL_MEM=262144 LD_PRELOAD="$PRELOAD" \
        "$TILEDCL" "$@" -o "$T/$_out" >/dev/null 2>"$T/.err" </dev/null
    RC=$? ERR=$(cat "$T/.err")
    if [ "$RC" -eq 0 ]; then
        expect_same_file "$T/$_out" "$T/full-$_out" "$_desc: split, same result"
        return
    fi
    case "$ERR" in
    *clCreateBuffer*) not_ok "$_desc: refused only when allocating" "$ERR" ;;
    *MiB* | *bytes* | *memory* | *cells*) ok "$_desc: refused before allocating ($ERR)" ;;
    *) not_ok "$_desc: refusal names no limit" "$ERR" ;;
    esac
    expect_eq "$(cat "$T/$_out")" "old contents" "$_desc: the old file is untouched"
}

run life --size 160x160 --gens 0 --seed 3 -o "$T/a.mtx"
run life --size 160x160 --gens 0 --seed 4 -o "$T/b.mtx"
small "matmul 160x160 f32" c.mtx matmul "$T/a.mtx" "$T/b.mtx"
small "tile-avg 160x160 f32" t.mtx tile-avg "$T/a.mtx" --tile 4
# tile-avg past the largest buffer goes in bands, never refused
TDCL_FAULT_MAX_ALLOC=65536 TDCL_FAULT_GLOBAL_MEM=262144 LD_PRELOAD="$PRELOAD" \
    "$TILEDCL" -v tile-avg "$T/a.mtx" --tile 5x3 -o "$T/tb.mtx" >/dev/null 2>"$T/.err" </dev/null
RC=$? ERR=$(cat "$T/.err")
expect_rc 0 "tile-avg of 0.2 MiB on a device of 64 KiB buffers: done"
expect_contains "$ERR" "160 rows in 4 bands of up to 40 rows" "... in bands of whole blocks of 8 tile rows"
run tile-avg "$T/a.mtx" --tile 5x3 -o "$T/tw.mtx"
expect_same_file "$T/tw.mtx" "$T/tb.mtx" "... the same means as on the full device"
small "life 1024x1024" l.rle life --size 1024x1024 --gens 2
# life larger than the device: streamed through it in bands, the same
# grid (a last band thinner than the halo; test_shard's life_streamed
# takes clamp too), over one device and over two
for b in dead torus; do
    run life --size 700x521 --gens 37 --seed 5 --boundary $b --rule B36/S23 -o "$T/lf-$b.npy"
    TDCL_FAULT_MAX_ALLOC=8192 TDCL_FAULT_GLOBAL_MEM=65536 LD_PRELOAD="$PRELOAD" \
        "$TILEDCL" -v life --size 700x521 --gens 37 --seed 5 --boundary $b --rule B36/S23 \
        -o "$T/ls-$b.npy" >/dev/null 2>"$T/.err" </dev/null
    RC=$? ERR=$(cat "$T/.err")
    expect_rc 0 "life 700x521 $b on a device of 8 KiB buffers: done"
    expect_contains "$ERR" "more than the device holds: streamed in 13 bands of 43 rows" "... streamed in bands"
    expect_same_file "$T/lf-$b.npy" "$T/ls-$b.npy" "... the grid one device gives"
done
POCL_DEVICES="pthread pthread" TDCL_FAULT_MAX_ALLOC=8192 TDCL_FAULT_GLOBAL_MEM=65536 \
    LD_PRELOAD="$PRELOAD" "$TILEDCL" -v --device 0:0,0:1 life --size 700x521 --gens 37 --seed 5 \
    --boundary torus --rule B36/S23 -o "$T/ls2.npy" >/dev/null 2>"$T/.err" </dev/null
RC=$? ERR=$(cat "$T/.err")
if printf '%s' "$ERR" | grep -q "device 0:1"; then
    expect_rc 0 "life streamed over two devices"
    expect_contains "$ERR" "through 2 device(s)" "... the bands shared by both"
    expect_same_file "$T/lf-torus.npy" "$T/ls2.npy" "... the same grid"
else
    ok "life streamed over two devices # SKIP one OpenCL device here"
fi

# walk DESC OUT ARGS...: fails the executable's allocations one at a time.
walk_malloc() {
    _desc=$1 _out=$2
    shift 2
    if under_asan; then
        # the sanitizer's allocator comes first: the shim's never runs
        ok "$_desc # SKIP allocation faults need a build without ASan"
        return
    fi
    rm -f "$T/count"
    TDCL_FAULT_MALLOC=0 TDCL_FAULT_TRACE="$T/count" LD_PRELOAD="$PRELOAD" \
        "$TILEDCL" "$@" >/dev/null 2>"$T/.err" </dev/null
    _total=$(grep -c malloc "$T/count" 2>/dev/null)
    if [ "${_total:-0}" -eq 0 ]; then
        not_ok "$_desc: no allocation was counted" "$(cat "$T/.err")"
        return
    fi
    _bad="" _runs=0 _step=10
    [ "${TDCL_FAULT_FULL:-0}" = 1 ] && _step=1
    for n in $(seq 1 "$_step" "$_total"); do
        [ -n "$_out" ] && echo "old contents" >"$_out"
        TDCL_FAULT_MALLOC=$n LD_PRELOAD="$PRELOAD" "$TILEDCL" "$@" >/dev/null 2>"$T/.err" </dev/null
        RC=$?
        _runs=$((_runs + 1))
        _e=$(cat "$T/.err")
        if [ "$RC" -ne 0 ]; then
            case "$RC:$_e" in
            3:*"devices were skipped: out of memory"*"no device matches"*)
                # the failure hit while describing the device asked for (say
                # TILEDCL_DEVICE=gpu with a CPU platform beside it): it is
                # skipped with a warning naming the memory and no other
                # matches: a clean refusal, exit 3 as for no device
                ;;
            1:*"out of memory"* | 1:*"cannot allocate"*) ;;
            1:*) _bad="$_bad | alloc $n: message: $_e" ;;
            *) _bad="$_bad | alloc $n: exit $RC: $_e" ;;
            esac
            [ -z "$_out" ] || [ "$(cat "$_out")" = "old contents" ] ||
                _bad="$_bad | alloc $n: output changed"
        fi
        [ -n "$_out" ] && ls "$_out".tmp.* >/dev/null 2>&1 && _bad="$_bad | alloc $n: temporary left"
    done
    if [ -z "$_bad" ]; then ok "$_desc: $_runs of $_total allocations failed cleanly"; else
        not_ok "$_desc" "$_bad"; fi
}

D=$TDCL_DATA
walk_malloc "matmul" "$T/c.mtx" matmul "$D/a.mtx" "$D/b.mtx" --verify -o "$T/c.mtx"
walk_malloc "tile-avg" "$T/t.png" tile-avg "$D/rings.pgm" --tile 4 -o "$T/t.png"
walk_malloc "life" "$T/g.rle" life "$D/gosper-gun.rle" --size 64x64 --gens 8 -o "$T/g.rle"
walk_malloc "life gif" "$T/g.gif" life "$D/glider.rle" --size 16x16 --gens 3 --gif "$T/g.gif"
walk_malloc "convert" "$T/s.npy" convert "$D/seed8x8.mtx" "$T/s.npy"
walk_malloc "tile-map" "" tile-map 6x6 --tile 3
walk_malloc "devices" "" devices
done_testing
