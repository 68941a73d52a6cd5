#!/bin/sh
# shellcheck shell=dash disable=SC2086,SC2317  # word lists; functions run by step
# Role "verbs-apps": one side of a two-VM pair running unmodified RDMA applications over an
# RDMA device: side b runs each server, side a its client (peer IP).
#
#   scripts/vm-pair.sh --nic snic   --role verbs-apps                  (snic_0 on snic.ko)
#   scripts/vm-pair.sh --nic virtio --role verbs-apps                  (rxe0 on virtio-net)
#
# Environment (kernel arguments snicvm.X=Y): SNIC_NIC snic|virtio picks the set-up (snic: RDMA
# modules + snic.ko; virtio: RDMA modules + rdma_rxe, `rdma link add DEV type rxe`);
# SNIC_RDMADEV the RDMA device (default snic_0 on snic, rxe0 on virtio); SNIC_VERBS_SUITE
# apps (default), cm (rdma_cm apps, what rdma-cm.sh runs), interop (snic against rxe,
# interop.sh), lossy (lossy.sh), isolation (isolation.sh), bench (verbs-bench.sh), srq
# (verbs-srq.sh: ibv_srq_pingpong, ib_send_bw --use-srq), rpc (verbs-rpc.sh: rpc-check),
# strom (verbs-strom.sh: strom-bench, StRoM Fig. 7-10, SNIC_STROM_ITERS iterations per point,
# default 100, at the list lengths SNIC_STROM_LENS, value sizes SNIC_STROM_VALUES, object
# sizes SNIC_STROM_OBJECTS (defaults strom-bench's) and Fig. 10's SNIC_STROM_TORN_OBJECTS
# (default none) with the share SNIC_STROM_TORN_PCT VM b's device tears, and Fig. 11's
# tuple counts SNIC_STROM_SHUFFLE, default none; VM b's device needs a shuffle unit) or
# pfc (the many-QP runs of the lossless mode: role pfc, pfc.sh) or transport (transport_ecn
# alone: the transport programs, with -global snic.wire-ecn-mark=N) or srnic (srnic.sh:
# SRNIC's selective repeat on a lossy wire, srnic_apps) or iommu (iommu.sh: behind a virtual
# IOMMU; SNIC_KO_ARGS are snic.ko's module parameters).
# The GID index is looked up: the one whose sysfs GID is ::ffff:<own IP>, RoCE v2.
#
# Applications: ibv_rc_pingpong (-c, then -c -e, then 128-byte messages, which it sends
# inline), ibv_uc_pingpong, ibv_ud_pingpong, ib_write_bw, ib_read_bw,
# ib_send_bw, ib_write_lat, ib_read_lat, the SRQ applications (ibv_srq_pingpong polling and
# with events, ib_send_bw --use-srq), verbs-check (tests/vm/verbs-check.c: 1 MiB WRITE and
# READ by content, a local protection error on one QP while another keeps working, the
# extended CQ/QP calls, inline data and an SRQ by content), and verbs-check -X b as a
# negative control (the server corrupts check b's data: both sides must fail with the
# mismatch); on snic also rpc-check -S (tests/vm/rpc-check.c: StRoM RPCs through snicdv,
# the shuffle included: the pair gives the devices a shuffle unit), a
# small strom-bench run (tests/vm/strom-bench.c: StRoM Fig. 7-9's methods, list lookups,
# GETs and checked object reads, each answer checked; scripts/repro/strom-vm.sh runs it in
# full) and
# transport-check once per transport program (tests/vm/transport-check.c: the program chosen
# through snicdv, WRITEs content-checked; DCQCN's CNPs under the wire's ECN marking); in
# suite lossy also ib_send_bw with SACK on both ends (libsnic-transport.so: send_sack).
# Suite pfc (role pfc): the lossless mode's many-QP perftest runs (pfc_apps:
# ib_write_bw -q 256, -q 1000, -q 1024, ib_send_bw -q 64 and -q 256, with no frame dropped by
# either engine; tests/vm/vm-tests.sh runs it as its own pair with vm-pair.sh --lossless:
# every frame one engine sent reached the other or was dropped by a host socket).
#
# Each application is one step on both sides, named alike: side b starts the server (under
# timeout) and waits until it listens on its TCP port, both meet at a barrier, side a runs
# the client (under timeout); both must exit 0. Figures are logged by side a as
#   SNIC-RESULT name=NAME key=value ...
# (bw_avg_MBps, msg_rate_Mpps for the perftest *_bw; t_typical_us etc. for *_lat;
# usec_per_iter, Mbit_s for ibv_*_pingpong), for scripts/bench-vm.sh and for grep.
# shellcheck source=scripts/guest/roles/lib.sh
. /roles/lib.sh
# shellcheck source=scripts/guest/roles/lib-ulp.sh
. /roles/lib-ulp.sh

NIC=${SNIC_NIC:-snic}
case $NIC in
    snic) DEV=${SNIC_RDMADEV:-snic_0} ;;
    *) DEV=${SNIC_RDMADEV:-rxe0} ;;
esac
SUITE=${SNIC_VERBS_SUITE:-apps}
GIDX=
TCP_PORT=18515      # the first application's OOB port; each next one takes the next port
LOGD=/tmp/verbs-apps
mkdir -p "$LOGD"
echo "verbs-apps: suite $SUITE, nic $NIC, RDMA device $DEV"

# --- set-up ----------------------------------------------------------------------------
# The GID index of ::ffff:<own IP>, RoCE v2 (gid_check prints it), into GIDX.
find_gid() {
    local i=0 out
    while :; do
        out=$(gid_check "$DEV" 2>&1)
        GIDX=$(printf '%s\n' "$out" | sed -n 's/^gid_check: .* is GID\[\([0-9]*\)\], RoCE v2$/\1/p')
        [ -n "$GIDX" ] && break
        i=$((i + 1))
        if [ $i -ge 20 ]; then
            printf '%s\n' "$out"
            return 1
        fi
        sleep 1
    done
    printf '%s\n' "$out"
    echo "verbs-apps: $DEV GID index $GIDX (::ffff:$OWN_IP, RoCE v2)"
}

# --- one application, server on b and client on a ----------------------------------------
# Is something listening on TCP port $1 (IPv4 or IPv6)? /proc/net/tcp*: local port in hex,
# state 0A = LISTEN.
# rdma_cm servers (rping, ucmatose, perftest -R) listen on an RDMA CM port instead: a cm_id
# in state LISTEN with that source port (`rdma resource show cm_id` prints
# "... state LISTEN ... src-addr 10.0.0.2:18515 ...").
listening() {
    local hex
    hex=$(printf '%04X' "$1")
    cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p=":$hex" '$2 ~ p"$" && $4 == "0A" { f = 1 } END { exit !f }' ||
        rdma resource show cm_id 2>/dev/null | grep -Eq "state LISTEN.* src-addr [^ ]*:$1( |$)"
}

