# tiledcl convert: formats by extension, stdin/stdout, gzip, dtype, errors, atomic output.
. "$(dirname "$0")/lib.sh"

cat >"$T/a.mtx" <<'M'
%%MatrixMarket matrix coordinate real symmetric
% a 3x3 symmetric matrix, lower triangle stored
3 3 4
1 1 0.1
2 1 -2.5
3 2 1e-300
3 3 7
M
WANT='%%MatrixMarket matrix array real general
% written by tiledcl convert
3 3
0.1
-2.5
0
-2.5
0
1e-300
0
1e-300
7'

WANT_SP='%%MatrixMarket matrix coordinate real general
% written by tiledcl convert
3 3 6
1 1 0.1
1 2 -2.5
2 1 -2.5
2 3 1e-300
3 2 1e-300
3 3 7'

run -v convert "$T/a.mtx" -
expect_rc 0 "mtx to stdout exits 0"
expect_eq "$OUT" "$WANT_SP" "symmetric coordinate stays sparse: coordinate general, mirrored, sorted"
expect_contains "$ERR" "wrote '-' sparse (coordinate Matrix Market, 6 entries)" "-v says the output stayed sparse"
run -v convert --dense "$T/a.mtx" -
expect_eq "$OUT" "$WANT" "--dense: array general, column-major, shortest floats"
expect_contains "$ERR" "made dense for '-': 3x3 float64, 72 bytes" "-v names the dense copy and its size"
run convert --dense --sparse "$T/a.mtx" -
expect_rc 2 "--dense with --sparse is a usage error"
run convert --sparse "$T/a.mtx" "$T/x.npy"
expect_contains "$ERR" "--sparse: '$T/x.npy' holds a dense matrix" "--sparse to .npy is refused"
printf '%%%%MatrixMarket matrix coordinate integer general\n100000000 100000000 1\n7 3 5\n' >"$T/huge.mtx"
run convert "$T/huge.mtx" -
expect_eq "$OUT" '%%MatrixMarket matrix coordinate integer general
% written by tiledcl convert
100000000 100000000 1
7 3 5' "a 10^8 x 10^8 coordinate file is converted sparse"
run convert --dense "$T/huge.mtx" "$T/huge2.mtx"
expect_contains "$ERR" "a dense 100000000x100000000 int64 copy of the sparse matrix needs" "--dense names the size it would need"
[ ! -e "$T/huge2.mtx" ] && ok "nothing written when the dense copy is refused" || not_ok "nothing written when the dense copy is refused"

run convert "$T/a.mtx" "$T/a.npy"
expect_rc 0 "mtx to npy"
run convert "$T/a.npy" -
expect_eq "$OUT" "$WANT" "npy round trip keeps every value"
if command -v python3 >/dev/null && python3 -c 'import numpy' 2>/dev/null; then
    v=$(python3 -c "import numpy; a=numpy.load('$T/a.npy'); print(a.dtype, a.shape, a[0,1], a[2,1])")
    expect_eq "$v" "float64 (3, 3) -2.5 1e-300" "numpy reads the .npy we wrote"
fi

gzip -c "$T/a.mtx" >"$T/a.mtx.gz"
run convert --dense "$T/a.mtx.gz" -
expect_eq "$OUT" "$WANT" "gzip input by magic bytes"
cp "$T/a.mtx.gz" "$T/plain-name"
run convert "$T/plain-name" -
expect_eq "$OUT" "$WANT_SP" "gzip found whatever the file is called, sparse by its banner"

OUT=$(cat "$T/a.mtx" | TMPDIR=/nonexistent "$TILEDCL" convert - - 2>&1)
expect_eq "$OUT" "$WANT_SP" "sparse Matrix Market on stdin (a pipe), read without a temporary copy"
OUT=$("$TILEDCL" convert --dense - - <"$T/a.mtx" 2>&1)
expect_eq "$OUT" "$WANT" "Matrix Market on stdin redirected from a file, --dense"
OUT=$(gzip -c "$T/a.mtx" | "$TILEDCL" convert - - 2>&1)
expect_eq "$OUT" "$WANT_SP" "gzip on stdin: sparse by its content"
OUT=$(cat "$T/a.npy" | "$TILEDCL" convert --sparse - - 2>&1)
expect_eq "$OUT" "$WANT_SP" "--sparse: a dense .npy on stdin written as its nonzeros"
OUT=$("$TILEDCL" convert - "$T/s.npy" <"$T/a.npy" 2>&1 && "$TILEDCL" convert "$T/s.npy" - 2>&1)
expect_eq "$OUT" "$WANT" ".npy on stdin"

