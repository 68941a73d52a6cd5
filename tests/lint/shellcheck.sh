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
# One shellcheck per script, as many at once as there are CPUs (-x follows every sourced
# file, so the suite's largest lint otherwise takes minutes on a busy 2-core host);
# reported in order.
out_dir=$(mktemp -d)
trap 'rm -rf "$out_dir"' EXIT
# shellcheck disable=SC2016  # expanded by the shell xargs starts
one='shellcheck -x "$2" > "$0/$1.out" 2>&1; echo $? > "$0/$1.rc"'
for i in "${!files[@]}"; do
    printf '%s\0%s\0' "$i" "${files[$i]}"
done | xargs -0 -n 2 -P "$(nproc)" sh -c "$one" "$out_dir"
for i in "${!files[@]}"; do
    n=$((i + 1))
    if [ "$(cat "$out_dir/$i.rc" 2>/dev/null)" = 0 ]; then
        echo "ok $n - shellcheck ${files[$i]}"
    else
        echo "not ok $n - shellcheck ${files[$i]}"
        sed 's/^/# /' "$out_dir/$i.out"
    fi
done
