#!/bin/sh
# shellcheck shell=dash
# Role "verbs-hll": hll-check alone (tests/vm/hll-check.c: a HyperLogLog sketch on VM b's
# QP counts the 64 MiB VM a RDMA WRITEs into it; the registers and the estimate checked
# against VM b's own computation over the bytes received). The apps suite of verbs-apps.sh
# runs it too (on snic), and the interop pair with an rxe sender; this role is for working
# on it:
#   scripts/vm-pair.sh --nic snic --role verbs-hll
SNIC_VERBS_SUITE=hll
# shellcheck source=scripts/guest/roles/verbs-apps.sh
. /roles/verbs-apps.sh
