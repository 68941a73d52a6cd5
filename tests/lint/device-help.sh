#!/usr/bin/env bash
# TAP: `-device snic,help` lists every property hw/snic/snic.c defines
# (DEFINE_PROP_*, and mac and netdev from DEFINE_NIC_PROPERTIES) with a
# description, and docs/device.md's property table has a row for each.
#
#   tests/lint/device-help.sh QEMU-BINARY REPO
set -u
qemu=$1 repo=$2
out=$("$qemu" -nodefaults -device snic,help 2>&1)
mapfile -t props < <({
    sed -n 's/.*DEFINE_PROP[A-Z0-9_]*( *"\([^"]*\)".*/\1/p' "$repo/hw/snic/snic.c"
    if grep -q DEFINE_NIC_PROPERTIES "$repo/hw/snic/snic.c"; then printf 'mac\nnetdev\n'; fi
} | sort -u)
echo "1..$(( ${#props[@]} + 1 ))"
[ ${#props[@]} -ge 20 ] && echo "ok 1 - hw/snic/snic.c defines ${#props[@]} properties" ||
    echo "not ok 1 - only ${#props[@]} properties found in hw/snic/snic.c"
n=1
for p in "${props[@]}"; do
    n=$((n + 1))
    # e.g. "  vectors=<uint32>       - Number of MSI-X vectors ..."
    if ! grep -qE "^ +$p=<[^>]+> +- [^ (].{9,}" <<<"$out"; then
        echo "not ok $n - property $p missing or undocumented in:"
        # shellcheck disable=SC2001  # prefixes every line, not only the first
        sed 's/^/# /' <<<"$out"
    elif ! grep -qE "^\| [^|]*\`$p\`" "$repo/docs/device.md"; then
        echo "not ok $n - property $p has no row in docs/device.md"
    else
        echo "ok $n - property $p is listed with a description and documented"
    fi
done
