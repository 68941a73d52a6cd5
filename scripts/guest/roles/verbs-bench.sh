#!/bin/sh
# shellcheck shell=dash
# Role "verbs-bench": the benchmark half of verbs-apps (scripts/bench-vm.sh runs it on a
# snic pair and on a virtio-net + rdma_rxe pair): ib_write_bw 64 KiB, ib_send_bw 64 KiB,
# ib_write_bw with 2-byte messages (message rate), ib_write_lat and ib_read_lat, each logged
# as a SNIC-RESULT line by side a. Same set-up and environment as verbs-apps.sh.
SNIC_VERBS_SUITE=bench
# shellcheck source=scripts/guest/roles/verbs-apps.sh
. /roles/verbs-apps.sh
