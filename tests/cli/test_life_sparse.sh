# tiledcl life --sparse and bench life --pattern: tiles skipped give the
# same grids as dense runs (a gun and a glider among still lifes in grids
# of no whole number of tiles, each boundary, several depths), -v reports
# both rates, and the options are checked.
. "$(dirname "$0")/lib.sh"
need_device

G="$TDCL_DATA/gosper-gun.rle"

run life --help
expect_contains "$OUT" "--sparse M" "--help documents --sparse"

for b in dead torus clamp; do
    for d in "" "--depth 5" "--depth 8 --word-bits 32"; do
        run life "$G" --size 1500x300 --boundary $b $d --gens 157 --sparse off -o "$T/dense.rle"
        expect_rc 0 "gun, $b $d: dense runs"
        run life "$G" --size 1500x300 --boundary $b $d --gens 157 --sparse on -o "$T/sparse.rle"
        expect_rc 0 "gun, $b $d: tiles skipped runs"
        expect_same_file "$T/sparse.rle" "$T/dense.rle" "gun, $b $d: tiles skipped = dense"
    done
done

# a glider crosses empty tiles into a block (a settled region), a blinker ticks
cat > "$T/scene.rle" <<'RLE'
x = 900, y = 130, rule = B3/S23
bo$2bo$3o98$100b2o$100b2o9$540b3o19$897b3o!
RLE
run life "$T/scene.rle" --size 1100x210 --gens 611 --sparse off -o "$T/d.rle"
expect_rc 0 "glider into a block: dense runs"
run life "$T/scene.rle" --size 1100x210 --gens 611 --sparse on -v -o "$T/s.rle"
expect_rc 0 "glider into a block: tiles skipped runs"
expect_same_file "$T/s.rle" "$T/d.rle" "glider into a block: tiles skipped = dense"
expect_contains "$ERR" "of the tiles computed" "-v gives the rate of the tiles computed"
expect_contains "$ERR" "sparse tiles=" "-v names the sparse tiles"

# fallbacks: B0 and Golly's Klein bottle run dense, say so with -v, and agree
run life --size 300x200 --rule B0123478/S01234678 --boundary torus --gens 9 --sparse on -v -o "$T/b0s.rle"
expect_rc 0 "a B0 rule with --sparse on runs"
expect_contains "$ERR" "dense, no tiles skipped" "-v says a B0 rule runs dense"
run life --size 300x200 --rule B0123478/S01234678 --boundary torus --gens 9 --sparse off -o "$T/b0d.rle"
expect_same_file "$T/b0s.rle" "$T/b0d.rle" "B0: the same as dense"
run life "$G" --boundary :K200,100 --gens 50 --sparse on -v -o "$T/k.rle"
expect_rc 0 "a Klein bottle with --sparse on runs"
expect_contains "$ERR" "dense, no tiles skipped" "-v says a Klein bottle runs dense"

run life --sparse sometimes --gens 1
expect_rc 2 "--sparse takes auto, on or off"
expect_contains "$ERR" "--sparse is auto, on or off" "the message names the values"

# bench life --pattern: tiles skipped and dense in one run, compared
run bench life --pattern "$G" --size 2048 --gens 64 --reps 1 --warmup 0 --json
expect_rc 0 "bench life --pattern runs"
expect_contains "$OUT" '"computed_cells_per_s"' "bench gives the rate of the tiles computed"
expect_contains "$OUT" 'sparse tiles=' "bench names the sparse tiles"
n=$(printf '%s\n' "$OUT" | grep -c '"op": "life"')
expect_eq "$n" "2" "bench gives the skipping and the dense figure"
run bench copy --pattern "$G"
expect_rc 2 "--pattern is for life only"
# bench life --pattern --plane tiles: the unbounded plane, its figures in the plan
run bench life --pattern "$G" --plane tiles --gens 60 --reps 1 --warmup 0 --copy-size 64 --json
expect_rc 0 "bench life --pattern --plane tiles runs"
expect_contains "$OUT" 'plane=tiles tile=64x64 generations/s=' "the plane's figure names generations/s"
expect_contains "$OUT" ' live=46 ' "and the live cells: the gun's 36 and two gliders after 60 generations"

# a sparse matrix is a fixed grid with a dead edge: 10^6 x 10^6 with a
# glider runs in tiles within 64 MB (a dense grid would be 10^12 cells),
# the glider settling into a block in the far corner, as on a 20 x 20
# matrix with the glider as far from the corner (the dense grid there)
mtx_glider() { # size, offset of the glider's box from the far corner
    printf '%%%%MatrixMarket matrix coordinate pattern general\n%s %s 5\n' "$1" "$1"
    for c in "0 1" "1 2" "2 0" "2 1" "2 2"; do
        set -- "$1" "$2" $c
        echo "$(($1 - $2 + $3 + 1)) $(($1 - $2 + $4 + 1))"
        set -- "$1" "$2"
    done
}
mtx_glider 1000000 10 >"$T/big.mtx"
mtx_glider 20 10 >"$T/small.mtx"
run -v life "$T/big.mtx" --gens 40 --max-bytes 64000000 -o "$T/big.rle"
expect_rc 0 "a 10^6 x 10^6 matrix with a glider runs"
expect_contains "$ERR" "life: the tile plane: 5 live cells in a 1000000 x 1000000" "-v says it runs in tiles"
expect_contains "$ERR" "on a 1000000 x 1000000 grid with a dead edge" "the closing line names the fixed grid"
rss=$(printf '%s\n' "$ERR" | sed -n 's/.*peak rss \([0-9]*\).*/\1/p')
[ -n "$rss" ] && [ "$rss" -lt 512 ] && ok "its peak memory is the runtime's ($rss MB)" \
    || not_ok "its peak memory is the runtime's" "peak rss '$rss' MB"
