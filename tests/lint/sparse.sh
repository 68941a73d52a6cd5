#!/usr/bin/env bash
# TAP: sparse reports nothing on snic.ko: scripts/build-guest-driver.sh --sparse (kbuild's
# C=2 CF=-Wsparse-error against the guest kernel's headers; only sparse runs over an
# up-to-date build). The self-test builds a one-file module returning a CPU-order value
# as __le32 and expects sparse to fail it. Skipped where the guest kernel's headers were
# never fetched (scripts/build-guest-driver.sh fetches them; the suite's guest image
# phase runs it before this one).
#
#   tests/lint/sparse.sh REPO
set -u
root=$1
echo "1..2"
krel=$(cat "$root/.cache/guest/kernel.release" 2>/dev/null)
if [ -z "$krel" ] || [ ! -f "$root/.cache/guest/headers/$krel/.complete" ]; then
    echo "ok 1 # SKIP the guest kernel's headers are not fetched (scripts/build-guest-driver.sh)"
    echo "ok 2 # SKIP the same"
    exit 0
fi
export SNIC_WIRE_RMEM_WARNED=1      # not a VM script: no UDP buffer warning

if out=$("$root/scripts/build-guest-driver.sh" --sparse 2>&1); then
    echo "ok 1 - sparse reports nothing on snic.ko"
else
    echo "not ok 1 - sparse on snic.ko:"
    # shellcheck disable=SC2001  # prefixes every line, not only the first
    sed 's/^/# /' <<<"$out"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src"
echo 'obj-m := planted.o' > "$tmp/src/Kbuild"
cat > "$tmp/src/planted.c" <<'C'
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
__le32 planted(u32 v);
__le32 planted(u32 v)
{
	return v;
}
MODULE_LICENSE("GPL");
C
if ! out=$("$root/scripts/build-guest-driver.sh" --sparse --src "$tmp/src" --out "$tmp/out" 2>&1) &&
    grep -q 'planted.c.*incorrect type' <<<"$out"; then
    echo "ok 2 - self-test: sparse fails a planted endianness bug"
else
    echo "not ok 2 - self-test: the planted endianness bug was not reported:"
    # shellcheck disable=SC2001
    sed 's/^/# /' <<<"$out"
fi