# Parse an application's output ($2) into one SNIC-RESULT line for NAME ($1).
report() {
    local name=$1 log=$2 line
    # perftest: a header line with "#bytes", then one data line.
    if grep -q 'BW average' "$log"; then
        line=$(awk '/#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ && NF >= 5 { print; exit }' "$log")
        [ -n "$line" ] || { echo "verbs-apps: $name: no result line in the output"; return 1; }
        set -- $line
        echo "SNIC-RESULT name=$name bytes=$1 iters=$2 bw_peak_MBps=$3 bw_avg_MBps=$4 msg_rate_Mpps=$5"
    elif grep -q 't_typical' "$log"; then
        line=$(awk '/#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ && NF >= 7 { print; exit }' "$log")
        [ -n "$line" ] || { echo "verbs-apps: $name: no result line in the output"; return 1; }
        set -- $line
        echo "SNIC-RESULT name=$name bytes=$1 iters=$2 t_min_us=$3 t_max_us=$4 t_typical_us=$5 t_avg_us=$6 t_stdev_us=$7 t_p99_us=${8:-} t_p999_us=${9:-}"
    elif grep -q 'usec/iter' "$log"; then
        # "8192000 bytes in 3.41 seconds = 19.22 Mbit/sec" / "1000 iters in 3.41 seconds = 3410.55 usec/iter"
        awk -v n="$name" '
            / bytes in .* Mbit\/sec/ { mb = $(NF - 1); bytes = $1 }
            / iters in .* usec\/iter/ { us = $(NF - 1); iters = $1 }
            END { printf "SNIC-RESULT name=%s bytes=%s iters=%s Mbit_s=%s usec_per_iter=%s\n", n, bytes, iters, mb, us }' "$log"
    elif grep -q 'usec/xfer' "$log"; then
        # fi_pingpong: "bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec", then a row
        awk -v n="$name" '/usec\/xfer/ { h = 1; next }
            h && NF >= 8 { printf "SNIC-RESULT name=%s bytes=%s iters=%s MBps=%s usec_per_xfer=%s\n", n, $1, $2, $6, $7; exit }' "$log"
    elif grep -q '^rpc-check\[client\]: PASS' "$log"; then
        awk -v n="$name" '/check a: PASS/ { t = $0; sub(/.*elements? by key, /, "", t); sub(/ ms per.*/, "", t) }
            / RPCs answered as expected/ { r = $2 }
            END { printf "SNIC-RESULT name=%s result=PASS rpcs=%s list_lookup_ms=%s\n", n, r, t }' "$log"
    elif grep -q '^verbs-check\[client\]: PASS' "$log"; then
        awk -v n="$name" '/check a: PASS/ { w = $0; sub(/.* s, /, "", w); sub(/ MB\/s.*/, "", w) }
            /check b: PASS/ { r = $0; sub(/.* s, /, "", r); sub(/ MB\/s.*/, "", r) }
            END { printf "SNIC-RESULT name=%s result=PASS write_1MiB_MBps=%s read_1MiB_MBps=%s\n", n, w, r }' "$log"
    fi
}

# Side b: start the server in the background, then wait (up to 60 s) until it listens.
server_start() {
    local name=$1 tmo=$2 port=$3 i=0
    shift 3
    echo "--- $name server: timeout $tmo $* $APP_PORT_OPT_SERVER $port"
    timeout "$tmo" "$@" "$APP_PORT_OPT_SERVER" "$port" >"$LOGD/$name.log" 2>&1 &
    SERVER_PID=$!
    while ! listening "$port"; do
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then
            echo "verbs-apps: $name server exited before listening on port $port"
            return 1
        fi
        i=$((i + 1))
        [ $i -ge 120 ] && { echo "verbs-apps: $name server not listening on port $port after 60 s"; rdma resource show cm_id; return 1; }
        sleep 0.5
    done
    echo "verbs-apps: $name server listens on TCP port $port"
}

# An application that must fail (XFAIL set to a grep -E pattern by the caller): passes when
# it exited 1 and its output ($2) has the pattern. $1 = its exit status.
xfail_ok() {
    if [ "$1" = 1 ] && grep -Eq "$XFAIL" "$2"; then
        echo "verbs-apps: failed as it must (exit 1, output matches '$XFAIL')"
        return 0
    fi
    echo "verbs-apps: expected exit 1 and output matching '$XFAIL', got exit $1"
    return 1
}

# Side b, the step: the server's exit status and output ($2 = started: it listened).
server_done() {
    local name=$1 started=$2 rc=0
    [ "$started" = 1 ] || kill "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" || rc=$?
    [ "$started" = 1 ] || [ "$rc" != 0 ] || rc=1
    cat "$LOGD/$name.log"
    [ "$rc" = 124 ] && echo "verbs-apps: $name server timed out"
    echo "verbs-apps: $name server exit $rc"
    if [ -n "$XFAIL" ] && [ "$started" = 1 ]; then
        xfail_ok "$rc" "$LOGD/$name.log"
        return
    fi
    return "$rc"
}

# Side a, the step: run the client, log its output and figures.
client_run() {
    local name=$1 tmo=$2 rc=0
    shift 2
    timeout "$tmo" "$@" >"$LOGD/$name.log" 2>&1 || rc=$?
    cat "$LOGD/$name.log"
    [ "$rc" = 124 ] && echo "verbs-apps: $name client timed out after ${tmo}s"
    echo "verbs-apps: $name client exit $rc"
    if [ -n "$XFAIL" ]; then
        xfail_ok "$rc" "$LOGD/$name.log"
        return
    fi
    [ "$rc" = 0 ] || return "$rc"
    report "$name" "$LOGD/$name.log"
}

# --- lossless mode: many QPs at once ----------------------------------------------
# The port's receive buffer and PFC counters and the engine's, one line each.
pfc_counters() {
    local c
    for c in rdma_rx_packets rdma_rx_dropped rdma_rx_stale rdma_tx_packets rdma_timeouts rdma_rtx_segments tx_dropped pfc_pause_sent pfc_pause_recv pfc_paused_ns rx_buffer_max rx_buffer_drops; do
        echo "counter $c $(cat /sys/class/infiniband/$DEV/ports/1/hw_counters/$c)"
    done
}

# The counters named did not change since counters_snapshot.
counters_same() {
    local c b a
    for c in "$@"; do
        b=$(cat "$LOGD/$c.before") a=$(cat "/sys/class/infiniband/$DEV/ports/1/hw_counters/$c")
        echo "$c: $b -> $a"
        [ "$a" = "$b" ] || { echo "$c changed"; return 1; }
    done
}

# The growth of hw counter $1 since counters_snapshot.
counter_delta() {
    echo $(( $(cat "/sys/class/infiniband/$DEV/ports/1/hw_counters/$1") - $(cat "$LOGD/$1.before") ))
}

# Lossless: the port's buffer dropped no frame, and every RoCE frame the peer's engine sent
# (its rdma_tx_packets growth, $SNIC_PEER_VALUE) reached this engine (its rdma_rx_packets
# growth) or is one the host dropped on the wire: the host's UDP socket of a -netdev dgram
# wire is the one buffer PFC cannot see, and a host that deschedules this VM for long
# enough fills it before the pause arrives. The guest cannot see that socket, so it says
# what arrived on an SNIC-WIRE line and scripts/vm-pair.sh --lossless settles the account
# against the socket's drop count. The engine may still drop answers as stale: a sender
# that PFC paused for longer than its ACK timeout resends what is on its way, and the first
# answer completes it (rdma_timeouts, rdma_rx_stale).
pfc_lossless() {
    local rx
    rx=$(counter_delta rdma_rx_packets)
    echo "RoCE frames: the peer sent $SNIC_PEER_VALUE, this engine received $rx;" \
        "dropped $(counter_delta rdma_rx_dropped), stale $(counter_delta rdma_rx_stale);" \
        "retransmission timeouts $(counter_delta rdma_timeouts)"
    counters_same rx_buffer_drops || return 1
    case $SNIC_PEER_VALUE in
        ''|*[!0-9]*) echo "the peer did not say what it sent"; return 1 ;;
    esac
    if [ "$rx" -gt "$SNIC_PEER_VALUE" ]; then
        echo "received more than the peer sent"
        return 1
    fi
    echo "SNIC-WIRE peer_sent=$SNIC_PEER_VALUE received=$rx"
}

