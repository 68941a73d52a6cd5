#!/usr/bin/env bash
# VM benchmark (not a test): snic against Linux soft-RoCE between two TCG guests, and both
# against the host's UDP loopback, which bounds QEMU's `-netdev dgram` wire.
#
#   scripts/bench-vm.sh [--qemu PATH] [--pairs snic,rxe] [--timeout SECONDS]
#                       [--udp-seconds N] [--log-dir DIR] [--wait-idle SECONDS]
#
# One invocation runs, one pair at a time, the role verbs-bench (scripts/guest/roles/
# verbs-bench.sh) on two snic VMs, then on two virtio-net + rdma_rxe VMs (same VM shape:
# -smp 1 -m 1024, TCG, netdev MTU 9000, RoCE MTU 4096): ib_write_bw 64 KiB, ib_send_bw
# 64 KiB, ib_write_bw with 2-byte messages (message rate), ib_write_lat and ib_read_lat
# (2 bytes, typical latency). Then, with no VM running, udp-loopback
# (tests/bench/udp-loopback.c) measures 127.0.0.1 UDP throughput for 4200-byte datagrams
# (a RoCE MTU-4096 frame, the size RDMA WRITE/SEND 64 KiB goes out in) and 9014-byte ones
# (a full MTU-9000 frame).
#
# Prints a table: snic, rxe, snic/rxe, and for bandwidth the fraction of the UDP wire limit;
# and three comparisons with rxe: snic ib_write_bw >= 5x rxe's, snic typical latencies
# <= rxe's (yes / no). A pair that fails is shown as FAILED in its column; the others are
# still measured. Exit 0 when every pair ran and gave every figure (whatever the
# comparisons say), 1 when a pair failed or a figure is missing, 2 on a usage or setup error.
# Other VMs on the host skew every figure: each pair and the UDP run first wait up to
# --wait-idle seconds (default 0) for no other QEMU VM to run, and warn if one still does.
# Needs what scripts/run.sh builds (QEMU, guest image; snic.ko + libsnic for the snic pair).
# Logs: DIR (default <repo>/build/bench-vm): consoles bench-snic-{a,b}.log, bench-rxe-*.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
die_status=2

QEMU=$REPO/build/qemu/qemu-system-x86_64
PAIRS=snic,rxe
TIMEOUT=900
UDP_SECONDS=3
LOGDIR=$REPO/build/bench-vm
WAIT_IDLE=0
while [ $# -gt 0 ]; do
    case $1 in
        --qemu|--pairs|--timeout|--udp-seconds|--log-dir|--wait-idle)
            [ $# -ge 2 ] || die "$1 needs a value"
            case $1 in
                --qemu) QEMU=$2 ;; --pairs) PAIRS=$2 ;; --timeout) TIMEOUT=$2 ;;
                --udp-seconds) UDP_SECONDS=$2 ;; --log-dir) LOGDIR=$2 ;; --wait-idle) WAIT_IDLE=$2 ;;
            esac
            shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
for p in ${PAIRS//,/ }; do
    case $p in snic|rxe) ;; *) die "--pairs takes snic and/or rxe, not '$p'" ;; esac
done
case $TIMEOUT$UDP_SECONDS$WAIT_IDLE in *[!0-9]*|'') die "--timeout and --udp-seconds take whole numbers" ;; esac
[ -x "$QEMU" ] || die "QEMU binary '$QEMU' not found (scripts/run.sh or scripts/build-qemu.sh builds it)"
command -v gcc >/dev/null || die "gcc not found (scripts/setup-deps.sh)"
mkdir -p "$LOGDIR"
LOGDIR=$(cd "$LOGDIR" && pwd)

# Other VMs share the cores and skew every figure: wait up to WAIT_IDLE s, else say so.
quiet() {
    local what=$1 end=$(( $(date +%s) + WAIT_IDLE )) others
    while others=$(pgrep -c -f 'qemu-system-x86_64 .*-M q35' || true); [ "${others:-0}" != 0 ]; do
        [ "$(date +%s)" -lt "$end" ] || break
        sleep 2
    done
    [ "${others:-0}" = 0 ] || log "WARNING: $others other QEMU VM(s) running before $what: its figures will be low"
    log "before $what: load average $(cut -d' ' -f1-3 /proc/loadavg)"
}
log "host: $(nproc) cores"

