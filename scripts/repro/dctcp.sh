#!/usr/bin/env bash
# DCTCP's incast in the simulator (DCTCP, SIGCOMM'10; SRNIC,
# NSDI'23, section 5): 16 flows from 16 NICs through the simulator's
# switch into one 100 Gb/s link whose port marks CE on a step at K
# (tests/unit/dctcp-incast.h: links 1 us each way, MTU 1024, flows
# starting 20 us apart, always backlogged with 64 KiB WRITEs). Writes
# DIR/incast.csv (every SAMPLE_US: each flow's Gb/s into the switch and
# the bottleneck queue), DIR/incast.png (gnuplot) and DIR/summary.csv
# over the steady state, the run's second half: each flow's mean, Jain's
# index of them, the queue's time average (1 us samples) and maximum, and
# the peak the DCTCP paper's analysis puts at K + N full frames, beside
# the DCTCP paper's statements (scripts/repro/dctcp-paper.csv).
# Twice: DCTCP over go-back-N in DIR, SRNIC-DCTCP (the same window over
# SRNIC's selective repeat, SRNIC section 5) in DIR/srnic.
#
#   scripts/repro/dctcp.sh [--smoke] [--no-plot] [--out DIR] [--bin DCTCP-REPRO]
#
# 20 ms of virtual time (a few seconds here); --smoke: 2 ms (the test
# suite's run, the pipeline only). K = 65 KB (65000 bytes; DCTCP's
# guideline K > C x RTT / 7 is about 8 KB here). Builds
# tests/bench/dctcp-repro.c without sanitizers (build/bench) unless --bin
# names a built one. --no-plot: CSV only (no gnuplot needed). Default DIR:
# build/repro/dctcp. Then DIR/run.txt and the docs' blocks from the run
# (scripts/repro/render.py: rewritten in docs/ when DIR is docs/repro/dctcp).
set -euo pipefail
# shellcheck source=scripts/repro/lib.sh
. "$(dirname "$0")/lib.sh"
ms=20 sample_us=50 k=65000
repro_options dctcp "$@"
if [ ${#smoke[@]} -gt 0 ]; then ms=2 sample_us=50; fi

# incast DIR TITLE [srnic]: one run, its plot and summary
incast() {
    local dir=$1 title=$2
    mkdir -p "$dir"
    "$bin" "$ms" "$sample_us" "$k" ${3:+"$3"} > "$dir/incast.csv" 2> "$dir/summary.tmp"
    [ "$(sed 1d "$dir/incast.csv" | wc -l)" -ge 10 ] || die "too few samples in $dir/incast.csv"
    [ "$(wc -l < "$dir/summary.tmp")" = 2 ] || die "no summary: $(cat "$dir/summary.tmp")"
    # the DCTCP paper's Qmax = K + N packets, a packet here being a full 1024-byte
    # MTU's frame (Ethernet, IPv4, UDP, BTH, ICRC: 58 bytes of headers)
    awk -F, -v k="$k" 'NR == 1 { print $0 ",k_plus_n_kb"; next }
        { printf "%s,%.1f\n", $0, (k + 16 * 1082) / 1000 }' "$dir/summary.tmp" > "$dir/summary.csv"
    rm -f "$dir/summary.tmp"
    repro_gnuplot "$dir" incast -- \
        -e "dir='$dir'; paper='$here/dctcp-paper.csv'; k_kb=$k/1000.0; name='$title'" "$here/dctcp-plot.gp"
    echo "dctcp: $title, 16 flows into one 100 Gb/s port, K = $((k / 1000)) KB, ${ms} ms (paper: g = $g, K > C x RTT / 7):"
    sed 1d "$dir/summary.csv" | awk -F, '{
        printf "  steady state %s-%s us: sum %s Gb/s, per flow %s..%s Gb/s, Jain index %s\n", $1, $2, $3, $5, $6, $4
        printf "  bottleneck queue: average %s KB, max %s KB (steady state), max %s KB over the run (K %s KB); %s CE marks, %s drops, %s WRITEs\n", $7, $8, $9, $10, $11, $12, $13 }'
    awk -F, 'NR == 2 { printf "  DCTCP paper (section 3.3): the queue peaks at K + N packets = %s KB; ours: %s KB\n", $14, $8 }' \
        "$dir/summary.csv"
}
g=$(awk -F, '$1 == "g" { print $2 }' "$here/dctcp-paper.csv")
incast "$out" "DCTCP over go-back-N"
incast "$out/srnic" "SRNIC-DCTCP (DCTCP over SRNIC selective repeat)" srnic
repro_done dctcp "${smoke[@]}"
log "CSV and PNG in $out"
