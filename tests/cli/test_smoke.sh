# One short run of every command, each against a known answer: the quick
# suite's end-to-end part (meson test --suite quick). The full checks are
# in the other tests/cli scripts.
. "$(dirname "$0")/lib.sh"
need_device
D=$TDCL_DATA

run devices
expect_rc 0 "devices exits 0"
expect_contains "$OUT" "*" "devices marks the default device"

# the seeds' integer example; the values are the file's own comment
run matmul "$D/seed3x2.mtx" "$D/seed2x3.mtx"
expect_rc 0 "matmul exits 0"
expect_eq "$(printf '%s\n' "$OUT" | grep -v '^%' | tr '\n' ' ')" "3 3 47 64 81 52 71 90 57 78 99 " \
    "matmul: 3x2 by 2x3 gives 47 52 57 / 64 71 78 / 81 90 99 (column-major)"

# the seeds' 8x8 matrix 0..63 (row-major) in 4x4 tiles: 13.5 17.5 / 45.5 49.5
run tile-avg "$D/seed8x8.mtx" --tile 4
expect_rc 0 "tile-avg exits 0"
expect_eq "$(printf '%s\n' "$OUT" | grep -v '^%' | tr '\n' ' ')" "2 2 13.5 45.5 17.5 49.5 " \
    "tile-avg: 4x4 tiles of 0..63 give 13.5 17.5 / 45.5 49.5"

run tile-map 4x6 --tile 2x3
expect_rc 0 "tile-map exits 0"
expect_contains "$OUT" "4x6 matrix in 2x3 tiles: 2x2 work-groups of 2x3 items" "tile-map counts the work-groups"

# the pulsar has period 3: back after 3 generations, not after 1
run life "$D/pulsar.cells" --gens 3 -o "$T/p3.cells"
expect_rc 0 "life exits 0"
run life "$D/pulsar.cells" --gens 1 -o "$T/p1.cells"
expect_eq "$(grep -v '^!' "$T/p3.cells")" "$(grep -v '^!' "$D/pulsar.cells")" "life: the pulsar is back after 3 generations"
expect_ne "$(grep -v '^!' "$T/p1.cells")" "$(grep -v '^!' "$D/pulsar.cells")" "life: ... and not after 1"

run convert "$D/seed8x8.mtx" "$T/s.npy"
expect_rc 0 "convert to .npy exits 0"
run convert "$T/s.npy" "$T/s.mtx"
expect_eq "$(grep -v '^%' "$T/s.mtx")" "$(grep -v '^%' "$D/seed8x8.mtx")" "convert: .mtx to .npy and back keeps every value"

run bench copy --size 64 --reps 2 --json
expect_rc 0 "bench exits 0"
expect_contains "$OUT" '"checked": true' "bench: the copy matches its input"

run tune matmul --sizes 32 --time-limit 1 --max-sets 1 --dry-run
expect_rc 0 "tune exits 0"
expect_contains "$OUT" "    32 " "tune reports the size it tuned"

done_testing