T0=$(date +%s)
declare -A STATUS V    # STATUS[pair] = ok | FAILED (why); V[pair.metric] = figure

# result_field FILE NAME FIELD: the value of FIELD in side a's `SNIC-RESULT name=NAME ...` line.
result_field() {
    local file=$1 name=$2 field=$3
    [ -f "$file" ] || return 0
    { tr -d '\r' < "$file" | grep -E "^SNIC-RESULT name=$name( |$)" | tail -n 1 |
        tr ' ' '\n' | sed -n "s/^$field=//p"; } || true
}

run_pair() {
    local pair=$1 nic rc=0 t a why
    case $pair in snic) nic=snic ;; rxe) nic=virtio ;; esac
    if [ "$pair" = snic ] && [ ! -f "${SNIC_GUEST_DRIVER_DIR:-$REPO/build/guest-driver}/snic.ko" ]; then
        STATUS[$pair]="FAILED (snic.ko not built: scripts/build-guest-driver.sh)"
        log "$pair pair: ${STATUS[$pair]}"
        return
    fi
    quiet "the $pair pair"
    log "$pair pair: scripts/vm-pair.sh --nic $nic --role verbs-bench (timeout ${TIMEOUT}s)"
    t=$(date +%s)
    rm -f "$LOGDIR/bench-$pair"-*
    timeout -k 10 $((TIMEOUT + 120)) "$REPO/scripts/vm-pair.sh" --qemu "$QEMU" --nic "$nic" \
        --role verbs-bench --timeout "$TIMEOUT" --log-dir "$LOGDIR" --name "bench-$pair" \
        > "$LOGDIR/bench-$pair.pair.log" 2>&1 || rc=$?
    log "$pair pair: vm-pair exit $rc in $(( $(date +%s) - t ))s (log $LOGDIR/bench-$pair.pair.log)"
    a=$LOGDIR/bench-$pair-a.log
    V[$pair.write_bw]=$(result_field "$a" ib_write_bw bw_avg_MBps)
    V[$pair.send_bw]=$(result_field "$a" ib_send_bw bw_avg_MBps)
    V[$pair.msg_rate]=$(result_field "$a" ib_write_bw_2B msg_rate_Mpps)
    V[$pair.write_lat]=$(result_field "$a" ib_write_lat t_typical_us)
    V[$pair.read_lat]=$(result_field "$a" ib_read_lat t_typical_us)
    if [ "$rc" = 0 ]; then
        STATUS[$pair]=ok
    else
        why=$(tr -d '\r' < "$LOGDIR/bench-$pair.pair.log" 2>/dev/null | grep -E '^  FAIL ' | head -n 5 |
              sed 's/^  FAIL //' | paste -sd, - || true)
        [ -n "$why" ] || why=$(grep -E 'error:' "$LOGDIR/bench-$pair.pair.log" | tail -n 1 || true)
        STATUS[$pair]="FAILED (vm-pair exit $rc${why:+; failed: $why})"
        log "$pair pair: ${STATUS[$pair]}"
        tail -n 40 "$LOGDIR/bench-$pair.pair.log" | sed 's/^/    /'
    fi
}

