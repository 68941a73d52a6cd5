#!/usr/bin/env bash
# Command 1, the main job (for now): set up, build QEMU with snic and the
# guest image, boot a Debian guest with -device snic under TCG, show the
# device with lspci -nn -vv from inside the guest, power off.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
need_root "$0"
cd "$repo" || exit 2

t_start=$(date +%s)
phase "setup" scripts/setup-deps.sh || exit 1
phase "QEMU build" scripts/build-qemu.sh || exit 1
phase "guest image" scripts/guest-image.sh || exit 1
phase "boot guest with -device snic" scripts/vm-run.sh --qemu "$qemu_bin" \
    --role lspci --timeout 300 --log "$repo/build/vm-run.log" -- \
    -device snic,netdev=n0,mac=52:54:00:00:5e:01 -netdev user,id=n0,restrict=on
rc=$?
echo "==> total: $(( $(date +%s) - t_start ))s"
exit $rc
