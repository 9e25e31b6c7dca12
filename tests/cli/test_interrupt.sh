# Interruption: SIGINT or SIGTERM during a long run removes the temporary
# output (tiledcl writes OUT.tmp.XXXXXX and renames it when done) and leaves
# an existing file untouched; the exit status is the signal's.
. "$(dirname "$0")/lib.sh"

export XDG_CACHE_HOME="$T/cache"
need_device

# wait_for GLOB: waits up to 30 s for a file matching GLOB; 0 if one came.
wait_for() {
    for _i in $(seq 300); do
        # shellcheck disable=SC2086
        ls $1 >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    return 1
}

# interrupt SIG OUT WAITGLOB ARGS...: starts the run, waits for WAITGLOB
# (or a second), sends SIG and checks what is left.
interrupt() {
    _sig=$1 _out=$2 _glob=$3
    shift 3
    echo "old contents" >"$_out"
    # a background job starts with SIGINT ignored, a run under nohup with
    # SIGHUP too, and tiledcl leaves an ignored signal ignored: start with
    # every signal at its default
    env --default-signal "$TILEDCL" "$@" >/dev/null 2>"$T/.err" </dev/null &
    _pid=$!
    if [ -n "$_glob" ]; then
        wait_for "$_glob" || not_ok "SIG$_sig: the temporary $_glob appeared" "$(cat "$T/.err")"
    else
        sleep 1
    fi
    kill -"$_sig" "$_pid"
    wait "$_pid"
    RC=$?
    expect_rc "$((128 + $(kill -l "$_sig")))" "SIG$_sig $*: killed by the signal"
    expect_eq "$(cat "$_out")" "old contents" "SIG$_sig: the old $(basename "$_out") is untouched"
    if ls "$_out".tmp.* >/dev/null 2>&1; then not_ok "SIG$_sig: the temporary is removed"; else
        ok "SIG$_sig: the temporary is removed"; fi
}

# the GIF is open for writing from the first generation to the last
interrupt INT "$T/g.gif" "$T/g.gif.tmp.*" life --size 128x128 --gens 100000000 --every 20 --gif "$T/g.gif"
interrupt TERM "$T/g.gif" "$T/g.gif.tmp.*" life --size 128x128 --gens 100000000 --every 20 --gif "$T/g.gif"
# a long run whose output is not yet open
interrupt TERM "$T/l.rle" "" life --size 512x512 --gens 100000000 -o "$T/l.rle"
done_testing
