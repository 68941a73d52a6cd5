#!/bin/sh
# shellcheck shell=dash disable=SC2086,SC2317  # word lists; functions run by step
# Role "guest-driver": one side of a two-VM pair on snic (scripts/vm-pair.sh --nic snic
# --role guest-driver): our kernel module and provider end to end. Load the RDMA core and
# snic; the PCI function is bound to snic; its netdev comes up with MTU 9000; ping the peer
# with no loss; snic_0 port 1 is ACTIVE on Ethernet with RoCE MTU 4096, in `rdma link`, with
# ::ffff:<own IP> as a RoCE v2 GID and hardware counters; the RoCE MTU follows an MTU
# change and the port follows link down/up; then rmmod (clean dmesg), modprobe again, and
# the device, the netdev and ping all come back.
# With snicvm.lost_msix=1 (tests/vm/vm-tests.sh: side a, whose QEMU has -global
# snic.x-drop-msix=1) the device does not send its first vector-0 MSI-X message, the
# completion of the probe's first admin command: snic is loaded with a short admin timeout,
# finds the completion when it re-polls, and probes all the same (step lost-msix-recovered).
# shellcheck source=scripts/guest/roles/lib.sh
. /roles/lib.sh
ID=1af4:10f0
DEV=snic_0
SNIC_ARGS=
[ -n "${SNIC_LOST_MSIX:-}" ] && SNIC_ARGS="admin_timeout_ms=3000"

bound_to_snic() {
    local out
    out=$(lspci -nn -k -d "$ID" 2>&1 | grep -v 'Unable to load libkmod')
    printf '%s\n' "$out"
    [ -n "$out" ] || { echo "no PCI device $ID"; return 1; }
    printf '%s\n' "$out" | grep -q 'Kernel driver in use: snic'
}

link_up_9000() {
    local out
    out=$(ip link show dev "$SNIC_IF") || return 1
    printf '%s\n' "$out"
    printf '%s\n' "$out" | grep -Eq '<([^>]*,)?UP[,>]' || { echo "$SNIC_IF is not UP"; return 1; }
    printf '%s\n' "$out" | grep -q 'mtu 9000 ' || { echo "$SNIC_IF mtu is not 9000"; return 1; }
    printf '%s\n' "$out" | grep -q 'state UP ' || { echo "$SNIC_IF operstate is not UP"; return 1; }
}

rdma_link_active() {
    local out
    out=$(timeout 20 rdma link show "$DEV/1" 2>&1)
    printf '%s\n' "$out"
    printf '%s\n' "$out" | grep -q "link $DEV/1 state ACTIVE"
}

rdma_counters() {
    local out
    out=$(timeout 20 rdma statistic show link "$DEV/1" 2>&1)
    printf '%s\n' "$out"
    # "link snic_0/1 name value name value ...": at least one counter with a number.
    printf '%s\n' "$out" | grep -Eq "^link $DEV/1 .*[a-z_0-9]+ [0-9]+"
}

rmmod_snic() {
    rmmod snic || return 1
    if [ -e "/sys/class/infiniband/$DEV" ]; then echo "$DEV still registered after rmmod"; return 1; fi
    if _find_if snic >/dev/null; then echo "a snic netdev still exists after rmmod"; return 1; fi
    echo "snic unloaded; $DEV and its netdev are gone"
}

# The RoCE MTU follows the netdev's (rebuilding the RX rings while up), and the port
# follows the link: DOWN when the netdev is down, ACTIVE again when it comes back. Both
# VMs change their MTU at once, and a NIC rebuilding its rings drops what arrives
# meanwhile (rx_dropped, as hardware does): the pings wait for the peer's change.
mtu_to() {
    ip link set dev "$SNIC_IF" mtu "$1" || return 1
    retry 10 port_active "$DEV" "$2"
}

port_follows_link() {
    ip link set dev "$SNIC_IF" down || return 1
    retry 10 sh -c "ibv_devinfo -d $DEV | grep -Eq 'state:[[:space:]]+PORT_DOWN'" ||
        { echo "port did not go DOWN with $SNIC_IF"; return 1; }
    echo "$DEV port 1 is PORT_DOWN with $SNIC_IF down"
    ip link set dev "$SNIC_IF" up || return 1
    retry 10 port_active "$DEV" "4096 (5)"
}

device_listed() {
    timeout 20 ibv_devinfo -d "$DEV" 2>&1 | grep -E "hca_id:[[:space:]]+$DEV"
}

# The lost interrupt cost one admin timeout, not the device.
lost_msix_recovered() {
    local out
    out=$(dmesg | grep -E 'admin completion without interrupt|device disabled|timed out')
    printf '%s\n' "$out"
    printf '%s\n' "$out" | grep -q 'admin completion without interrupt (lost MSI-X?)' ||
        { echo "no lost-interrupt warning in dmesg"; return 1; }
    if printf '%s\n' "$out" | grep -q 'device disabled'; then
        echo "snic disabled the device"
        return 1
    fi
    retry 10 device_listed
}

step modules-rdma modprobe_all $RDMA_MODULES
step configfs configfs_ready
step provider provider_present
step modprobe-snic modprobe snic $SNIC_ARGS
step lspci-bound retry 10 bound_to_snic
[ -n "$SNIC_ARGS" ] && step lost-msix-recovered lost_msix_recovered
step net-up net_up snic
step link-up-9000 link_up_9000
barrier net-up
step ping ping_peer 20 || rdma_counters
step ibv-devinfo retry 10 port_active "$DEV" "4096 (5)"
step rdma-link retry 10 rdma_link_active
step gid-table retry 10 gid_check "$DEV"
step rdma-statistic rdma_counters
step mtu-follows mtu_to 1500 "1024 (3)"
barrier mtu-1500
step ping-mtu-1500 ping_peer 5
step mtu-9000 mtu_to 9000 "4096 (5)"
barrier mtu
step port-follows-link port_follows_link
barrier link
step ping-after-link ping_peer 5
# The peer must not see our netdev vanish while it still pings us.
barrier before-rmmod
step rmmod-snic rmmod_snic
step dmesg-clean dmesg_clean
step modprobe-again modprobe snic
step device-again retry 20 device_listed
step net-up-again net_up snic
barrier net-up-again
step ping-again ping_peer 20 || rdma_counters
step ibv-devinfo-again retry 10 port_active "$DEV" "4096 (5)"
step dmesg-clean-end dmesg_clean
barrier end
finish