run convert --coordinate "$T/a.npy" -
expect_contains "$OUT" "%%MatrixMarket matrix coordinate real general" "--coordinate writes coordinate"
expect_contains "$OUT" "3 3 6
1 1 0.1
1 2 -2.5
2 1 -2.5
2 3 1e-300
3 2 1e-300
3 3 7" "coordinate output lists the nonzeros row by row"

printf '%%%%MatrixMarket matrix array integer general\n1 3\n9007199254740993\n-9223372036854775808\n42\n' >"$T/i.mtx"
run convert "$T/i.mtx" "$T/i.npy"
run convert "$T/i.npy" -
expect_contains "$OUT" "integer general
% written by tiledcl convert
1 3
9007199254740993
-9223372036854775808
42" "int64 values stay exact through .npy"
run convert --dtype float32 "$T/a.mtx" "$T/f.npy"
run convert "$T/f.npy" -
expect_contains "$OUT" "0.1
-2.5
0
-2.5
0
0" "--dtype float32 prints float32 shortest (0.1) and flushes 1e-300 to 0"

# errors
printf '%%%%MatrixMarket matrix array real general\n%% c\n-2 2\n' >"$T/bad.mtx"
run convert "$T/bad.mtx" "$T/out.npy"
expect_rc 1 "bad input exits 1"
expect_contains "$ERR" "tiledcl: $T/bad.mtx:3: expected 'rows cols' after the banner, got '-2 2'" \
    "the message names file, line, what was expected and what was found"
printf '%%%%MatrixMarket matrix array real general\n2 1\n1.5\n' >"$T/short.mtx"
echo "precious" >"$T/keep.npy"
run convert "$T/short.mtx" "$T/keep.npy"
expect_rc 1 "truncated input exits 1"
expect_contains "$ERR" "short.mtx:3: expected 2 entries, got 1" "truncation is reported"
expect_eq "$(cat "$T/keep.npy")" "precious" "a failed convert leaves the existing output alone"
expect_eq "$(ls "$T" | grep -c tmp)" "0" "and no temporary file behind"
OUT=$(printf '%%%%MatrixMarket matrix array real general\n1 1\nx\n' | "$TILEDCL" convert - - 2>&1)
expect_contains "$OUT" "tiledcl: <stdin>:3: expected a real number, got 'x'" "errors on stdin name <stdin>:line"
run convert "$T/missing.mtx" "$T/o.mtx"
expect_rc 1 "missing input exits 1"
expect_contains "$ERR" "cannot open '$T/missing.mtx'" "missing input is named"
run convert "$T/a.mtx" "$T/o.txt"
expect_rc 2 "unknown output extension is a usage error"
run convert "$T/a.mtx" "$T/o.mtx.gz"
expect_rc 1 "gzip output is refused"
expect_contains "$ERR" "gzip output is not supported" "gzip output refusal is explained"
run convert "$T/a.mtx"
expect_rc 2 "one operand is a usage error"
run convert --dtype int8 "$T/a.mtx" -
expect_rc 2 "bad --dtype is a usage error"
run convert --help
expect_rc 0 "--help exits 0"
expect_contains "$OUT" "exit status" "--help documents exit codes"
expect_contains "$OUT" "--coordinate" "--help documents the options"

# -v reports speed
run -v convert "$T/a.npy" "$T/v.npy"
expect_contains "$ERR" "read '$T/a.npy': 3x3 float64" "-v reports what was read"

# images and Life patterns
run convert "$TDCL_DATA/gosper-gun.rle" "$T/gun.cells"
expect_rc 0 "rle to cells"
run convert "$TDCL_DATA/gosper-gun.rle" "$T/gun.png"
expect_rc 0 "rle to png"
run convert "$T/gun.png" "$T/gun2.cells"
expect_rc 0 "png back to a pattern"
expect_eq "$(grep -v '^!' "$T/gun2.cells")" "$(grep -v '^!' "$T/gun.cells")" "a pattern survives rle -> png -> cells"
expect_eq "$(grep -c O "$T/gun.cells")" "9" "the gun's cells file has its 9 rows with live cells"
run convert "$TDCL_DATA/seed8x8.mtx" "$T/s.pgm"
expect_rc 0 "matrix to pgm"
run convert "$T/s.pgm" "$T/s.mtx"
expect_rc 0 "pgm to matrix"
expect_eq "$(tail -n +4 "$T/s.mtx" | tr '\n' ' ')" "$(python3 -c 'print(" ".join(str(r*8+c) for c in range(8) for r in range(8)), end=" ")')" "0..63 survives mtx -> pgm -> mtx (column-major array)"
run convert "$TDCL_DATA/glider.rle" "$T/g.mtx"
expect_eq "$(tail -n +4 "$T/g.mtx" | tr '\n' ' ')" "0 0 1 1 0 1 0 1 1 " "the glider as a 0/1 integer matrix"
run convert "$TDCL_DATA/rings-rgb.png" "$T/x.mtx"
expect_rc 1 "an RGB image is not one matrix"
expect_contains "$ERR" "3 channels" "the channel count is named"
[ ! -e "$T/x.mtx" ] && ok "nothing written on failure" || not_ok "nothing written on failure"
run convert "$TDCL_DATA/a.mtx" "$T/a.xyz"
expect_rc 2 "an unknown output extension is a usage error"

