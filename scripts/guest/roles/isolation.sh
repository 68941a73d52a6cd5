#!/bin/sh
# shellcheck shell=dash
# Role "isolation": malformed uverbs commands (uverbs-check), an MR deregistered under a
# bound memory window, more user contexts than the rdma cgroup allows; one process rings
# other contexts' queues and tries to map their doorbell pages while another process
# moves data (all refused, counted as guest errors, the data checks pass); a process holds
# its whole share of the SRQ receive pool mid-message while another process's SRQ pingpong
# passes (srq-pool-share, tests/vm/srq-hold.c); a perftest
# client killed with SIGKILL mid-run leaves no QP behind and a new run works; VM a's device
# fails the next 3 CREATE_QP commands (isolation.host, through QMP): each ibv_create_qp
# returns an errno, the device's objects are as before, snic.ko unloads and loads again;
# then rmmod snic, with a clean dmesg. snic on both VMs.
SNIC_VERBS_SUITE=isolation
# shellcheck source=scripts/guest/roles/verbs-apps.sh
. /roles/verbs-apps.sh