# Bursts far beyond what the receiving engine takes at once (without PFC these
# failed with RETRY_EXC, the receiver dropping thousands of frames). With PFC (the default)
# the receiver pauses the sender instead: every run completes and no frame is lost
# (pfc_lossless). perftest sends iterations x QPs messages: small -n. SNIC_PFC_APPS
# (snicvm.pfc_apps=) picks some by name, comma-separated.
pfc_apps() {
    local t
    step pfc-counters-before counters_snapshot rdma_rx_packets rdma_tx_packets rdma_rx_dropped \
        rx_buffer_drops rdma_rx_stale rdma_timeouts
    for t in write-q256 write-q1000 send-q64 write-q1024 send-q256; do
        case ",${SNIC_PFC_APPS:-$t}," in *",$t,"*) ;; *) continue ;; esac
        case $t in
            write-q256) app $t 180 ib_write_bw $P -q 256 -t 64 -s 4096 -n 5 ;;
            write-q1000) app $t 180 ib_write_bw $P -q 1000 -t 16 -n 5 ;;
            send-q64) app $t 180 ib_send_bw $P -q 64 -s 65536 -n 5 ;;
            write-q1024) app $t 240 ib_write_bw $P -q 1024 -n 5 ;;
            send-q256) app $t 240 ib_send_bw $P -q 256 -n 5 ;;
        esac
    done
    step pfc-counters pfc_counters
    [ "$NIC" = snic ] || return 0
    # both sides done and the last frames landed, each tells the other what it sent
    barrier pfc-done
    sleep 2
    barrier pfc-sent "$(counter_delta rdma_tx_packets)"
    step pfc-lossless pfc_lossless
}

# --- SRNIC selective repeat -----------------------------------------
# Unmodified applications with SRNIC chosen on each RC QP before RTR through snicdv
SR_PRELOAD="env SNIC_TRANSPORT=SRNIC LD_PRELOAD=/usr/local/lib/libsnic-transport.so"

# A perftest result's bw_avg_MBps from its SNIC-RESULT (side a logs them)
bw_of() {
    report "$1" "$LOGD/$1.log" | sed -n 's/.* bw_avg_MBps=\([0-9.]*\).*/\1/p'
}

# ib_write_bw's goodput with SRNIC beside go-back-N's, on the same lossy wire
srnic_vs_gbn() {
    local gbn sr
    gbn=$(bw_of ib_write_bw_gbn) sr=$(bw_of ib_write_bw_srnic)
    if [ -z "$gbn" ] || [ -z "$sr" ]; then
        echo "verbs-apps: no ib_write_bw result to compare"
        return 1
    fi
    awk -v g="$gbn" -v s="$sr" 'BEGIN {
        printf "SNIC-RESULT name=srnic-vs-gbn gbn_MBps=%s srnic_MBps=%s srnic_over_gbn=%.2f\n", g, s, (g > 0 ? s / g : 0) }'
}

# Every application's QPs run SRNIC at both ends (the preload logs "QP N runs SRNIC") and
# pass by content where they check it (verbs-check, transport-check); this end's host half
# took the device's CtrlQ entries, all of them, and the device refused none of the RetryQ
# entries it posted (sr_retry_refused 0: guest errors only; nor any READ response,
# sr_read_refused 0; a correct host's decision that
# the device overtook, a resend posted just after it left recovery by itself or an ePSN
# update it passed meanwhile, is stale, skipped and counted in sr_retry_stale, printed).
srnic_apps() {
    [ "$NIC" = snic ] || return 0
    step transport-list transport-check -d "$DEV" -l
    step sr-counters-before counters_snapshot sr_host_entries sr_ctrlq_entries sr_host_epsn_posted
    app ib_write_bw_gbn 180 ib_write_bw $P -s 65536 -n 500
    app ib_write_bw_srnic 180 $SR_PRELOAD ib_write_bw $P -s 65536 -n 500
    # ib_write_bw's server (side b, the responder) never calls libibverbs during the run: the
    # new ePSNs its recovery needed (two holes or more at once) came from the kernel alone
    if [ "$SNIC_SIDE" = b ]; then
        step idle-responder-recovered counters_grew sr_host_epsn_posted
    else
        step srnic-vs-gbn srnic_vs_gbn
    fi
    step sr-read-before counters_snapshot sr_read_placed sr_read_resent
    app ib_read_bw_srnic 180 $SR_PRELOAD ib_read_bw $P -s 65536 -n 200
    # ib_read_bw's client (side a) READs from the server (b): a placed responses out of order
    # (SRNIC 4.4.1), b answered the holes a's kernel asked for again, and only those
    if [ "$SNIC_SIDE" = a ]; then
        step sr-read-placed counters_grew sr_read_placed
    else
        step sr-read-holes counters_grew sr_read_resent
    fi
    app ib_send_bw_srnic 180 $SR_PRELOAD ib_send_bw $P -s 65536 -n 200
    app verbs-check-srnic 180 $SR_PRELOAD verbs-check -d "$DEV" -g "$GIDX"
    app transport-srnic 180 transport-check -d "$DEV" -g "$GIDX" -P SRNIC -n 300
    # the same recovery under DCTCP's window (SRNIC section 5; the RetryQ is the kernel's too)
    app ib_write_bw_srnic_dctcp 180 env SNIC_TRANSPORT=SRNIC-DCTCP \
        LD_PRELOAD=/usr/local/lib/libsnic-transport.so ib_write_bw $P -s 65536 -n 300
    app transport-srnic-dctcp 180 transport-check -d "$DEV" -g "$GIDX" -P SRNIC-DCTCP -n 200
    step srnic-selected grep -c "runs SRNIC" "$LOGD/ib_write_bw_srnic.log" "$LOGD/ib_read_bw_srnic.log" \
        "$LOGD/ib_send_bw_srnic.log" "$LOGD/verbs-check-srnic.log"
    step srnic-dctcp-selected grep -c "runs SRNIC-DCTCP" "$LOGD/ib_write_bw_srnic_dctcp.log"
    step sr-host-worked counters_grew sr_host_entries sr_ctrlq_entries
    step sr-host-took-all sh -c "cd /sys/class/infiniband/$DEV/ports/1/hw_counters &&
        grep . sr_* wire_*_injected && [ \$(cat sr_host_entries) = \$(cat sr_ctrlq_entries) ]"
    step sr-none-refused sh -c "cd /sys/class/infiniband/$DEV/ports/1/hw_counters &&
        grep . sr_retry_refused sr_retry_stale sr_read_refused &&
        [ \$(cat sr_retry_refused) = 0 ] && [ \$(cat sr_read_refused) = 0 ]"
}

# --- isolation and teardown (suite isolation) -------------------------------------------
counters_snapshot() {
    local c
    for c in "$@"; do
        cat "/sys/class/infiniband/$DEV/ports/1/hw_counters/$c" > "$LOGD/$c.before" || return 1
        echo "$c: $(cat "$LOGD/$c.before")"
    done
}

counters_grew() {
    local c b a
    for c in "$@"; do
        b=$(cat "$LOGD/$c.before") a=$(cat "/sys/class/infiniband/$DEV/ports/1/hw_counters/$c")
        echo "$c: $b -> $a"
        [ "$a" -gt "$b" ] || { echo "$c did not grow"; return 1; }
    done
}

# A device counter (hw_counters, as `rdma statistic` shows them)
hw() {
    cat "/sys/class/infiniband/$DEV/ports/1/hw_counters/$1"
}

# Malformed uverbs commands (tests/vm/uverbs-check.c): each refused with an errno, nothing
# left on the device, no guest error counted (the driver refuses them before the device
# sees them), a clean kernel log.
uverbs_hostile() {
    local ge rc=0
    ge=$(hw guest_errors)
    timeout 120 uverbs-check -d "$DEV" -g "$GIDX" || rc=1
    echo "guest_errors: $ge -> $(hw guest_errors)"
    [ "$(hw guest_errors)" = "$ge" ] || { echo "the device counted guest errors"; rc=1; }
    dmesg_clean || rc=1
    return $rc
}

