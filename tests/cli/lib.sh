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

# expect_eq A B DESC
expect_eq() {
    if [ "$1" = "$2" ]; then ok "$3"; else not_ok "$3" "got:      $(printf %s "$1" | head -c 600)" "expected: $(printf %s "$2" | head -c 600)"; fi
}

done_testing() { echo "1..$_n"; [ "$_failed" -eq 0 ]; }
