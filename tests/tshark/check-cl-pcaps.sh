#!/usr/bin/env bash
# TAP: the connectionless transport's exchanges (tests/unit/test-cl.c: a
# lost REGISTER and its resends; non-registered WRITEs and their NOTIFY),
# captured at the sender, read by Wireshark with the repo's ICRC checker
# and the snic_cl dissector: every frame well formed with a good ICRC and
# BTH TVer 3, every op-code seen, the resends, and every ACK naming a
# packet that was sent. One tshark run per capture (its start is most of
# the time).
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
# per frame: number, UDP port, malformed, expert severity, ICRC ok,
# CL op-code, op id, index, IP source, IP ID
for cap in "${caps[@]}"; do
    tshark --disable-protocol rpcordma -X lua_script:"$lua" \
        -X lua_script:"$cllua" -r "$out/$cap.pcap" -T fields -E separator=, \
        -E occurrence=f -e frame.number -e udp.dstport -e _ws.malformed \
        -e _ws.expert.severity -e roce_icrc.ok -e snic_cl.op \
        -e snic_cl.op_id -e snic_cl.index -e ip.src -e ip.id \
        >"$out/$cap.csv" 2>/dev/null
done
n=0
for cap in "${caps[@]}"; do
    f=$out/$cap.csv
    n=$((n + 1))
    total=$(awk -F, '$2 == 4791' "$f" | wc -l)
    cl=$(awk -F, '$2 == 4791 && $6 != ""' "$f" | wc -l)
    bad=0
    while IFS=, read -r _ port malformed severity icrc _; do
        # expert severity 0x800000 and above: an error
        if [ "$port" = 4791 ] && { [ -n "$malformed" ] || [ "$icrc" != 1 ] ||
               { [ -n "$severity" ] && (( severity >= 0x800000 )); }; }; then
            bad=$((bad + 1))
        fi
    done <"$f"
    if [ "$total" -gt 0 ] && [ "$bad" = 0 ] && [ "$cl" = "$total" ]; then
        echo "ok $n - $cap: $total frames, all TVer 3, none malformed, every ICRC good"
    else
        echo "not ok $n - $cap: $total frames, $cl with TVer 3, $bad malformed or with a bad ICRC"
    fi
done
n=$((n + 1))
ops=$(cut -d, -f6 "$out"/*.csv | sort -u | tr '\n' ' ')
if [ "$ops" = "0xc0 0xc1 0xc2 0xc3 " ]; then
    echo "ok $n - REGISTER, WRITE, ACK and NOTIFY all went out"
else
    echo "not ok $n - op-codes seen: $ops"
fi
n=$((n + 1))
# data packets (from 10.0.0.1) sent more than once: the IPv4 ID differs
# per transmission
dups=$(awk -F, '$9 == "10.0.0.1" { print $7, $8, $10 }' "$out/cl-lost-register.csv" |
       sort -u | cut -d' ' -f1,2 | uniq -d | wc -l)
if [ "$dups" -gt 0 ]; then
    echo "ok $n - cl-lost-register: $dups packets sent again"
else
    echo "not ok $n - cl-lost-register: no packet sent again"
fi
n=$((n + 1))
stray=0
for cap in "${caps[@]}"; do
    f=$out/$cap.csv
    sent=$(awk -F, '$6 != "0xc2" { print $7, $8 }' "$f" | sort -u)
    acked=$(awk -F, '$6 == "0xc2" { print $7, $8 }' "$f" | sort -u)
    stray=$((stray + $(comm -13 <(echo "$sent") <(echo "$acked") | grep -c .)))
done
if [ "$stray" = 0 ]; then
    echo "ok $n - every ACK names a packet that was sent"
else
    echo "not ok $n - $stray ACKs name no packet sent"
fi