# The device's object gauges now ($1 = save) or again ($1 = same: unchanged since save)
gauges() {
    local o rc=0
    for o in obj_qps obj_cqs obj_mrs obj_mws obj_pds; do
        if [ "$1" = save ]; then
            hw $o > "$LOGD/$o.gauge"
        else
            echo "$o: $(cat "$LOGD/$o.gauge") -> $(hw $o)"
            [ "$(hw $o)" = "$(cat "$LOGD/$o.gauge")" ] || rc=1
        fi
    done
    return $rc
}

# ibv_dereg_mr of an MR with a memory window bound fails with EBUSY and keeps the MR
# (uverbs-check -M); the process exits with such an MR left: the RDMA core's cleanup
# frees it after the window, the gauges are back where they were.
mw_dereg_refused() {
    local rc=0
    gauges save
    timeout 60 uverbs-check -d "$DEV" -g "$GIDX" -M || rc=1
    retry 10 gauges same || rc=1
    dmesg_clean || rc=1
    return $rc
}

# User contexts are bounded per cgroup by the rdma controller (hca_handle): with
# hca_handle=4 a process in the cgroup opens 4 contexts and the fifth fails, while a
# process outside it still opens one.
cgroup_contexts() {
    local cg=/sys/fs/cgroup rc=0 pid i=0
    # docs/guest-stack.md shows these commands
    grep -q " $cg cgroup2 " /proc/mounts || mount -t cgroup2 none $cg || return 1
    grep -qw rdma $cg/cgroup.controllers || { echo "no rdma controller in $cg"; return 1; }
    echo +rdma > $cg/cgroup.subtree_control || return 1
    mkdir -p $cg/rdma-users || return 1
    echo "$DEV hca_handle=4" > $cg/rdma-users/rdma.max || return 1
    echo "rdma.max: $(cat $cg/rdma-users/rdma.max)"
    sh -c "echo \$\$ > $cg/rdma-users/cgroup.procs && exec uverbs-check -d $DEV -c 4 -x -H 4" \
        > "$LOGD/contexts-in.log" 2>&1 &
    pid=$!
    until grep -q holding "$LOGD/contexts-in.log"; do
        i=$((i + 1))
        [ $i -ge 60 ] && { echo "no 'holding' line in 30 s"; rc=1; break; }
        sleep 0.5
    done
    echo "rdma.current: $(cat $cg/rdma-users/rdma.current)"
    grep -q "$DEV hca_handle=4" $cg/rdma-users/rdma.current || rc=1
    echo "outside the cgroup:"
    timeout 30 uverbs-check -d "$DEV" -c 1 || rc=1
    wait $pid || rc=1
    echo "inside the cgroup:"
    cat "$LOGD/contexts-in.log"
    rmdir $cg/rdma-users || rc=1
    return $rc
}

attacker_done() {
    wait "$ATTACKER"
    cat "$LOGD/attacker.log"
    grep -q '^rc=0$' "$LOGD/attacker.log"
}

# srq-pool-share: on VM b, srq-hold (tests/vm/srq-hold.c) holds its context's whole share
# of the device's SRQ receive pool mid-message (loopback QPs whose SENDs stop after their
# first packet) while another process's ibv_srq_pingpong on the same device (the server,
# VM b) passes; srq-hold then sees its holds let go (IBV_WC_REM_ABORT_ERR after the
# receivers' retry time) and the SEND that waited for an entry land.
srq_pool_share() {
    [ "$SNIC_SIDE" = b ] && step srq-pool-share-hold srq_hold_start
    app srq-pool-share 120 ibv_srq_pingpong -d "$DEV" -g "$GIDX" -q 4 -n 100 -s 4096 -c
    [ "$SNIC_SIDE" = b ] && step srq-pool-share-released srq_hold_done
    return 0
}

srq_hold_start() {
    local i=0
    rm -f "$LOGD/srq-hold.ready"
    ( srq-hold -d "$DEV" -g "$GIDX" -r "$LOGD/srq-hold.ready" > "$LOGD/srq-hold.log" 2>&1
      echo "rc=$?" >> "$LOGD/srq-hold.log" ) &
    SRQ_HOLD=$!
    while [ ! -f "$LOGD/srq-hold.ready" ]; do
        if grep -q '^rc=' "$LOGD/srq-hold.log" 2>/dev/null || [ $i -ge 600 ]; then
            cat "$LOGD/srq-hold.log"
            return 1
        fi
        sleep 0.2
        i=$((i + 1))
    done
    cat "$LOGD/srq-hold.log"
}

srq_hold_done() {
    # the pingpong ended while every hold was still in place
    if grep -q 'hold let go' "$LOGD/srq-hold.log"; then
        cat "$LOGD/srq-hold.log"
        echo "verbs-apps: srq-hold let go of its share before the SRQ pingpong ended"
        return 1
    fi
    wait "$SRQ_HOLD"
    cat "$LOGD/srq-hold.log"
    grep -q '^rc=0$' "$LOGD/srq-hold.log"
}

# QPs (`rdma resource show qp`) that a process still holds.
qps_of() {
    rdma resource show qp 2>/dev/null | grep -E " pid $1( |$)"
}

# Side a starts a long ib_write_bw client and kills it with SIGKILL mid-run; side b then
# kills its server, which waits for a peer that is gone. Both check that the dead process
# left no QP behind (the RDMA core destroyed them through the driver).
killed_run() {
    local port=$TCP_PORT pid
    TCP_PORT=$((TCP_PORT + 1))
    if [ "$SNIC_SIDE" = b ]; then
        server_start killed 120 "$port" ib_write_bw $P -s 65536 -n 1000000 || true
        barrier killed-start
        barrier killed-done
        pid=$SERVER_PID
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    else
        barrier killed-start
        timeout 120 ib_write_bw $P -s 65536 -n 1000000 -p "$port" "$PEER_IP" > "$LOGD/killed.log" 2>&1 &
        pid=$!
        sleep 4
        step client-running kill -0 "$pid"
        # timeout's child is the client: kill the whole process group's perftest
        pkill -9 -x ib_write_bw
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        barrier killed-done
    fi
    step qps-released retry 10 sh -c "! rdma resource show qp | grep -q ib_write_bw"
}

# --- faults at run time (suites lossy and isolation) ----------------------------------------
# The host side of the pair changes the devices while they run (QMP qom-set and set_link, from
# scripts/guest/roles/lossy.host and isolation.host); side a names the points (`host`).

# A started client (side a) whose standard input is a FIFO the role writes to (fd 8): for
# verbs-check -W and -E, which wait for a line there. flap_client_start NAME ARGS...
flap_client_start() {
    local name=$1
    shift
    rm -f "$LOGD/$name.in"
    mkfifo "$LOGD/$name.in" || return 1
    exec 8<>"$LOGD/$name.in"
    timeout 120 "$@" < "$LOGD/$name.in" > "$LOGD/$name.log" 2>&1 &
    FLAP_PID=$!
}

# Wait (SECS) until the client's output has PATTERN; false if it exited or time ran out.
flap_client_says() {
    local name=$1 pattern=$2 secs=$3 i=0
    while ! grep -Eq "$pattern" "$LOGD/$name.log"; do
        kill -0 "$FLAP_PID" 2>/dev/null || { echo "verbs-apps: $name exited before '$pattern'"; return 1; }
        i=$((i + 1))
        [ $i -ge $((secs * 10)) ] && { echo "verbs-apps: no '$pattern' from $name in ${secs}s"; return 1; }
        sleep 0.1
    done
}

