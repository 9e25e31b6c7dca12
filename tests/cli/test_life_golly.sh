# tiledcl life as Golly users expect it: the unbounded plane, RLE
# read and written both ways, rule spellings, gzip and stdin, every bounded
# grid, the H and V neighbourhoods, Life 1.05/1.06 and Macrocell. Where
# bgolly (Debian's golly) is installed, runs are checked against it; those
# checks are skipped, with a message, where it is missing. The rest checks
# against hand-computed positions and tiledcl's own resumed runs.
. "$(dirname "$0")/lib.sh"
HERE=$(dirname "$0")
cellsof() { python3 "$HERE/rle_cells.py" show "$1"; }
same() { python3 "$HERE/rle_cells.py" same "$@"; }
skip() { _n=$((_n + 1)); echo "ok $_n - $1 # SKIP $2"; }
BGOLLY=$(command -v bgolly || true)

# soup W H SEED RULE: a random RLE pattern, 35% alive, on stdout
soup() {
    python3 - "$@" <<'PY'
import random, sys
w, h, seed, rule = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
random.seed(seed)
rows = [''.join('o' if random.random() < 0.35 else 'b' for _ in range(w)) for _ in range(h)]
print('x = %d, y = %d, rule = %s' % (w, h, rule))
print('$'.join(rows) + '!')
PY
}

# ---- the unbounded plane ---------------------------------------------------
printf 'x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n' >"$T/glider.rle"
run life "$T/glider.rle" --gens 4 -o "$T/g4.rle"
expect_eq "$(cellsof "$T/g4.rle")" "5 1,1" "a glider is not clipped: 5 cells, one step down and right after 4 generations"
# a glider crossing a 16x16 start grid: 1000 generations, 250 cells on
printf '!16x16, a glider at 6,6\n' >"$T/g16.cells"
for r in 0 1 2 3 4 5; do printf '................\n' >>"$T/g16.cells"; done
printf '.......O........\n........O.......\n......OOO.......\n' >>"$T/g16.cells"
for r in 9 10 11 12 13 14 15; do printf '................\n' >>"$T/g16.cells"; done
run -v life "$T/g16.cells" --gens 1000 -o "$T/g1000.rle" --plane dense
expect_rc 0 "a glider runs 1000 generations from a 16x16 grid"
expect_eq "$(cellsof "$T/g1000.rle")" "5 256,256" "it keeps its five cells and moved 250 cells down and right"
expect_contains "$ERR" "the plane's grid is now" "the grid grew (or moved) with it"
expect_contains "$(cat "$T/g1000.rle")" "#CXRLE Pos=256,256 Gen=1000" "the RLE holds its true position and generation"
printf '%s\n' '#CXRLE Pos=256,256 Gen=1000' 'x = 3, y = 3, rule = B3/S23' 'bo$2bo$3o!' >"$T/want.rle"
same "$T/g1000.rle" "$T/want.rle" && ok "and its true shape" || not_ok "and its true shape" "$(cat "$T/g1000.rle")"
# resuming a run from its output is the same as running on
run life "$T/g1000.rle" --gens 40 -o "$T/g1040.rle"
expect_contains "$(cat "$T/g1040.rle")" "#CXRLE Pos=266,266 Gen=1040" "a run resumes from Pos and Gen"
# --size and --boundary still give a fixed grid
run life "$T/glider.rle" --size 8x8 --gens 40 -o "$T/fixed.rle"
expect_contains "$(cat "$T/fixed.rle")" "x = 8, y = 8, rule = B3/S23:P8,8" "--size gives a fixed dead grid"
# a Macrocell pattern 2^40 cells wide goes from its tree to tiles: two
# gliders (leaf rows 5-7, in the nw corner of every level up to 40), one
# at the root's nw corner and one at its se corner; the root (level 41) is
# centred, so the first glider's box starts at -2^40, 6 - 2^40 at Gen 7
python3 - "$T/far.mc" <<'PY'
import sys
lines = ['[M2] (golly 3.3)', '#R B3/S23', '#G 7', '$$$$$.*$..*$***$']
for k in range(4, 41):                 # node k-2: level k
    lines.append('%d %d 0 0 0' % (k, k - 3))
