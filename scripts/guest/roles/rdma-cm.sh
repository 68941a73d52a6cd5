#!/bin/sh
# shellcheck shell=dash
# Role "rdma-cm": the rdma_cm half of verbs-apps: connections made by the RDMA CM
# over the GSI QP. rping -C 100 -v, ucmatose, ib_write_bw -R and ib_send_lat -R, server on
# side b, client on side a. Same set-up and environment as verbs-apps.sh.
SNIC_VERBS_SUITE=cm
# shellcheck source=scripts/guest/roles/verbs-apps.sh
. /roles/verbs-apps.sh
