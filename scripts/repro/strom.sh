#!/usr/bin/env bash
# StRoM (EuroSys'20) Fig. 7-11 and 13 in the simulator (Fig. 13a: the
# CPU's HyperLogLog on this host): CSV and PNG beside the numbers the paper
# states (scripts/repro/strom-paper.csv; Fig. 11 and 13b: none, their
# shape only).
#
#   scripts/repro/strom.sh [--smoke] [--no-plot] [--out DIR] [--bin STROM-REPRO] [-- OPTIONS]
#
# Builds tests/bench/strom-repro.c without sanitizers (build/bench) unless
# --bin names a built one, runs it (OPTIONS go to it: --iters, --ops, the
# model's --link-gbps, --net-rtt-ns, --pcie-rtt-ns, --pcie-gbps,
# --cpu-rpc-ns, --cpu-mem-ns, --crc-ns-per-byte; see the program's
# header), derives the increments the paper states numbers about and what
# our answer's receive-WQE fetch costs the client (the kernel against its
# run with a plain WRITE answer, StRoM's), draws DIR/fig7..fig11.png with
# gnuplot and prints the comparison. --smoke: every point, one iteration
# (the test suite's run); --no-plot: CSV only (no gnuplot needed).
# Default DIR: build/repro/strom. Then DIR/run.txt and the docs' blocks
# from the run (scripts/repro/render.py: rewritten in docs/ when DIR is
# docs/repro/strom). The full run takes about a minute here; the smoke
# run a few seconds. The same figures between two snic VMs:
# scripts/repro/strom-vm.sh.
set -euo pipefail
# shellcheck source=scripts/repro/lib.sh
. "$(dirname "$0")/lib.sh"
repro_options strom --pass "$@"
"$bin" "${smoke[@]}" --out "$out" "${pass[@]}"

# The increments the paper's text puts numbers on, and the share of our
# answer's receive-WQE fetch (the kernel minus its plain-WRITE run).
# Fig. 7: latency added per element (kernel: a PCIe read; READ chain: a
# network round trip), from consecutive lengths.
# rpc_faster: 1 where the two-sided RPC beats the kernel.
awk -F, 'NR == 1 { print "length,strom_per_element_us,read_per_element_us,answer_fetch_us,rpc_faster"; next }
         NR > 2 { printf "%s,%.3f,%.3f,%.3f,%d\n", $1, ($5 - s) / ($1 - l), ($2 - r) / ($1 - l), $5 - $11, $8 < $5 }
         { l = $1; r = $2; s = $5 }' "$out/fig7.csv" > "$out/fig7-derived.csv"
# Fig. 8: what one RPC saves over two READs, and its lead over the two-sided RPC.
awk -F, 'NR == 1 { print "value_bytes,saving_us,saving_plain_us,answer_fetch_us,rpc_minus_strom_us"; next }
         { printf "%s,%.3f,%.3f,%.3f,%.3f\n", $1, $2 - $5, $2 - $11, $5 - $11, $8 - $5 }' \
    "$out/fig8.csv" > "$out/fig8-derived.csv"
# Fig. 9: overhead of checking over a plain READ.
awk -F, 'NR == 1 { print "object_bytes,readsw_overhead_pct,strom_overhead_pct,strom_overhead_us,answer_fetch_us,strom_plain_overhead_pct,strom_plain_overhead_us"; next }
         { printf "%s,%.1f,%.1f,%.3f,%.3f,%.1f,%.3f\n", $1, 100 * ($5 - $2) / $2, 100 * ($8 - $2) / $2,
                  $8 - $2, $8 - $11, 100 * ($11 - $2) / $2, $11 - $2 }' \
    "$out/fig9.csv" > "$out/fig9-derived.csv"

repro_plot strom fig7 fig8 fig9 fig10 fig11 fig13a fig13b

# The comparison, as text
last() { tail -n 1 "$1" | cut -d, -f"$2"; }
first() { sed -n 2p "$1" | cut -d, -f"$2"; }
echo "strom: model (model.csv):"
sed 1d "$out/model.csv" | awk -F, '{ printf "  %-24s %s %s\n", $1, $2, $3 }'
echo "strom: ours vs the paper's stated numbers"
printf '  Fig. 7  kernel per element: %s us (paper: ~1.5 us per PCIe read)\n' \
    "$(last "$out/fig7-derived.csv" 2)"
