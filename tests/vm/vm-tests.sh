#!/usr/bin/env bash
# VM end-to-end tests: boot guests with scripts/vm-run.sh, one VM (later:
# one pair) at a time, each under its own timeout. Writes TAP to RESULTS.
#
#   tests/vm/vm-tests.sh QEMU-BINARY RESULTS-FILE
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
qemu=$1 results=$2
logs=$repo/build/vm-logs
mkdir -p "$logs"

tests=(
    # name            expect  vm-run.sh arguments
    "lspci            pass    --role lspci -- -device snic,netdev=n0 -netdev user,id=n0,restrict=on"
    # The role must fail when there is no snic: proves the check can fail.
    "lspci-no-device  fail    --role lspci"
)

echo "1..${#tests[@]}" > "$results"
n=0
for t in "${tests[@]}"; do
    read -r name expect args <<<"$t"
    n=$((n + 1))
    # shellcheck disable=SC2086  # args is a word list by construction
    "$repo/scripts/vm-run.sh" --qemu "$qemu" --timeout 300 \
        --log "$logs/$name.log" $args
    rc=$?
    if { [ "$expect" = pass ] && [ "$rc" = 0 ]; } ||
       { [ "$expect" = fail ] && [ "$rc" = 1 ]; }; then
        echo "ok $n - vm/$name" >> "$results"
    else
        echo "not ok $n - vm/$name (expected $expect, vm-run exit $rc; console: $logs/$name.log)" >> "$results"
    fi
done
cat "$results"
! grep -q '^not ok' "$results"
