#!/usr/bin/env bash
# Boot two guest VMs joined by one wire (-netdev dgram over 127.0.0.1), run a role in each,
# and report pass/fail per step and for the pair.
#
#   scripts/vm-pair.sh [--qemu PATH] [--role NAME | --role-a NAME --role-b NAME]
#                      [--nic snic|virtio | --nic-a KIND --nic-b KIND] [--timeout SECONDS]
#                      [--grace SECONDS] [--log-dir DIR] [--name NAME] [--mtu N]
#                      [--append "kernel args"] [--append-a ARGS] [--append-b ARGS]
#                      [--qemu-a ARG] [--qemu-b ARG] [--lossless] [--iommu]
#                      [--image DIR] [--initrd FILE] [-- extra qemu args for both VMs...]
#
#   --qemu      QEMU binary (default <repo>/build/qemu/qemu-system-x86_64)
#   --role      role of both VMs (scripts/guest/roles/NAME.sh); --role-a/--role-b per VM
#   --nic       NIC of both VMs (default snic): snic = -device snic, virtio = virtio-net-pci
#   --timeout   wall-clock limit of each VM, both run at once (default 600)
#   --grace     once one VM has ended, the other is stopped if it runs this much longer
#               (default 60): roles end with a barrier, so a peer that ended early is gone
#               for good (the guest's barriers time out as well; this is the backstop)
#   --log-dir   where the logs go (default <repo>/.cache/logs); --name prefixes them
#               (default pair-ROLE-TIME-PID): NAME-a.log / NAME-b.log are the consoles,
#               NAME-a.run / NAME-b.run the full output of scripts/vm-run.sh
#   --mtu       snicvm.mtu= for both guests (the roles default to 9000)
#   --append    extra kernel arguments for both guests (repeatable)
#   --append-a/-b  extra kernel arguments for VM a / b (repeatable)
#   --qemu-a/-b one extra QEMU argument for VM a / b (repeatable)
#   --initrd    the initramfs both VMs boot, a path or a file name in the image directory
#               (default initramfs.cpio.gz; initramfs-ulp.cpio.gz adds NVMe, NFS, UCX and
#               libfabric, see scripts/guest-image.sh)
#   --iommu     both guests behind a virtual IOMMU (intel-iommu with interrupt remapping,
#               before the NIC; kernel intel_iommu=on iommu.passthrough=0 iommu.strict=1):
#               every DMA of the NIC is translated, and refused where the driver has no mapping
#   --lossless  settle each VM's wire account: a role that says on an SNIC-WIRE line how many
#               RoCE frames its peer's engine sent and its own received (the pfc role) fails
#               the pair unless every missing frame is one this VM's host socket dropped at a
#               full receive buffer (/proc/net/udp's drops: the one buffer on the wire PFC
#               cannot pause for). Always logged: "wire: host socket drops ..."
#
# VM a is 10.0.0.1/24 (snicvm.side=a, connects at barriers), VM b is 10.0.0.2/24 (side b,
# listens). The NIC of each is QEMU device nic0. A role with a host schedule
# (scripts/guest/roles/ROLE.host) gets QMP on its VM's QEMU and a second serial port: at the
# points of its run it names there, scripts/vm-host.py runs the schedule's qom-set, set_link
# and sleep actions on either VM and answers (logged in NAME.host.log). Exit status: 0 when both roles passed; 1 a role failed; 2 usage or setup error;
# 3 a VM timed out or crashed without a result.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
die_status=2

