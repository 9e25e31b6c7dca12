# tiledcl devices, global options, usage errors and exit codes.
. "$(dirname "$0")/lib.sh"
need_device

run devices
expect_rc 0 "devices exits 0"
expect_contains "$OUT" "0:0" "devices lists index pair 0:0"
expect_contains "$OUT" "max work-group" "devices shows the work-group limit"

run devices --json
expect_rc 0 "devices --json exits 0"
if printf '%s' "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d and "index" in d[0] and "local_mem_bytes" in d[0]' 2>/dev/null; then
    ok "devices --json is a JSON list with index and limits"
else
    not_ok "devices --json is a JSON list with index and limits" "$OUT"
fi

run --device 0:0 devices
expect_contains "$OUT" "* 0:0" "--device before the command marks the chosen device"
run devices --device=0:0
expect_contains "$OUT" "* 0:0" "--device=SPEC after the command works too"

run frobnicate
expect_rc 2 "unknown command is a usage error (2)"
expect_contains "$ERR" "unknown command 'frobnicate'" "unknown command is named"
run devices --bogus
expect_rc 2 "unknown option is a usage error (2)"
expect_contains "$ERR" "--help" "usage error hints at --help"
run --help
expect_rc 0 "--help exits 0"
expect_contains "$OUT" "exit status" "--help documents exit codes"
run --version
expect_contains "$OUT" "tiledcl " "--version prints the version"
run
expect_rc 2 "no command is a usage error"

done_testing
