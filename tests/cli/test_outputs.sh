# Output files as a careful Unix tool treats them (cp, sed -i): -o through a
# symbolic link replaces the file it names and keeps the link; a replaced
# file keeps its permission bits; a FIFO, /dev/stdout or a device is written
# in place; names up to 255 bytes work; every terminating signal and a file
# size limit leave no temporary; output paths are checked before the work.
. "$(dirname "$0")/lib.sh"

export XDG_CACHE_HOME="$T/cache"
run devices
if [ "$RC" -ne 0 ]; then
    echo "1..0 # SKIP no OpenCL device"
    exit 0
fi
cd "$T" || exit 1

# no_temps DIR DESC: no temporary (NAME.tmp.* or tiledcl.tmp.*) is left in DIR
no_temps() {
    if ls "$1"/*.tmp.* >/dev/null 2>&1; then not_ok "$2" "left: $(ls "$1"/*.tmp.*)"; else ok "$2"; fi
}

# the reference: a 16x16 soup after 2 generations, written to stdout
"$TILEDCL" life --size 16x16 --seed 3 --gens 2 -o - >ref.rle 2>/dev/null
[ -s ref.rle ] && ok "a reference RLE" || not_ok "a reference RLE"
grep -q '^x = 16, y = 16' ref.rle && ok "the reference is a 16x16 RLE" || not_ok "the reference is a 16x16 RLE"
life16() { "$TILEDCL" life --size 16x16 --seed 3 --gens 2 "$@"; }

# symbolic links: the target is replaced, the link stays
mkdir sub
echo old >sub/real.rle
ln -s sub/real.rle link.rle
ln -s link.rle link2.rle # a chain
run life --size 16x16 --seed 3 --gens 2 -o link2.rle
expect_rc 0 "-o through a chain of links"
[ -L link.rle ] && [ -L link2.rle ] && ok "the links stay links" || not_ok "the links stay links" "$(ls -l)"
expect_eq "$(cat sub/real.rle)" "$(cat ref.rle)" "the file the links name holds the output"
no_temps sub "no temporary beside the target"
no_temps . "no temporary beside the link"
ln -s sub/new.rle dangling.rle
run life --size 16x16 --seed 3 --gens 2 -o dangling.rle
expect_eq "$(cat sub/new.rle 2>/dev/null)" "$(cat ref.rle)" "a dangling link: its target is created"
[ -L dangling.rle ] && ok "and the dangling link stays a link" || not_ok "and the dangling link stays a link"

# permission bits survive a replacement; a new file follows the umask
echo old >perm.rle
chmod 640 perm.rle
run life --size 16x16 --seed 3 --gens 2 -o perm.rle
expect_eq "$(stat -c %a perm.rle)" "640" "a replaced file keeps mode 640"
chmod 755 perm.rle
run convert ref.rle perm.rle
expect_eq "$(stat -c %a perm.rle)" "755" "convert keeps mode 755"
expect_eq "$(sed 1d perm.rle)" "$(sed 1d ref.rle)" "and writes the same pattern"
(umask 027 && exec "$TILEDCL" life --size 16x16 --seed 3 --gens 2 -o new.rle) 2>/dev/null
expect_eq "$(stat -c %a new.rle)" "640" "a new file is 0666 less the umask (027)"

# a FIFO is written in place: its reader gets the output
mkfifo pipe.rle
cat pipe.rle >from-fifo.rle &
reader=$!
timeout 60 "$TILEDCL" life --size 16x16 --seed 3 --gens 2 -o pipe.rle 2>"$T/.err"
RC=$?
wait "$reader"
expect_rc 0 "-o onto a FIFO exits 0"
[ -p pipe.rle ] && ok "the FIFO stays a FIFO" || not_ok "the FIFO stays a FIFO"
expect_eq "$(cat from-fifo.rle)" "$(cat ref.rle)" "the FIFO's reader gets the output"
no_temps . "no temporary beside the FIFO"
# a character device is written in place, not replaced: a private copy of
# /dev/null (mknod needs root), so that a regression cannot replace the
# system's
if mknod cdev.rle c 1 3 2>/dev/null; then
    life16 -o cdev.rle >/dev/null 2>"$T/.err"
    RC=$? ERR=$(cat "$T/.err")
    expect_rc 0 "-o onto a character device exits 0"
    expect_eq "$(stat -c %F cdev.rle)" "character special file" "the device stays a device"
    no_temps . "-o onto a character device: no temporary"
    rm -f cdev.rle
else
    ok "# SKIP mknod needs root: -o onto a character device is not tried"
fi

# /dev/stdout and /dev/fd/1 are standard output: written in place, default format
expect_eq "$(life16 -o /dev/stdout 2>/dev/null)" "$(cat ref.rle)" "-o /dev/stdout writes to standard output"
expect_eq "$("$TILEDCL" matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o /dev/fd/1 2>/dev/null | md5sum)" \
    "$("$TILEDCL" matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" 2>/dev/null | md5sum)" "matmul -o /dev/fd/1: standard output"
[ -c /dev/stdout ] || [ -L /dev/stdout ] && ok "/dev/stdout is still there" || not_ok "/dev/stdout is still there"
# a link to /dev/stdout is standard output too, even when that is a pipe
# (past /proc/self/fd/1 lies "pipe:[N]", no directory for a temporary)
ln -s /dev/stdout so.mtx
expect_eq "$("$TILEDCL" convert ref.rle so.mtx 2>&1 | cat)" "$("$TILEDCL" convert ref.rle - 2>&1)" \
    "-o through a link to /dev/stdout, a pipe: written in place"
# /dev/null takes any command's output, in standard output's format
for cmd in "convert ref.rle" "matmul $TDCL_DATA/a.mtx $TDCL_DATA/b.mtx -o" \
    "tile-avg $TDCL_DATA/rings.pgm --tile 4 -o" "life --size 16x16 --gens 2 -o"; do
    # shellcheck disable=SC2086
    run $cmd /dev/null
    expect_eq "$RC:$OUT:$ERR" "0::" "${cmd%% *} -o /dev/null: exit 0, nothing shown"
done
[ -c /dev/null ] && ok "/dev/null is still a device" || not_ok "/dev/null is still a device"

# names up to 255 bytes: the temporary must not overflow the name
long=$(printf 'n%.0s' $(seq 251)).rle
run life --size 16x16 --seed 3 --gens 2 -o "$long"
expect_rc 0 "a 255-byte output name works"
expect_eq "$(cat "$long")" "$(cat ref.rle)" "and holds the output"
no_temps . "no temporary left for the long name"
run life --size 16x16 --seed 3 --gens 2 -o "n$long"
expect_rc 1 "a 256-byte name: exit 1"
expect_contains "$ERR" "File name too long" "a 256-byte name: the reason"

# output paths are checked before the work
for cmd in "matmul $TDCL_DATA/a.mtx $TDCL_DATA/b.mtx" "tile-avg $TDCL_DATA/rings.pgm --tile 4" \
    "life --size 64x64 --gens 10"; do
    # shellcheck disable=SC2086
    run -v $cmd -o nodir/out.mtx
    expect_rc 1 "${cmd%% *}: a missing directory: exit 1"
    expect_contains "$ERR" "cannot write 'nodir/out.mtx': directory 'nodir': No such file or directory" \
        "${cmd%% *}: the directory is named"
    case "$ERR" in *"kernel "*".cl:"*) not_ok "${cmd%% *}: refused before any kernel is built" "$ERR" ;;
        *) ok "${cmd%% *}: refused before any kernel is built" ;; esac
done
mkdir sub.npy
run tile-avg "$TDCL_DATA/rings.pgm" --tile 4 -o sub.npy
expect_rc 1 "tile-avg -o DIRECTORY: exit 1"
expect_contains "$ERR" "it is a directory" "tile-avg -o DIRECTORY: the reason"
echo >afile
run matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o afile/c.mtx
expect_contains "$ERR" "'afile' is not a directory" "matmul -o FILE/c.mtx: the reason"
run life --size 16x16 --gens 3 --gif same.rle -o same.rle
expect_rc 1 "--gif X -o X: exit 1"
expect_contains "$ERR" "the GIF and the output are both 'same.rle'" "--gif X -o X: refused"
[ -e same.rle ] && not_ok "--gif X -o X: nothing written" || ok "--gif X -o X: nothing written"
ln -s same.rle alias.rle
echo old >same.rle
run life --size 16x16 --gens 3 --gif alias.rle -o same.rle
expect_contains "$ERR" "the GIF and the output are both" "--gif LINK -o FILE: refused"
# however spelled, before either exists: "./x", a dangling link, a frame
rm -f same.rle
run life --size 16x16 --gens 3 --gif ./same.rle -o same.rle
expect_contains "$RC:$ERR" "1:tiledcl: the GIF and the output are both 'same.rle'" "--gif ./X -o X: refused"
ln -s new2.rle link.gif
run life --size 16x16 --gens 3 --gif link.gif -o new2.rle
expect_contains "$RC:$ERR" "1:tiledcl: the GIF and the output are both 'new2.rle'" "--gif LINK -o ITS-TARGET (neither there yet): refused"
mkdir fr
run life --size 16x16 --gens 2 --every 1 --frames fr/ -o ./fr/../fr/gen-00000001.png
expect_contains "$RC:$ERR" "1:tiledcl: the output './fr/../fr/gen-00000001.png' is one of the frames written in 'fr/'" \
    "--frames DIR -o DIR/gen-N.png: refused"
[ -e fr/gen-00000000.png ] && not_ok "--frames DIR -o DIR/gen-N.png: nothing written" || ok "--frames DIR -o DIR/gen-N.png: nothing written"
if [ "$(id -u)" -ne 0 ]; then
    mkdir ro && chmod 555 ro
    run matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o ro/c.mtx
    expect_contains "$ERR" "directory 'ro': Permission denied" "a read-only directory: refused before the work"
fi

# a file-size limit is a message, not a silent SIGXFSZ
echo "old contents" >big.rle
(ulimit -f 1 && exec "$TILEDCL" life --size 256x256 --gens 1 -o big.rle) >/dev/null 2>"$T/.err"
RC=$? ERR=$(cat "$T/.err")
expect_rc 1 "past ulimit -f: exit 1, not 153"
expect_contains "$ERR" "cannot write 'big.rle': write error: File too large" "past ulimit -f: the message"
expect_eq "$(cat big.rle)" "old contents" "past ulimit -f: the old file is kept"
no_temps . "past ulimit -f: no temporary"

# every terminating signal removes the temporary and the process dies of it
wait_for() {
    for _i in $(seq 300); do
        # shellcheck disable=SC2086
        ls $1 >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    return 1
}
# sig_run SIG [ENV...]: life --gif killed by SIG while its temporary
# exists must die of SIG, keep the old file and remove the temporary.
sig_run() {
    sig=$1
    shift
    echo "old contents" >s.gif
    # tiledcl leaves a signal ignored at start ignored (as nohup asks), and
    # a background job of a non-interactive shell starts with SIGINT and
    # SIGQUIT ignored, a run under nohup with SIGHUP too: start with every
    # signal at its default
    env --default-signal "$@" "$TILEDCL" life --size 128x128 --gens 100000000 --every 20 --gif s.gif >/dev/null 2>"$T/.err" </dev/null &
    pid=$!
    wait_for "s.gif.tmp.*" || not_ok "SIG$sig: the temporary appeared" "$(cat "$T/.err")"
    sleep 0.3 # launches under way: the driver's handlers (if any) are in place
    kill -"$sig" "$pid"
    for _i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" # swallowed: do not wait forever
    wait "$pid"
    RC=$?
    expect_rc "$((128 + $(kill -l "$sig")))" "SIG$sig${*:+ (the driver took the handler)}: killed by the signal"
    expect_eq "$(cat s.gif)" "old contents" "SIG$sig${*:+ (the driver took the handler)}: the old file is untouched"
    no_temps . "SIG$sig${*:+ (the driver took the handler)}: the temporary is removed"
}
ulimit -c 0 # SIGQUIT and SIGXCPU dump core
for sig in HUP INT QUIT TERM PIPE ALRM USR1 USR2 IO PROF VTALRM XCPU STKFLT PWR; do
    sig_run "$sig"
done
# PoCL's LLVM installs handlers whenever it compiles, and those for SIGQUIT,
# SIGXCPU (and SIGUSR1, its "info" signal) swallow the signal. The shim
# does the same at every OpenCL call: tiledcl must still clean up and die.
# (Under ASan the sanitizer's runtime comes before the shim, as in
# test_faults.sh.)
SHIM=$(dirname "$TILEDCL")/tests/fault/clfault.so
ASAN_LIB=$(ldd "$TILEDCL" 2>/dev/null | sed -n 's/.*libasan[^ ]* => \([^ ]*\).*/\1/p')
if [ -f "$SHIM" ]; then
    for sig in QUIT USR1 XCPU; do
        sig_run "$sig" LD_PRELOAD="${ASAN_LIB:+$ASAN_LIB }$SHIM" TDCL_FAULT_STEAL_SIGNALS=1
    done
else
    ok "# SKIP no fault shim at $SHIM: the handler theft is not tried"
fi

# a signal ignored at start stays ignored (nohup): the run goes on
echo "old contents" >h.gif
(trap '' HUP && exec env --default-signal=TERM "$TILEDCL" life --size 128x128 --gens 100000000 --every 20 --gif h.gif) >/dev/null 2>&1 </dev/null &
pid=$!
wait_for "h.gif.tmp.*"
kill -HUP "$pid"
sleep 0.5
kill -0 "$pid" 2>/dev/null && ok "SIGHUP ignored by the parent (nohup): still running" || not_ok "SIGHUP ignored by the parent (nohup): still running"
kill -TERM "$pid"
wait "$pid"
no_temps . "and SIGTERM then removes the temporary"

# an interrupted 'bench io' removes its scratch files
mkdir io
env --default-signal=TERM "$TILEDCL" bench io --size 1500 --nnz 1000000 --reps 31 --dir "$T/io" >/dev/null 2>&1 </dev/null &
pid=$!
wait_for "$T/io/tiledcl-bench-io-*" || not_ok "bench io: its files appeared"
kill -TERM "$pid"
wait "$pid"
left=$(ls -A io)
[ -z "$left" ] && ok "bench io killed by SIGTERM: no file left in --dir" ||
    not_ok "bench io killed by SIGTERM: no file left in --dir" "left: $left"

done_testing
