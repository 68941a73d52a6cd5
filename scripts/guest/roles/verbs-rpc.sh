#!/bin/sh
# shellcheck shell=dash
# Role "verbs-rpc": rpc-check alone (tests/vm/rpc-check.c: StRoM RPCs through libsnic's
# snicdv calls: list, hash table and skip list lookups by the traversal kernel, malicious
# parameters, the fallback handler, undeploy, a QP without RPC). The apps suite of
# verbs-apps.sh runs it too (on snic); this role is for working on it:
#   scripts/vm-pair.sh --nic snic --role verbs-rpc
SNIC_VERBS_SUITE=rpc
# shellcheck source=scripts/guest/roles/verbs-apps.sh
. /roles/verbs-apps.sh