printf '  Fig. 7  READ chain per element: %s us (a network round trip, a WQE fetch)\n' \
    "$(last "$out/fig7-derived.csv" 3)"
printf '  Fig. 8  saving of one RPC over two READs: %s us at %s B .. %s us at %s B (plain WRITE answer: %s .. %s us; paper: around 5 us, our network RTT is set from it)\n' \
    "$(first "$out/fig8-derived.csv" 2)" "$(first "$out/fig8-derived.csv" 1)" \
    "$(last "$out/fig8-derived.csv" 2)" "$(last "$out/fig8-derived.csv" 1)" \
    "$(first "$out/fig8-derived.csv" 3)" "$(last "$out/fig8-derived.csv" 3)"
printf '  Fig. 9  READ+CRC overhead at %s B: %s %% (paper: up to 40 %%)\n' \
    "$(last "$out/fig9-derived.csv" 1)" "$(last "$out/fig9-derived.csv" 2)"
printf '  Fig. 9  kernel overhead at %s B: %s %%, %s us; with a plain WRITE answer %s %%, %s us (paper: 1 us, < 8 %%)\n' \
    "$(last "$out/fig9-derived.csv" 1)" "$(last "$out/fig9-derived.csv" 3)" \
    "$(last "$out/fig9-derived.csv" 4)" "$(last "$out/fig9-derived.csv" 6)" \
    "$(last "$out/fig9-derived.csv" 7)"
echo "  Fig. 10 average latency (us) by failure rate: size,pct,READ+CRC,kernel"
sed 1d "$out/fig10.csv" | awk -F, '{ printf "    %6s B %4s %%  %9s  %9s\n", $1, $2, $3, $4 }'
echo "  Fig. 11 time (us) by tuples: WRITE, StRoM (chunked: histogram passes + RPC WRITEs), SW + WRITE; StRoM/WRITE, the RPCs alone/WRITE, PCIe write busy, chunks"
sed 1d "$out/fig11.csv" | awk -F, '{ printf "    %8s  %10s  %10s  %10s  %6s  %6s  %6s  %3s\n", $1, $2, $3, $4, $5, $7, $8, $9 }'
# the shape StRoM 6.4 states: close to an RDMA WRITE (within 10 % from
# 1 Mi tuples on), below SW + RDMA WRITE everywhere
awk -F, 'NR > 1 { below = below && $3 < $4; if ($1 >= 1048576) { near = near && $5 <= 1.10; rpc = rpc && $7 <= 1.10 } }
         BEGIN { below = near = rpc = 1 }
         END { printf "  Fig. 11 StRoM below SW + WRITE at every N: %s; within 1.10 x WRITE from 1 Mi tuples: %s (the RPCs alone: %s)\n",
                      below ? "yes" : "NO", near ? "yes" : "NO", rpc ? "yes" : "NO" }' "$out/fig11.csv"

echo "  Fig. 13a the CPU's HLL, memory-resident items: threads, items/s, Gbit/s (paper 7.2: \"still well below 100 Gbit/s\"; its 25 Gbit/s at 8 threads is AVX2 code while receiving, not reproduced)"
sed 1d "$out/fig13a.csv" | awk -F, '{ printf "    %3s  %12s  %8s\n", $1, $2, $3 }'
echo "  Fig. 13b WRITE goodput (Gbit/s) by size: WRITE, with the HLL unit (64 B/cycle), control (16 B/cycle); ratios to WRITE"
sed 1d "$out/fig13b.csv" | awk -F, '{ printf "    %8s  %8s  %8s  %8s  %6s  %6s\n", $1, $2, $3, $4, $5, $6 }'
awk -F, 'NR > 1 { if (min == "" || $5 < min) min = $5; if ($6 < cmin) { cmin = $6; at = $1 } }
         BEGIN { cmin = 2 }
         END { printf "  Fig. 13b with the HLL unit at least %.4f of WRITE at every size (>= 0.95: %s); the control (16 B/cycle) falls to %.4f of WRITE at %s B: its shortfall %.1f %%\n",
                      min, (min >= 0.95 ? "yes" : "NO"), cmin, at, 100 * (1 - cmin) }' "$out/fig13b.csv"

repro_done strom
log "CSV and PNG in $out"
