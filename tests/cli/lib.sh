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

# under_asan: true when $TILEDCL runs under AddressSanitizer, whose runtime
# is a shared library with gcc and linked in with clang
under_asan() {
    ldd "$TILEDCL" 2>/dev/null | grep -q libasan || grep -qa __asan_init "$TILEDCL"
}

# skip_ok DESC WHY: one check skipped (TAP "# SKIP"), counted but not run.
skip_ok() { _n=$((_n + 1)); echo "ok $_n - $1 # SKIP $2"; }

done_testing() { echo "1..$_n"; [ "$_failed" -eq 0 ]; }
