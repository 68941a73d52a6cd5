#!/bin/sh
# shellcheck shell=dash
# Role "verbs-srq": the applications of verbs-apps that need a shared receive queue:
# ibv_srq_pingpong (4 QPs on one SRQ, by polling and by events) and ib_send_bw --use-srq.
# Same set-up and environment as verbs-apps.sh:
#   scripts/vm-pair.sh --nic virtio --role verbs-srq      (passes on Linux rxe, ~45 s)
#   scripts/vm-pair.sh --nic snic --role verbs-srq        (the apps suite runs these too)
# `ib_send_bw -I` (inline) is not here: Debian 12's perftest turns inline off on devices it
# does not know (rxe and snic: "Device not recognized to implement inline feature").
SNIC_VERBS_SUITE=srq
# shellcheck source=scripts/guest/roles/verbs-apps.sh
. /roles/verbs-apps.sh
