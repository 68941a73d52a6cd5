#!/usr/bin/env bash
# TAP: shellcheck reports nothing on the repository's shell scripts (every
# tracked *.sh, scripts/guest/init, the interactive guest's snic-reload and
# bashrc, and .ci/run), one test per script. It runs
# from the top of the tree so that `# shellcheck source=` paths resolve.
set -u
root=$1
cd "$root" || exit 1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files -- '*.sh' scripts/guest/init scripts/guest-dev/snic-reload scripts/guest-dev/bashrc .ci/run | LC_ALL=C sort -u)
else
    mapfile -t files < <({ find scripts tests -name '*.sh'; printf '%s\n' scripts/guest/init scripts/guest-dev/snic-reload scripts/guest-dev/bashrc .ci/run; } |
                         LC_ALL=C sort -u)
fi
if ! command -v shellcheck >/dev/null; then
    echo "1..1"
    echo "not ok 1 - shellcheck is not installed: run scripts/setup-deps.sh (as root)"
    exit 0
fi
echo "1..${#files[@]}"
n=0
for f in "${files[@]}"; do
    n=$((n + 1))
    if out=$(shellcheck -x "$f" 2>&1); then
        echo "ok $n - shellcheck $f"
    else
        echo "not ok $n - shellcheck $f"
        # shellcheck disable=SC2001  # prefixes every line, not only the first
        sed 's/^/# /' <<<"$out"
    fi
done
