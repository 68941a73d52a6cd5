#!/bin/sh
# shellcheck shell=dash
# Role "pfc": the lossless mode's many-QP perftest runs between two snic VMs (a pair
# of tests/vm/vm-tests.sh): scripts/vm-pair.sh --role pfc --lossless
SNIC_VERBS_SUITE=pfc
# shellcheck source=scripts/guest/roles/verbs-apps.sh
. /roles/verbs-apps.sh
