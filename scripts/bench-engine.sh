#!/usr/bin/env bash
# Core engine benchmark: 64 KiB RDMA WRITEs between two engines on the
# simulated wire (Gbit/s and the ratio to memcpy of the same bytes in the
# same run) and 64-byte SENDs (messages/s), each the median of 5 runs;
# then the same two counted by valgrind's callgrind (a count, not a time:
# the same on a loaded machine), 200 WRITEs and 20000 SENDs: instructions
# inside the device core (hw/snic/core: what the harness's calls into
# snic_core.h's entry points execute, the libraries they call included,
# the host interface's callbacks excluded) per payload byte and per
# message, and apart the harness's (the simulator, the fake host's DMA
# and wire callbacks, the test driver). valgrind has no AVX-512: the
# ICRC library runs its 128-bit path there. It fails if the core
# allocates heap memory in those windows (scripts/callgrind-allocs.py).
# Optimised build, no sanitizers, in build/bench.
#
#   scripts/bench-engine.sh [WRITES] [SENDS]     (how many of each, timed)
#
# --sched-cost: the QP scheduler's cost per packet, counted (not timed) by
# valgrind's callgrind: tests/bench/srnic-repro.c keeps 1, then 16384 QPs
# backlogged with 512 B SENDs on two NICs with the SRNIC timing model;
# only its measured window (srnic_window) is counted. Printed per data
# packet sent: all instructions of both simulated NICs and the hosts, and
# the scheduler's: snic_sched_run without the QP iterations it calls
# (snic_rdma_iteration: building the packets) plus snic_sched_timer (the
# timer heap, fetch completions). Takes a few minutes (valgrind).
#
# --call-cost: what one guest action costs at two device sizes, counted
# by callgrind (tests/bench/call-cost.c): an ALLOC_PD, a read of the
# stats' object gauges, the device timer and two engine runs that flush
# (one QP's deep send queue; every QP in ERR), on a device with small
# tables, 10 QPs and PDs and a 1024-WQE flush and on one with 65536 QPs,
# 4096 PDs and CQs, 1000 QPs and PDs and a 32768-WQE flush. Fails if a
# call costs the large device more than twice what it costs the small
# one. The lint suite runs it (tests/meson.build).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
case ${1:-} in -h|--help) usage; exit 0 ;; esac
bench=$repo/build/bench
if [ ! -f "$bench/build.ninja" ]; then
    meson setup "$bench" "$repo" --buildtype=release -Db_sanitize=none \
        -Dwerror=true >/dev/null
fi
command -v valgrind >/dev/null || die "valgrind not found (apt-get install valgrind)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Inclusive instructions of function $2 in callgrind output $1
ir() {
    callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
        awk -v f="$2" '!n && $0 ~ (":" f " ") { gsub(",", "", $1); print $1; n = 1 }'
}
# All instructions callgrind counted in output $1
ir_total() {
    callgrind_annotate "$1" 2>/dev/null |
        awk '!n && /PROGRAM TOTALS/ { gsub(",", "", $1); print $1; n = 1 }'
}
# The core's share of output $1: the inclusive instructions of the core's
# entry points (snic_core.h) less those of the host interface's callbacks
# they call (the fake host's fh_* functions, tests/unit/fake-host.c)
ir_core() {
    callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
        awk '{ gsub(",", "", $1) }
             / [^ ]*:snic_core_(run|receive|timer|doorbell|reg_read|reg_write) / { core += $1 }
             / [^ ]*:fh_[a-z_]* / { host += $1 }
             END { printf "%.0f\n", core - host }'
}
if [ "${1:-}" = --call-cost ]; then
    ninja -C "$bench" tests/call-cost >/dev/null
    for size in small large; do
        valgrind --tool=callgrind --callgrind-out-file="$tmp/cc.$size" \
            --toggle-collect='cost_window_*' "$bench/tests/call-cost" "$size" \
            >/dev/null 2>&1 || die "callgrind run of call-cost $size failed"
    done
    echo "instructions of one call (callgrind), small and large device"
    printf '  %-10s %10s %10s %7s\n' call small large ratio
    fail=0
    for w in alloc_pd stats timer flush err_qps; do
        s=$(ir "$tmp/cc.small" "cost_window_$w")
        l=$(ir "$tmp/cc.large" "cost_window_$w")
        if [ -z "$s" ] || [ -z "$l" ]; then
            die "no count for cost_window_$w"
        fi
        printf '  %-10s %10d %10d %7.2f\n' "$w" "$s" "$l" \
            "$(echo "$l / $s" | bc -l)"
        if [ "$l" -gt $((2 * s)) ]; then
            echo "  $w: the large device's call costs more than twice the small one's" >&2
            fail=1
        fi
    done
    exit "$fail"
fi
if [ "${1:-}" != --sched-cost ]; then
    ninja -C "$bench" tests/bench-engine >/dev/null
    "$bench/tests/bench-engine" "$@"
    writes=200 sends=20000
    for w in writes sends; do
        valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$w" \
            --toggle-collect="bench_window_$w" \
            "$bench/tests/bench-engine" --once "$writes" "$sends" \
            >/dev/null 2>&1 || die "callgrind run of bench-engine failed"
    done
    bytes=$((writes * 65536))
    wt=$(ir_total "$tmp/cg.writes") wc=$(ir_core "$tmp/cg.writes")
    st=$(ir_total "$tmp/cg.sends") sc=$(ir_core "$tmp/cg.sends")
    echo "callgrind instructions ($writes 64 KiB WRITEs, $sends 64 B SENDs; valgrind --tool=callgrind --toggle-collect=bench_window_writes|sends $bench/tests/bench-engine --once $writes $sends)"
    printf '  %-22s %12s %12s\n' "" "core" "harness"
    printf '  %-22s %12.3f %12.3f\n' "64 KiB WRITE, per byte" \
        "$(echo "$wc / $bytes" | bc -l)" "$(echo "($wt - $wc) / $bytes" | bc -l)"
    printf '  %-22s %12.0f %12.0f\n' "64 B SEND, per message" \
        "$(echo "$sc / $sends" | bc -l)" "$(echo "($st - $sc) / $sends" | bc -l)"
    for w in writes sends; do
        allocs=$("$repo/scripts/callgrind-allocs.py" "$tmp/cg.$w") ||
            die "the core allocates in the $w window: $allocs"
    done
    echo "  heap allocations inside the core in both windows: 0"
    exit 0
fi
ninja -C "$bench" tests/srnic-repro >/dev/null
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
    total=$(ir_total "$tmp/cg.$q")
    run=$(ir "$tmp/cg.$q" snic_sched_run)
    iter=$(ir "$tmp/cg.$q" snic_rdma_iteration)
    timer=$(ir "$tmp/cg.$q" snic_sched_timer)
    printf '  %6d %8d %14.0f %14.0f\n' "$q" "$packets" \
        "$(echo "$total / $packets" | bc -l)" \
        "$(echo "(${run:-0} - ${iter:-0} + ${timer:-0}) / $packets" | bc -l)"
done