lines.append('41 38 0 0 38')           # two of them, 2^40 cells apart
open(sys.argv[1], 'w').write('\n'.join(lines) + '\n')
PY
run -v life "$T/far.mc" --gens 8 --max-bytes 1000000 -o "$T/far8.rle"
expect_rc 0 "a Macrocell pattern 2^40 cells wide runs within a megabyte"
expect_contains "$(cat "$T/far8.rle")" "#CXRLE Pos=-1099511627774,-1099511627768 Gen=15" \
    "8 generations on from #G 7, both gliders moved 2 cells"
printf '%s\n' '#CXRLE Pos=-1099511627774,-1099511627768' 'x = 1, y = 1' \
    'bo$2bo$3o1099511627774$1099511627777bo$1099511627778bo$1099511627776b3o!' >"$T/far-want.rle"
same "$T/far8.rle" "$T/far-want.rle" && ok "the far glider is in its place, 2^40 cells on" \
    || not_ok "the far glider is in its place, 2^40 cells on" "$(cat "$T/far8.rle")"
rss=$(printf '%s\n' "$ERR" | sed -n 's/.*peak rss \([0-9]*\).*/\1/p')
[ -n "$rss" ] && [ "$rss" -lt 512 ] && ok "its peak memory is the runtime's ($rss MB)" \
    || not_ok "its peak memory is the runtime's" "peak rss '$rss' MB"
run life "$T/far.mc" --plane dense
expect_contains "$ERR" "live cells span 1099511627779 x 1099511627779 cells" \
    "a dense grid of it is refused with its size"
# 2^46 live cells from 23 lines: refused at the root's line, before any is listed
python3 - "$T/full.mc" <<'PY'
import sys
lines = ['[M2]', '#R B3/S23', '********$' * 8]
for k in range(4, 24):
    lines.append('%d %d %d %d %d' % ((k,) + (k - 3,) * 4))
open(sys.argv[1], 'w').write('\n'.join(lines) + '\n')
PY
run life "$T/full.mc" --gens 1 --max-bytes 1000000
expect_contains "$ERR" "full.mc:23: 70368744177664 live cells take" \
    "a population past memory is refused with the file, line and size"
# Life 1.06 cells 2^41 apart: listed, not drawn
printf '#Life 1.06\n-1099511627776 0\n-1099511627775 0\n-1099511627774 0\n1099511627776 5\n' >"$T/far.lif"
run life "$T/far.lif" --gens 1 -o "$T/far1.rle"
expect_eq "$(cellsof "$T/far1.rle")" "3 -1099511627775,-1" "a Life 1.06 blinker 2^41 cells from a lone cell turns"

# ---- RLE as Golly reads and writes it --------------------------------------
# no Pos in a bounded grid: centred (bgolly's 72x48 torus output reads back)
soup 72 48 1 'B3/S23:T72,48' >"$T/t72.rle"
run life "$T/t72.rle" --gens 0 -o "$T/t72-0.rle"
expect_rc 0 "a pattern filling its torus without a Pos line is read"
expect_contains "$(cat "$T/t72-0.rle")" "#CXRLE Pos=-36,-24 Gen=0" "the grid's top-left cell is -W/2,-H/2"
same "$T/t72.rle" "$T/t72-0.rle" shape && ok "and holds the same cells" || not_ok "and holds the same cells"
if [ -n "$BGOLLY" ]; then # bgolly's own torus output reads back and runs on
    (cd "$T" && "$BGOLLY" -a QuickLife -m 10 -o bt10.rle t72.rle >/dev/null 2>&1 &&
        "$BGOLLY" -a QuickLife -m 30 -o bt30.rle t72.rle >/dev/null 2>&1)
    run life "$T/bt10.rle" --gens 20 -o "$T/t72-30.rle"
    expect_rc 0 "bgolly's torus output (no Pos line) is read"
    same "$T/t72-30.rle" "$T/bt30.rle" shape && ok "and runs on as bgolly does" \
        || not_ok "and runs on as bgolly does" "$(head -3 "$T/bt10.rle")"
else
    skip "bgolly's torus output is read" "bgolly is not installed (Debian package golly)"
