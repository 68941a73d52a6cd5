#!/bin/sh
# shellcheck shell=dash
# Role "lossy": RC applications over a lossy wire (vm-tests.sh gives both devices
# wire-drop=1 and wire-reorder=1): ibv_rc_pingpong -c, ib_write_bw, ib_read_bw and
# verbs-check must pass, go-back-N recovering every lost or reordered frame. Then the host
# changes the running devices (lossy.host, through QMP): wire-drop 0 (no drop over 5 s of
# traffic), 5 (drops grow), 1 (a transfer by content); VM a's link down 1 s during verbs-check
# (every check passes, IB_EVENT_PORT_ERR then PORT_ACTIVE seen) and past a QP's retry budget
# (RETRY_EXC within it + 2 s; new QPs pass once it is back).
SNIC_VERBS_SUITE=lossy
# shellcheck source=scripts/guest/roles/verbs-apps.sh
. /roles/verbs-apps.sh
