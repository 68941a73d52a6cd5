#!/usr/bin/env bash
# TAP: `-device snic,help` lists every snic property with a description.
set -u
qemu=$1
out=$("$qemu" -nodefaults -device snic,help 2>&1)
props=(mac netdev vendor-id device-id subsystem-vendor-id subsystem-id vectors doorbell-pages tlb-entries
       max-qps max-cqs max-mrs pcap wire-drop wire-dup wire-reorder wire-ecn-mark wire-seed x-drop-msix x-torn-reads
       rpc-opcodes)
echo "1..${#props[@]}"
n=0
for p in "${props[@]}"; do
    n=$((n + 1))
    # e.g. "  vectors=<uint32>       - Number of MSI-X vectors ..."
    if grep -qE "^ +$p=<[^>]+> +- .{10,}" <<<"$out"; then
        echo "ok $n - property $p is listed with a description"
    else
        echo "not ok $n - property $p missing or undocumented in:"
        # shellcheck disable=SC2001  # prefixes every line, not only the first
        sed 's/^/# /' <<<"$out"
    fi
done
