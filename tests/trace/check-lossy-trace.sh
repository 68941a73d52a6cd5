#!/usr/bin/env bash
# TAP: with QTEST_TRACE='snic_*', the lossy RDMA qtest (both devices drop
# frames) shows the engine's decisions as trace events with their
# arguments: sequence NAKs sent and received, retransmissions with their
# reason, and QP state changes.
#
#   tests/trace/check-lossy-trace.sh QEMU-BUILD-DIR OUT-DIR
set -u
build=$1 out=$2
mkdir -p "$out"
log=$out/lossy-trace.log
(cd "$build" && QTEST_QEMU_BINARY=./qemu-system-x86_64 QTEST_TRACE='snic_*' \
    timeout 300 ./tests/qtest/snic-test --tap -p /x86_64/snic/rdma/lossy) \
    > "$log" 2>&1
rc=$?
hex='0x[0-9a-f]+'
checks=(
    "the lossy qtest passes under tracing|^ok 1 /x86_64/snic/rdma/lossy"
    "snic_nak_sent names QP, PSN and a sequence-NAK syndrome|^snic_nak_sent qpn [0-9]+ psn $hex syndrome 0x60$"
    "snic_nak_recv names QP, PSN and syndrome|^snic_nak_recv qpn [0-9]+ psn $hex syndrome 0x60$"
    "snic_retransmit names QP, first PSN, segments and reason|^snic_retransmit qpn [0-9]+ from psn $hex segments [1-9][0-9]* reason [0-9]+ "
    "snic_qp_state shows INIT -> RTR -> RTS|^snic_qp_state qpn [0-9]+ state 2 -> 3$"
)
echo "1..${#checks[@]}"
n=0
for c in "${checks[@]}"; do
    n=$((n + 1))
    what=${c%%|*} re=${c#*|}
    # QEMU's log backend may prefix the PID and time: drop it first
    if sed -E 's/^[0-9]+@[0-9.]+://' "$log" | grep -Eq "$re"; then
        echo "ok $n - $what"
    else
        echo "not ok $n - $what (qtest exit $rc; log: $log)"
        grep -E 'snic_(nak|retransmit|qp_state)' "$log" | head -5 | sed 's/^/# /'
    fi
done
