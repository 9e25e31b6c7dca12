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
# one clang-format process for every file: starting one a file took most
# of the check's time
mapfile -d '' files < <(git ls-files -z -- '*.c' '*.h')
if "$cf" --style=file --dry-run --Werror "${files[@]}"; then
    echo "check_format: ${#files[@]} files: ok"
    exit 0
fi
exit 1
