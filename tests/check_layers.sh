#!/usr/bin/env bash
# The layer rules of src/ (docs/ARCHITECTURE.md), checked over the source
# text; TAP. Usage: check_layers.sh [SRC_DIR] (default: ../src beside this
# script). Each broken rule prints the file, the line and the include or call.
#
#   layer      may include
#   base       base
#   io         base              (io and runtime are peers)
#   runtime    base
#   ops/<op>   base, runtime, another ops/<op> if no cycle (not io: jobs
#              alone joins files and operations)
#   dist       base, io, runtime, ops      (.npy by offset is a transport)
#   tune       base, runtime, ops
#   jobs       base, io, runtime, ops, dist (tune and jobs are peers)
#   bench      base, io, runtime, ops, dist, jobs (its drivers over sets and
#              ranks run the jobs' transports)
#   cli        all
#
# Besides includes: ops never open a file, io never touches OpenCL, bench
# never starts a process, and every include of the library is written by
# layer path ("ops/life/life.h").
set -u
src=${1:-$(cd "$(dirname "$0")/../src" && pwd)}
cd "$src" || { echo "1..0 # SKIP no source directory '$src'"; exit 0; }

declare -A may=(
    [base]="base"
    [io]="base io"
    [runtime]="base runtime"
    [ops]="base runtime ops"
    [dist]="base io runtime ops dist"
    [tune]="base runtime ops tune"
    [jobs]="base io runtime ops dist jobs"
    [bench]="base io runtime ops dist jobs bench"
    [cli]="base io runtime ops dist tune jobs bench cli"
)

