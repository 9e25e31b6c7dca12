#!/usr/bin/env bash
# Checks that the C sources follow the checked-in .clang-format: every
# tracked .c and .h file (the OpenCL kernels are left alone), through
# clang-format --dry-run --Werror, which names each file and line that
# would change. Skips (exit 0) without clang-format or outside a git
# checkout; exits 1 when a file drifts.
#   tests/check_format.sh [CLANG_FORMAT]
set -u
cf=${1:-${CLANG_FORMAT:-clang-format}}
cd "$(dirname "$0")/.." || exit 1
if ! command -v "$cf" >/dev/null 2>&1; then
    echo "check_format: no $cf; skipped"
    exit 0
fi
if ! git rev-parse --git-dir >/dev/null 2>&1; then
    echo "check_format: not a git checkout; skipped"
    exit 0
fi
bad=0
n=0
while IFS= read -r -d '' f; do
    n=$((n + 1))
    "$cf" --style=file --dry-run --Werror "$f" || bad=1
done < <(git ls-files -z -- '*.c' '*.h')
[ "$bad" -eq 0 ] && echo "check_format: $n files: ok"
exit "$bad"