printf '%s\n' '#C generation 40, written by tiledcl life' '#CXRLE Pos=-500000,-500000 Gen=40' \
    'x = 1000000, y = 1000000, rule = B3/S23:P1000000,1000000' '999998$999998b2o$999998b2o!' \
    >"$T/big-want.rle"
expect_same_file "$T/big.rle" "$T/big-want.rle" "the glider is a block in the far corner"
run life "$T/big.mtx" --gens 40 --max-bytes 64000000 -o "$T/big-out.mtx"
expect_rc 0 "a 10^6 x 10^6 grid written as a matrix"
run life "$T/small.mtx" --gens 40 --plane dense -o "$T/small-d.rle"
run life "$T/small.mtx" --gens 40 --plane tiles -v -o "$T/small-t.rle"
expect_contains "$ERR" "(forced)" "a small matrix on the tile plane"
expect_same_file "$T/small-t.rle" "$T/small-d.rle" "20 x 20: the tile plane = the dense grid"
run life "$T/small.mtx" --gens 40 --plane tiles -o "$T/small-t.mtx"
# the small grid's cells moved to the big grid's far corner
awk 'NR > 3 { print $1 + 999980, $2 + 999980, $3 }' "$T/small-t.mtx" >"$T/shifted"
awk 'NR > 3' "$T/big-out.mtx" >"$T/big-cells"
expect_same_file "$T/big-cells" "$T/shifted" "the big grid's cells = the small grid's, shifted"
expect_eq "$(wc -l <"$T/big-cells")" "4" "a block"
run life "$T/big.mtx" --gens 1 --max-bytes 64000000 --plane dense
expect_rc 1 "the same grid is too large to run dense"
# the same glider as a Golly RLE on a ":P" grid: listed from its runs, not
# drawn into the grid first, so it runs in tiles within 64 MB as well; on
# a 20 x 20 ":P" grid, dense and tiles equal the small matrix's run
printf '%s\n' '#CXRLE Pos=499990,499990' 'x = 3, y = 3, rule = B3/S23:P1000000,1000000' \
    'bo$2bo$3o!' >"$T/big-p.rle"
run -v life "$T/big-p.rle" --gens 40 --max-bytes 64000000 -o "$T/big-p-out.rle"
expect_rc 0 "a 10^6 x 10^6 :P RLE with a glider runs"
expect_contains "$ERR" "life: the tile plane: 5 live cells in a 1000000 x 1000000" "-v says the :P RLE runs in tiles"
rss=$(printf '%s\n' "$ERR" | sed -n 's/.*peak rss \([0-9]*\).*/\1/p')
[ -n "$rss" ] && [ "$rss" -lt 512 ] && ok "the :P RLE's peak memory is the runtime's ($rss MB)" \
    || not_ok "the :P RLE's peak memory is the runtime's" "peak rss '$rss' MB"
expect_same_file "$T/big-p-out.rle" "$T/big-want.rle" "the :P RLE's glider is a block in the far corner"
printf '%s\n' 'x = 3, y = 3, rule = B3/S23:P20,20' 'bo$2bo$3o!' >"$T/small-p.rle"
run life "$T/small-p.rle" --gens 40 --plane dense -o "$T/small-p-d.rle"
expect_same_file "$T/small-p-d.rle" "$T/small-d.rle" "20 x 20 :P RLE, dense = the matrix's run"
run life "$T/small-p.rle" --gens 40 --plane tiles -o "$T/small-p-t.rle"
expect_same_file "$T/small-p-t.rle" "$T/small-d.rle" "20 x 20 :P RLE, tiles = the matrix's run"

# over two devices (bands of rows, halos written each round): the written
# rows' tiles are recomputed, the rest still skipped
export POCL_DEVICES="pthread pthread" POCL_MAX_PTHREAD_COUNT=1 POCL_CPU_MAX_CU_COUNT=1
run devices
ids=$(printf '%s\n' "$OUT" | sed -n 's/^ *\*\? *\([0-9]*:[0-9]*\)  .*/\1/p' | head -2)
if [ "$(echo "$ids" | wc -l)" -ge 2 ]; then
    D0=$(echo "$ids" | sed -n 1p) D1=$(echo "$ids" | sed -n 2p)
    for b in dead torus; do
        run --device "$D0" life "$G" --size 1500x300 --boundary $b --gens 157 --sparse off -o "$T/one.rle"
        run --device "$D0,$D1" life "$G" --size 1500x300 --boundary $b --gens 157 --halo 8 --sparse on -o "$T/two.rle"
        expect_rc 0 "gun, $b, two devices, tiles skipped: runs"
        expect_same_file "$T/two.rle" "$T/one.rle" "gun, $b, two devices, tiles skipped = one device dense"
    done
else
    ok "# SKIP two PoCL devices for the sharded check"
fi

done_testing
