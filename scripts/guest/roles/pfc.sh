#!/bin/sh
# shellcheck shell=dash
# Role "pfc": the lossless mode's many-QP perftest runs between two snic VMs (issue 15; not in
# tests/vm/vm-tests.sh yet: with --no-wire-drops the pair fails, the receiving VM's host socket
# drops frames while its main loop is descheduled): scripts/vm-pair.sh --role pfc --no-wire-drops
SNIC_VERBS_SUITE=pfc
# shellcheck source=scripts/guest/roles/verbs-apps.sh
. /roles/verbs-apps.sh
