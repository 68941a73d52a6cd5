#!/usr/bin/env bash
# SRNIC (NSDI'23) Fig. 9, 10a and 10b in the simulator: CSV and PNG beside
# the numbers the paper states (scripts/repro/srnic-paper.csv).
#
#   scripts/repro/srnic.sh [--smoke] [--no-plot] [--out DIR] [--bin SRNIC-REPRO] [-- OPTIONS]
#
# Builds tests/bench/srnic-repro.c without sanitizers (build/bench) unless
# --bin names a built one and runs it (OPTIONS go to it: --qps LIST,
# --warm-us, --window-us, --cache N and --qpc-bytes of the cached-QPC
# mode, --depth, --pingpongs; see the program's header): Fig. 9, 128 to
# 16384 QPs, as snic and in the cached-QPC mode; Fig. 10a, one QP, 64 B
# to 64 KiB; Fig. 10b, 64 B latency. Draws DIR/fig9.png, fig10a.png and
# fig10b.png with gnuplot and prints the comparison. --smoke: short
# windows (the test suite's run); --no-plot: CSV only (no gnuplot needed).
# Default DIR: build/repro/srnic. Then DIR/run.txt and the docs' blocks
# from the run (scripts/repro/render.py: rewritten in docs/ when DIR is
# docs/repro/srnic). The full run takes about 10 s here.
set -euo pipefail
# shellcheck source=scripts/repro/lib.sh
. "$(dirname "$0")/lib.sh"
repro_options srnic --pass "$@"
log "writing CSV and PNG to $out"
"$bin" "${smoke[@]}" --out "$out" "${pass[@]}"

repro_plot srnic fig9 fig10a fig10b

# The comparison, as text
col() { awk -F, -v r="$2" -v c="$3" 'NR == r + 1 { print $c }' "$1"; }
rows=$(($(wc -l < "$out/fig9.csv") - 1))
echo "srnic: ours vs the paper's stated numbers"
awk -F, 'NR == 2 { s0 = $2 } NR > 1 {
        printf "  Fig. 9  %5d QPs: snic %6.2f Gb/s (%+5.1f %% of 128-QP figure, %5.1f %% of max %.1f), wire %5.1f %%; cached %6.2f Gb/s, wire %5.1f %%\n",
               $1, $2, 100 * ($2 - s0) / s0, 100 * $2 / $6, $6, $3, $4, $5 }' "$out/fig9.csv"
printf '          paper: SRNIC ~97 Gbps 128..10K QPs (6.1); CX-6 97 Gbps at 128 and 52 at 16384 QPs (2.2, Fig. 2a)\n'
printf '  Fig. 10a max message rate: %s Mrps (bound n/RTT %s; paper: SRNIC 6.6, CX-6 6.3, bound 7.2)\n' \
    "$(sort -t, -k3 -g "$out/fig10a.csv" | tail -n 1 | cut -d, -f3)" "$(col "$out/fig10a.csv" 1 5)"
awk -F, 'NR > 1 && $1 >= 4096 { printf "  Fig. 10a %5d B: %6.2f Gb/s goodput, wire %5.1f %% (paper: line rate 97 Gbps above 4 KB)\n", $1, $2, $4 }' \
    "$out/fig10a.csv"
printf '  Fig. 10b 64 B latency: %s us (paper: SRNIC 3.3 us, CX-6 1.16 us)\n' \
    "$(col "$out/fig10b.csv" 1 2)"
[ "$rows" -gt 0 ] || die "no Fig. 9 rows"
repro_done srnic
log "CSV and PNG in $out"
