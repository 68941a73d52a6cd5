#!/usr/bin/env bash
# TAP: QEMU's checkpatch.pl reports no error on the device code, nor on the
# qtests and their libqos files, which are checked at their path in the QEMU
# tree (tests/qtest/..., where checkpatch allows g_assert) through the
# symlinks scripts/build-qemu.sh puts there.
set -u
src=$1 root=$2
cd "$root" || exit 1
mapfile -t files < <(find hw/snic -name "*.[ch]" ! -name trace.h | sort)
tests=()
for f in qtest/*.[ch] qtest/libqos/*.[ch]; do
    tests+=("tests/qtest/${f#qtest/}")
done
echo "1..$(( ${#files[@]} + ${#tests[@]} ))"
n=0
check() {   # check DIR FILE: checkpatch FILE from DIR
    local out
    n=$((n + 1))
    out=$(cd "$1" && perl "$src/scripts/checkpatch.pl" --no-tree -f "$2" 2>&1)
    if grep -q '^ERROR' <<<"$out"; then
        echo "not ok $n - checkpatch $2"
        # shellcheck disable=SC2001  # prefixes every line, not only the first
        sed 's/^/# /' <<<"$out"
    else
        echo "ok $n - checkpatch $2"
    fi
}
for f in "${files[@]}"; do
    check "$root" "$f"
done
for f in "${tests[@]}"; do
    if [ -e "$src/$f" ]; then
        check "$src" "$f"
    else
        n=$((n + 1))
        echo "not ok $n - checkpatch $f: not in $src (run scripts/build-qemu.sh)"
    fi
done