QEMU=$REPO/build/qemu/qemu-system-x86_64
ROLE_A='' ROLE_B='' ROLE=''
NIC_A='' NIC_B='' NIC=snic
TIMEOUT=600
GRACE=60
LOGDIR=$REPO/.cache/logs
NAME=
MTU=
IMAGE=$REPO/.cache/guest
INITRD=initramfs.cpio.gz
APPEND=() APPEND_A=() APPEND_B=()
QA=() QB=()
LOSSLESS=
IOMMU=
while [ $# -gt 0 ]; do
    case $1 in
        --lossless) LOSSLESS=1; shift; continue ;;
        --iommu) IOMMU=1; shift; continue ;;
        --qemu|--role|--role-a|--role-b|--nic|--nic-a|--nic-b|--timeout|--grace|--log-dir|--name|--mtu|--append|--append-a|--append-b|--qemu-a|--qemu-b|--image|--initrd)
            [ $# -ge 2 ] || die "$1 needs a value"
            case $1 in
                --qemu) QEMU=$2 ;; --role) ROLE=$2 ;; --role-a) ROLE_A=$2 ;; --role-b) ROLE_B=$2 ;;
                --nic) NIC=$2 ;; --nic-a) NIC_A=$2 ;; --nic-b) NIC_B=$2 ;;
                --timeout) TIMEOUT=$2 ;; --grace) GRACE=$2 ;; --log-dir) LOGDIR=$2 ;;
                --name) NAME=$2 ;; --mtu) MTU=$2 ;; --append) APPEND+=("$2") ;;
                --append-a) APPEND_A+=("$2") ;; --append-b) APPEND_B+=("$2") ;;
                --qemu-a) QA+=("$2") ;; --qemu-b) QB+=("$2") ;; --image) IMAGE=$2 ;;
                --initrd) INITRD=$2 ;;
            esac
            shift 2 ;;
        --) shift; break ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1 (QEMU arguments go after --)" ;;
    esac
done
EXTRA=("$@")
ROLE_A=${ROLE_A:-$ROLE} ROLE_B=${ROLE_B:-$ROLE}
NIC_A=${NIC_A:-$NIC} NIC_B=${NIC_B:-$NIC}

{ [ -n "$ROLE_A" ] && [ -n "$ROLE_B" ]; } || die "--role NAME (or --role-a and --role-b) is required"
for r in "$ROLE_A" "$ROLE_B"; do
    case $r in *[!A-Za-z0-9_-]*) die "role name '$r': letters, digits, '_' and '-' only" ;; esac
    [ -f "$REPO/scripts/guest/roles/$r.sh" ] || die "no role scripts/guest/roles/$r.sh"
done
for k in "$NIC_A" "$NIC_B"; do
    case $k in snic|virtio) ;; *) die "NIC kind '$k': snic or virtio" ;; esac
done
for v in "$TIMEOUT" "$GRACE" ${MTU:+"$MTU"}; do
    case $v in ''|*[!0-9]*) die "--timeout, --grace and --mtu take whole numbers, not '$v'" ;; esac
done
[ -x "$QEMU" ] || die "QEMU binary '$QEMU' not found or not executable (scripts/build-qemu.sh)"
command -v python3 >/dev/null || die "python3 not found (used to pick free UDP ports)"

if [ -z "$NAME" ]; then
    [ "$ROLE_A" = "$ROLE_B" ] && NAME=pair-$ROLE_A || NAME=pair-$ROLE_A-$ROLE_B
    NAME=$NAME-$(date +%Y%m%d-%H%M%S)-$$
fi
mkdir -p "$LOGDIR"
LOGDIR=$(cd "$LOGDIR" && pwd)

# Build (or confirm) the image once: both VMs boot the same one (vm-run.sh --no-build).
"$REPO/scripts/guest-image.sh" --out "$IMAGE" >"$LOGDIR/$NAME.image.log" 2>&1 ||
    { cat "$LOGDIR/$NAME.image.log" >&2; die "guest image build failed"; }
grep 'guest driver:\|initramfs' "$LOGDIR/$NAME.image.log" | sed 's/^/vm-pair: /'

# Two UDP ports free on 127.0.0.1 right now (bound at once, so they differ).
read -r PA PB < <(timeout 30 python3 -c '
import socket
s = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))') || die "cannot pick free UDP ports"

