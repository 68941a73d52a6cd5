#!/bin/sh
# shellcheck shell=dash disable=SC2086,SC2317  # word lists; functions run by step
# Role "rxe-ping": one side of a two-VM pair (scripts/vm-pair.sh --nic virtio --role rxe-ping)
# on virtio-net with Linux's soft RoCE (rdma_rxe). Proves the pair harness and the guest's
# RDMA userspace without our driver: modules, rxe0 on the virtio netdev, ping the peer with
# no loss, rxe0's port ACTIVE on Ethernet, and ::ffff:<own IP> in its GID table as RoCE v2.
# shellcheck source=scripts/guest/roles/lib.sh
. /roles/lib.sh

step modules-rdma modprobe_all $RDMA_MODULES
step configfs configfs_ready
step modules-rxe modprobe_all $RXE_MODULES
step modules-virtio modprobe_all $VIRTIO_MODULES
step net-up net_up virtio
step rxe-add rdma link add rxe0 type rxe netdev "$SNIC_IF"
step rdma-link retry 10 sh -c 'rdma link show rxe0/1 | grep -q "state ACTIVE" && rdma link show rxe0/1'
barrier net-up
step ping ping_peer 20
step ibv-devinfo retry 10 port_active rxe0 "4096 (5)"
step gid-table retry 10 gid_check rxe0
step dmesg-clean dmesg_clean
barrier end
finish
