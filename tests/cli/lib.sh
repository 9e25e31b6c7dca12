# TAP helpers for the CLI tests. Source this, call the checks, then `done_testing`.
# $TILEDCL is the binary under test (set by meson); each test file gets a
# scratch directory $T, removed at exit.
set -u
TILEDCL=${TILEDCL:?run through meson test}
T=$(mktemp -d "${TMPDIR:-/tmp}/tdcl-cli-XXXXXX")
trap 'rm -rf "$T"' EXIT
_n=0
_failed=0

ok() { _n=$((_n + 1)); echo "ok $_n - $1"; }
not_ok() { _n=$((_n + 1)); _failed=$((_failed + 1)); echo "not ok $_n - $1"; shift; for l in "$@"; do echo "# $l"; done; }

# run CMD...: runs tiledcl with args, captures $OUT, $ERR and $RC.
run() {
    "$TILEDCL" "$@" >"$T/.out" 2>"$T/.err" </dev/null
    RC=$?
    OUT=$(cat "$T/.out")
    ERR=$(cat "$T/.err")
}

# expect_rc N DESC: the last run exited N.
expect_rc() {
    if [ "$RC" -eq "$1" ]; then ok "$2"; else not_ok "$2" "exit $RC, expected $1" "stderr: $ERR"; fi
}

# expect_contains HAYSTACK NEEDLE DESC
expect_contains() {
    case "$1" in *"$2"*) ok "$3" ;; *) not_ok "$3" "expected to find: $2" "in: $(printf %s "$1" | head -c 600)" ;; esac
}

# expect_eq A B DESC: A and B are equal and not empty (two empty outputs,
# say of two runs that both failed, are never "the same").
expect_eq() {
    if [ -z "$1" ] || [ -z "$2" ]; then
        not_ok "$3" "empty: got '$(printf %s "$1" | head -c 300)', expected '$(printf %s "$2" | head -c 300)'"
    elif [ "$1" = "$2" ]; then ok "$3"; else not_ok "$3" "got:      $(printf %s "$1" | head -c 600)" "expected: $(printf %s "$2" | head -c 600)"; fi
}

# expect_ne A B DESC: A and B differ and neither is empty.
expect_ne() {
    if [ -z "$1" ] || [ -z "$2" ]; then
        not_ok "$3" "empty: '$(printf %s "$1" | head -c 300)' against '$(printf %s "$2" | head -c 300)'"
    elif [ "$1" != "$2" ]; then ok "$3"; else not_ok "$3" "both are: $(printf %s "$1" | head -c 600)"; fi
}

# expect_same_file A B DESC: files A and B exist, are not empty, and are equal byte for byte.
expect_same_file() {
    if [ ! -s "$1" ] || [ ! -s "$2" ]; then
        not_ok "$3" "missing or empty: $(ls -l "$1" "$2" 2>&1 | tr '\n' ' ')"
    elif cmp -s "$1" "$2"; then ok "$3"; else not_ok "$3" "$(cmp "$1" "$2" 2>&1)"; fi
}

# have_device: 0 when tiledcl can open its default OpenCL device.
have_device() {
    if [ -z "${_have_device:-}" ]; then
        if "$TILEDCL" devices >/dev/null 2>&1; then _have_device=yes; else _have_device=no; fi
    fi
    [ "$_have_device" = yes ]
}

# need_device: call before any check; without a device the whole script is
# a TAP skip (meson: SKIP), never a pass.
need_device() {
    if ! have_device; then
        echo "1..0 # SKIP no OpenCL device"
        exit 0
    fi
}

# default_platform: the platform name of the device tiledcl opens by
# default (empty without one)
default_platform() {
    "$TILEDCL" devices --json 2>/dev/null | grep '"default": true' |
        sed -n 's/.*"platform": "\([^"]*\)".*/\1/p' | head -n 1
}

# on_pocl: 0 when the default device is PoCL's, whose behaviour (its own
# compiler cache, a host-memory device) some checks are about
on_pocl() {
    case "$(default_platform)" in "Portable Computing Language"*) return 0 ;; esac
    return 1
}

# same_platform_devices N: the 'P:D' indices of the first N devices of one
# platform, one a line (PoCL's where it has N, as POCL_DEVICES sets up),
# nothing when no platform has N: a set that mixes a GPU with PoCL would
# compare two implementations' rounding, not the split
same_platform_devices() {
    "$TILEDCL" devices --json 2>/dev/null | awk -v n="$1" '
        match($0, /"index": "[0-9]+:[0-9]+"/) {
            idx = substr($0, RSTART + 10, RLENGTH - 11)
            p = idx
            sub(/:.*/, "", p)
            if (++cnt[p] <= n) list[p] = list[p] idx "\n"
            pocl[p] = $0 ~ /"platform": "Portable Computing Language"/
        }
        END {
            best = ""
            for (p in cnt)
                if (cnt[p] >= n && (best == "" || pocl[p] > pocl[best])) best = p
            if (best != "") printf "%s", list[best]
        }'
}

# kill_a_rank DESC OUT CMD...: starts CMD (timeout N mpirun -n R ...) in
# the background, waits (up to 30 s) for the launcher's ranks, kills the
# last one with SIGKILL, and checks that the job ends non-zero within 10 s
# and that OUT was not written.
kill_a_rank() {
    _desc=$1 _out=$2
    shift 2
    "$@" >"$T/k.log" 2>&1 </dev/null &
    _mp=$!
    _victim=""
    for _ in $(seq 300); do
        sleep 0.1
        _launcher=$(ps -o pid= --ppid "$_mp" 2>/dev/null | head -1 | tr -d ' ')
        [ -n "$_launcher" ] || continue
        _ranks=$(ps -o pid= --ppid "$_launcher" 2>/dev/null | tr -d ' ')
        if [ "$(printf '%s\n' "$_ranks" | grep -c .)" -ge 2 ]; then
            _victim=$(printf '%s\n' "$_ranks" | tail -1)
            break
        fi
    done
    sleep 1.5
    _t0=$(date +%s)
    [ -n "$_victim" ] && kill -9 "$_victim"
    wait "$_mp"
    _rc=$?
    _t1=$(date +%s)
    if [ -n "$_victim" ] && [ "$_rc" -ne 0 ] && [ $((_t1 - _t0)) -le 10 ]; then
        ok "$_desc ($((_t1 - _t0)) s, exit $_rc)"
    else
        not_ok "$_desc" "victim '$_victim', exit $_rc after $((_t1 - _t0)) s"
    fi
    [ ! -e "$_out" ] && ok "... and nothing is written" || not_ok "... and nothing is written"
}

# under_asan: true when $TILEDCL runs under AddressSanitizer, whose runtime
# is a shared library with gcc and linked in with clang
under_asan() {
    ldd "$TILEDCL" 2>/dev/null | grep -q libasan || grep -qa __asan_init "$TILEDCL"
}

# skip_ok DESC WHY: one check skipped (TAP "# SKIP"), counted but not run.
skip_ok() { _n=$((_n + 1)); echo "ok $_n - $1 # SKIP $2"; }

done_testing() { echo "1..$_n"; [ "$_failed" -eq 0 ]; }