# Roles with a host schedule: QMP and a second serial port for each VM, their sockets in a
# short directory (a socket path has at most 107 bytes), and scripts/vm-host.py for the pair.
SCHED_A=$REPO/scripts/guest/roles/$ROLE_A.host SCHED_B=$REPO/scripts/guest/roles/$ROLE_B.host
[ -f "$SCHED_A" ] || SCHED_A=
[ -f "$SCHED_B" ] || SCHED_B=
CTL=
if [ -n "$SCHED_A$SCHED_B" ]; then
    command -v python3 >/dev/null || die "python3 not found (scripts/vm-host.py runs the host schedule)"
    CTL=$(mktemp -d /tmp/snic-pair.XXXXXX) || die "cannot make a directory for the QMP sockets"
fi

# vm_args SIDE: the vm-run.sh arguments of VM a or b (into the array VMARGS).
vm_args() {
    local side=$1 role nic ip peer mac lport rport dev
    if [ "$side" = a ]; then
        role=$ROLE_A nic=$NIC_A ip=10.0.0.1/24 peer=10.0.0.2 mac=52:54:00:5a:00:01 lport=$PA rport=$PB
    else
        role=$ROLE_B nic=$NIC_B ip=10.0.0.2/24 peer=10.0.0.1 mac=52:54:00:5a:00:02 lport=$PB rport=$PA
    fi
    case $nic in
        snic) dev=snic,id=nic0,netdev=n0,mac=$mac ;;
        virtio) dev=virtio-net-pci,id=nic0,netdev=n0,mac=$mac,romfile= ;;   # no efi-virtio.rom here
    esac
    VMARGS=(--qemu "$QEMU" --role "$role" --timeout "$TIMEOUT" --image "$IMAGE" --initrd "$INITRD" --no-build
            --log "$LOGDIR/$NAME-$side.log"
            --append "snicvm.side=$side snicvm.nic=$nic snicvm.ip=$ip snicvm.peer=$peer${MTU:+ snicvm.mtu=$MTU}")
    local a
    [ -z "$IOMMU" ] || VMARGS+=(--append "$IOMMU_APPEND")
    for a in "${APPEND[@]}"; do VMARGS+=(--append "$a"); done
    if [ "$side" = a ]; then
        for a in "${APPEND_A[@]}"; do VMARGS+=(--append "$a"); done
    else
        for a in "${APPEND_B[@]}"; do VMARGS+=(--append "$a"); done
    fi
    VMARGS+=(-- ${IOMMU:+"${IOMMU_DEVICE[@]}"}
             -netdev "dgram,id=n0,local.type=inet,local.host=127.0.0.1,local.port=$lport,remote.type=inet,remote.host=127.0.0.1,remote.port=$rport"
             -device "$dev")
    if [ "$side" = a ]; then VMARGS+=("${QA[@]}"); else VMARGS+=("${QB[@]}"); fi
    [ -z "$CTL" ] || VMARGS+=(-qmp "unix:$CTL/$side.qmp,server=on,wait=off"
                              -serial "unix:$CTL/$side.host,server=on,wait=off")
    VMARGS+=("${EXTRA[@]}")
}

# Live progress: vm-run's own lines and the step/result lines, prefixed with the side.
progress() {
    sed -u 's/\r$//' | tee "$LOGDIR/$NAME-$1.run" |
        grep --line-buffered -E '^(vm-run: (role|PASS|FAIL)|SNIC-STEP |SNIC-RESULT |SNIC-ROLE-RESULT |snic-init: )' |
        sed -u "s/^/[$1] /"
}

# The wire's buffer (scripts/lib.sh): at Debian's 208 KiB RoCE bursts lose their tail and
# crawl on retransmissions. Raised for the pair's lifetime (root only), then restored.
wire_rmem_raise

# Frames the wire lost: the kernel counts a datagram dropped at a full receive buffer per
# socket ("drops", the last column of /proc/net/udp; local address in hex) and host-wide
# (Udp RcvbufErrors in /proc/net/snmp, which other processes' sockets also raise). The
# sockets live as long as their VM: read while the VMs run, keep the last value seen.
udp_drops() {
    awk -v p="$(printf ':%04X' "$1")" '$2 ~ p"$" { print $NF; f = 1; exit } END { if (!f) print "" }' /proc/net/udp
}
rcvbuf_errors() {
    awk '$1 == "Udp:" && $2 ~ /^[0-9]+$/ { print $6 }' /proc/net/snmp
}
declare -A DROPS=([a]=0 [b]=0)
drops_poll() {
    local d
    d=$(udp_drops "$PA"); [ -z "$d" ] || DROPS[a]=$d
    d=$(udp_drops "$PB"); [ -z "$d" ] || DROPS[b]=$d
}
rcvbuf_before=$(rcvbuf_errors)