# formats by content: an image under any name is an image; one tiledcl does
# not read is named, not called bad Matrix Market or bad .cells
cp "$T/s.pgm" "$T/s_noext"
run convert "$T/s_noext" "$T/s2.mtx"
expect_eq "$(tail -n +4 "$T/s2.mtx" | tr '\n' ' ')" "$(tail -n +4 "$T/s.mtx" | tr '\n' ' ')" "a PGM without its extension is read as one"
printf 'P7\nWIDTH 2\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nTUPLTYPE GRAYSCALE\nENDHDR\n\007\310' >"$T/g.pam"
run convert "$T/g.pam" -
expect_eq "$(tail -n +3 <<<"$OUT" | tr '\n' ' ')" "1 2 7 200 " "a grey PAM reads as its samples"
printf 'RIFF\004\000\000\000WEBPVP8 ' >"$T/p.webp"
printf '\377\330\377\340\000\020JFIF' >"$T/photo.jpg"
for out in x.npy x.rle x.png; do
    run convert "$T/p.webp" "$T/$out"
    expect_contains "$ERR" "p.webp' is a WebP image; tiledcl reads PNG, JPEG, TIFF, BMP, PBM, PGM, PPM and PAM" "a WebP to $out: named"
    run convert "$T/photo.jpg" "$T/$out"
    expect_contains "$ERR" "photo.jpg: bad JPEG data: truncated" "a cut JPEG to $out: refused"
done
# colour Netpbm: a PPM of maxval 7 becomes a PAM of the samples rescaled to 255
printf 'P6\n2 1\n7\n\000\001\002\003\004\007' >"$T/p.ppm"
run convert "$T/p.ppm" "$T/p.pam"
expect_eq "$(od -An -tu1 "$T/p.pam" | tr -s ' \n' ' ')" "$(printf 'P7\nWIDTH 2\nHEIGHT 1\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\n\000\044\111\155\222\377' | od -An -tu1 | tr -s ' \n' ' ')" "a PPM of maxval 7 to PAM: rescaled like netpbm"
# through TIFF and back: the same samples
run convert "$T/p.ppm" "$T/p.tif"
run convert "$T/p.tif" "$T/p2.pam"
expect_eq "$(od -An -tu1 "$T/p2.pam" | tr -s ' \n' ' ')" "$(od -An -tu1 "$T/p.pam" | tr -s ' \n' ' ')" "a PPM to TIFF to PAM keeps its samples"
# a BMP (2x1, rows bottom-up, BGR, padded to 8 bytes) on stdin, known by content
{
    printf 'BM\076\0\0\0\0\0\0\0\066\0\0\0\050\0\0\0\002\0\0\0\001\0\0\0\001\0\030\0'
    head -c 24 /dev/zero
    printf '\001\002\003\004\005\006\0\0'
} >"$T/s.bmp"
"$TILEDCL" convert - "$T/s.ppm" <"$T/s.bmp" 2>"$T/.err"
expect_eq "$(od -An -tu1 "$T/s.ppm" | tr -s ' \n' ' ')" "$(printf 'P6\n2 1\n255\n\003\002\001\006\005\004' | od -An -tu1 | tr -s ' \n' ' ')" "a BMP on stdin becomes a PPM, RGB"

# stdin by content, as life reads it: a pattern, an image, a matrix
"$TILEDCL" convert - "$T/in.cells" <"$TDCL_DATA/glider.rle" 2>"$T/.err"
expect_eq "$(grep -v '^!' "$T/in.cells" 2>/dev/null | tr '\n' ' ')" ".O. ..O OOO " "an RLE on stdin becomes .cells"
"$TILEDCL" convert - - <"$TDCL_DATA/glider.rle" >"$T/g2.mtx" 2>"$T/.err"
expect_eq "$(tail -n +4 "$T/g2.mtx" | tr '\n' ' ')" "0 0 1 1 0 1 0 1 1 " "an RLE on stdin becomes a 0/1 matrix"
"$TILEDCL" convert - - <"$T/s.pgm" >"$T/in.mtx" 2>"$T/.err"
expect_eq "$(tail -n +4 "$T/in.mtx" | tr '\n' ' ')" "$(tail -n +4 "$T/s.mtx" | tr '\n' ' ')" "a PGM on stdin becomes a matrix"
ERR=$(printf 'hello\n' | "$TILEDCL" convert - "$T/x.npy" 2>&1)
expect_contains "$ERR" "tiledcl: <stdin>:1: expected" "stdin is named in messages, not its temporary copy"

