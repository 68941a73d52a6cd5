#!/usr/bin/env bash
# TAP: frames built by the snic codec, read back by Wireshark's own RoCEv2
# dissector (tshark) plus the ICRC post-dissector in tests/tools/:
#  1. tshark reads the pcap at all;
#  2. no frame is malformed and every frame has a RoCEv2 ICRC verdict;
#  3. every ICRC is good;
#  4. every decoded op-code, QPN, PSN, RETH and AETH field equals what was
#     encoded (expected.csv from the generator);
#  5. the check can fail: a frame corrupted after its ICRC was computed is
#     flagged, and only that one;
#  6. with the selective-transport dissector (XLUA), every field of the
#     extension header equals what was encoded (xport.csv), ICRC good.
#
#   check-tshark.sh GENERATOR LUA OUTDIR XLUA
set -u
gen=$1 lua=$2 out=$3 xlua=$4
mkdir -p "$out"
echo "1..6"
if ! command -v tshark >/dev/null; then
    echo "Bail out! tshark is not installed: run scripts/setup-deps.sh (as root)"
    exit 1
fi
tshark_() { tshark --disable-protocol rpcordma -X lua_script:"$lua" "$@" 2>/dev/null; }

if ! "$gen" "$out" >/dev/null; then
    echo "Bail out! generator $gen failed"
    exit 1
fi
fields=$(tshark_ -r "$out/all.pcap" -T fields -E separator=, \
    -e frame.number -e infiniband.bth.opcode -e infiniband.bth.destqp \
    -e infiniband.bth.psn -e infiniband.reth.va -e infiniband.reth.r_key \
    -e infiniband.reth.dmalen -e infiniband.aeth.syndrome -e infiniband.aeth.msn \
    -e roce_icrc.ok)
frames=$(wc -l < "$out/expected.csv")
if [ "$(wc -l <<<"$fields")" = "$frames" ]; then
    echo "ok 1 - tshark decoded $frames frames"
else
    echo "not ok 1 - tshark read $(wc -l <<<"$fields") of $frames frames"
fi

bad=$(tshark_ -r "$out/all.pcap" -Y '_ws.malformed || _ws.expert.severity == error || !roce_icrc' \
      -T fields -e frame.number | tr '\n' ' ')
if [ -z "$bad" ]; then
    echo "ok 2 - no malformed frame, every frame has an ICRC verdict"
else
    echo "not ok 2 - malformed or undecoded frames: $bad"
fi

badcrc=$(tshark_ -r "$out/all.pcap" -Y 'roce_icrc.ok == 0' -T fields -e frame.number | tr '\n' ' ')
if [ -z "$badcrc" ] && [ -n "$fields" ]; then
    echo "ok 3 - every ICRC is good"
else
    echo "not ok 3 - bad ICRC in frames: $badcrc"
fi

diff=$(/usr/bin/python3 - "$out/expected.csv" <<PY
import sys
exp = [l.rstrip('\n').split(',') for l in open(sys.argv[1])]
got = [l.split(',') for l in """$fields""".strip().split('\n')]
names = ['frame', 'opcode', 'qpn', 'psn', 'reth.va', 'reth.rkey',
         'reth.len', 'aeth.syndrome', 'aeth.msn']
def num(x):
    return None if x == '' else int(x, 0)
for e, g in zip(exp, got):
    for i, name in enumerate(names):
        if e[i] == '-':
            continue        # a header this Wireshark does not decode
        if num(e[i]) != num(g[i]):
            print(f'frame {e[0]}: {name} encoded {e[i]!r}, decoded {g[i]!r}')
PY
)
if [ -z "$diff" ] && [ -n "$fields" ]; then
    echo "ok 4 - decoded BTH/RETH/AETH fields equal the encoded ones"
else
    echo "not ok 4 - decoded fields differ:"
    # shellcheck disable=SC2001  # prefixes every line, not only the first
    sed 's/^/# /' <<<"$diff" | head -20
fi

flagged=$(tshark_ -r "$out/corrupt.pcap" -Y 'roce_icrc.ok == 0' -T fields -e frame.number | tr '\n' ' ')
if [ "$flagged" = "2 " ]; then
    echo "ok 5 - the corrupted frame (2 of 3) is flagged, the others pass"
else
    echo "not ok 5 - expected only frame 2 flagged, got '$flagged'"
fi

xf=$(tshark --disable-protocol rpcordma -X lua_script:"$lua" -X lua_script:"$xlua" \
    -r "$out/xport.pcap" -T fields -E separator=, -e frame.number \
    -e snic_xeth.flags -e snic_xeth.sq_index -e snic_xeth.rkey \
    -e snic_xeth.va -e snic_xeth.msg \
    -e snic_xeth.offset -e snic_xeth.sack_lo -e snic_xeth.sack_hi \
    -e roce_icrc.ok 2>/dev/null)
if [ -n "$xf" ] && [ "$xf" = "$(cat "$out/xport.csv")" ]; then
    echo "ok 6 - the extension header's fields decode as encoded (xport.pcap)"
else
    echo "not ok 6 - the extension header decodes differently:"
    diff <(echo "$xf") "$out/xport.csv" | sed 's/^/# /'
fi
