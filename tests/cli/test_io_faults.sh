# I/O faults: truncated inputs of every format are clear errors; a write
# that fails (file size limit standing in for a full disk, /dev/full on
# standard output, a directory that cannot hold the file) exits 1, keeps an
# existing output untouched and leaves no temporary behind.
. "$(dirname "$0")/lib.sh"
need_device

export XDG_CACHE_HOME="$T/cache"

# no_temps FILE DESC: nothing named FILE.tmp.* is left.
no_temps() {
    if ls "$1".tmp.* >/dev/null 2>&1; then not_ok "$2" "left: $(ls "$1".tmp.*)"; else ok "$2"; fi
}

# a 64x64 soup in every format, and each cut short
run life --size 64x64 --gens 0 --seed 7 -o "$T/g.mtx"
expect_rc 0 "a soup to cut"
for ext in npy png pbm; do "$TILEDCL" convert "$T/g.mtx" "$T/g.$ext"; done
# written by life, whose header comment puts the half-way cut inside a run
# (an RLE cut exactly at a line end reads as a shorter pattern, as in Golly)
"$TILEDCL" life "$T/g.mtx" --gens 0 -o "$T/g.rle"
gzip -c "$T/g.mtx" >"$T/g.mtx.gz"
cp "$TDCL_DATA/rings.pgm" "$T/g.pgm"
cut_half() { head -c $(($(wc -c <"$1") / 2)) "$1" >"$2"; }
for f in g.mtx g.mtx.gz g.npy g.png g.pbm g.pgm g.rle; do cut_half "$T/$f" "$T/cut-$f"; done

run convert "$T/cut-g.mtx" "$T/o.npy"
expect_rc 1 "truncated .mtx: exit 1"
expect_contains "$ERR" "cut-g.mtx:3: the size line claims 4096 entries" ".mtx: the claimed entries do not fit"
run convert "$T/cut-g.mtx.gz" "$T/o.npy"
expect_rc 1 "truncated .mtx.gz: exit 1"
expect_contains "$ERR" "the gzip data is truncated" ".mtx.gz: truncated gzip"
run convert "$T/cut-g.npy" "$T/o.mtx"
expect_rc 1 "truncated .npy: exit 1"
expect_contains "$ERR" "but the file holds" ".npy: the data is shorter than the header says"
run tile-avg "$T/cut-g.png" --tile 2 -o "$T/o.mtx"
expect_rc 1 "truncated .png: exit 1"
expect_contains "$ERR" "cut-g.png: bad PNG data" ".png: libpng's complaint, with the path"
run tile-avg "$T/cut-g.pbm" --tile 2 -o "$T/o.mtx"
expect_rc 1 "truncated .pbm: exit 1"
expect_contains "$ERR" "header claims 64x64 pixels" ".pbm: the raster is shorter than the header says"
run tile-avg "$T/cut-g.pgm" --tile 2 -o "$T/o.mtx"
expect_rc 1 "truncated .pgm: exit 1"
expect_contains "$ERR" "but only" ".pgm: the raster is shorter than the header says"
run life "$T/cut-g.rle" --gens 1 -o "$T/o.rle"
expect_rc 1 "truncated .rle: exit 1"
expect_contains "$ERR" "got end of file" ".rle: the end of file is named"
[ -e "$T/o.npy" ] || [ -e "$T/o.mtx" ] || [ -e "$T/o.rle" ]
expect_rc 1 "no output file from a truncated input" # $? of the test above

# writes that fail: the old file stays, no temporary is left
for out in o.rle o.png o.npy o.mtx o.gif; do
    echo "old contents" >"$T/$out"
    if [ "$out" = o.gif ]; then set -- life --size 256x256 --gens 3 --gif "$T/$out"; else
        set -- life --size 256x256 --gens 1 -o "$T/$out"; fi
    # the same run unlimited first, so that the driver's own kernel cache,
    # which it writes while compiling, is filled
    "$TILEDCL" "$@" >/dev/null 2>&1 </dev/null
    echo "old contents" >"$T/$out"
    # 1 KiB file size limit: write() fails with EFBIG like a full disk with ENOSPC
    (ulimit -f 1 && trap '' XFSZ && exec "$TILEDCL" "$@") >"$T/.out" 2>"$T/.err" </dev/null
    RC=$? ERR=$(cat "$T/.err")
    expect_rc 1 "write of $out past the size limit: exit 1"
    expect_contains "$ERR" "$T/$out'" "$out: the message names the file"
    expect_contains "$ERR" "File too large" "$out: and the reason"
    expect_eq "$(cat "$T/$out")" "old contents" "$out: the old file is untouched"
    no_temps "$T/$out" "$out: no temporary is left"
