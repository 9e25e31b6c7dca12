#!/usr/bin/env bash
# Checks the commits after BASE (default: the first commit this rule holds
# for) on HEAD: a subject of the form "area: summary" of at most 72
# characters, and a body (what was wrong, why this change, what was
# measured). Merge commits are left out. Prints one line per offence and
# exits 1 when there is any; skips (exit 0) without git, outside a git
# checkout or when BASE is not in the history (a tarball, a shallow clone).
#   tests/check_commits.sh [BASE]
set -u
base=${1:-e5a961f770e9ec2af822942015fefb9c0f3cfddf}
cd "$(dirname "$0")/.." || exit 1
if ! command -v git >/dev/null 2>&1 || ! git rev-parse --git-dir >/dev/null 2>&1; then
    echo "check_commits: not a git checkout; skipped"
    exit 0
fi
if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
    echo "check_commits: $base is not in this history; skipped"
    exit 0
fi
export LC_ALL=C.UTF-8 # ${#s} counts characters, not bytes
area='[A-Za-z0-9][A-Za-z0-9_./+-]*'
bad=0
n=0
for c in $(git rev-list --no-merges "$base..HEAD"); do
    n=$((n + 1))
    subject=$(git log -1 --format=%s "$c")
    body=$(git log -1 --format=%b "$c")
    short=$(git rev-parse --short "$c")
    if ! [[ $subject =~ ^$area(,\ $area)*:\ [^[:space:]] ]]; then
        echo "$short: subject is not 'area: summary': $subject"
        bad=1
    fi
    if [ "${#subject}" -gt 72 ]; then
        echo "$short: subject has ${#subject} characters (at most 72): $subject"
        bad=1
    fi
    if ! [[ $body =~ [^[:space:]] ]]; then
        echo "$short: no body (say what was wrong, why this change, what was measured): $subject"
        bad=1
    fi
done
[ "$bad" -eq 0 ] && echo "check_commits: $n commits after ${base:0:12}: ok"
exit "$bad"