fi
printf 'x = 3, y = 9, rule = B3/S23:P5,9\n3o!\n' >"$T/edge.rle"
run life "$T/edge.rle" --gens 2 -o "$T/edge2.rle"
expect_eq "$(cellsof "$T/edge2.rle")" "0 -" "a 3x9 pattern is centred in a 5x9 plane: its blinker on the top edge dies"
printf 'x = 3, y = 7, rule = B3/S23:P5,9\n3o!\n' >"$T/edge.rle"
run life "$T/edge.rle" --gens 2 -o "$T/edge2.rle"
expect_eq "$(cellsof "$T/edge2.rle")" "3 -1,-3" "a 3x7 one in row 1 lives"
printf 'x = 3, y = 3, rule = B3/S23:P0,0\nbo$2bo$3o!\n' >"$T/p00.rle"
run life "$T/p00.rle" --gens 4 -o "$T/p00-4.rle"
expect_eq "$(cellsof "$T/p00-4.rle")" "5 1,1" "':P0,0' is Golly's unbounded plane"
# counts split across lines, #r, comments in the body
printf '#r 23/36\nx = 3, y = 3\nbo$2bo$3\no!\n' >"$T/split.rle"
run life "$T/split.rle" --gens 0 -o "$T/split0.rle"
expect_rc 0 "a run count split from its tag by a line break is read"
expect_contains "$(cat "$T/split0.rle")" "rule = B36/S23" "a '#r' line sets the rule"
same "$T/split0.rle" "$T/glider.rle" && ok "the split count gives the glider" || not_ok "the split count gives the glider" "$(cat "$T/split0.rle")"
# every spelling of a rule
for r in 'S23/B3' 'B3S23' 'b3s23' 'B3 / S23' 'Life' '23/3'; do
    printf 'x = 3, y = 3, rule = %s\nbo$2bo$3o!\n' "$r" >"$T/spell.rle"
    run life "$T/spell.rle" --gens 4 -o "$T/spell4.rle"
    expect_eq "$(cellsof "$T/spell4.rle")" "5 1,1" "rule '$r' is Life"
done
printf 'x = 3, y = 3, rule = S245/B368\nbo$2bo$3o!\n' >"$T/morley.rle"
run life "$T/morley.rle" --gens 1 -o "$T/morley1.rle"
expect_contains "$(cat "$T/morley1.rle")" "rule = B368/S245" "Morley's S245/B368 is read"
run life "$T/glider.rle" --rule HighLife --gens 0
expect_contains "$OUT" "rule = B36/S23" "--rule takes Golly's names"
# refusals by name
printf 'x = 3, y = 1, rule = B2-a/S12\n3o!\n' >"$T/hensel.rle"
run life "$T/hensel.rle"
expect_contains "$ERR" "'B2-a/S12' is a non-totalistic rule; tiledcl runs totalistic Moore, hexagonal and von Neumann rules" "a non-totalistic rule is refused by name"
run life --rule 23/3/4
expect_contains "$ERR" "is a multi-state rule" "a multi-state rule is refused by name"
printf '#MCell\n#GAMES Generations\n' >"$T/x.mcl"
run life "$T/x.mcl"
expect_contains "$ERR" "an MCell file; tiledcl reads RLE, .cells, Life 1.05/1.06 and Macrocell" "an MCell file is refused by name"
run life --rule W110
expect_contains "$ERR" "is a one-dimensional Wolfram rule" "a Wolfram rule is refused by name"
# gzip and stdin
gzip -c "$T/glider.rle" >"$T/glider.rle.gz"
run life "$T/glider.rle.gz" --gens 4 -o "$T/gz4.rle"
expect_eq "$(cellsof "$T/gz4.rle")" "5 1,1" ".rle.gz is read"
printf '.O.\n..O\nOOO\n' | gzip -c >"$T/glider.cells.gz"
run life "$T/glider.cells.gz" --gens 4 -o "$T/gzc4.rle"
expect_eq "$(cellsof "$T/gzc4.rle")" "5 1,1" ".cells.gz is read"
"$TILEDCL" life - --gens 4 -o "$T/gzs4.rle" <"$T/glider.rle.gz"
expect_eq "$(cellsof "$T/gzs4.rle")" "5 1,1" "gzip on stdin is read"
printf 'x = 3, y = 2\nooo$\nbbbo!\n' | "$TILEDCL" life - >/dev/null 2>"$T/err"
expect_contains "$(cat "$T/err")" "tiledcl: -:3: row 2 has more" "errors on stdin name '-'"
printf 'P4\n2 2\n' | "$TILEDCL" life - >/dev/null 2>"$T/err"
case "$(cat "$T/err")" in *tiledcl-stdin*) not_ok "a binary format on stdin names '-', not a temporary file" "$(cat "$T/err")" ;;
    *"'-'"* | *" -:"* | *"-:"*) ok "a binary format on stdin names '-', not a temporary file" ;;
    *) not_ok "a binary format on stdin names '-', not a temporary file" "$(cat "$T/err")" ;; esac
