#!/bin/sh
# shellcheck shell=dash
# Role "lossy": RC applications over a lossy wire (vm-tests.sh gives both devices
# wire-drop=1 and wire-reorder=1): ibv_rc_pingpong -c, ib_write_bw, ib_read_bw and
# verbs-check must pass, go-back-N recovering every lost or reordered frame.
SNIC_VERBS_SUITE=lossy
# shellcheck source=scripts/guest/roles/verbs-apps.sh
. /roles/verbs-apps.sh