log "roles a=$ROLE_A ($NIC_A) b=$ROLE_B ($NIC_B), udp 127.0.0.1:$PA <-> :$PB, timeout ${TIMEOUT}s, logs $LOGDIR/$NAME-{a,b}.{log,run}"
start=$(date +%s.%N)
declare -A PID RC DONE_AT
vm_args a
"$REPO/scripts/vm-run.sh" "${VMARGS[@]}" > >(progress a) 2>&1 &
PID[a]=$!
vm_args b
"$REPO/scripts/vm-run.sh" "${VMARGS[@]}" > >(progress b) 2>&1 &
PID[b]=$!
HOST_PID=
if [ -n "$CTL" ]; then
    python3 "$REPO/scripts/vm-host.py" --vm "a:$CTL/a.qmp:$CTL/a.host${SCHED_A:+:$SCHED_A}" \
        --vm "b:$CTL/b.qmp:$CTL/b.host${SCHED_B:+:$SCHED_B}" \
        > >(tee "$LOGDIR/$NAME.host.log" | sed -u 's/^/[host] /') 2>&1 &
    HOST_PID=$!
fi

stop_all() {
    local s
    for s in a b; do
        [ -n "${RC[$s]:-}" ] || kill -TERM "${PID[$s]}" 2>/dev/null || true
    done
}
trap 'log "interrupted: stopping both VMs"; stop_all; [ -z "$HOST_PID" ] || kill -TERM "$HOST_PID" 2>/dev/null
      wait; [ -z "$CTL" ] || rm -rf "$CTL"; exit 130' INT TERM HUP

# Poll: collect exits; once one VM has ended, give the other GRACE seconds.
# Each vm-run stops its VM after TIMEOUT s; should one not end anyway, both are
# stopped at the deadline (and killed 30 s later).
killed=
overdue=
deadline=$(( $(date +%s) + TIMEOUT + GRACE + 120 ))
while [ -z "${RC[a]:-}" ] || [ -z "${RC[b]:-}" ]; do
    sleep 1
    drops_poll
    if [ "$(date +%s)" -ge "$deadline" ] && [ -z "$overdue" ]; then
        log "still running $((TIMEOUT + GRACE + 120))s after the start: stopping both VMs"
        stop_all
        overdue=1
    elif [ "$(date +%s)" -ge $((deadline + 30)) ] && [ "$overdue" = 1 ]; then
        for s in a b; do
            [ -n "${RC[$s]:-}" ] || kill -KILL "${PID[$s]}" 2>/dev/null || true
        done
        overdue=2
    fi
    for s in a b; do
        [ -z "${RC[$s]:-}" ] || continue
        kill -0 "${PID[$s]}" 2>/dev/null && continue
        rc=0
        wait "${PID[$s]}" || rc=$?
        RC[$s]=$rc
        DONE_AT[$s]=$(date +%s)
    done
    for s in a b; do
        o=$([ $s = a ] && echo b || echo a)
        if [ -n "${RC[$s]:-}" ] && [ -z "${RC[$o]:-}" ] &&
           [ $(( $(date +%s) - DONE_AT[$s] )) -ge "$GRACE" ] && [ -z "$killed" ]; then
            log "VM $s ended (vm-run exit ${RC[$s]}) ${GRACE}s ago and VM $o still runs: stopping VM $o"
            kill -TERM "${PID[$o]}" 2>/dev/null || true
            killed=$o
        fi
    done
