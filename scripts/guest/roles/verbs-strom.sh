#!/bin/sh
# shellcheck shell=dash
# Role "verbs-strom": strom-bench alone (tests/vm/strom-bench.c: StRoM Fig. 7-11, a remote
# linked list, a hash GET and checksummed objects, each by RDMA READs, by the kernel and
# two-sided, checked reads under torn reads, and tuples moved by a WRITE, the shuffle
# kernel and software partitioning; every answer checked by content).
# scripts/repro/strom-vm.sh runs it; by hand:
#   scripts/vm-pair.sh --nic snic --role verbs-strom [--append snicvm.strom_iters=N]
#       [--append snicvm.strom_lens=1,2,4] [--append snicvm.strom_values=64,4096]
#       [--append snicvm.strom_objects=64,16384]
#   Fig. 10 alone (the torn reads would fail Fig. 7-9's checked READs):
#   scripts/vm-pair.sh --nic snic --role verbs-strom --append snicvm.strom_lens=
#       --append snicvm.strom_values= --append snicvm.strom_objects=
#       --append snicvm.strom_torn_objects=64,16384 --append snicvm.strom_torn_pct=P
#       --qemu-b -global --qemu-b snic.x-torn-reads=P
#   Fig. 11 alone (VM b's device with a shuffle unit):
#   scripts/vm-pair.sh --nic snic --role verbs-strom --append snicvm.strom_lens=
#       --append snicvm.strom_values= --append snicvm.strom_objects=
#       --append snicvm.strom_shuffle=1048576 --qemu-b -global --qemu-b snic.shuffle-units=1
SNIC_VERBS_SUITE=strom
# shellcheck source=scripts/guest/roles/verbs-apps.sh
. /roles/verbs-apps.sh