done
echo "old contents" >"$T/t.mtx"
# a large .npy (16 MiB and up) is written in bands by several threads
# (pwrite): a failure in any band keeps the old file too; so does a product
# streamed to its file as it downloads (forced staging, as on a GPU)
"$TILEDCL" life --size 4096x4100 --gens 0 -o "$T/big.npy" >/dev/null 2>&1 </dev/null
"$TILEDCL" life --size 600x600 --gens 0 -o "$T/s600.npy" >/dev/null 2>&1 </dev/null
"$TILEDCL" convert "$T/s600.npy" "$T/a600.npy" --dtype float32 >/dev/null 2>&1 </dev/null
for cmd in "life --size 4096x4100 --gens 1 -o $T/o.npy" "convert $T/big.npy $T/o.npy" \
    "matmul $T/a600.npy $T/a600.npy -o $T/o.npy"; do
    echo "old contents" >"$T/o.npy"
    (ulimit -f 1024 && trap '' XFSZ && TILEDCL_STAGING=1 TILEDCL_STAGING_CHUNK=4096 \
        TILEDCL_MAPPED=0 exec "$TILEDCL" $cmd) >/dev/null 2>"$T/.err" </dev/null
    RC=$? ERR=$(cat "$T/.err")
    expect_rc 1 "${cmd%% *} .npy past the size limit: exit 1"
    expect_contains "$ERR" "File too large" "${cmd%% *} .npy: the reason"
    expect_eq "$(cat "$T/o.npy")" "old contents" "${cmd%% *} .npy: the old file is untouched"
    no_temps "$T/o.npy" "${cmd%% *} .npy: no temporary is left"
done
(ulimit -f 1 && trap '' XFSZ && exec "$TILEDCL" convert "$T/g.mtx" "$T/t.mtx") >/dev/null 2>"$T/.err"
RC=$?
expect_rc 1 "convert past the size limit: exit 1"
expect_eq "$(cat "$T/t.mtx")" "old contents" "convert: the old file is untouched"
no_temps "$T/t.mtx" "convert: no temporary is left"

"$TILEDCL" life --size 64x64 --gens 1 >/dev/full 2>"$T/.err" </dev/null
RC=$? ERR=$(cat "$T/.err")
expect_rc 1 "standard output on a full device: exit 1"
expect_contains "$ERR" "No space left on device" "the full device is named"

# a directory that cannot take the file
echo "x" >"$T/plain"
run life --size 8x8 --gens 1 -o "$T/plain/o.rle"
expect_rc 1 "output under a regular file: exit 1"
expect_contains "$ERR" "cannot write '$T/plain/o.rle'" "the message names the output"
if [ "$(id -u)" != 0 ]; then
    mkdir "$T/ro" && echo "old contents" >"$T/ro/o.rle" && chmod 555 "$T/ro"
    run life --size 8x8 --gens 1 -o "$T/ro/o.rle"
    chmod 755 "$T/ro"
    expect_rc 1 "read-only directory: exit 1"
    expect_contains "$ERR" "Permission denied" "the reason is given"
    expect_eq "$(cat "$T/ro/o.rle")" "old contents" "read-only directory: the old file is untouched"
else
    # root writes anywhere but /proc
    run life --size 8x8 --gens 1 -o /proc/tiledcl-test.rle
    expect_rc 1 "a directory that takes no new file (/proc): exit 1"
    expect_contains "$ERR" "cannot write '/proc/tiledcl-test.rle'" "the message names the output"
fi
done_testing
