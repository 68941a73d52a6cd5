#!/bin/sh
# shellcheck shell=dash
# Role "cl": the connectionless transport through snicdv over a wire that loses and
# reorders 2 % of the frames (vm-tests.sh gives both devices wire-drop=2 and
# wire-reorder=2): cl-check (tests/vm/cl-check.c) writes from two endpoints of VM a into
# one endpoint of VM b, registered, segmented and not, every notification and byte checked
# by VM b, which blocks on ibv_get_cq_event; a write to a QP of VM b that is no endpoint
# fails at VM a after its retries; the cl_* counters of `rdma statistic` show the losses
# were recovered (VM a resent, VM b parked packets that came before their REGISTER).
SNIC_VERBS_SUITE=cl
# shellcheck source=scripts/guest/roles/verbs-apps.sh
. /roles/verbs-apps.sh
