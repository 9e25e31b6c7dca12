#!/bin/bash
# Loading only the OpenCL driver the device choice needs (runtime/icdmap.c):
# a vendors directory with this machine's drivers and one that does not
# load stands in for a machine with two drivers.
. "$(dirname "$0")/lib.sh"
need_device

V="$T/vendors"
mkdir -p "$V"
real=$(ls /etc/OpenCL/vendors/*.icd 2>/dev/null | head -n 1)
if [ -z "$real" ]; then
    echo "1..0 # SKIP no driver registered under /etc/OpenCL/vendors"
    exit 0
fi
cp /etc/OpenCL/vendors/*.icd "$V/"
echo "libtiledcl-no-such-driver.so.1" >"$V/zz-missing.icd"
export OPENCL_VENDOR_PATH="$V" XDG_CACHE_HOME="$T/cache"
unset OCL_ICD_VENDORS OCL_ICD_FILENAMES
MAP="$T/cache/tiledcl/icd-map"
python3 - "$T" <<'EOF'
import sys, struct
# a 3x2 and a 2x3 float32 .npy of small integers: the product is exact
def npy(path, rows, cols, vals):
    head = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    head += " " * (63 - len(head) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode())
        f.write(struct.pack("<%df" % len(vals), *vals))
npy(sys.argv[1] + "/a.npy", 3, 2, [1, 2, 3, 4, 5, 6])
npy(sys.argv[1] + "/b.npy", 2, 3, [7, 8, 9, 10, 11, 12])
EOF

run -v matmul "$T/a.npy" "$T/b.npy" -o "$T/c1.mtx"
expect_rc 0 "first run: every driver loaded"
case "$ERR" in *"loading only"*) not_ok "first run loads every driver" "$ERR" ;; *) ok "first run loads every driver" ;; esac
if [ -s "$MAP" ]; then ok "the driver map is written"; else not_ok "the driver map is written" "$(ls -R "$T/cache")"; fi
expect_contains "$(cat "$MAP" 2>/dev/null)" "$(basename "$real")" "the map names the driver's .icd"

run -v matmul "$T/a.npy" "$T/b.npy" -o "$T/c2.mtx"
expect_rc 0 "second run"
expect_contains "$ERR" "loading only the OpenCL driver of $(basename "$real")" "second run loads only the device's driver"
expect_same_file "$T/c1.mtx" "$T/c2.mtx" "same product either way"
expect_eq "$(grep -v '^%' "$T/c2.mtx" | tail -n +2 | tr -s ' \n' ' ' | sed 's/ $//')" "27 61 95 30 68 106 33 75 117" "the product is right (column-major array)"

run -v --device 0:0 matmul "$T/a.npy" "$T/b.npy" -o "$T/c3.mtx"
case "$ERR" in *"loading only"*) not_ok "a P:D choice loads every driver" "$ERR" ;; *) ok "a P:D choice loads every driver" ;; esac

OCL_ICD_DEBUG=0 run -v matmul "$T/a.npy" "$T/b.npy" -o "$T/c4.mtx"
case "$ERR" in *"loading only"*) not_ok "a changed environment loads every driver" "$ERR" ;; *) ok "a changed environment loads every driver" ;; esac

OCL_ICD_VENDORS="$V" run -v matmul "$T/a.npy" "$T/b.npy" -o "$T/c5.mtx"
case "$ERR" in *"loading only"*) not_ok "the user's OCL_ICD_VENDORS is left alone" "$ERR" ;; *) ok "the user's OCL_ICD_VENDORS is left alone" ;; esac

# the map promises a device the narrowed listing lacks: a clear failure,
# the map goes, and the next run loads everything and works (the map
# holds one environment's listing: the first run relearns this one)
run matmul "$T/a.npy" "$T/b.npy" -o "$T/c6.mtx"
run -v matmul "$T/a.npy" "$T/b.npy" -o "$T/c6.mtx"
expect_contains "$ERR" "loading only" "narrowed again"
sed -i '2s/\t[^\t]*\t/\tVanished Device\t/' "$MAP"
echo "old" >"$T/c7.mtx"
run matmul "$T/a.npy" "$T/b.npy" -o "$T/c7.mtx"
expect_rc 3 "a stale map: no device (exit 3)"
expect_contains "$ERR" "drivers changed" "a stale map says the drivers changed"
expect_eq "$(cat "$T/c7.mtx")" "old" "a stale map leaves the output alone"
if [ -e "$MAP" ]; then not_ok "a stale map is removed"; else ok "a stale map is removed"; fi
run -v matmul "$T/a.npy" "$T/b.npy" -o "$T/c8.mtx"
expect_rc 0 "the run after a stale map works"
expect_same_file "$T/c1.mtx" "$T/c8.mtx" "and gives the same product"

done_testing