for p in ${PAIRS//,/ }; do run_pair "$p"; done

# UDP loopback on the host, with no VM of ours running.
quiet "udp-loopback"
UDP_BIN=$LOGDIR/udp-loopback
gcc -O2 -std=gnu11 -Wall -Wextra -Werror -pthread -o "$UDP_BIN" "$REPO/tests/bench/udp-loopback.c" ||
    die "building tests/bench/udp-loopback.c failed"
for sz in 4200 9014; do
    out=$(timeout $((UDP_SECONDS + 30)) "$UDP_BIN" -s "$sz" -t "$UDP_SECONDS") ||
        die "udp-loopback -s $sz failed (or ran over $((UDP_SECONDS + 30))s): $out"
    log "$out"
    V[udp.$sz]=$(tr ' ' '\n' <<<"$out" | sed -n 's/^gbps=//p')
done

# --- the table ---------------------------------------------------------------------------
# fmt VALUE: the value or a dash.
fmt() { [ -n "${1:-}" ] && printf '%s' "$1" || printf -- '-'; }
# calc EXPR (awk) or empty when an operand is missing.
calc() { awk "BEGIN { printf \"%.2f\", $1 }" 2>/dev/null; }
col() {   # pair metric scale: the figure (scaled) or FAILED / not run
    local pair=$1 metric=$2 scale=$3 v
    case ${STATUS[$pair]:-} in
        '') printf 'not run'; return ;;
    esac
    v=${V[$pair.$metric]:-}
    if [ -z "$v" ]; then
        [ "${STATUS[$pair]}" = ok ] && printf 'missing' || printf 'FAILED'
        return
    fi
    calc "$v * $scale"
}
num() { case $1 in ''|*[!0-9.]*) return 1 ;; esac; }
ratio() { num "$1" && num "$2" && [ "$2" != 0.00 ] && calc "$1 / $2" || printf -- '-'; }

echo
echo "VM benchmark: two TCG guests (-smp 1 -m 1024, MTU 9000, RoCE MTU 4096) on -netdev dgram"
echo "snic: ${STATUS[snic]:-not run}"
echo "rxe:  ${STATUS[rxe]:-not run}"
echo
udp=${V[udp.4200]:-}
printf '%-34s %12s %12s %10s %12s %12s\n' "figure" "snic" "rxe" "snic/rxe" "snic/UDP" "rxe/UDP"
row() {   # label metric scale bandwidth(1|0)
    local label=$1 metric=$2 scale=$3 bw=$4 s r su='' ru=''
    s=$(col snic "$metric" "$scale")
    r=$(col rxe "$metric" "$scale")
    if [ "$bw" = 1 ]; then
        su=$(ratio "$s" "$udp")
        ru=$(ratio "$r" "$udp")
    fi
    printf '%-34s %12s %12s %10s %12s %12s\n' "$label" "$s" "$r" "$(ratio "$s" "$r")" "$su" "$ru"
}
# perftest reports MB/s (10^6 bytes): x 0.008 = Gb/s. MsgRate is in Mpps: x 1000 = K msg/s.
row "ib_write_bw 64 KiB [Gb/s]"        write_bw 0.008 1
row "ib_send_bw 64 KiB [Gb/s]"         send_bw  0.008 1
row "ib_write_bw 2 B [K msg/s]"        msg_rate 1000  0
row "ib_write_lat 2 B typical [usec]"  write_lat 1    0
row "ib_read_lat 2 B typical [usec]"   read_lat  1    0
printf '%-34s %12s\n' "UDP loopback 4200 B [Gb/s]" "$(fmt "$udp")"
printf '%-34s %12s\n' "UDP loopback 9014 B [Gb/s]" "$(fmt "${V[udp.9014]:-}")"

echo
versus() {   # label verdict-expression(awk, on s and r) snic rxe
    local label=$1 expr=$2 s=$3 r=$4 v
    if num "$s" && num "$r"; then
        v=$(awk -v s="$s" -v r="$r" "BEGIN { print (($expr) ? \"yes\" : \"no\") }")
    else
        v="not measured"
    fi
    printf 'versus rxe: %-44s %s\n' "$label" "$v"
}
versus "snic ib_write_bw >= 5 x rxe" "s >= 5 * r" "${V[snic.write_bw]:-}" "${V[rxe.write_bw]:-}"
versus "snic ib_write_lat typical <= rxe" "s <= r" "${V[snic.write_lat]:-}" "${V[rxe.write_lat]:-}"
versus "snic ib_read_lat typical <= rxe" "s <= r" "${V[snic.read_lat]:-}" "${V[rxe.read_lat]:-}"
echo "bench-vm: done in $(( $(date +%s) - T0 ))s; consoles in $LOGDIR"

rc=0
for p in ${PAIRS//,/ }; do
    [ "${STATUS[$p]}" = ok ] || rc=1
    for m in write_bw send_bw msg_rate write_lat read_lat; do
        [ -n "${V[$p.$m]:-}" ] || rc=1
    done
done
exit "$rc"
