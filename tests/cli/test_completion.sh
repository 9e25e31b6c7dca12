# The shell completions in doc/ against the program itself: the bash one
# (doc/tiledcl.bash) called as bash calls it, the zsh one (doc/_tiledcl)
# driven by a real `zsh -f` in a pseudo-terminal (zsh_complete.zsh). Each
# must offer exactly the commands of `tiledcl --help`'s table, every long
# option that each command's --help lists (and only those and the global
# ones), the operations of bench, the device specs of `tiledcl devices`
# and the values of --boundary. zsh is optional: its checks skip without it.
. "$(dirname "$0")/lib.sh"

DOC=$(dirname "$TDCL_DATA")/doc
ZSH_DRIVER=$(dirname "$0")/zsh_complete.zsh
PATH=$(dirname "$TILEDCL"):$PATH
export PATH
COMMANDS="matmul tile-avg tile-map life convert devices bench tune"

# sorted, one a line
lines() { tr ' ' '\n' | sed '/^$/d' | sort -u; }
# the commands of `tiledcl --help`'s table
help_commands() { "$TILEDCL" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 {print $1}' | sort -u; }
# the long options that `tiledcl ARGS --help` lists at the start of a line
help_options() {
    "$TILEDCL" "$@" --help 2>&1 | grep -oE '^ {2,}(-[a-zA-Z], )?--[a-z0-9-]+' |
        grep -oE -- '--[a-z0-9-]+' | sort -u
}
GLOBALS=$(help_options)

# check_options SHELL CMD OFFERED HELP: OFFERED (long options only) holds
# every one of HELP and nothing beyond HELP and the global options
check_options() {
    _long=$(printf '%s\n' "$3" | grep -- '^--' | sort -u)
    _missing=$(comm -23 <(printf '%s\n' "$4") <(printf '%s\n' "$_long"))
    _extra=$(comm -13 <(printf '%s\n%s\n' "$4" "$GLOBALS" | sort -u) <(printf '%s\n' "$_long"))
    if [ -z "$_missing" ] && [ -z "$_extra" ] && [ -n "$_long" ]; then
        ok "$1: '$2 --' offers the options of its --help"
    else
        not_ok "$1: '$2 --' offers the options of its --help" "missing: $(echo $_missing)" \
            "not in --help: $(echo $_extra)"
    fi
}

expect_eq "$(help_commands | tr '\n' ' ')" "$(echo $COMMANDS | lines | tr '\n' ' ')" \
    "the --help command table is the one this test knows"
DEVICE_SPEC=$("$TILEDCL" devices 2>/dev/null | sed -n 's/^ *[* ] \([0-9][0-9]*:[0-9][0-9]*\) .*/\1/p' | head -n 1)

# ---- bash: _tiledcl with COMP_WORDS set as bash sets them ------------------
bash_complete() {
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _tiledcl
        printf "%s\n" "${COMPREPLY[@]}"' _ "$DOC/tiledcl.bash" "$@" | sort -u
}
expect_eq "$(bash_complete tiledcl '' | grep -v '^-' | tr '\n' ' ')" "$(help_commands | tr '\n' ' ')" \
    "bash: the commands are those of --help"
expect_eq "$(bash_complete tiledcl help '' | tr '\n' ' ')" "$(help_commands | tr '\n' ' ')" \
    "bash: 'help' offers the commands"
for c in $COMMANDS; do
    check_options bash "$c" "$(bash_complete tiledcl "$c" --)" "$(help_options "$c")"
done
check_options bash "bench e2e" "$(bash_complete tiledcl bench e2e --)" "$(help_options bench e2e)"
check_options bash "bench spgemm" "$(bash_complete tiledcl bench spgemm --)" "$(help_options bench spgemm)"
expect_eq "$(bash_complete tiledcl bench '' | tr '\n' ' ')" "$(echo copy matmul tile-avg life all e2e io spgemm spmm | lines | tr '\n' ' ')" \
    "bash: bench offers its operations"
expect_eq "$(bash_complete tiledcl life --boundary '' | tr '\n' ' ')" "$(echo dead torus clamp klein cross sphere | lines | tr '\n' ' ')" \
    "bash: --boundary offers the named boundaries"
for c in "life" "bench life"; do
    # shellcheck disable=SC2086
    expect_eq "$(bash_complete tiledcl $c --sparse '' | tr '\n' ' ')" "auto off on " "bash: $c --sparse offers its modes, not files"
done
rules=$(bash_complete tiledcl life --rule '')
bad=""
# a rule life refuses is a usage error (2), found before the device (here
# none: 3) is needed
for r in $rules; do
    "$TILEDCL" --device no-such-device life --rule "$r" --gens 0 -o "$T/r.rle" >/dev/null 2>&1
    [ $? -eq 2 ] && bad="$bad $r"
done
if [ -n "$rules" ] && [ -z "$bad" ] && ! printf '%s\n' "$rules" | grep -qx 'tiledcl.bash'; then
    ok "bash: life --rule offers rules life takes ($(echo $rules | wc -w)), not files"
else
    not_ok "bash: life --rule offers rules life takes, not files" "refused:$bad" "offered: $(echo $rules)"
fi
dups=$(bash -c '. "$1"; COMP_WORDS=(tiledcl matmul -); COMP_CWORD=2; _tiledcl
    printf "%s\n" "${COMPREPLY[@]}"' _ "$DOC/tiledcl.bash" | sort | uniq -d)
expect_eq "${dups:-none}" "none" "bash: 'matmul -' offers each option once"
devs=$(bash_complete "$TILEDCL" --device '')
expect_contains "$devs" "pocl" "bash: --device offers pocl"
expect_contains "$devs" "gpu" "bash: --device offers gpu"
if [ -n "$DEVICE_SPEC" ]; then
    expect_contains "$devs" "$DEVICE_SPEC" "bash: --device offers $DEVICE_SPEC from 'tiledcl devices'"
else
    ok "# SKIP no OpenCL device: no P:D spec to offer"
fi

# ---- zsh: the completion system itself, in a pseudo-terminal --------------
if ! command -v zsh >/dev/null || ! zsh -f -c 'zmodload zsh/zpty' 2>/dev/null; then
    ok "# SKIP no zsh with zsh/zpty: the zsh completion is not tried"
    done_testing
    exit
fi
zsh_complete() { zsh -f "$ZSH_DRIVER" "$DOC" "$1"; }
if zsh -f -n "$DOC/_tiledcl" 2>"$T/zsh.err"; then
    ok "zsh: doc/_tiledcl parses"
else
    not_ok "zsh: doc/_tiledcl parses" "$(cat "$T/zsh.err")"
fi
expect_eq "$(zsh_complete 'tiledcl ' | grep -v '^-' | tr '\n' ' ')" "$(help_commands | tr '\n' ' ')" \
    "zsh: the commands are those of --help"
expect_eq "$(zsh_complete 'tiledcl ma' | tr '\n' ' ')" "matmul " "zsh: 'ma' completes to matmul"
for c in $COMMANDS; do
    check_options zsh "$c" "$(zsh_complete "tiledcl $c --")" "$(help_options "$c")"
done
check_options zsh "bench e2e" "$(zsh_complete 'tiledcl bench e2e --')" "$(help_options bench e2e)"
check_options zsh "bench spgemm" "$(zsh_complete 'tiledcl bench spgemm --')" "$(help_options bench spgemm)"
expect_eq "$(zsh_complete 'tiledcl bench ' | grep -v '^-' | tr '\n' ' ')" "$(echo copy matmul tile-avg life all e2e io spgemm spmm | lines | tr '\n' ' ')" \
    "zsh: bench offers its operations"
expect_eq "$(zsh_complete 'tiledcl life --boundary ' | tr '\n' ' ')" "$(echo dead torus clamp klein cross sphere | lines | tr '\n' ' ')" \
    "zsh: --boundary offers the named boundaries"
devs=$(zsh_complete 'tiledcl --device ')
expect_contains "$devs" "pocl" "zsh: --device offers pocl"
expect_contains "$devs" "accelerator" "zsh: --device offers accelerator"
if [ -n "$DEVICE_SPEC" ]; then
    # the spec whole: _describe would split an unescaped P:D at its colon
    expect_eq "$(printf '%s\n' "$devs" | grep -cx "$DEVICE_SPEC")" "1" \
        "zsh: --device offers $DEVICE_SPEC whole, from 'tiledcl devices'"
else
    ok "# SKIP no OpenCL device: no P:D spec to offer"
fi
expect_eq "$(zsh_complete 'tiledcl --dev')" "--device" "zsh: a global option before the command"

done_testing
