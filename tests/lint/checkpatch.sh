#!/usr/bin/env bash
# TAP: QEMU's checkpatch.pl reports no error on the device code.
set -u
src=$1 root=$2
cd "$root" || exit 1
files=(hw/snic/*.c hw/snic/core/*.c)
echo "1..${#files[@]}"
n=0
for f in "${files[@]}"; do
    n=$((n + 1))
    out=$(perl "$src/scripts/checkpatch.pl" --no-tree -f "$f" 2>&1)
    if grep -q '^ERROR' <<<"$out"; then
        echo "not ok $n - checkpatch $f"
        # shellcheck disable=SC2001  # prefixes every line, not only the first
        sed 's/^/# /' <<<"$out"
    else
        echo "ok $n - checkpatch $f"
    fi
done
