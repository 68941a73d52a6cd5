#!/usr/bin/env bash
# TAP: the engine's own exchanges, captured on the simulated wire, read by
# Wireshark's RoCEv2 dissector and the repo's ICRC checker: RC SEND and
# WRITE with loss, RC READ + CMP_SWAP + FETCH_ADD with loss, UD SEND, and
# StRoM RPCs with their answers with loss (BTH TVer 1 on the RPCs).
# Every capture must hold only well-formed frames with good ICRCs, and the
# lossy ones must show retransmissions (a request PSN sent twice; for the
# RPCs, an answer's).
#
#   check-engine-pcaps.sh TEST-ENGINE LUA OUTDIR TEST-RPC
set -u
engine=$1 lua=$2 out=$3 rpc=$4
rm -rf "$out" && mkdir -p "$out"
caps=(rc-send-write-lossy rc-read-atomic-lossy ud rpc-lossy)
echo "1..$(( ${#caps[@]} * 2 ))"
if ! command -v tshark >/dev/null; then
    echo "Bail out! tshark is not installed: run scripts/setup-deps.sh (as root)"
    exit 1
fi
if ! SNIC_PCAP_DIR=$out "$engine" -p /engine/loss-5pct \
        -p /engine/read-atomic-lossy -p /engine/ud >"$out/engine.log" 2>&1; then
    echo "Bail out! $engine failed (see $out/engine.log)"
    exit 1
fi
if ! SNIC_PCAP_DIR=$out "$rpc" -p /rpc/lossy >"$out/rpc.log" 2>&1; then
    echo "Bail out! $rpc failed (see $out/rpc.log)"
    exit 1
fi
tshark_() { tshark --disable-protocol rpcordma -X lua_script:"$lua" "$@" 2>/dev/null; }
n=0
for cap in "${caps[@]}"; do
    f=$out/$cap.pcap
    n=$((n + 1))
    total=$(tshark_ -r "$f" -Y 'udp.dstport == 4791' -T fields -e frame.number | wc -l)
    bad=$(tshark_ -r "$f" -Y '_ws.malformed || _ws.expert.severity == error || !roce_icrc || roce_icrc.ok == 0' \
          -T fields -e frame.number | wc -l)
    if [ "$total" -gt 0 ] && [ "$bad" = 0 ]; then
        echo "ok $n - $cap: $total RoCEv2 frames, none malformed, every ICRC good"
    else
        echo "not ok $n - $cap: $total frames, $bad malformed or with a bad ICRC"
    fi
    n=$((n + 1))
    # request PSNs (RC: op-codes below 0x0d and the atomics; UD: SEND Only
    # and SEND Only Imm) sent more than once: the IPv4 ID differs per
    # transmission, so wire duplicates do not count
    if [ "$cap" = ud ]; then
        req='infiniband.bth.opcode == 100 || infiniband.bth.opcode == 101'
    elif [ "$cap" = rpc-lossy ]; then
        # the answers: RDMA WRITEs from the responding device (10.0.0.2)
        req='ip.src == 10.0.0.2 && infiniband.bth.opcode >= 6 && infiniband.bth.opcode <= 11'
    else
        req='infiniband.bth.opcode < 13 || infiniband.bth.opcode == 19 || infiniband.bth.opcode == 20'
    fi
    sent=$(tshark_ -r "$f" -Y "$req" -T fields -e frame.number | wc -l)
    dups=$(tshark_ -r "$f" -Y "$req" \
           -T fields -e infiniband.bth.destqp -e infiniband.bth.psn -e ip.id |
           sort -u | cut -f1,2 | uniq -d | wc -l)
    if [ "$cap" = ud ]; then
        if [ "$sent" -gt 0 ] && [ "$dups" = 0 ]; then
            echo "ok $n - $cap: $sent datagrams, none retransmitted"
        else
            echo "not ok $n - $cap: $sent datagrams, $dups PSNs sent twice"
        fi
    elif [ "$dups" -gt 0 ]; then
        echo "ok $n - $cap: $dups request PSNs retransmitted"
    else
        echo "not ok $n - $cap: no retransmission seen on a lossy wire"
    fi
done
