# Installed like a Unix tool: `meson install --destdir` stages the binary,
# the kernels, the man page and the completions; the staged tree, moved
# elsewhere, still finds its kernels relative to the executable and
# multiplies correctly.
. "$(dirname "$0")/lib.sh"

export XDG_CACHE_HOME="$T/cache"
run devices
if [ "$RC" -ne 0 ]; then
    echo "1..0 # SKIP no OpenCL device"
    exit 0
fi
if ! command -v meson >/dev/null; then
    echo "1..0 # SKIP meson not on PATH"
    exit 0
fi
B=${TDCL_BUILD_ROOT:?run through meson test}
prefix=$(meson introspect "$B" --buildoptions | python3 -c \
    'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')

meson install -C "$B" --no-rebuild --quiet --destdir "$T/stage" >"$T/.out" 2>&1
RC=$?
ERR=$(cat "$T/.out")
expect_rc 0 "meson install --destdir stages the install"
root="$T/stage$prefix"
for f in bin/tiledcl share/tiledcl/matmul/gemm.cl share/tiledcl/life/prelude.cl share/man/man1/tiledcl.1 \
    share/bash-completion/completions/tiledcl share/zsh/site-functions/_tiledcl; do
    [ -e "$root/$f" ] && ok "installed: $f" || not_ok "installed: $f" "$(cd "$T/stage" && find . | head -40)"
done

# moved: nothing of the build tree or the prefix is needed any more
mv "$root" "$T/moved"
unset TILEDCL_KERNEL_PATH
out=$(cd / && "$T/moved/bin/tiledcl" devices 2>&1)
expect_contains "$out" "0:0" "the moved binary lists devices"
"$T/moved/bin/tiledcl" -v matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" -o "$T/c.mtx" 2>"$T/.err"
RC=$? ERR=$(cat "$T/.err")
expect_rc 0 "the moved binary multiplies"
expect_contains "$ERR" "kernel matmul/prelude.cl" "it found and built its kernel"
# an independent reference: the product computed by the host in --verify
"$T/moved/bin/tiledcl" matmul "$TDCL_DATA/a.mtx" "$TDCL_DATA/b.mtx" --verify -o "$T/v.mtx" 2>"$T/.err"
RC=$? ERR=$(cat "$T/.err")
expect_rc 0 "the moved binary's product passes --verify"
expect_eq "$(head -c 200 "$T/c.mtx" | wc -c)" "200" "the product is not empty"
expect_eq "$(md5sum <"$T/c.mtx")" "$(md5sum <"$T/v.mtx")" "the same product twice"
# the kernels come from the moved tree: a kernel path pointing elsewhere is not used
case "$(ls "$T/moved/share/tiledcl/matmul")" in *gemm.cl*) ok "kernels live in the moved tree" ;; *) not_ok "kernels live in the moved tree" ;; esac

# the man page renders, one section per command
if command -v man >/dev/null; then
    page=$(MANWIDTH=80 man -l "$T/moved/share/man/man1/tiledcl.1" 2>/dev/null)
    for c in matmul tile-avg tile-map life convert devices bench tune; do
        case "$page" in
        # a minimized system's man is a stub that renders nothing
        *"has been minimized"*) skip_ok "man page: a section for $c" "man is a minimized system's stub" ;;
        *) expect_contains "$page" "tiledcl $c" "man page: a section for $c" ;;
        esac
    done
fi
# the bash completion offers the commands and the device specs
if command -v bash >/dev/null; then
    words=$(bash -c '. "$1"; COMP_WORDS=(tiledcl ma); COMP_CWORD=1; _tiledcl; echo "${COMPREPLY[*]}"' _ \
        "$T/moved/share/bash-completion/completions/tiledcl")
    expect_eq "$words" "matmul" "bash completion: 'ma' completes to matmul"
    words=$(PATH="$T/moved/bin:$PATH" bash -c '. "$1"; COMP_WORDS=("$2" --device ""); COMP_CWORD=2; _tiledcl; echo "${COMPREPLY[*]}"' _ \
        "$T/moved/share/bash-completion/completions/tiledcl" "$T/moved/bin/tiledcl")
    expect_contains "$words" "0:0" "bash completion: --device offers 0:0"
    expect_contains "$words" "pocl" "bash completion: --device offers pocl"
fi
done_testing
