#!/bin/sh
# shellcheck shell=dash
# Role "verbs-rpc": rpc-check alone (tests/vm/rpc-check.c: StRoM RPCs through libsnic's
# snicdv calls: list, hash table and skip list lookups by the traversal kernel, malicious
# parameters, the fallback handler, undeploy, a QP without RPC, and the shuffle kernel
# when the devices have a shuffle unit). The apps suite of verbs-apps.sh runs it too (on
# snic, the shuffle required); this role is for working on it:
#   scripts/vm-pair.sh --nic snic --role verbs-rpc -- -global snic.shuffle-units=1
SNIC_VERBS_SUITE=rpc
# shellcheck source=scripts/guest/roles/verbs-apps.sh
. /roles/verbs-apps.sh
