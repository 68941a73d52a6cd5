#!/bin/sh
# shellcheck shell=dash
# Role "ulp": the RDMA software people run, over snic on both VMs (image
# initramfs-ulp.cpio.gz): UCX (ucx_info, ucx_perftest over rc_verbs, ud_verbs and UCP) and
# libfabric (fi_info, fi_pingpong over the verbs provider); NVMe over RDMA (nvmet-rdma
# target on a ram disk on side b, nvme-rdma host on side a, 64 MiB written and compared,
# then four I/O queues with side a on two CPUs); NFSv4.2 over RDMA; then rmmod snic under
# a connected NVMe controller with I/O running. lib-ulp.sh has the steps.
SNIC_VERBS_SUITE=ulp
# shellcheck source=scripts/guest/roles/verbs-apps.sh
. /roles/verbs-apps.sh