# clamp resumes, B0 too
run life --size 23x17 --rule B0124/S1 --boundary clamp --gens 7 -o "$T/c7.rle"
run life "$T/c7.rle" --gens 5 -o "$T/c12a.rle"
expect_rc 0 "a B0 clamp run is read back"
run life --size 23x17 --rule B0124/S1 --boundary clamp --gens 12 -o "$T/c12.rle"
expect_eq "$(grep -v '^#C generation' "$T/c12a.rle")" "$(grep -v '^#C generation' "$T/c12.rle")" "and resumes exactly"
expect_contains "$(cat "$T/c12a.rle")" "#C tiledcl boundary=clamp" "in a comment Golly ignores"

# ---- Life 1.05 / 1.06 and Macrocell ----------------------------------------
printf '#Life 1.05\n#D a glider\n#N\n#P -1 -1\n.*\n..*\n***\n' >"$T/g105.lif"
run life "$T/g105.lif" --gens 4 -o "$T/l4.rle"
expect_eq "$(cellsof "$T/l4.rle")" "5 0,0" "Life 1.05 is read at its #P position"
printf '#Life 1.06\n0 -1\n1 0\n-1 1\n0 1\n1 1\n' >"$T/g106.lif"
run life "$T/g106.lif" --gens 4 -o "$T/l64.rle"
expect_eq "$(cellsof "$T/l64.rle")" "5 0,0" "Life 1.06 is read"
printf '#Life 1.05\n#R 23/36\n#P 0 0\n***\n' >"$T/r105.lif"
run life "$T/r105.lif" --gens 0
expect_contains "$OUT" "rule = B36/S23" "and its #R rule"
# what bgolly -h writes for the glider at 0,0
printf '[M2] (golly 3.3)\n#R B3/S23\n$$$$$$$.*$\n..*$***$\n4 0 1 0 2\n' >"$T/g.mc"
run life "$T/g.mc" --gens 4 -o "$T/mc4.rle"
expect_eq "$(cellsof "$T/mc4.rle")" "5 1,1" "two-state Macrocell is read where Golly puts it"
printf '[M2] (golly 3.3)\n#R WireWorld\n1 0 1 1 1\n2 1 1 1 1\n' >"$T/ww.mc"
run life "$T/ww.mc"
expect_rc 1 "a multi-state Macrocell file is refused"
printf '[M2] (golly 3.3)\n#R B3/S23\n*$\n4 1 0 0 0\n5 2 0 0 2\n6 3 0 0 3\n' >"$T/wide.mc"
run life "$T/wide.mc" --gens 0 -o "$T/wide.rle"
expect_eq "$(cellsof "$T/wide.rle")" "4 -32,-31" "shared Macrocell nodes are each placed"
if [ -n "$BGOLLY" ]; then
    # bgolly's Macrocell of an RLE placed far off: read back at the RLE's own place
    printf '%s\n' '#CXRLE Pos=1000000,-37' 'x = 3000003, y = 2000005, rule = B3/S23' \
        'bo$2bo$3o2000000$3000001bo$3000002bo$3000000b3o!' >"$T/two.rle"
    (cd "$T" && "$BGOLLY" -h -m 0 -o two.mc two.rle >/dev/null 2>&1 &&
        "$BGOLLY" -a QuickLife -m 30 -o two30.rle two.rle >/dev/null 2>&1)
    run life "$T/two.mc" --gens 0 -o "$T/two0.rle"
    same "$T/two0.rle" "$T/two.rle" && ok "bgolly's Macrocell is read where bgolly put its cells" \
        || not_ok "bgolly's Macrocell is read where bgolly put its cells" "$(head -3 "$T/two0.rle")"
    run life "$T/two.mc" --gens 30 -o "$T/two30t.rle"
    same "$T/two30t.rle" "$T/two30.rle" shape && ok "and runs on as bgolly does" \
        || not_ok "and runs on as bgolly does" "$(head -3 "$T/two30t.rle")"
