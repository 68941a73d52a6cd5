#!/bin/sh
# shellcheck shell=dash
# Role "interop": snic against Linux rxe, run with vm-pair.sh --nic-a snic
# --nic-b virtio and the other way round: ibv_rc_pingpong -c (4096 bytes, then 128 sent
# inline), ibv_uc_pingpong -c, ib_write_bw, ib_read_lat, ibv_srq_pingpong -c and rping -C 20,
# server on side b, client on side a. Same set-up as verbs-apps.sh.
SNIC_VERBS_SUITE=interop
# shellcheck source=scripts/guest/roles/verbs-apps.sh
. /roles/verbs-apps.sh
