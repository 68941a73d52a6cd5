#!/usr/bin/env bash
# TAP: the connectionless transport's exchanges (tests/unit/test-cl.c: a
# lost REGISTER and its resends; non-registered WRITEs and their NOTIFY),
# captured at the sender, read by Wireshark with the repo's ICRC checker
# and the snic_cl dissector: every frame well formed with a good ICRC and
# BTH TVer 3, every op-code seen, the resends, and every ACK naming a
# packet that was sent.
#
#   check-cl-pcaps.sh TEST-CL ICRC-LUA CL-LUA OUTDIR
set -u
cl=$1 lua=$2 cllua=$3 out=$4
rm -rf "$out" && mkdir -p "$out"
caps=(cl-lost-register cl-notify)
echo "1..$(( ${#caps[@]} + 3 ))"
if ! command -v tshark >/dev/null; then
    echo "Bail out! tshark is not installed: run scripts/setup-deps.sh (as root)"
    exit 1
fi
if ! SNIC_PCAP_DIR=$out "$cl" -p /cl/lost-register -p /cl/unregistered-notify \
        >"$out/cl.log" 2>&1; then
    echo "Bail out! $cl failed (see $out/cl.log)"
    exit 1
fi
tshark_() {
    tshark --disable-protocol rpcordma -X lua_script:"$lua" \
        -X lua_script:"$cllua" "$@" 2>/dev/null
}
n=0
for cap in "${caps[@]}"; do
    f=$out/$cap.pcap
    n=$((n + 1))
    total=$(tshark_ -r "$f" -Y 'udp.dstport == 4791' -T fields -e frame.number | wc -l)
    cl=$(tshark_ -r "$f" -Y 'snic_cl' -T fields -e frame.number | wc -l)
    bad=$(tshark_ -r "$f" -Y '_ws.malformed || _ws.expert.severity == error || !roce_icrc || roce_icrc.ok == 0' \
          -T fields -e frame.number | wc -l)
    if [ "$total" -gt 0 ] && [ "$bad" = 0 ] && [ "$cl" = "$total" ]; then
        echo "ok $n - $cap: $total frames, all TVer 3, none malformed, every ICRC good"
    else
        echo "not ok $n - $cap: $total frames, $cl with TVer 3, $bad malformed or with a bad ICRC"
    fi
done
n=$((n + 1))
ops=$(for cap in "${caps[@]}"; do
          tshark_ -r "$out/$cap.pcap" -T fields -e snic_cl.op
      done | sort -u | tr '\n' ' ')
if [ "$ops" = "0xc0 0xc1 0xc2 0xc3 " ]; then
    echo "ok $n - REGISTER, WRITE, ACK and NOTIFY all went out"
else
    echo "not ok $n - op-codes seen: $ops"
fi
n=$((n + 1))
# data packets (from 10.0.0.1) sent more than once: the IPv4 ID differs
# per transmission
dups=$(tshark_ -r "$out/cl-lost-register.pcap" -Y 'ip.src == 10.0.0.1' \
       -T fields -e snic_cl.op_id -e snic_cl.index -e ip.id |
       sort -u | cut -f1,2 | uniq -d | wc -l)
if [ "$dups" -gt 0 ]; then
    echo "ok $n - cl-lost-register: $dups packets sent again"
else
    echo "not ok $n - cl-lost-register: no packet sent again"
fi
n=$((n + 1))
stray=0
for cap in "${caps[@]}"; do
    f=$out/$cap.pcap
    sent=$(tshark_ -r "$f" -Y 'snic_cl.op != 0xc2' -T fields -e snic_cl.op_id -e snic_cl.index | sort -u)
    acked=$(tshark_ -r "$f" -Y 'snic_cl.op == 0xc2' -T fields -e snic_cl.op_id -e snic_cl.index | sort -u)
    stray=$((stray + $(comm -13 <(echo "$sent") <(echo "$acked") | grep -c .)))
done
if [ "$stray" = 0 ]; then
    echo "ok $n - every ACK names a packet that was sent"
else
    echo "not ok $n - $stray ACKs name no packet sent"
fi