# The client's exit status, its output; fd 8 closed.
flap_client_done() {
    local name=$1 rc=0
    wait "$FLAP_PID" || rc=$?
    exec 8>&-
    cat "$LOGD/$name.log"
    echo "verbs-apps: $name client exit $rc"
    return "$rc"
}

# Side a: verbs-check's checks run while the host takes this VM's link down for 1 s
# (link-flap-short: set_link off, sleep 1, set_link on): the client waits (-W) until the
# carrier is gone, then its QPs retry until the link is back (268 ms x 8 of budget) and every
# check passes by content.
flap_short_client() {
    local port=$1 rc=0
    flap_client_start link-flap-short verbs-check -d "$DEV" -g "$GIDX" -W -p "$port" "$PEER_IP" || return 1
    flap_client_says link-flap-short 'waiting for a line' 60 &&
        host_ask link-flap-short && carrier_is 0 || rc=1
    echo go >&8
    host_wait link-flap-short || rc=1
    flap_client_done link-flap-short || rc=1
    return "$rc"
}

# Side a: ibv_asyncwatch saw the port go down, then come back (IB_EVENT_PORT_ERR, then
# IB_EVENT_PORT_ACTIVE after it).
port_events_seen() {
    local i=0
    while ! awk '/PORT_ERR/ { e = 1 } e && /PORT_ACTIVE/ { f = 1 } END { exit !f }' "$LOGD/asyncwatch.log"; do
        i=$((i + 1))
        [ $i -ge 100 ] && break
        sleep 0.1
    done
    kill "$ASYNCWATCH" 2>/dev/null
    wait "$ASYNCWATCH" 2>/dev/null
    cat "$LOGD/asyncwatch.log"
    awk '/PORT_ERR/ { e = 1 } e && /PORT_ACTIVE/ { f = 1 } END { exit !f }' "$LOGD/asyncwatch.log" ||
        { echo "verbs-apps: no PORT_ERR followed by PORT_ACTIVE"; return 1; }
}

# Side a: the link down for longer than a QP's retry budget (link-flap-long): the WRITE the
# client posts once the carrier is gone fails with RETRY_EXC within the budget + 2 s
# (verbs-check -E 2), nothing hangs; the link comes back whatever happened.
flap_long_client() {
    local port=$1 rc=0
    flap_client_start link-flap-long verbs-check -d "$DEV" -g "$GIDX" -E 2 -p "$port" "$PEER_IP" || return 1
    if flap_client_says link-flap-long 'waiting for a line' 60 && host link-down && carrier_is 0; then
        echo down >&8
        flap_client_says link-flap-long 'check E: (PASS|FAIL)|FAIL:' 30 || rc=1
    else
        rc=1
    fi
    host link-up || rc=1
    carrier_is 1 || rc=1
    echo up >&8
    flap_client_done link-flap-long || rc=1
    return "$rc"
}

# lossy: wire-drop set on the running devices (qom-set-drop: 0, then 5 on both, then 1 on
# VM b) and this VM's link taken down twice, under checked traffic.
lossy_run_time() {
    local port ok
    [ "$NIC" = snic ] || return 0
    # wire-drop 0: over 5 s of ib_write_bw neither device drops a frame (both send: data, ACKs)
    [ "$SNIC_SIDE" = a ] && step qom-set-drop-0-set host drop-0
    barrier drop-0
    step drop-0-before counters_snapshot wire_drops_injected rdma_tx_packets
    app ib_write_bw_drop0 60 ib_write_bw $P -s 65536 -D 5
    step qom-set-drop-0 counters_same wire_drops_injected
    step qom-set-drop-0-traffic counters_grew rdma_tx_packets
    # wire-drop 5: this device drops what it sends again
    [ "$SNIC_SIDE" = a ] && step qom-set-drop-5-set host drop-5
    barrier drop-5
    step drop-5-before counters_snapshot wire_drops_injected
    app ib_write_bw_drop5 120 ib_write_bw $P -s 65536 -n 100
    [ "$SNIC_SIDE" = a ] && step qom-set-drop-5 counters_grew wire_drops_injected
    # wire-drop 1 on VM b, 0 on VM a: a transfer checked by content. ibv_rc_pingpong's
    # client (a) destroys its QP once the last pong is in; were that pong's ACK lost, the
    # server's last SEND could only time out (the application's race, not the transport's)
    [ "$SNIC_SIDE" = a ] && step qom-set-drop-1-set host drop-1
    barrier drop-1
    app qom-set-drop-1 120 ibv_rc_pingpong -d "$DEV" -g "$GIDX" -n 200 -s 4096 -c

    port=$TCP_PORT
    TCP_PORT=$((TCP_PORT + 1))
    if [ "$SNIC_SIDE" = b ]; then
        ok=1
        server_start link-flap-short 120 "$port" verbs-check -d "$DEV" -g "$GIDX" || ok=0
        barrier link-flap-short
        step link-flap-short server_done link-flap-short "$ok"
    else
        ibv_asyncwatch -d "$DEV" > "$LOGD/asyncwatch.log" 2>&1 &
        ASYNCWATCH=$!
        barrier link-flap-short
        step link-flap-short flap_short_client "$port"
        step link-flap-short-port-events port_events_seen
    fi
    port=$TCP_PORT
    TCP_PORT=$((TCP_PORT + 1))
    if [ "$SNIC_SIDE" = b ]; then
        ok=1
        server_start link-flap-long 120 "$port" verbs-check -d "$DEV" -g "$GIDX" -E 2 || ok=0
        barrier link-flap-long
        step link-flap-long server_done link-flap-long "$ok"
    else
        barrier link-flap-long
        step link-flap-long flap_long_client "$port"
    fi
    # new QPs once the link is back
    app verbs-check-after-link 120 verbs-check -d "$DEV" -g "$GIDX"
}

# isolation, side a: the device fails the next 3 CREATE_QP commands (admin-fail:
# x-admin-fail-opcode CREATE_QP, x-admin-fail-count 3): each ibv_create_qp returns an errno,
# the next one works (verbs-check -C 3), the device holds what it held before, and snic.ko
# unloads and loads again.
admin_fail() {
    [ "$NIC" = snic ] && [ "$SNIC_SIDE" = a ] || return 0
    step admin-fail-before counters_snapshot obj_qps obj_cqs obj_mrs obj_pds obj_srqs obj_mws
    step admin-fail-armed host admin-fail
    step admin-fail verbs-check -d "$DEV" -g "$GIDX" -C 3
    step admin-fail-objects counters_same obj_qps obj_cqs obj_mrs obj_pds obj_srqs obj_mws
    step admin-fail-rmmod rmmod snic
    step admin-fail-modprobe modprobe snic
    step admin-fail-net-up net_up snic
    step admin-fail-port-active retry 20 port_active "$DEV"
}

# app_cm NAME SECS "SERVER ARGS" "CLIENT ARGS": for rdma_cm tools whose client names the
# server by an option rather than a last argument; both get -p PORT.
app_cm() {
    local name=$1 tmo=$2 port=$TCP_PORT ok=1
    TCP_PORT=$((TCP_PORT + 1))
    if [ "$SNIC_SIDE" = b ]; then
        server_start "$name" "$tmo" "$port" $3 || ok=0
        barrier "$name"
        step "$name" server_done "$name" "$ok"
    else
        barrier "$name"
        step "$name" client_run "$name" "$tmo" $4 -p "$port"
    fi
}

# app NAME SECS CMD...: CMD -p PORT on side b (server), CMD -p PORT PEER-IP on side a.
# With XFAIL=PATTERN both sides must exit 1 with PATTERN in their output instead.
# APP_PORT_OPT_SERVER and _CLIENT: the port's option where it is not -p.
XFAIL=
APP_PORT_OPT_SERVER=-p
APP_PORT_OPT_CLIENT=-p
# The log of application $1 on this side has a line containing $2 (shown).
log_shows() {
    grep -F "$2" "$LOGD/$1.log" || { echo "no '$2' in $1's log"; return 1; }
}