done
trap - INT TERM HUP
if [ -n "$HOST_PID" ]; then
    kill -TERM "$HOST_PID" 2>/dev/null || true   # ends with the VMs' serial ports anyway
    wait "$HOST_PID" 2>/dev/null || true
fi
[ -z "$CTL" ] || rm -rf "$CTL"
sleep 0.2   # let the progress pipes drain
elapsed=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')

# Report: every step of each VM, then one line for the pair.
echo
for s in a b; do
    role=$([ $s = a ] && echo "$ROLE_A" || echo "$ROLE_B")
    steps=$(tr -d '\r' < "$LOGDIR/$NAME-$s.log" | grep -E '^SNIC-STEP name=[^ ]+ result=(PASS|FAIL)$' || true)
    np=$(grep -c 'result=PASS$' <<<"$steps" || true)
    nf=$(grep -c 'result=FAIL$' <<<"$steps" || true)
    verdict=$(grep -E '^vm-run: (PASS|FAIL)' "$LOGDIR/$NAME-$s.run" | tail -n 1 || true)
    log "VM $s ($role): $np steps passed, $nf failed; vm-run exit ${RC[$s]}${killed:+$([ "$killed" = $s ] && echo ' (stopped by vm-pair)')}"
    if [ -n "$steps" ]; then
        sed -E 's/^SNIC-STEP name=([^ ]+) result=(PASS|FAIL)$/  \2 \1/' <<<"$steps"
    fi
    [ -z "$verdict" ] || echo "  ${verdict#vm-run: }"
done
# One line for vm-tests.sh: a is VM a's socket (what b sent to a), b VM b's.
log "wire: host socket drops a=${DROPS[a]} b=${DROPS[b]}; host Udp RcvbufErrors +$(( $(rcvbuf_errors) - rcvbuf_before )) over the run (all processes)"
# The wire's account (--lossless): what the peer's engine sent either reached this engine
# or was dropped by this VM's host socket (which also drops other frames: at most).
wire_account() {
    local s=$1 line sent rx lost
    line=$(tr -d '\r' < "$LOGDIR/$NAME-$s.log" | grep -E '^SNIC-WIRE peer_sent=[0-9]+ received=[0-9]+$' | tail -n 1) || {
        log "FAIL wire account of VM $s: its role gave no SNIC-WIRE line"
        return 1
    }
    sent=${line#*peer_sent=}; sent=${sent%% *}
    rx=${line##*received=}
    lost=$(( sent - rx ))
    if [ "$lost" -gt "${DROPS[$s]}" ]; then
        log "FAIL wire account of VM $s: its peer's engine sent $sent RoCE frames, it received $rx: $lost lost, only ${DROPS[$s]} of them in the host's socket"
        return 1
    fi
    if [ "$lost" = 0 ]; then
        log "wire account of VM $s: its peer's engine sent $sent RoCE frames, it received every one"
    else
        log "wire account of VM $s: its peer's engine sent $sent RoCE frames, it received $rx; the $lost missing ones are among the ${DROPS[$s]} its host socket dropped"
    fi
}
if [ -n "$LOSSLESS" ] && [ "${RC[a]}" = 0 ] && [ "${RC[b]}" = 0 ]; then
    wire_account a || RC[a]=1
    wire_account b || RC[b]=1
fi
if [ "${RC[a]}" = 0 ] && [ "${RC[b]}" = 0 ]; then
    log "PASS roles a=$ROLE_A b=$ROLE_B in ${elapsed}s"
    exit 0
fi
log "FAIL roles a=$ROLE_A (vm-run exit ${RC[a]}) b=$ROLE_B (vm-run exit ${RC[b]}) in ${elapsed}s (consoles: $LOGDIR/$NAME-a.log, $LOGDIR/$NAME-b.log)"
if [ "${RC[a]}" = 2 ] || [ "${RC[b]}" = 2 ]; then
    exit 2      # a vm-run usage/setup error
fi
case ${RC[a]}${RC[b]} in
    01|10|11) exit 1 ;;     # both roles ran to their end, one failed
    *) exit 3 ;;            # a timeout, crash, or a VM stopped by us
esac
