# The compiled-kernel cache seen from the command line: a first run compiles,
# a second run of the same command loads the binary (-v says which), and
# --no-cache / TILEDCL_CACHE=0 compile every time.
. "$(dirname "$0")/lib.sh"
need_device

export XDG_CACHE_HOME="$T/cache"
run -v matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c1.mtx"
expect_rc 0 "first run succeeds"
expect_contains "$ERR" "compiled from source" "first run compiles the kernel"
expect_contains "$ERR" "time (ms): read" "-v prints the timing breakdown"
run -v matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c2.mtx"
expect_contains "$ERR" "loaded from cache" "second run loads the kernel from the cache"
expect_eq "$(cat "$T/c1.mtx")" "$(cat "$T/c2.mtx")" "cached kernel gives the same product"
run -v --no-cache matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c3.mtx"
expect_contains "$ERR" "compiled from source" "--no-cache compiles"
TILEDCL_CACHE=0 run -v matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c4.mtx"
expect_contains "$ERR" "compiled from source" "TILEDCL_CACHE=0 compiles"
# a corrupted entry is rebuilt, not trusted
for f in "$XDG_CACHE_HOME"/tiledcl/*.bin; do printf 'garbage' >"$f"; done
run -v matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c5.mtx"
expect_rc 0 "a corrupted cache entry does not fail the run"
expect_contains "$ERR" "compiled from source" "a corrupted entry is rebuilt"
expect_eq "$(cat "$T/c1.mtx")" "$(cat "$T/c5.mtx")" "the rebuilt kernel gives the same product"

# an entry marked as being loaded was being loaded when a run died: it is
# condemned, rebuilt, and -v says so
entry=$(ls "$XDG_CACHE_HOME"/tiledcl/*.bin | head -n 1)
: >"$entry.loading"
run -v matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c6.mtx"
expect_rc 0 "an entry left marked 'loading' does not fail the run"
expect_contains "$ERR" "an earlier run died while the driver loaded it; rebuilding it" "-v says the marked entry is rebuilt"
expect_eq "$(cat "$T/c1.mtx")" "$(cat "$T/c6.mtx")" "the rebuilt kernel gives the same product"
[ -e "$entry.loading" ] && not_ok "the mark is gone" || ok "the mark is gone"
run -v matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c7.mtx"
expect_contains "$ERR" "loaded from cache" "the rebuilt entry loads from the cache"

# a mark whose lock is held is another process loading the entry right now
# (MPI ranks, parallel runs): the entry is loaded, not condemned, and the
# mark left to its holder
printf '%s %s\n' "$(uname -n)" "$$" >"$entry.loading"
exec 9<"$entry.loading"
flock -n 9
run -v matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c9.mtx"
exec 9<&-
expect_contains "$ERR" "loaded from cache" "a held mark: the entry still loads from the cache"
printf '%s\n' "$ERR" | grep -q "died while the driver loaded it" && not_ok "... and is not condemned" ||
    ok "... and is not condemned"
[ -e "$entry.loading" ] && ok "... the holder's mark stays" || not_ok "... the holder's mark stays"
# a mark nobody holds was left by a run that died, whatever process and host
# it names: a live process (what PID reuse gives), the run itself (what a
# fresh PID namespace gives: the exec below keeps the shell's PID), another
# host (what a new host name gives)
for owner in "$(uname -n) $$" "$(uname -n) self" "elsewhere-$(uname -n) 1"; do
    rm -f "$T/c10.mtx"
    (
        case "$owner" in *self) owner="$(uname -n) $BASHPID" ;; esac
        printf '%s\n' "$owner" >"$entry.loading"
        exec "$TILEDCL" -v matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c10.mtx"
    ) >/dev/null 2>"$T/.err" </dev/null
    RC=$? ERR=$(cat "$T/.err")
    expect_contains "$ERR" "an earlier run died while the driver loaded it; rebuilding it" \
        "an unheld mark naming '${owner% *} ${owner##* }' condemns the entry"
    expect_eq "$(cat "$T/c1.mtx")" "$(cat "$T/c10.mtx" 2>/dev/null)" "... and the rebuilt kernel gives the same product"
    [ -e "$entry.loading" ] && not_ok "... the dead loader's mark is gone" || ok "... the dead loader's mark is gone"
done

# an entry whose program makes the driver crash (cut short, its checksum
# recomputed): a run may die, but the next rebuilds it
if command -v python3 >/dev/null; then
    python3 - "$entry" <<'PY'
import struct, sys
p = sys.argv[1]
d = open(p, 'rb').read()
off = 16 + struct.unpack('<Q', d[8:16])[0]
b = d[off + 16:off + 16 + struct.unpack('<Q', d[off:off + 8])[0]]
b = b[:len(b) // 2]
h = 0xcbf29ce484222325
for c in b:
    h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
open(p, 'wb').write(d[:off] + struct.pack('<QQ', len(b), h) + b)
PY
    run -v matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c8.mtx"
    first=$RC
    echo "# a cut entry: the first run exited $first"
    run -v matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c8.mtx"
    expect_rc 0 "after a cut entry, the next run succeeds (the first exited $first)"
    expect_eq "$(cat "$T/c1.mtx")" "$(cat "$T/c8.mtx")" "with the right product"
    if [ "$first" -gt 128 ]; then
        expect_contains "$ERR" "an earlier run died while the driver loaded it" "the crash's mark condemned the entry"
    fi
    run -v matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c8.mtx"
    expect_contains "$ERR" "loaded from cache" "and the entry is good again"
fi

# a FIFO or /dev/zero at an entry's path neither hangs nor grows memory
rm -f "$entry"
mkfifo "$entry"
timeout 60 "$TILEDCL" -v matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c9.mtx" 2>"$T/.err" </dev/null
RC=$? ERR=$(cat "$T/.err")
expect_rc 0 "a FIFO at an entry's path: the run goes on"
expect_contains "$ERR" "is not a regular file" "-v says the FIFO is ignored"
expect_eq "$(cat "$T/c1.mtx")" "$(cat "$T/c9.mtx")" "with the right product"
[ -f "$entry" ] && ok "the FIFO is replaced by a good entry" || not_ok "the FIFO is replaced by a good entry"
# a 4 GB address-space limit catches unbounded growth (not under ASan,
# whose shadow memory needs far more address space); a GPU driver that
# reserves more address space than that cannot start under it at all
vlimit=4000000
under_asan && vlimit=unlimited
(ulimit -v "$vlimit" && exec "$TILEDCL" matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c10.mtx") 2>"$T/.err" </dev/null
if [ $? -ne 0 ]; then
    why="the device does not start under ulimit -v $vlimit: $(head -n 1 "$T/.err")"
    skip_ok "/dev/zero at an entry's path: the run goes on" "$why"
    skip_ok "with the right product" "$why"
else
    rm -f "$entry" "$T/c10.mtx"
    ln -s /dev/zero "$entry"
    (ulimit -v "$vlimit" && exec timeout 60 "$TILEDCL" matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c10.mtx") 2>"$T/.err" </dev/null
    RC=$?
    expect_rc 0 "/dev/zero at an entry's path: the run goes on"
    # under the limit the default device may not start and another run it
    # (a GPU's driver reserves more address space): its rounding may differ
    if [ "$(sed -n 2p "$T/c1.mtx")" = "$(sed -n 2p "$T/c10.mtx")" ]; then
        expect_eq "$(cat "$T/c1.mtx")" "$(cat "$T/c10.mtx")" "with the right product"
    else
        skip_ok "with the right product" "another device ran under ulimit -v: $(sed -n 2p "$T/c10.mtx")"
    fi
fi

# an unusable XDG_CACHE_HOME (a file): PoCL's own cache goes elsewhere
: >"$T/not-a-dir"
mkdir -p "$T/tmp"
XDG_CACHE_HOME="$T/not-a-dir" TMPDIR="$T/tmp" run -v --no-cache matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c11.mtx"
expect_rc 0 "XDG_CACHE_HOME a file, --no-cache: the run works"
if on_pocl; then
    expect_contains "$ERR" "is not usable; PoCL caches in $T/tmp/tiledcl-pocl-" "-v names the driver's cache directory used instead"
else
    skip_ok "-v names the driver's cache directory used instead" "the default device is not PoCL's"
fi
expect_eq "$(cat "$T/c1.mtx")" "$(cat "$T/c11.mtx")" "with the right product"
XDG_CACHE_HOME="$T/not-a-dir" TMPDIR="$T/tmp" run -v matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c12.mtx"
expect_rc 0 "XDG_CACHE_HOME a file, with the cache: the run works"
expect_contains "$ERR" "cannot create cache directory" "-v says tiledcl's own cache is skipped"
# ... and with TMPDIR unusable too, /tmp takes it
XDG_CACHE_HOME="$T/not-a-dir" TMPDIR="$T/no-such-dir" run -v --no-cache matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c13.mtx"
expect_rc 0 "XDG_CACHE_HOME a file, TMPDIR missing: the run works"
expect_contains "$ERR" "is not usable; PoCL caches in /tmp/tiledcl-pocl-$(id -u) instead" "-v names the directory in /tmp"
expect_eq "$(cat "$T/c1.mtx")" "$(cat "$T/c13.mtx" 2>/dev/null)" "with the right product"

# a file size limit too small for the driver's compiler files: a build
# that fails with no diagnostic says so, naming the limit
# (the product goes to /dev/null, which the limit does not bind)
(ulimit -f 20 && exec "$TILEDCL" --no-cache matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx") \
    >/dev/null 2>"$T/.err" </dev/null
RC=$? ERR=$(cat "$T/.err")
if [ "$RC" -eq 0 ]; then
    skip_ok "a 20 KiB file size limit: the message names the limit" "the driver builds under it"
else
    expect_rc 3 "a 20 KiB file size limit: the build fails"
    expect_contains "$ERR" "the file size limit (20 KiB) may be too small for the driver's compiler files" \
        "the message names the limit"
fi

# too few file descriptors for the OpenCL loader: said, not "install a driver"
(ulimit -n 4 && exec "$TILEDCL" devices) >/dev/null 2>"$T/.err" </dev/null
RC=$? ERR=$(cat "$T/.err")
if [ "$RC" -eq 0 ]; then
    skip_ok "ulimit -n 4: the message says too many open files" "the platforms load with 4 descriptors"
else
    expect_contains "$ERR" "too many open files (the descriptor limit is 4" "ulimit -n 4: the message says too many open files"
    case "$ERR" in *"install an ICD"*) not_ok "... and does not advise installing a driver" ;; *) ok "... and does not advise installing a driver" ;; esac
fi

done_testing