app() {
    local name=$1 tmo=$2 port=$TCP_PORT ok=1
    shift 2
    TCP_PORT=$((TCP_PORT + 1))
    if [ -z "$GIDX" ]; then
        # Keep the barriers in step with the peer even when there is nothing to run.
        barrier "$name"
        step "$name" sh -c "echo 'verbs-apps: no GID index for $DEV: $name not run'; exit 1"
        return
    fi
    if [ "$SNIC_SIDE" = b ]; then
        server_start "$name" "$tmo" "$port" "$@" || ok=0
        barrier "$name"
        step "$name" server_done "$name" "$ok"
    else
        barrier "$name"
        step "$name" client_run "$name" "$tmo" "$@" "$APP_PORT_OPT_CLIENT" "$port" "$PEER_IP"
    fi
}

# Tonic transport programs chosen through snicdv (snic only): transport-check lists the
# device's programs (tests/vm/transport-check.c), then runs its WRITE test (n 64 KiB
# WRITEs, content-checked by the server) once per program with that program selected on
# both QPs before RTR. $2 = the program that must see CNPs (-e: the devices mark ECN,
# wire-ecn-mark), or -.
transport_apps() {
    local n=$1 ecn_prog=$2 p e
    [ "$NIC" = snic ] || return 0
    step transport-list transport-check -d "$DEV" -l
    for p in $(transport-check -d "$DEV" -l | awk '{ print $2 }'); do
        e=
        [ "$p" = "$ecn_prog" ] && e=-e
        app "transport-$p" 180 transport-check -d "$DEV" -g "$GIDX" -P "$p" -n "$n" $e
    done
}

# ib_send_bw with SACK on both ends (snic only): perftest checks no content, transport-check
# and the unit suite do; this shows the selection took (each end's QP says "runs SACK") and
# prints the QP's retransmitted segments beside the frames this device dropped meanwhile.
send_sack() {
    local c=/sys/class/infiniband/$DEV/ports/1/hw_counters/wire_drops_injected
    [ "$NIC" = snic ] || return 0
    cat "$c" > "$LOGD/send-sack.drops"
    app ib_send_bw_sack 120 env SNIC_TRANSPORT=SACK LD_PRELOAD=/usr/local/lib/libsnic-transport.so \
        ib_send_bw $P -s 65536 -n 200
    step ib_send_bw_sack-selected sh -c "grep 'snic-transport:' $LOGD/ib_send_bw_sack.log &&
        grep -q 'QP [0-9]* runs SACK' $LOGD/ib_send_bw_sack.log &&
        echo \"frames this device dropped meanwhile: \$((\$(cat $c) - \$(cat $LOGD/send-sack.drops)))\""
}

# Every transport program, on a wire that marks ECN (vm-tests.sh gives the snic devices
# wire-ecn-mark=10, which touches only ECN-capable frames: DCQCN's): DCQCN's CNPs flow and
# this device marked frames.
transport_ecn() {
    [ "$NIC" = snic ] || return 0
    transport_apps 300 DCQCN
    step ce-marked sh -c "cat /sys/class/infiniband/$DEV/ports/1/hw_counters/wire_ce_marked &&
        [ \$(cat /sys/class/infiniband/$DEV/ports/1/hw_counters/wire_ce_marked) -gt 0 ]"
}

# The connectionless transport's counters (rdma statistic): the sender (a) resent lost
# packets, the receiver (b) parked packets that came before their REGISTER.
cl_counters() {
    local stats want
    stats=$(rdma statistic show link "$DEV/1" | tr ' ' '\n' |
            awk 'p { print p, $1; p = "" } /^cl_/ { p = $1 }')
    printf '%s\n' "$stats"
    if [ "$SNIC_SIDE" = a ]; then want=cl_retransmits; else want=cl_escape_parked; fi
    printf '%s\n' "$stats" | awk -v w="$want" '$1 == w && $2 > 0 { f = 1 } END { exit !f }' ||
        { echo "cl_counters: $want is not above 0"; return 1; }
}

# The applications that need a shared receive queue: ibv_srq_pingpong (4 QPs on
# one SRQ, polling and events) and ib_send_bw --use-srq. (No `ib_send_bw -I`: Debian 12's
# perftest turns inline off on devices it does not know, rxe and snic alike: "Device not
# recognized to implement inline feature"; verbs-check checks inline data instead.)
srq_apps() {
    app srq-pingpong 120 ibv_srq_pingpong -d "$DEV" -g "$GIDX" -q 4 -n 250 -s 4096 -c
    app srq-pingpong-events 120 ibv_srq_pingpong -d "$DEV" -g "$GIDX" -q 4 -n 250 -s 4096 -c -e
    app ib_send_bw_srq 180 ib_send_bw $P --use-srq -s 65536 -n 1000
}

# snic's scale as the verbs show it: ibv_devinfo -v's max_qp is the device's (65536 by
# default), and the QP context size and on-chip budget are readable in sysfs.
device_scale() {
    local d=/sys/class/infiniband/$DEV f
    timeout 30 ibv_devinfo -v -d "$DEV" | grep -E '^[[:space:]]+max_qp:[[:space:]]+65536$' ||
        { echo "verbs-apps: ibv_devinfo -v does not show max_qp 65536"; return 1; }
    for f in qpc_bytes qp_onchip_bytes onchip_bytes onchip_fixed_bytes performant_qps; do
        echo "$f: $(cat "$d/$f")" || return 1
    done
    [ "$(cat "$d/qpc_bytes")" -gt 0 ] && [ "$(cat "$d/performant_qps")" -gt 0 ]
}

# The device's object gauges (hw_counters obj_*): after the 1000-QP run the device holds
# no QP (the GSI QP is not counted) and as many CQs, MRs and PDs as before (the kernel's).
objects_snapshot() {
    local o
    for o in obj_cqs obj_mrs obj_pds; do
        cat "/sys/class/infiniband/$DEV/ports/1/hw_counters/$o" > "$LOGD/$o.before" || return 1
    done
}

objects_released() {
    local d=/sys/class/infiniband/$DEV/ports/1/hw_counters o
    echo "obj_qps: $(cat $d/obj_qps)"
    [ "$(cat $d/obj_qps)" = 0 ] || return 1
    for o in obj_cqs obj_mrs obj_pds; do
        echo "$o: $(cat "$LOGD/$o.before") -> $(cat "$d/$o")"
        [ "$(cat "$d/$o")" = "$(cat "$LOGD/$o.before")" ] || return 1
    done
}

# --- the run ---------------------------------------------------------------------------
step modules-rdma modprobe_all $RDMA_MODULES
case $NIC in
    snic)
        step provider provider_present
        step modprobe-snic modprobe snic ${SNIC_KO_ARGS:-}
        step net-up net_up snic ;;
    virtio)
        step modules-rxe modprobe_all $RXE_MODULES
        step modules-virtio modprobe_all $VIRTIO_MODULES
        step net-up net_up virtio
        step rxe-add rdma link add "$DEV" type rxe netdev "$SNIC_IF" ;;
    *)
        step nic-kind sh -c "echo 'verbs-apps: SNIC_NIC must be snic or virtio, not $NIC'; exit 2" ;;
esac
step port-active retry 20 port_active "$DEV" "4096 (5)"
step gid-index find_gid
barrier net-up
case $SUITE in
    # Both devices drop frames (wire-drop): Ethernet too, so a reply may be lost.
    lossy|srnic|cl) step ping ping_peer 10 50 ;;
    *) step ping ping_peer 5 ;;
