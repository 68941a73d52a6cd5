#!/usr/bin/env bash
# Core engine benchmark: 64 KiB RDMA WRITEs between two engines on the
# simulated wire (Gbit/s and the ratio to memcpy of the same bytes in the
# same run) and 64-byte SENDs (messages/s). Optimised build, no
# sanitizers, in build/bench.
#
#   scripts/bench-engine.sh [WRITES] [SENDS]     (how many of each)
#
# --sched-cost: the QP scheduler's cost per packet, counted (not timed) by
# valgrind's callgrind: tests/bench/srnic-repro.c keeps 1, then 16384 QPs
# backlogged with 512 B SENDs on two NICs with the SRNIC timing model;
# only its measured window (srnic_window) is counted. Printed per data
# packet sent: all instructions of both simulated NICs and the hosts, and
# the scheduler's: snic_sched_run without the QP iterations it calls
# (snic_rdma_iteration: building the packets) plus snic_sched_timer (the
# timer heap, fetch completions). Takes a few minutes (valgrind).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
case ${1:-} in -h|--help) usage; exit 0 ;; esac
bench=$repo/build/bench
if [ ! -f "$bench/build.ninja" ]; then
    meson setup "$bench" "$repo" --buildtype=release -Db_sanitize=none \
        -Dwerror=true >/dev/null
fi
if [ "${1:-}" != --sched-cost ]; then
    ninja -C "$bench" tests/bench-engine >/dev/null
    exec "$bench/tests/bench-engine" "$@"
fi
command -v valgrind >/dev/null || die "valgrind not found (apt-get install valgrind)"
ninja -C "$bench" tests/srnic-repro >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Inclusive instructions of function $2 in callgrind output $1
ir() {
    callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
        awk -v f="$2" '!n && $0 ~ (":" f " ") { gsub(",", "", $1); print $1; n = 1 }'
}
echo "QP scheduler cost (callgrind instructions per 512 B data packet)"
printf '  %6s %8s %14s %14s\n' QPs packets "all/packet" "sched/packet"
for q in 1 16384; do
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$q" \
        --toggle-collect=srnic_window \
        "$bench/tests/srnic-repro" --fig9-only --no-cached --qps "$q" \
        --warm-us 50 --window-us 200 --out "$tmp" > "$tmp/out.$q" 2>/dev/null
    packets=$(sed -n 's/.*rtx [0-9]*, \([0-9]*\) packets.*/\1/p' "$tmp/out.$q")
    if [ -z "$packets" ] || [ "$packets" -eq 0 ]; then
        die "no packets in the window ($q QPs)"
    fi
    total=$(callgrind_annotate "$tmp/cg.$q" 2>/dev/null |
            awk '!n && /PROGRAM TOTALS/ { gsub(",", "", $1); print $1; n = 1 }')
    run=$(ir "$tmp/cg.$q" snic_sched_run)
    iter=$(ir "$tmp/cg.$q" snic_rdma_iteration)
    timer=$(ir "$tmp/cg.$q" snic_sched_timer)
    printf '  %6d %8d %14.0f %14.0f\n' "$q" "$packets" \
        "$(echo "$total / $packets" | bc -l)" \
        "$(echo "(${run:-0} - ${iter:-0} + ${timer:-0}) / $packets" | bc -l)"
done
