#!/bin/sh
# shellcheck shell=dash
# Role "verbs-strom": strom-bench alone (tests/vm/strom-bench.c: StRoM Fig. 7, a remote
# linked list looked up by a chain of RDMA READs, by the traversal kernel and by a two-sided
# RPC; every answer checked by content). scripts/repro/strom.sh --vm runs it; by hand:
#   scripts/vm-pair.sh --nic snic --role verbs-strom [--append snicvm.strom_iters=N]
#       [--append snicvm.strom_lens=1,2,4]
SNIC_VERBS_SUITE=strom
# shellcheck source=scripts/guest/roles/verbs-apps.sh
. /roles/verbs-apps.sh