# control bytes in a file name reach the terminal escaped, as in contents
run convert "$T/$(printf 'x\033[31mRED\a')".mtx -
expect_contains "$ERR" "x\\x1b[31mRED\\x07.mtx': No such file or directory" "a name's ESC and BEL are shown as \\xNN"
case "$ERR" in *"$(printf '\033')"* | *"$(printf '\a')"*) not_ok "no raw control byte on stderr" ;; *) ok "no raw control byte on stderr" ;; esac
run convert - "$(printf 'o\033')"
expect_contains "$ERR" "cannot tell the format of 'o\\x1b'" "a usage error's name is escaped too"

# scipy's sparse .npz: kept sparse both ways, made dense only for .npy
run -v convert "$T/a.mtx" "$T/a.npz"
expect_rc 0 "coordinate .mtx to .npz exits 0"
expect_contains "$ERR" "as a sparse 3x3 float64 matrix, 6 entries (CSR)" "-v says the input stayed sparse"
run convert "$T/a.npz" -
expect_eq "$OUT" "$WANT_SP" ".npz back to Matrix Market: coordinate general, mirrored, sorted"
run convert "$T/a.npz" "$T/anpz.npy"
run convert "$T/a.mtx" "$T/amtx.npy"
expect_same_file "$T/anpz.npy" "$T/amtx.npy" ".npz to .npy equals the dense path's .npy"
if python3 -c 'import scipy.sparse' 2>/dev/null; then
    GOT=$(python3 -c 'import sys, scipy.sparse as sp, numpy as np
a = sp.load_npz(sys.argv[1]).toarray()
print(a.shape, a.dtype, a[0, 1], a[1, 2], a.sum() == 0.1 - 5 + 2e-300 + 7)' "$T/a.npz")
    expect_eq "$GOT" "(3, 3) float64 -2.5 1e-300 True" "scipy.sparse.load_npz reads our .npz"
else
    skip_ok "scipy.sparse.load_npz reads our .npz" "no scipy"
fi

# image writers' options: the JPEG's quantisation table is libjpeg's
# standard one scaled for the quality (DC 16 -> 27 at 30, 2 at 95), and
# the TIFF's compression tag (259) says what was asked; both lossless
# TIFFs read back as the uncompressed one
python3 -c 'import sys
px = bytes(v for i in range(128) for v in (i * 2, 255 - i, i % 16 * 16))
open(sys.argv[1], "wb").write(b"P6\n16 8\n255\n" + px)' "$T/wo.ppm"
cat >"$T/wo.py" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
if b[:2] == b'\xff\xd8':
    i = b.index(b'\xff\xdb')
    print(b[i + 5])
else:
    e = '<' if b[:2] == b'II' else '>'
    off = struct.unpack(e + 'I', b[4:8])[0]
    n = struct.unpack(e + 'H', b[off:off + 2])[0]
    for k in range(n):
        tag, typ, cnt, val = struct.unpack(e + 'HHI4s', b[off + 2 + 12 * k:off + 14 + 12 * k])
        if tag == 259:
            print(struct.unpack(e + 'H', val[:2])[0])
EOF
for q in 30:27 95:2; do
    run convert --quality "${q%:*}" "$T/wo.ppm" "$T/wo${q%:*}.jpg"
    expect_eq "$(python3 "$T/wo.py" "$T/wo${q%:*}.jpg")" "${q#*:}" "--quality ${q%:*}: the JPEG's DC quantiser is ${q#*:}"
done
for c in none:1 lzw:5 deflate:8; do
    run convert --compress "${c%:*}" "$T/wo.ppm" "$T/wo_${c%:*}.tif"
    expect_eq "$(python3 "$T/wo.py" "$T/wo_${c%:*}.tif")" "${c#*:}" "--compress ${c%:*}: TIFF compression tag ${c#*:}"
    run convert "$T/wo_${c%:*}.tif" "$T/wo_${c%:*}.ppm"
    expect_same_file "$T/wo_${c%:*}.ppm" "$T/wo.ppm" "--compress ${c%:*}: the TIFF reads back as written"
done
run convert --quality 50 "$T/wo.ppm" "$T/wo.png"
expect_rc 2 "--quality to a PNG: a usage error"
expect_contains "$ERR" "--quality is for JPEG outputs (.jpg, .jpeg), not" "--quality to a PNG: says which outputs take it"
run convert --compress zip "$T/wo.ppm" "$T/wo.tif"
expect_contains "$ERR" "expected --compress none, deflate or lzw, got 'zip'" "--compress zip: names the choices"

done_testing
