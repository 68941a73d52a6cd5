#!/usr/bin/env bash
# TAP: QEMU's checkpatch.pl reports no error on the device code.
set -u
src=$1 root=$2
cd "$root" || exit 1
mapfile -t files < <(find hw/snic -name "*.[ch]" ! -name trace.h | sort)
echo "1..${#files[@]}"
n=0
for f in "${files[@]}"; do
    n=$((n + 1))
    out=$(perl "$src/scripts/checkpatch.pl" --no-tree -f "$f" 2>&1)
    if grep -q '^ERROR' <<<"$out"; then
        echo "not ok $n - checkpatch $f"
        sed 's/^/# /' <<<"$out"
    else
        echo "ok $n - checkpatch $f"
    fi
done