else
    skip "bgolly's Macrocell is read where bgolly put its cells" "bgolly is not installed (Debian package golly)"
fi

# ---- every bounded grid and neighbourhood: resume exactly ------------------
GRIDS='B3/S23:T20,16 B3/S23:T20+3,16 B3/S23:T20,16-5 B3/S23:T0,16 B3/S23:T20,0 B3/S23:P20,0
B3/S23:K20*,16 B3/S23:K20,16* B3/S23:K20*+1,16 B3/S23:K20,16*+1 B3/S23:C20,16 B3/S23:C21,17
B3/S23:S16 B3/S23:S17 B3/S23:P20,16 B2/S34H B2/S013V B245/S3H:T20,16 B2/S013V:K21,17*'
i=0
for g in $GRIDS; do
    i=$((i + 1))
    soup 12 10 "$i" "$g" >"$T/in.rle"
    run life "$T/in.rle" --gens 30 -o "$T/a30.rle"
    run life "$T/a30.rle" --gens 30 -o "$T/a60.rle"
    run life "$T/in.rle" --gens 60 -o "$T/b60.rle"
    if same "$T/a60.rle" "$T/b60.rle"; then ok "$g resumes exactly from its RLE"; else not_ok "$g resumes exactly from its RLE" "$ERR"; fi
    if [ -z "$BGOLLY" ]; then
        skip "$g agrees with bgolly" "bgolly is not installed (Debian package golly)"
        continue
    fi
    (cd "$T" && "$BGOLLY" -a QuickLife -m 60 -o golly60.rle in.rle >/dev/null 2>&1)
    same "$T/b60.rle" "$T/golly60.rle" shape && ok "$g agrees with bgolly after 60 generations" \
        || not_ok "$g agrees with bgolly after 60 generations" "$(cat "$T/golly60.rle")"
    # Golly reads tiledcl's output and goes on from it
    (cd "$T" && "$BGOLLY" -a QuickLife -m 30 -o golly-a60.rle a30.rle >/dev/null 2>&1)
    same "$T/golly-a60.rle" "$T/golly60.rle" shape && ok "bgolly resumes tiledcl's $g output" \
        || not_ok "bgolly resumes tiledcl's $g output"
done
# the bits kernel refuses what only the bytes kernel runs, and says so
soup 12 10 1 'B3/S23:K20*,16' >"$T/k.rle"
run life "$T/k.rle" --kernel bits
expect_contains "$ERR" "the bytes kernel runs Golly's other bounded grids" "--kernel bits refuses a Klein bottle by name"

# ---- bgolly on Golly's own shapes, on the plane ------------------------------
if [ -n "$BGOLLY" ]; then
    for seed in 1 2 3; do
        soup 20 20 "$seed" 'B36/S23' >"$T/p.rle"
        run life "$T/p.rle" --gens 300 -o "$T/p300.rle"
        (cd "$T" && "$BGOLLY" -a QuickLife -m 300 -o golly-p300.rle p.rle >/dev/null 2>&1)
        same "$T/p300.rle" "$T/golly-p300.rle" shape && ok "a HighLife soup agrees with bgolly on the plane ($seed)" \
            || not_ok "a HighLife soup agrees with bgolly on the plane ($seed)"
    done
else
    skip "soups agree with bgolly on the plane" "bgolly is not installed (Debian package golly)"
fi

# ---- the tile plane -----------------------------------------------------------
# the Gosper gun's stream makes tiles; forced tiles and forced dense agree,
# from a place off the tiles' grid, and so does bgolly
printf '%s\n' '#CXRLE Pos=-70,-3' 'x = 36, y = 9, rule = B3/S23' \
    '24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$2o8bo3bob2o4bobo$10bo5bo7bo$11bo3bo$12b2o!' >"$T/gun.rle"