esac

P="-F -d $DEV -x $GIDX"     # perftest: no cpufreq warnings, device, GID index
case $SUITE in
    apps)
        app rc-pingpong 120 ibv_rc_pingpong -d "$DEV" -g "$GIDX" -n 1000 -s 4096 -c
        app rc-pingpong-events 120 ibv_rc_pingpong -d "$DEV" -g "$GIDX" -n 1000 -s 4096 -c -e
        # The pingpongs send inline when the QP's max_inline_data covers the size: 128 bytes
        # go inline (IBV_SEND_INLINE), checked by -c. UC: the same over an unreliable QP.
        app rc-pingpong-inline 120 ibv_rc_pingpong -d "$DEV" -g "$GIDX" -n 500 -s 128 -c
        app uc-pingpong 120 ibv_uc_pingpong -d "$DEV" -g "$GIDX" -n 500 -s 4096 -c
        # UD payload 2048 (the default) + 40 bytes of GRH: fits the RoCE MTU 4096 of MTU 9000.
        app ud-pingpong 120 ibv_ud_pingpong -d "$DEV" -g "$GIDX" -n 1000 -s 2048
        app ib_write_bw 180 ib_write_bw $P -s 65536 -n 2000
        app ib_read_bw 180 ib_read_bw $P -s 65536 -n 1000
        app ib_send_bw 180 ib_send_bw $P -s 65536 -n 1000
        app ib_write_lat 120 ib_write_lat $P -s 2 -n 1000
        app ib_read_lat 120 ib_read_lat $P -s 2 -n 1000
        srq_apps
        app verbs-check 180 verbs-check -d "$DEV" -g "$GIDX"
        # Connection scalability: 1000 RC QPs a side, each checked by content,
        # then all destroyed.
        if [ "$NIC" = snic ]; then
            step device-scale device_scale
            step objects-before objects_snapshot
        fi
        app verbs-check-1000qps 300 verbs-check -d "$DEV" -g "$GIDX" -t 120 -Q 1000
        if [ "$NIC" = snic ]; then
            step objects-released objects_released
        fi
        # StRoM RPCs through libsnic's snicdv calls (snic only: rxe has no RPCs)
        if [ "$NIC" = snic ]; then
            app rpc-check 180 rpc-check -d "$DEV" -g "$GIDX" -S
            # its shuffle check on its own line: a's three RPC WRITEs, b's partitions
            step rpc-shuffle log_shows rpc-check \
                "$([ "$SNIC_SIDE" = a ] && echo 'check h: PASS' || echo 'check h: every one of')"
            app strom-bench 180 strom-bench -d "$DEV" -g "$GIDX" -n 10 -L 1,8,32 -V 64,4096 -O 64,16384
            # a HyperLogLog sketch on b's QP counts a's 64 MiB of WRITEs (tests/vm/hll-check.c)
            app hll-stream 300 hll-check -d "$DEV" -g "$GIDX"
        fi
        transport_ecn
        # Negative control: the server corrupts one word of check b's READ source (-X b, a
        # server-only option), so both sides must report check b's mismatch.
        XFAIL="check b: the READ's data is wrong"
        echo "verbs-apps: control: verbs-check-selftest must FAIL check b; its FAIL lines are expected"
        if [ "$SNIC_SIDE" = b ]; then
            app verbs-check-selftest 120 verbs-check -d "$DEV" -g "$GIDX" -X b
        else
            app verbs-check-selftest 120 verbs-check -d "$DEV" -g "$GIDX"
        fi
        XFAIL= ;;
    cm)
        # The connection is made by rdma_cm over the GSI QP (MADs), not by a TCP socket.
        app_cm rping 120 "rping -s -a $OWN_IP -C 100 -v" "rping -c -a $PEER_IP -C 100 -v"
        app_cm ucmatose 120 "ucmatose" "ucmatose -s $PEER_IP"
        app ib_write_bw_cm 180 ib_write_bw -R -F -d "$DEV" -s 65536 -n 1000
        app ib_send_lat_cm 120 ib_send_lat -R -F -d "$DEV" -s 2 -n 1000 ;;
    interop)
        # One side snic, the other Linux rxe (vm-pair --nic-a/--nic-b): the wire formats and
        # the go-back-N transports must agree, in both roles.
        app rc-pingpong 120 ibv_rc_pingpong -d "$DEV" -g "$GIDX" -n 200 -s 4096 -c
        # 128-byte messages go inline on both (their QPs offer it), UC too.
        app rc-pingpong-inline 120 ibv_rc_pingpong -d "$DEV" -g "$GIDX" -n 200 -s 128 -c
        app uc-pingpong 120 ibv_uc_pingpong -d "$DEV" -g "$GIDX" -n 200 -s 4096 -c
        app ib_write_bw 180 ib_write_bw $P -s 65536 -n 500
        # perftest gives each side's QP the peer's outstanding-READ count: rxe offers 128,
        # snic holds 16 per QP (SRNIC-sized state), so both are told 16.
        app ib_read_lat 120 ib_read_lat $P -s 2 -n 500 -o 16
        # 4 QPs on one SRQ on each side, snic's against rxe's; perftest's SEND server on an SRQ.
        app srq-pingpong 120 ibv_srq_pingpong -d "$DEV" -g "$GIDX" -q 4 -n 100 -s 4096 -c
        # rxe WRITEs into a snic QP with a HyperLogLog sketch (the sketch needs no
        # agreement): where b, the server, is snic (a is then rxe)
        if { [ "$SNIC_SIDE" = b ] && [ "$NIC" = snic ]; } ||
           { [ "$SNIC_SIDE" = a ] && [ "$NIC" != snic ]; }; then
            app hll-stream 300 hll-check -d "$DEV" -g "$GIDX"
        fi
        app ib_send_bw_srq 180 ib_send_bw $P --use-srq -s 65536 -n 200
        app_cm rping 120 "rping -s -a $OWN_IP -C 20 -v" "rping -c -a $PEER_IP -C 20 -v"
        # Tonic programs chosen on the snic end only (transport-check -O: rxe runs plain
        # verbs, the snic end writes whichever end is the client). DCQCN is standard RoCEv2:
        # its WRITEs pass by content. SACK's packets carry BTH TVer 2, which rxe drops at
        # header validation: snic's first WRITE must fail with RETRY_EXC, rxe's buffer stays
        # untouched, its QP in RTS, and the next application on the same rxe device passes.
        # (vm-tests.sh checks snic's capture: TVer != 0 only on the SACK QP's frames.)
        app transport-dcqcn-1sided 60 transport-check -d "$DEV" -g "$GIDX" -P DCQCN -O -n 200 -t 30
        app transport-sack-1sided 60 transport-check -d "$DEV" -g "$GIDX" -P SACK -O -f -n 4 -t 30
        app rc-pingpong-after-sack 60 ibv_rc_pingpong -d "$DEV" -g "$GIDX" -n 100 -s 4096 -c
        # A connectionless endpoint's write to rxe (snic the sender, a): rxe drops its
        # packets (BTH TVer 3), the write fails with RETRY_EXC after its retries, rxe's
        # buffer stays untouched and its UD QP in RTS; the next application passes.
        if { [ "$SNIC_SIDE" = a ] && [ "$NIC" = snic ]; } ||
           { [ "$SNIC_SIDE" = b ] && [ "$NIC" != snic ]; }; then
            app cl-to-plain 60 cl-check -d "$DEV" -g "$GIDX" -t 20 \
                "$([ "$SNIC_SIDE" = b ] && echo -R || echo -O)"
            app rc-pingpong-after-cl 60 ibv_rc_pingpong -d "$DEV" -g "$GIDX" -n 100 -s 4096 -c
        fi
        # NVMe over RDMA, snic's host against rxe's target and the other way round
        nvme_rdma_io nvme-rdma-io 1 16 ;;
    lossy)
        # Run with the devices dropping and reordering frames (-global snic.wire-drop=1
        # -global snic.wire-reorder=1): RC recovers by go-back-N, data stays intact. (UD is
        # unreliable and ibv_ud_pingpong waits for every datagram: not run here.)
        # ibv_rc_pingpong's client (a) destroys its QP once the last pong is in: were
        # that pong's ACK lost, the server's last SEND could only time out (the
        # application's race, not the transport's), so a drops nothing meanwhile and b's
        # losses force both sides' resends (lossy.host).
        [ "$SNIC_SIDE" = a ] && step rc-pingpong-drop-set host pingpong-drop
        barrier pingpong-drop
        app rc-pingpong 120 ibv_rc_pingpong -d "$DEV" -g "$GIDX" -n 300 -s 4096 -c
        [ "$SNIC_SIDE" = a ] && step rc-pingpong-drop-end host pingpong-end
        barrier pingpong-end
        app ib_write_bw 180 ib_write_bw $P -s 65536 -n 500
        app ib_read_bw 180 ib_read_bw $P -s 65536 -n 200
        app verbs-check 180 verbs-check -d "$DEV" -g "$GIDX"
        # Every transport program recovers the same losses
        transport_apps 200 -
        # SENDs under a selective program: every RC QP of an unmodified ib_send_bw runs
        # SACK (libsnic's SNIC_TRANSPORT), whose responder places SEND packets that arrive
        # ahead of the expected PSN; each QP prints its retransmissions when destroyed.
        send_sack
        # NVMe over RDMA: fast-registered keys, SEND with Invalidate and the target's RDMA
        # READs and WRITEs all recover the same losses
        nvme_rdma_io nvme-rdma-io 1 16
        # The wire really was lossy: this device dropped and held back frames.
        step faults-injected sh -c "grep . /sys/class/infiniband/$DEV/ports/1/hw_counters/wire_*_injected &&
            [ \$(cat /sys/class/infiniband/$DEV/ports/1/hw_counters/wire_drops_injected) -gt 0 ]"
        # Faults changed on the running devices, the link taken down (lossy.host)
        lossy_run_time ;;
    isolation)
        # Process A (isolation-check) rings every other context's queues through its own
        # doorbell page and tries to map other doorbell pages while process B (verbs-check)
        # moves and checks data: A's doorbells are all refused and counted, B passes.
        if [ "$SNIC_SIDE" = b ]; then
            app verbs-check-isolated 180 verbs-check -d "$DEV" -g "$GIDX"
        else
            # First what one process may hand the driver: malformed uverbs commands, an
            # MR deregistered under a bound window, more contexts than its cgroup allows
            # (verbs-check then passes after them).
            step uverbs-hostile uverbs_hostile
            step mw-dereg-refused mw_dereg_refused
            step cgroup-contexts cgroup_contexts
            step counters-before counters_snapshot doorbells_invalid guest_errors
            ( sleep 1; isolation-check -d "$DEV" -t 3 > "$LOGD/attacker.log" 2>&1
              echo "rc=$?" >> "$LOGD/attacker.log" ) &
            ATTACKER=$!
            app verbs-check-isolated 180 verbs-check -d "$DEV" -g "$GIDX"
            step attacker-refused attacker_done
            step guest-errors-counted counters_grew doorbells_invalid guest_errors
        fi
        # One process holds its whole SRQ-pool share mid-message (VM b) while another
        # process's SRQ pingpong passes.
        srq_pool_share
        # kill -9 of a perftest client mid-run: its QPs, MRs and pinned pages go with it,
        # and a new run works.
        killed_run
        app ib_write_bw_after_kill 180 ib_write_bw $P -s 65536 -n 500
        # CREATE_QP failed on purpose by the device (isolation.host)
        admin_fail ;;
    bench)
        app ib_write_bw 180 ib_write_bw $P -s 65536 -n 2000
        app ib_send_bw 180 ib_send_bw $P -s 65536 -n 1000
        app ib_write_bw_2B 180 ib_write_bw $P -s 2 -n 20000
        app ib_write_lat 120 ib_write_lat $P -s 2 -n 1000
        app ib_read_lat 120 ib_read_lat $P -s 2 -n 1000 ;;
    pfc)
        # The lossless-mode runs alone (the apps suite ends with them).
        pfc_apps ;;
    transport)
        # transport_ecn alone (run with -global snic.wire-ecn-mark=N)
        transport_ecn ;;
    srnic)
        # SRNIC's selective repeat on the wire srnic.sh describes
        srnic_apps ;;
    cl)
        # The connectionless transport on the wire cl.sh describes: a per-packet timeout
        # of 10 ms, as the emulated wire's round trip is ~50 us with ms-scale jitter, and
        # one operation in flight per endpoint (up to 128 packets of 512 bytes): with no
        # congestion control, what is in flight must cross the wire within the timeout
        # (5 ms with two operations in flight each failed on a loaded 2-core host)
        app cl-check 300 cl-check -d "$DEV" -g "$GIDX" -t 60 -T 10000 -w 1
        step cl-counters cl_counters ;;
    ulp)
        # The middleware first (it needs no fast registration), then the kernel's storage
        # protocols, then the device removed under a connected NVMe controller.
        # SNIC_ULP_PARTS (snicvm.ulp_parts=) picks some, comma-separated.
        for part in ucx libfabric nvme nvme-4q nfs rmmod; do
            case ",${SNIC_ULP_PARTS:-$part}," in *",$part,"*) ;; *) continue ;; esac
            case $part in
                ucx) ucx_apps ;;
                libfabric) fi_apps ;;
                nvme) nvme_rdma_io nvme-rdma-io 1 "$NVME_RAM_MIB" ;;
                nvme-4q) nvme_rdma_4q ;;
                nfs) nfs_rdma_io ;;
                rmmod) ulp_rmmod ;;
            esac
        done ;;
    srq)
        # The SRQ applications alone (role verbs-srq; the apps suite runs them too).
        srq_apps ;;
    rpc)
        app rpc-check 180 rpc-check -d "$DEV" -g "$GIDX" ;;
    hll)
        # the HyperLogLog sketch alone (role verbs-hll; the apps suite runs it too)
        app hll-stream 300 hll-check -d "$DEV" -g "$GIDX" ;;
    iommu)
        # snic behind a virtual IOMMU (iommu.sh)
        iommu_apps ;;
    strom)
        # (an empty list skips its figure: "-" defaults only what is unset)
        app strom-bench 900 strom-bench -d "$DEV" -g "$GIDX" -n "${SNIC_STROM_ITERS:-100}" \
            -L "${SNIC_STROM_LENS-1,2,4,8,16,32}" -V "${SNIC_STROM_VALUES-64,256,1024,4096}" \
            -O "${SNIC_STROM_OBJECTS-64,256,1024,4096,16384}" -T "${SNIC_STROM_TORN_OBJECTS-}" \
            -P "${SNIC_STROM_TORN_PCT:-0}" -S "${SNIC_STROM_SHUFFLE-}" ;;
    *)
        step suite sh -c "echo 'verbs-apps: SNIC_VERBS_SUITE must be apps, cm, interop, lossy, isolation, bench, srq, rpc, hll, strom, pfc, transport, srnic, cl, iommu or ulp, not $SUITE'; exit 2" ;;
esac
step dmesg-clean ulp_dmesg_clean
barrier end
if [ "$SUITE" = isolation ]; then
    # After the last barrier: the netdev goes with the module.
    step rmmod-snic rmmod snic
    step dmesg-clean-after-rmmod dmesg_clean
fi
finish
