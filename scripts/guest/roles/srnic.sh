#!/bin/sh
# shellcheck shell=dash
# Role "srnic": SRNIC's selective repeat over a wire that loses and reorders 2 % of
# the frames (vm-tests.sh gives both devices wire-drop=2 and wire-reorder=2): both ends
# select SNIC_TRANSPORT_SRNIC through snicdv (LD_PRELOAD libsnic-transport.so for perftest
# and verbs-check, transport-check -P SRNIC), snic.ko's CtrlQ interrupt recovers while the
# responding application sits idle; ib_write_bw's goodput beside go-back-N's on that wire.
SNIC_VERBS_SUITE=srnic
# shellcheck source=scripts/guest/roles/verbs-apps.sh
. /roles/verbs-apps.sh
