#!/bin/sh
# Role "lspci": print the snic PCI function(s) and check what the driver relies on:
# BARs 0, 2 and 4 and an MSI-X capability. Exits non-zero if any is missing.
ID=1af4:10f0

# -vv asks libkmod for driver names; with no modules in the image it warns on every call.
quiet_lspci() {
    lspci "$@" 2>/tmp/lspci.err.$$
    r=$?
    grep -v 'Unable to load libkmod resources' /tmp/lspci.err.$$ >&2
    rm -f /tmp/lspci.err.$$
    return $r
}
out=$(quiet_lspci -nn -vv -d "$ID") || { echo "lspci-role: lspci failed"; exit 1; }
if [ -z "$out" ]; then
    echo "lspci-role: FAIL: no PCI device $ID present; the guest sees:"
    quiet_lspci -nn
    exit 1
fi
printf '%s\n' "$out"

missing=
for want in "Region 0:" "Region 2:" "Region 4:" "MSI-X:"; do
    printf '%s\n' "$out" | grep -q "$want" || missing="$missing '${want%:}'"
done
if [ -n "$missing" ]; then
    echo "lspci-role: FAIL: $ID entry lacks:$missing"
    exit 1
fi
echo "lspci-role: OK: $ID has Region 0, Region 2, Region 4 and MSI-X"