run -v life "$T/gun.rle" --gens 300 -o "$T/gun-t.rle" --plane tiles
expect_rc 0 "the gun runs 300 generations on the tile plane"
expect_contains "$ERR" "the tile plane: 36 live cells in a 36 x 9 box" "-v says the tile plane runs it, and why"
run life "$T/gun.rle" --gens 300 -o "$T/gun-d.rle" --plane dense
same "$T/gun-t.rle" "$T/gun-d.rle" && ok "tiles and the dense grid agree cell for cell" \
    || not_ok "tiles and the dense grid agree cell for cell" "$(head -3 "$T/gun-t.rle")"
# the work-group a tile shape where the kernel allows fewer items than the
# frame's 80 rows (the shim answers 24, as Mesa's llvmpipe answers 32):
# rebuilt for 24 items of up to 4 rows, the last one short
SHIM=$(dirname "$TILEDCL")/tests/fault/clfault.so
ASAN_LIB=$(ldd "$TILEDCL" 2>/dev/null | sed -n 's/.*libasan[^ ]* => \([^ ]*\).*/\1/p')
if [ -f "$SHIM" ]; then
    LD_PRELOAD="${ASAN_LIB:+$ASAN_LIB }$SHIM" TDCL_FAULT_KERNEL_WG=24 TILEDCL_PLANE_WI=0 TILEDCL_PLANE_K=8 \
        run -v life "$T/gun.rle" --gens 300 -o "$T/gun-24.rle" --plane tiles
    expect_contains "$ERR" "built for 24, up to 4 rows an item" "a kernel limit of 24: life_plane rebuilt for 24 items"
    same "$T/gun-24.rle" "$T/gun-d.rle" && ok "tiles in groups of 24 and the dense grid agree cell for cell" \
        || not_ok "tiles in groups of 24 and the dense grid agree cell for cell" "$(head -3 "$T/gun-24.rle")"
else
    skip "a kernel limit of 24: life_plane rebuilt for 24 items" "no fault shim at $SHIM"
    skip "tiles in groups of 24 and the dense grid agree cell for cell" "no fault shim at $SHIM"
fi
expect_contains "$(cat "$T/gun-t.rle")" "#CXRLE Pos=-70,-3 Gen=300" "the tiles' RLE keeps position and generation"
# a sparse pattern takes tiles by itself; a dense one does not
printf '%s\n' 'x = 203, y = 3, rule = B3/S23' 'bo199bo$2bo197bo$3o197b3o!' >"$T/pair.rle"
run -v life "$T/pair.rle" --gens 100 -o "$T/pair-t.rle"
expect_contains "$ERR" "life: the tile plane" "two gliders 200 cells apart run in tiles"
expect_contains "$ERR" "measured for a" "-v names the device kind the threshold was measured for"
soup 30 30 7 B3/S23 >"$T/soup.rle"
run -v life "$T/soup.rle" --gens 10 -o "$T/soup-d.rle"
expect_contains "$ERR" "life: a dense grid" "a soup runs dense"
run life "$T/soup.rle" --gens 200 -o "$T/soup-t.rle" --plane tiles
if [ -n "$BGOLLY" ]; then
    (cd "$T" && "$BGOLLY" -a QuickLife -m 300 -o golly-gun.rle gun.rle >/dev/null 2>&1 &&
        "$BGOLLY" -a QuickLife -m 200 -o golly-soup.rle soup.rle >/dev/null 2>&1)
    same "$T/gun-t.rle" "$T/golly-gun.rle" shape && ok "the gun on tiles agrees with bgolly" \
        || not_ok "the gun on tiles agrees with bgolly"
    same "$T/soup-t.rle" "$T/golly-soup.rle" shape && ok "a soup on tiles agrees with bgolly after 200 generations" \
        || not_ok "a soup on tiles agrees with bgolly after 200 generations"
    # a breeder from Golly's collection: tiles that empty, settle and
    # oscillate inside a launch, their neighbours computed from what changed
    SE=/usr/share/golly/Patterns/Life/Breeders/switch-engine-ping-pong.rle
    if [ -r "$SE" ]; then
        run life "$SE" --gens 2000 -o "$T/se.rle"
        "$BGOLLY" -a QuickLife -m 2000 -o "$T/golly-se.rle" "$SE" >/dev/null 2>&1
        same "$T/se.rle" "$T/golly-se.rle" shape && ok "switch-engine-ping-pong agrees with bgolly after 2000 generations" \
            || not_ok "switch-engine-ping-pong agrees with bgolly after 2000 generations"
    else
        skip "switch-engine-ping-pong agrees with bgolly" "Golly's patterns are not installed"
    fi
