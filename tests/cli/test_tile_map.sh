# tiledcl tile-map: the seeds' 8x9 matrix in 2x3 tiles as grids and JSON
# (every index checked in Python), colour, edge tiles, errors.
. "$(dirname "$0")/lib.sh"
need_device

run tile-map --help
expect_rc 0 "--help exits 0"
expect_contains "$OUT" "get_group_id" "--help says what the indices are"
expect_contains "$OUT" "exit status" "--help documents exit codes"

run tile-map 8x9 --tile 2x3
expect_rc 0 "8x9 in 2x3 tiles exits 0"
expect_contains "$OUT" "8x9 matrix in 2x3 tiles: 4x3 work-groups of 2x3 items" "the header counts the work-groups"
expect_contains "$OUT" " 7,0 7,1 7,2 | 7,3 7,4 7,5 | 7,6 7,7 7,8" "global grid, last row, tiles apart"
expect_contains "$OUT" " 3,0 3,0 3,0 | 3,1 3,1 3,1 | 3,2 3,2 3,2" "tile grid, last tile row"
expect_contains "$OUT" " 1,0 1,1 1,2 | 1,0 1,1 1,2 | 1,0 1,1 1,2" "local grid restarts in every tile"
expect_contains "$OUT" "-------------+-------------+------------" "rules between tile rows"
case "$OUT" in *$'\033['*) not_ok "no colour when not on a terminal" ;; *) ok "no colour when not on a terminal" ;; esac
run tile-map 8x9 --tile 2x3 --color always
expect_contains "$OUT" $'\033[43m' "--color always shades tiles"

check_json() { # R C T U DESC
    if printf '%s' "$OUT" | python3 -c '
import json, sys
r, c, t, u = map(int, sys.argv[1:5])
d = json.load(sys.stdin)
assert d["rows"] == r and d["cols"] == c and d["tile"] == [t, u]
assert d["tiles"] == [-(-r // t), -(-c // u)]
for i in range(r):
    for j in range(c):
        x = d["cells"][i][j]
        assert x == {"global": [i, j], "tile": [i // t, j // u], "local": [i % t, j % u]}, (i, j, x)
' "$1" "$2" "$3" "$4" 2>"$T/py.err"; then ok "$5"; else not_ok "$5" "$(cat "$T/py.err")"; fi
}
run tile-map 8x9 --tile 2x3 --json
expect_rc 0 "--json exits 0"
check_json 8 9 2 3 "--json: every index of 8x9 in 2x3"
run tile-map 5x7 --tile 3 --json
check_json 5 7 3 3 "--json: edge tiles hang over a 5x7 matrix"

run tile-map 8x9 --tile 9x1
expect_rc 1 "a tile taller than the matrix exits 1"
run tile-map 200x200 --tile 200
expect_rc 1 "a work-group past the device's limit exits 1"
expect_contains "$ERR" "work-group of 40000 items" "the refusal names the work-group size"
run tile-map 2000x2000 --tile 2
expect_rc 1 "more cells than tile-map shows exits 1"
run tile-map 8x9
expect_rc 2 "missing --tile is a usage error"
run tile-map 8 --tile 2
expect_rc 2 "a size without columns is a usage error"
run tile-map 8x9 --tile 2 --color sometimes
expect_rc 2 "a bad --color is a usage error"

done_testing
