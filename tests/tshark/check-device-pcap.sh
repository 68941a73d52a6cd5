#!/usr/bin/env bash
# TAP: a capture written by the device's pcap= property during the lossy
# RDMA qtest (two snic devices in one QEMU, 2 % drop, 1 % dup/reorder),
# read by Wireshark's RoCEv2 dissector and the repo's ICRC checker: only
# well-formed frames with good ICRCs, and retransmitted request PSNs.
#
#   check-device-pcap.sh QEMU-BUILD-DIR LUA OUTDIR
set -u
qemu_build=$1 lua=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
echo "1..2"
if ! command -v tshark >/dev/null; then
    echo "Bail out! tshark is not installed: run scripts/setup-deps.sh (as root)"
    exit 1
fi
if ! (cd "$qemu_build" && SNIC_PCAP_DIR=$out \
        QTEST_QEMU_BINARY=./qemu-system-x86_64 \
        ./tests/qtest/snic-test -p /x86_64/snic/rdma/lossy) \
        >"$out/qtest.log" 2>&1; then
    echo "Bail out! the lossy RDMA qtest failed (see $out/qtest.log)"
    exit 1
fi
f=$out/device-lossy.pcap
tshark_() { tshark --disable-protocol rpcordma -X lua_script:"$lua" "$@" 2>/dev/null; }
total=$(tshark_ -r "$f" -Y 'udp.dstport == 4791' -T fields -e frame.number | wc -l)
bad=$(tshark_ -r "$f" -Y '_ws.malformed || _ws.expert.severity == error || !roce_icrc || roce_icrc.ok == 0' \
      -T fields -e frame.number | wc -l)
if [ "$total" -gt 0 ] && [ "$bad" = 0 ]; then
    echo "ok 1 - device pcap: $total RoCEv2 frames, none malformed, every ICRC good"
else
    echo "not ok 1 - device pcap: $total frames, $bad malformed or with a bad ICRC"
fi
# request PSNs sent more than once with different IPv4 IDs: retransmissions
# (wire duplicates keep the ID and do not count)
dups=$(tshark_ -r "$f" -Y 'infiniband.bth.opcode < 13 || infiniband.bth.opcode == 19 || infiniband.bth.opcode == 20' \
       -T fields -e infiniband.bth.destqp -e infiniband.bth.psn -e ip.id |
       sort -u | cut -f1,2 | uniq -d | wc -l)
if [ "$dups" -gt 0 ]; then
    echo "ok 2 - device pcap: $dups request PSNs retransmitted"
else
    echo "not ok 2 - device pcap: no retransmission seen with 2 % drop"
fi