n=0
failed=0
report() { # DESC LINES...: one TAP line, the offending lines as comments
    local desc=$1
    shift
    n=$((n + 1))
    if [ $# -eq 0 ]; then
        echo "ok $n - $desc"
    else
        failed=$((failed + 1))
        echo "not ok $n - $desc"
        printf '# %s\n' "$@"
    fi
}

# The code of each file without comments or string literals, "FILE:LINE:TEXT"
# per line, so that a comment saying "open(" or a message naming cl* is no call.
code_lines() {
    awk '
    FNR == 1 { inc = 0 }
    {
        line = $0; out = ""
        while (length(line) > 0) {
            if (inc) {
                e = index(line, "*/")
                if (e == 0) { line = ""; break }
                line = substr(line, e + 2); inc = 0; continue
            }
            s = index(line, "/*"); d = index(line, "//"); q = index(line, "\"")
            first = 0
            if (s && (!first || s < first)) first = s
            if (d && (!first || d < first)) first = d
            if (q && (!first || q < first)) first = q
            if (!first) { out = out line; break }
            out = out substr(line, 1, first - 1)
            if (first == d) break
            if (first == s) { line = substr(line, s + 2); inc = 1; continue }
            # a string literal: skip to its closing quote
            rest = substr(line, q + 1)
            while (match(rest, /^([^"\\]|\\.)*"/)) { rest = substr(rest, RLENGTH + 1); break }
            out = out "\"\""; line = rest
        }
        print FILENAME ":" FNR ":" out
    }' "$@"
}

# original WHY: for each "FILE:LINE:..." on stdin, "src/FILE:LINE: TEXT   WHY"
# with TEXT as written (code_lines blanks strings and comments).
original() {
    local hit f l
    while IFS= read -r hit; do
        f=${hit%%:*}
        l=${hit#*:}
        l=${l%%:*}
        echo "src/$f:$l: $(sed -n "${l}{s/^[[:space:]]*//;p}" "$f")   $1"
    done
}

mapfile -t files < <(find base io runtime ops dist tune jobs bench cli -type f \
    \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) 2>/dev/null | sort)
if [ ${#files[@]} -eq 0 ]; then
    echo "1..0 # SKIP no sources under '$src'"
    exit 0
fi

# layer_of PATH: the layer of a file or include path (ops/<op> for ops).
layer_of() {
    case "$1" in
    ops/*/*) local r=${1#ops/}; echo "ops/${r%%/*}" ;;
    */*) echo "${1%%/*}" ;;
    *) echo "" ;;
    esac
}

bad_includes=()
bad_paths=()
edges=() # "ops/a ops/b" for ops folders including each other
for f in "${files[@]}"; do
    from=$(layer_of "$f")
    while IFS= read -r hit; do
        lineno=${hit%%:*}
        inc=${hit#*:}
        inc=${inc#*\"}
        inc=${inc%%\"*}
        to=$(layer_of "$inc")
        if [ -z "$to" ] || [ -z "${may[${to%%/*}]+x}" ]; then
            bad_paths+=("src/$f:$lineno: #include \"$inc\" is not by layer path (base/, io/, runtime/, ops/OP/, dist/, tune/, jobs/, bench/, cli/)")
            continue
        fi
        case " ${may[${from%%/*}]} " in
        *" ${to%%/*} "*) ;;
        *)
            bad_includes+=("src/$f:$lineno: ${from%%/*} may not include ${to%%/*}: #include \"$inc\" (${from%%/*} includes only: ${may[${from%%/*}]})")
            continue
            ;;
        esac
        if [ "${from%%/*}" = ops ] && [ "$to" != "$from" ] && [ "${to%%/*}" = ops ]; then
            edges+=("$from $to src/$f:$lineno")
        fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f")
done

report "includes are written by layer path" "${bad_paths[@]}"
report "each layer includes only the layers below it (base < io, runtime; runtime < ops < dist < jobs < bench; io < dist; ops < tune; all < cli)" \
    "${bad_includes[@]}"

# Cycles among ops/<op> folders: a depth-first search over the include edges.
declare -A adj=()
for e in "${edges[@]}"; do
    read -r a b _ <<<"$e"
    adj[$a]="${adj[$a]:-} $b"
done
cycles=()
declare -A state=()
dfs() { # NODE PATH
    local u=$1 path=$2 v
    state[$u]=1
    for v in ${adj[$u]:-}; do
        if [ "${state[$v]:-0}" = 1 ]; then
            cycles+=("cycle:${path#*:} -> $v")
        elif [ "${state[$v]:-0}" = 0 ]; then
            dfs "$v" "$path -> $v"
        fi
    done
    state[$u]=2
}
for u in "${!adj[@]}"; do
    [ "${state[$u]:-0}" = 0 ] && dfs "$u" ": $u"
done
# each cycle, then the includes that make up the ops graph
[ ${#cycles[@]} -gt 0 ] && for e in "${edges[@]}"; do
    read -r a b where <<<"$e"
    cycles+=("  $where: $a includes $b")
done
report "no include cycle among the ops/ folders" "${cycles[@]}"

# ops work on buffers and host matrices: opening a file is jobs' (or io's) work.
mapfile -t opens < <(find ops -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) | sort |
    { mapfile -t of; [ ${#of[@]} -gt 0 ] && code_lines "${of[@]}"; } |
    grep -E '(^|[^A-Za-z0-9_])(fopen|freopen|fdopen|open|openat|creat|mmap|opendir|tdcl_out_open|tdcl_read_file|tdcl_src_open|tdcl_life_gif_open|tdcl_(matrix|mtx|image|life)_(read|write)[a-z_]*)[[:space:]]*\(' |
    original "(ops never open a file)")
report "ops never open a file" "${opens[@]}"

# io is files and formats: no OpenCL header, type or call.
mapfile -t cl < <(find io -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) | sort |
    { mapfile -t iof; [ ${#iof[@]} -gt 0 ] && code_lines "${iof[@]}"; } |
    grep -E '#[[:space:]]*include[[:space:]]*<CL/|(^|[^A-Za-z0-9_])(cl[A-Z][A-Za-z0-9]*[[:space:]]*\(|cl_[a-z_0-9]+)' |
    original "(io never touches OpenCL)")
report "io never touches OpenCL" "${cl[@]}"

# bench measures inside this process: starting commands as children
# (bench e2e) is the CLI's, like every process the library's caller owns.
mapfile -t spawns < <(find bench -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) | sort |
    { mapfile -t bf; [ ${#bf[@]} -gt 0 ] && code_lines "${bf[@]}"; } |
    grep -E '(^|[^A-Za-z0-9_])(fork|vfork|clone|posix_spawnp?|exec[lv]p?e?|system|popen)[[:space:]]*\(' |
    original "(bench never starts a process)")
report "bench never starts a process" "${spawns[@]}"

echo "1..$n"
[ "$failed" -eq 0 ]
