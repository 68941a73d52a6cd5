#!/usr/bin/env bash
# Command 1, the main job (for now): set up, build QEMU with snic, the guest
# kernel module, the rdma-core provider and the guest image, then boot two
# Debian guests with -device snic on one wire under TCG. Each loads snic.ko,
# brings the snic netdev up (MTU 9000), pings the other, shows the RoCEv2
# device (ibv_devinfo -v, rdma link, GID table, rdma statistic), unloads and
# reloads the driver, and powers off.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
need_root "$0"
cd "$repo" || exit 2

t_start=$(date +%s)
phase "setup" scripts/setup-deps.sh || exit 1
phase "QEMU build" scripts/build-qemu.sh || exit 1
phase "guest image" scripts/build-guest.sh || exit 1
phase "two VMs with snic: driver, ping, ibv_devinfo, rmmod/insmod" \
    scripts/vm-pair.sh --qemu "$qemu_bin" --role guest-driver --timeout 600 \
    --log-dir "$repo/build/run-logs" --name guest-driver
rc=$?
# What the guest saw (lspci -k, ip link, ping, ibv_devinfo -v, rdma link, GIDs, counters).
for side in a b; do
    echo "==> console of VM $side (build/run-logs/guest-driver-$side.log)"
    tr -d '\r' < "$repo/build/run-logs/guest-driver-$side.log" 2>/dev/null | grep -v '^[[:space:]]*$'
    [ "$side" = a ] && [ "$rc" = 0 ] && break   # on success one VM's view is enough
done
echo "==> total: $(( $(date +%s) - t_start ))s"
exit $rc
