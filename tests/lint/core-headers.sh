#!/usr/bin/env bash
# TAP: the device core includes no QEMU header (it talks to the world only
# through SnicHostOps), so it builds and runs outside QEMU.
set -u
root=$1
echo "1..1"
bad=$(grep -nE '#include +"(qemu/|hw/|system/|sysemu/|migration/|net/|exec/|qapi/|qom/|trace)' \
      -r --include="*.[ch]" "$root"/hw/snic/core || true)
if [ -z "$bad" ]; then
    echo "ok 1 - hw/snic/core includes no QEMU header"
else
    echo "not ok 1 - QEMU headers in hw/snic/core:"
    # shellcheck disable=SC2001  # prefixes every line, not only the first
    sed 's/^/# /' <<<"$bad"
fi
