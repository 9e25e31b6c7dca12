# What a terminal gets: matmul and tile-avg print a summary and a corner of
# the result (pipes get every element), life's preview fits the terminal's
# width, and a progress bar is erased when Ctrl-C ends the run. The
# terminal is a pty from script(1), its width from $COLUMNS.
. "$(dirname "$0")/lib.sh"

export XDG_CACHE_HOME="$T/cache"
run devices
if [ "$RC" -ne 0 ]; then
    echo "1..0 # SKIP no OpenCL device"
    exit 0
fi
if ! command -v script >/dev/null; then
    echo "1..0 # SKIP no script(1) for a terminal"
    exit 0
fi
# on_tty COLS CMD...: runs CMD on a terminal COLS wide; its output in $T/tty
on_tty() {
    _cols=$1
    shift
    COLUMNS=$_cols script -qec "$*" /dev/null </dev/null | tr -d '\r' >"$T/tty"
}

A=$TDCL_DATA/a.mtx B=$TDCL_DATA/b.mtx
# long waits say what they are spent on, on a terminal only: the first
# build (the cache is empty here) and the host check
on_tty 54 "'$TILEDCL' matmul '$A' '$B' --verify -o '$T/c0.npy'"
expect_contains "$(cat "$T/tty")" "tiledcl: compiling kernels for " "a cold cache on a terminal: 'compiling kernels'"
expect_eq "$(grep -c 'compiling kernels' "$T/tty")" "1" "... said once"
expect_contains "$(cat "$T/tty")" "tiledcl: verifying the 64x32 product on the host..." "--verify on a terminal: 'verifying'"
on_tty 54 "'$TILEDCL' matmul '$A' '$B' --verify -o '$T/c0.npy'"
expect_eq "$(grep -c 'compiling' "$T/tty")" "0" "kernels from the cache: no 'compiling'"
on_tty 54 "'$TILEDCL' -q --no-cache matmul '$A' '$B' --verify -o '$T/c0.npy'"
expect_eq "$(grep -c 'compiling\|verifying' "$T/tty")" "0" "-q: neither"
"$TILEDCL" --no-cache matmul "$A" "$B" --verify -o "$T/c0.npy" 2>"$T/err"
expect_eq "$(grep -c 'compiling\|verifying' "$T/err")" "0" "stderr not a terminal: neither"
on_tty 54 "'$TILEDCL' matmul '$A' '$B'"
expect_contains "$(cat "$T/tty")" "C = A*B: 64x32 float64" "matmul on a terminal: the summary line"
expect_contains "$(cat "$T/tty")" "the top-left 8x4 of 64x32" "matmul on a terminal: says what is shown"
lines=$(wc -l <"$T/tty")
[ "$lines" -le 12 ] && ok "matmul on a terminal: $lines lines, not 2048 numbers" || not_ok "matmul on a terminal: at most 12 lines" "$lines"
wide=$(awk 'length > 54' "$T/tty" | grep -v '^C = A\*B\|^(the top' | wc -l)
expect_eq "$wide" "0" "matmul on a terminal: the corner fits 54 columns"
# the corner's numbers are the product's: compare with the piped Matrix Market
# (column-major: element (r, c) is line 4 + c*64 + r)
"$TILEDCL" matmul "$A" "$B" >"$T/c.mtx" 2>/dev/null
expect_eq "$(sed -n 3p "$T/c.mtx")" "64 32" "piped: every element follows"
bad=$(awk -v f="$T/c.mtx" 'BEGIN { n = 0; while ((getline l < f) > 0) { n++; if (n > 3) v[n - 4] = l } }
    NR >= 2 && NR <= 9 { for (c = 1; c <= 4; c++) { want = v[(c - 1) * 64 + NR - 2];
        d = $c - want; if (d < 0) d = -d; if (d > 1e-4 * (want < 0 ? -want : want) + 1e-6) bad++ } }
    END { print bad + 0 }' "$T/tty")
expect_eq "$bad" "0" "the corner's 8x4 numbers equal the piped product's"
on_tty 54 "'$TILEDCL' matmul '$A' '$B' -o '$T/c2.mtx'"
expect_eq "$(cat "$T/c2.mtx")" "$(cat "$T/c.mtx")" "with -o, the file gets everything, terminal or not"

# tile-avg: a summary and a corner too (a.mtx in 2x2 tiles: 32x24 means)
on_tty 54 "'$TILEDCL' tile-avg '$A' --tile 2"
expect_contains "$(cat "$T/tty")" "means of 2x2 tiles of $A: 32x24 float" "tile-avg on a terminal: the summary line"
expect_contains "$(cat "$T/tty")" "the top-left 8x4 of 32x24" "tile-avg on a terminal: says what is shown"
lines=$(wc -l <"$T/tty")
[ "$lines" -le 12 ] && ok "tile-avg on a terminal: $lines lines, not 768 means" || not_ok "tile-avg on a terminal: at most 12 lines" "$lines"
"$TILEDCL" tile-avg "$A" --tile 2 >"$T/m.mtx" 2>/dev/null
# the corner: the 8 lines after the summary (a first build says so before it)
expect_eq "$(sed -n 3p "$T/m.mtx")" "32 24" "tile-avg piped: every mean follows"
bad=$(awk -v f="$T/m.mtx" 'BEGIN { n = 0; while ((getline l < f) > 0) { n++; if (n > 3) v[n - 4] = l } }
    /^means of/ { s = NR; next }
    s && NR <= s + 8 { for (c = 1; c <= 4; c++) { want = v[(c - 1) * 32 + NR - s - 1]; seen++;
        d = $c - want; if (d < 0) d = -d; if (d > 1e-4 * (want < 0 ? -want : want) + 1e-6) bad++ } }
    END { print seen == 32 ? bad + 0 : "only " seen + 0 " numbers" }' "$T/tty")
expect_eq "$bad" "0" "tile-avg: the corner's 8x4 numbers equal the piped means"

# life's preview fits the terminal
on_tty 40 "'$TILEDCL' life --size 90x12 --gens 3 --seed 5"
wide=$(grep -E '^[.O]+$' "$T/tty" | awk 'length > 39' | wc -l)
expect_eq "$wide" "0" "life preview on a 40-column terminal: no row wider than 39"
expect_contains "$(cat "$T/tty")" "the top-left 39x12 of 90x12 cells" "life preview: says what is shown"
"$TILEDCL" life --size 90x12 --gens 3 --seed 5 -o "$T/l.cells" 2>/dev/null
want=$(grep -v '^!' "$T/l.cells" | cut -c1-39 | head -n 12)
got=$(grep -E '^[.O]+$' "$T/tty" | head -n 12)
expect_eq "$got" "$want" "life preview: the corner of the grid the .cells file holds"

# Ctrl-C during a progress bar: the bar is erased (the prompt starts clean)
# (script's child is tiledcl itself, through exec; SIGINT set to its
# default, which a background job would otherwise have ignored)
COLUMNS=80 script -qec "exec env --default-signal=INT '$TILEDCL' life --size 256x256 --gens 100000000 -o '$T/p.rle'" \
    /dev/null </dev/null >"$T/tty" 2>&1 &
spid=$!
for _i in $(seq 100); do grep -q 'generation' "$T/tty" 2>/dev/null && break; sleep 0.1; done
expect_contains "$(cat "$T/tty")" "generation" "a progress bar on the terminal"
tpid=$(pgrep -P "$spid" | head -n 1)
[ -n "$tpid" ] && kill -INT "$tpid"
for _i in $(seq 100); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$spid" 2>/dev/null; then
    not_ok "SIGINT ends the run"
    [ -n "$tpid" ] && kill -KILL "$tpid"
else
    ok "SIGINT ends the run"
fi
wait "$spid"
tail=$(tail -c 8 "$T/tty" | od -An -c | tr -s ' ')
expect_contains "$tail" '\r 033 [ K' "after Ctrl-C the last thing written erases the bar"
[ -e "$T/p.rle" ] && not_ok "no output after Ctrl-C" || ok "no output after Ctrl-C"
done_testing