else
    skip "the tile plane agrees with bgolly" "bgolly is not installed (Debian package golly)"
fi
# RLE goes straight into tiles: two gliders 10^12 cells apart, a box no
# grid holds, run and written back at their places
printf '%s\n' '#CXRLE Pos=-5,7' 'x = 1000000000003, y = 3, rule = B3/S23' 'bo999999999999bo$2bo999999999999bo$3o999999999997b3o!' >"$T/wide.rle"
run life "$T/wide.rle" --gens 8 -o "$T/wide8.rle"
expect_rc 0 "gliders 10^12 cells apart run on the tile plane"
printf '%s\n' '#CXRLE Pos=-3,9' 'x = 1000000000003, y = 3, rule = B3/S23' 'bo999999999999bo$2bo999999999999bo$3o999999999997b3o!' >"$T/wide-want.rle"
same "$T/wide8.rle" "$T/wide-want.rle" && ok "and both moved two cells down and right" \
    || not_ok "and both moved two cells down and right" "$(cat "$T/wide8.rle")"
run -v life "$T/wide.rle" --gens 8 -o "$T/wide8v.rle"
expect_contains "$ERR" "8 generations on the tile plane (B3/S23): population 10 in a 1000000000003 x 3 box, " \
    "-v's closing line counts the tiles, not the box"
# B0 is refused on tiles by name, and runs dense by itself
soup 8 8 3 B03/S23 >"$T/b0.rle"
run life "$T/b0.rle" --gens 2 --plane tiles -o "$T/b0t.rle"
expect_rc 1 "--plane tiles refuses a B0 rule"
expect_contains "$ERR" "B0 rules wake every dead cell" "and says why"
# outgrowing the memory allowed: generation, population, bytes; nothing written
rm -f "$T/gun-m.rle"
run life "$T/gun.rle" --gens 2000 --plane tiles --max-bytes 8000 -o "$T/gun-m.rle"
expect_rc 1 "the gun outgrows 8000 bytes of tiles"
expect_contains "$ERR" "(population " "the refusal names the population"
expect_contains "$ERR" "at generation " "and the generation"
[ ! -e "$T/gun-m.rle" ] && ok "nothing is written" || not_ok "nothing is written"
# a full block whose cell list outgrows the memory given runs as a grid,
# and gives the tiles' cells
printf '%s\n' 'x = 300, y = 300, rule = B3/S23' >"$T/block.rle"
for i in $(seq 299); do printf '300o$\n'; done >>"$T/block.rle"
printf '300o!\n' >>"$T/block.rle"
run life "$T/block.rle" --gens 3 --max-bytes 2000000 -o "$T/block-g.rle"
expect_rc 0 "a block too full for a list of cells runs as a grid"
run life "$T/block.rle" --gens 3 --plane tiles -o "$T/block-t.rle"
same "$T/block-g.rle" "$T/block-t.rle" && ok "and gives the tiles' cells" \
    || not_ok "and gives the tiles' cells" "$(head -3 "$T/block-g.rle")"
# a pattern that dies is written at 0,0 by either plane
printf '%s\n' 'x = 1, y = 1, rule = B3/S23' 'o!' >"$T/one.rle"
run life "$T/one.rle" --gens 2 --plane dense -o "$T/one-d.rle"
grep -q '^#CXRLE Pos=0,0 Gen=2$' "$T/one-d.rle" && ok "an empty plane is written at 0,0" \
    || not_ok "an empty plane is written at 0,0" "$(cat "$T/one-d.rle")"
# frames and the GIF show a window of the plane
run life "$T/pair.rle" --gens 8 --every 4 --frames "$T/fr" --window -10,-10,40,30 --gif "$T/pair.gif"
expect_rc 0 "--window frames and GIF on the tile plane"
[ -s "$T/pair.gif" ] && [ -s "$T/fr/gen-00000008.png" ] && ok "the frames and GIF are written" \
    || not_ok "the frames and GIF are written" "$(ls "$T/fr")"

done_testing
