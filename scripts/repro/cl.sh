#!/usr/bin/env bash
# "Connectionless Transport with Receiver Registration" (an FPGA HPC network
# interface), Fig. 7 (section 4.1) in the simulator, and the connectionless
# transport as a system: CSV and PNG beside the numbers the paper states
# (scripts/repro/cl-paper.csv).
#
#   scripts/repro/cl.sh [--smoke] [--no-plot] [--out DIR] [--bin CL-REPRO] [-- OPTIONS]
#
# Builds tests/bench/cl-repro.c without sanitizers (build/bench) unless --bin
# names a built one and runs it (OPTIONS go to it: --ops N): Fig. 7, one CL
# WRITE of 64 B to 64 KiB at a time between two NICs on one 10 Gb/s link
# (send, receive via NOTIFY, registered receive); then 1000 operations among
# eight endpoints on two switches joined by four sprayed lossy links
# (tests/unit/cl-fabric.h), every operation exactly once at both ends, and the
# tables' bytes with 2 and 64 peers. Writes DIR/fig7.csv, fig7-summary.csv,
# system.csv, model.csv and fig7.png (gnuplot) and prints the comparison and
# the system run's counters. --smoke: 40 operations and 8 peers (the test
# suite's run); --no-plot: CSV only (no gnuplot needed). Default DIR:
# build/repro/cl. Then DIR/run.txt and the docs' blocks from the run
# (scripts/repro/render.py: rewritten in docs/ when DIR is docs/repro/cl).
set -euo pipefail
# shellcheck source=scripts/repro/lib.sh
. "$(dirname "$0")/lib.sh"
repro_options cl --pass "$@"
log "writing CSV and PNG to $out"
"$bin" "${smoke[@]}" --out "$out" "${pass[@]}"

repro_plot cl fig7

paper() { awk -F, -v q="$1" '$2 == q { print $3 }' "$here/cl-paper.csv"; }
echo "cl: Fig. 7, ours (RoCE over Ethernet, the NIC timing model at 10 Gb/s) vs the paper (Aurora, no encapsulation, a 156.25 MHz NI)"
awk -F, -v pr="$(paper recv_1k)" -v pg="$(paper registered_1k)" -v ps="$(paper saving_1k)" 'NR == 2 {
    printf "  1 KiB: receive via NOTIFY %s us, registered %s us, saving %s us (%s %%)\n", $1, $2, $3, $4
    printf "  paper, 1 KB: receive %s us, registered %s us, saving %s us (host costs cancel in the difference)\n", pr, pg, ps
    printf "  self-consistency check (our protocol, not a comparison): the registered receive leads by %s..%s us at every size; saving %s %% at 1 KiB, %s %% at 64 KiB: %s\n", $6, $7, $4, $5, $8 }' \
    "$out/fig7-summary.csv"
awk -F, 'NR > 1 && $1 == 32768 { printf "  32 KiB: saving %s %% (paper: gains insignificant at around 32KB)\n", $7 }' "$out/fig7.csv"
awk -F, 'NR == 2 {
    printf "cl: system run, %s operations (%s non-registered, %s receive notifications, %s bytes) exactly once at both ends in %s us\n", $1, $2, $3, $4, $5
    printf "  resends %s, duplicates dropped %s, acknowledged again %s; escape channel: parked %s, replayed %s, full %s, timed out %s; NOT_READY %s, NOTIFY %s\n", $6, $7, $8, $9, $10, $11, $12, $13, $14
    printf "  links: lost %s, duplicated %s, reordered %s; PFC frames %s; CL table bytes %s with 2 peers, %s with %s\n", $15, $16, $17, $18, $19, $21, $20 }' \
    "$out/system.csv"
repro_done cl
log "CSV and PNG in $out"
