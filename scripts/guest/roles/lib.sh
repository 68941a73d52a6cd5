# shellcheck shell=dash disable=SC2317,SC2034  # functions run by step/retry; lists used by roles
# Helpers for guest roles (busybox sh): `. /roles/lib.sh` at the top, `finish` at the end.
#
#   step NAME CMD...     run one step: its output, then one console line
#                        `SNIC-STEP name=NAME result=PASS|FAIL`. A failure is recorded and
#                        `finish` exits non-zero. External commands run under `timeout`
#                        (SNIC_STEP_TIMEOUT, default 120 s); shell functions run in this shell
#                        (so they can set variables) and must bound themselves.
#   barrier NAME         a step (barrier-NAME) that waits until the peer VM reaches the barrier
#                        of the same name: a TCP exchange over the test netdev with busybox nc
#                        (side b listens, side a connects). Times out after
#                        SNIC_BARRIER_TIMEOUT (180 s); once one barrier has failed the peer is
#                        presumed gone and later barriers wait 15 s only.
#   net_up [snic|virtio] find the test netdev (bound to driver snic, or virtio_net), set
#                        MTU SNIC_MTU (9000), address SNIC_IP, bring it up, wait for carrier;
#                        sets SNIC_IF. Default kind: SNIC_NIC, else snic.
#   retry SECS CMD...    run CMD until it succeeds or SECS pass; prints the last attempt's output.
#   modprobe_all MOD...  modprobe each module in order.
#   ping_peer [COUNT [LOSS]]  ping SNIC_PEER COUNT (20) times, 5 per second; passes when
#                        at most LOSS % (0) of the replies are lost (a wire that drops frames).
#   port_active DEV [MTU]  `ibv_devinfo -v -d DEV`: PORT_ACTIVE, link_layer Ethernet (and
#                        active_mtu MTU, e.g. "4096 (5)").
#   gid_check DEV        the sysfs GID table of DEV port 1 has ::ffff:<own IP>, type RoCE v2.
#   configfs_ready       configfs is mounted on /sys/kernel/config, with rdma_cm's directory.
#   dmesg_clean          no WARNING/BUG/Oops/leak lines in the kernel log.
#   host POINT           ask the host side of the pair to run what the role's schedule
#                        (scripts/guest/roles/ROLE.host) lists for POINT, e.g. a qom-set or a
#                        set_link on either VM (scripts/vm-pair.sh, scripts/vm-host.py), and wait
#                        for it to be done (SNIC_HOST_TIMEOUT, 60 s): the request and the answer
#                        go over the second serial port, /dev/ttyS1. host_ask POINT sends the
#                        request only, host_wait POINT waits for the answer.
#   carrier_is 0|1       wait (10 s) until SNIC_IF's carrier is down (0) or up (1).
#   finish               print the summary and exit 1 if a step failed, else 0.
#
# Environment, from `snicvm.KEY=VAL` kernel arguments (see /init): SNIC_IP (10.0.0.1/24),
# SNIC_PEER (10.0.0.2), SNIC_SIDE (a|b), SNIC_NIC (snic|virtio), SNIC_MTU, SNIC_ROLE.

RDMA_MODULES="configfs ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm"
RXE_MODULES="crc32_generic udp_tunnel ip6_udp_tunnel rdma_rxe"
VIRTIO_MODULES="virtio_pci virtio_net"

# busybox sh runs its own applets before searching PATH: iproute2's ip (with "state UP",
# "mode", ...) must be named by its path. modprobe, nc, timeout stay busybox's. ping is
# iputils': busybox ping was seen to miss replies that the kernel had received (Icmp
# InEchoReps counted all of them).
[ -x /usr/bin/ip ] && ip() { /usr/bin/ip "$@"; }
# (Through `timeout` a function is not seen: ping_peer names the binary.)
PING=ping
[ -x /usr/bin/ping ] && PING=/usr/bin/ping && ping() { /usr/bin/ping "$@"; }

SNIC_STEPS=0
SNIC_FAILED=0
SNIC_FAILED_NAMES=
SNIC_PEER_GONE=
SNIC_BARRIER_SEQ=0
SNIC_IF=
PEER_IP=${SNIC_PEER%/*}
OWN_IP=${SNIC_IP%/*}

# Whole seconds since boot (no fork).
_now() {
    local up _
    read -r up _ < /proc/uptime
    echo "${up%.*}"
}

step() {
    local name=$1 rc t0 t1 res _
    shift
    if [ $# = 0 ]; then
        echo "step $name: no command given"
        set -- false
    fi
    read -r t0 _ < /proc/uptime
    echo "--- step $name: $*"
    case $(type "$1" 2>/dev/null) in
        *function*) "$@" </dev/null ;;
        *) timeout "${SNIC_STEP_TIMEOUT:-120}" "$@" </dev/null ;;
    esac
    rc=$?
    read -r t1 _ < /proc/uptime
    SNIC_STEPS=$((SNIC_STEPS + 1))
    if [ "$rc" = 0 ]; then
        res=PASS
    else
        res=FAIL
        SNIC_FAILED=$((SNIC_FAILED + 1))
        SNIC_FAILED_NAMES="$SNIC_FAILED_NAMES $name"
        [ "$rc" = 143 ] && echo "--- step $name: timed out"
    fi
    echo "--- step $name: rc=$rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
    echo "SNIC-STEP name=$name result=$res"
    return "$rc"
}

# Side a powers off right after the last barrier. On a lossy wire its token or its FIN may
# still be unacknowledged then, and TCP resends them only while this side lives: side b's nc
# would wait for them until the pair's time runs out. Wait (at most 10 s) until no socket to
# the barrier port is in a state other than FIN_WAIT2 (05) or TIME_WAIT (06): the peer has
# everything this side sent.
_barrier_settle() {
    local hex i=0
    hex=$(printf '%04X' "${SNIC_BARRIER_PORT:-7400}")
    while [ $i -lt 10 ] &&
        awk -v p=":$hex\$" '$3 ~ p && $4 != "05" && $4 != "06" { f = 1 } END { exit !f }' \
            /proc/net/tcp 2>/dev/null; do
        sleep 1
        i=$((i + 1))
    done
}

finish() {
    [ "${SNIC_SIDE:-}" = a ] && [ -n "${PEER_IP:-}" ] && _barrier_settle
    echo "role ${SNIC_ROLE:-?}: $SNIC_STEPS steps, $SNIC_FAILED failed${SNIC_FAILED_NAMES:+:$SNIC_FAILED_NAMES}"
    [ "$SNIC_FAILED" = 0 ] && exit 0
    exit 1
}

retry() {
    local secs=$1 end out rc
    shift
    end=$(($(_now) + secs))
    while :; do
        out=$("$@" 2>&1)
        rc=$?
        if [ "$rc" = 0 ] || [ "$(_now)" -ge "$end" ]; then
            [ -n "$out" ] && printf '%s\n' "$out"
            return "$rc"
        fi
        sleep 1
    done
}

modprobe_all() {
    local m
    for m in "$@"; do
        modprobe "$m" || { echo "modprobe $m failed"; return 1; }
    done
    echo "loaded: $*"
}

# --- barrier ---------------------------------------------------------------------------
_barrier() {
    local name=$1 tmo=$2 value=${3:-} port=${SNIC_BARRIER_PORT:-7400} tok got end
    [ -n "$PEER_IP" ] || { echo "barrier: SNIC_PEER is not set (snicvm.peer=)"; return 2; }
    tok="snic-barrier $SNIC_BARRIER_SEQ $name"
    SNIC_PEER_VALUE=
    case ${SNIC_SIDE:-} in
        b)  # Listen; the connector sends its token and we answer with ours.
            got=$(echo "$tok${value:+ $value}" | timeout $((tmo + 10)) nc -l -p "$port" -w "$tmo" 2>/dev/null)
            if [ -z "$got" ]; then
                echo "barrier $name: no connection from $PEER_IP to port $port within ${tmo}s"
                return 1
            fi ;;
        a)  end=$(($(_now) + tmo))
            while :; do
                got=$(echo "$tok${value:+ $value}" | timeout 20 nc -w 5 "$PEER_IP" "$port" 2>/dev/null)
                [ -n "$got" ] && break
                if [ "$(_now)" -ge "$end" ]; then
                    echo "barrier $name: $PEER_IP:$port did not answer within ${tmo}s"
                    return 1
                fi
                sleep 1
            done ;;
        *)  echo "barrier: SNIC_SIDE must be a or b (snicvm.side=), not '${SNIC_SIDE:-}'"
            return 2 ;;
    esac
    if [ "$got" = "$tok" ] || [ "${got#"$tok "}" != "$got" ]; then
        SNIC_PEER_VALUE=${got#"$tok"}
        SNIC_PEER_VALUE=${SNIC_PEER_VALUE# }
        echo "barrier $name: peer $PEER_IP is here${SNIC_PEER_VALUE:+, its value: $SNIC_PEER_VALUE}"
        return 0
    fi
    echo "barrier $name: expected '$tok' from $PEER_IP, got '$got' (the roles' barriers differ)"
    return 1
}

# barrier NAME [VALUE]: wait for the peer at NAME; a VALUE (no newline) goes to the
# peer, whose own is in SNIC_PEER_VALUE afterwards.
barrier() {
    local tmo=${SNIC_BARRIER_TIMEOUT:-180}
    [ -n "$SNIC_PEER_GONE" ] && tmo=15
    SNIC_BARRIER_SEQ=$((SNIC_BARRIER_SEQ + 1))
    step "barrier-$1" _barrier "$1" "$tmo" "${2:-}" || { SNIC_PEER_GONE=1; return 1; }
}

# --- network ---------------------------------------------------------------------------
_find_if() {
    local drv=$1 d
    for d in /sys/class/net/*; do
        [ -e "$d/device/driver" ] || continue
        if [ "$(basename "$(readlink "$d/device/driver")")" = "$drv" ]; then
            echo "${d##*/}"
            return 0
        fi
    done
    return 1
}

net_up() {
    local kind=${1:-${SNIC_NIC:-snic}} mtu=${SNIC_MTU:-9000} drv i state
    case $kind in
        snic) drv=snic ;;
        virtio) drv=virtio_net ;;
        *) echo "net_up: unknown NIC kind '$kind' (snic|virtio)"; return 2 ;;
    esac
    [ -n "${SNIC_IP:-}" ] || { echo "net_up: SNIC_IP is not set (snicvm.ip=A.B.C.D/N)"; return 2; }
    SNIC_IF=
    i=0
    while ! SNIC_IF=$(_find_if "$drv"); do
        i=$((i + 1))
        if [ $i -ge 20 ]; then
            echo "net_up: no network interface bound to driver $drv after 10 s; have:"
            ls -l /sys/class/net/
            return 1
        fi
        sleep 0.5
    done
    echo "net_up: $SNIC_IF (driver $drv), mtu $mtu, address $SNIC_IP"
    ip link set dev "$SNIC_IF" mtu "$mtu" || return 1
    ip addr flush dev "$SNIC_IF"
    ip addr add "$SNIC_IP" dev "$SNIC_IF" || return 1
    ip link set dev "$SNIC_IF" up || return 1
    i=0
    while read -r state < "/sys/class/net/$SNIC_IF/operstate" && [ "$state" != up ]; do
        i=$((i + 1))
        if [ $i -ge 40 ]; then
            echo "net_up: $SNIC_IF operstate is '$state' 20 s after 'ip link set up' (no carrier?)"
            ip addr show dev "$SNIC_IF"
            return 1
        fi
        sleep 0.5
    done
    ip addr show dev "$SNIC_IF"
}

ping_peer() {
    local n=${1:-20} max=${2:-0} out rc lost
    [ -n "$PEER_IP" ] || { echo "ping_peer: SNIC_PEER is not set (snicvm.peer=)"; return 2; }
    out=$(timeout $((n + 30)) "$PING" -c "$n" -i 0.2 -W 5 "$PEER_IP" 2>&1)
    rc=$?
    lost=$(printf '%s\n' "$out" | sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p')
    # ping exits 1 when a reply is missing: what counts is the share lost
    if [ -n "$lost" ] && { [ "$rc" = 0 ] || [ "$max" != 0 ]; } &&
       awk -v l="$lost" -v m="$max" 'BEGIN { exit !(l <= m && l < 100) }'; then
        printf '%s\n' "$out" | tail -n 3
        return 0
    fi
    printf '%s\n' "$out"     # every reply: which sequence numbers were lost
    [ -z "$SNIC_IF" ] || ip -s link show dev "$SNIC_IF"
    # Did the stack get the replies (InEchoReps) that ping did not report?
    grep -E '^(Ip|Icmp):' /proc/net/snmp
    return 1
}

# --- RDMA checks -----------------------------------------------------------------------
# Our rdma-core provider is in the image (libibverbs loads it for 1af4:10f0).
provider_present() {
    ls -l /usr/lib/x86_64-linux-gnu/libibverbs/libsnic-rdmav34.so /etc/libibverbs.d/snic.driver ||
        { echo "the image has no snic provider (build it: scripts/build-provider.sh)"; return 1; }
}

port_active() {
    local dev=$1 mtu=${2:-} out
    out=$(timeout 30 ibv_devinfo -v -d "$dev" 2>&1)
    printf '%s\n' "$out" | grep -E 'hca_id|transport|fw_ver|node_guid|vendor_id|vendor_part_id|phys_port_cnt|port:|state|mtu|link_layer|GID' | head -n 40
    printf '%s\n' "$out" | grep -Eq 'state:[[:space:]]+PORT_ACTIVE' ||
        { echo "port_active: $dev port is not PORT_ACTIVE"; return 1; }
    printf '%s\n' "$out" | grep -Eq 'link_layer:[[:space:]]+Ethernet' ||
        { echo "port_active: $dev link_layer is not Ethernet"; return 1; }
    if [ -n "$mtu" ]; then
        # "4096 (5)": the parentheses are literal.
        printf '%s\n' "$out" | grep -Eq "active_mtu:[[:space:]]+$(echo "$mtu" | sed 's/[()]/\\&/g')\$" ||
            { echo "port_active: $dev active_mtu is not $mtu"; return 1; }
    fi
}

gid_check() {
    local dev=$1 p want f g t i found='' empty=0000:0000:0000:0000:0000:0000:0000:0000
    p=/sys/class/infiniband/$dev/ports/1
    [ -d "$p/gids" ] || { echo "gid_check: $p/gids does not exist"; return 1; }
    want=$(echo "$OWN_IP" | awk -F. '{ printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", $1, $2, $3, $4 }')
    for f in "$p"/gids/*; do
        read -r g 2>/dev/null < "$f" || continue
        [ "$g" = "$empty" ] && continue
        i=${f##*/}
        t=
        read -r t 2>/dev/null < "$p/gid_attrs/types/$i"
        echo "GID[$i] $g $t"
        [ "$g" = "$want" ] && [ "$t" = "RoCE v2" ] && found=$i
    done
    if [ -z "$found" ]; then
        echo "gid_check: no $want (::ffff:$OWN_IP) with type RoCE v2 in $dev's GID table"
        return 1
    fi
    echo "gid_check: ::ffff:$OWN_IP is GID[$found], RoCE v2"
}

# /init mounts configfs; rdma_cm's directory shows up in it once rdma_cm is loaded.
configfs_ready() {
    grep ' /sys/kernel/config configfs ' /proc/mounts || { echo "configfs is not mounted"; return 1; }
    [ -d /sys/kernel/config/rdma_cm ] || { echo "no /sys/kernel/config/rdma_cm (rdma_cm not loaded?)"; return 1; }
    echo "/sys/kernel/config/rdma_cm exists"
}

dmesg_clean() {
    local bad
    bad=$(dmesg | grep -E 'WARNING|BUG|Oops|[Ll]eak|Call Trace')
    if [ -n "$bad" ]; then
        # with the lines that say what it was (a Call Trace follows its reason)
        dmesg | grep -B 3 -A 12 -E 'WARNING|BUG|Oops|[Ll]eak|Call Trace' | head -n 80
        return 1
    fi
    echo "dmesg: no WARNING/BUG/Oops/leak lines"
}

# --- the host side of the pair ------------------------------------------------------------
# fd 7 is the second serial port, opened once: bytes the host sends while it is closed are lost.
SNIC_HOST_OPEN=
_host_open() {
    [ -n "$SNIC_HOST_OPEN" ] && return 0
    [ -c /dev/ttyS1 ] || { echo "host: no /dev/ttyS1"; return 1; }
    exec 7<>/dev/ttyS1 || return 1
    stty raw -echo <&7 || return 1
    SNIC_HOST_OPEN=1
}

host_ask() {
    _host_open || return 1
    echo "host: asking for $1"
    printf 'snic-host %s\n' "$1" >&7
}

host_wait() {
    local point=$1 end line
    end=$(($(_now) + ${SNIC_HOST_TIMEOUT:-60}))
    while [ "$(_now)" -lt "$end" ]; do
        line=
        # shellcheck disable=SC3045  # busybox ash has read -t
        read -r -t 5 line <&7 || continue
        line=$(printf '%s' "$line" | tr -d '\r')
        case $line in
            "done $point") echo "host: $point done"; return 0 ;;
            "fail $point "*) echo "host: $point failed: ${line#fail "$point" }"; return 1 ;;
            *) echo "host: ignoring '$line'" ;;
        esac
    done
    echo "host: no answer for $point within ${SNIC_HOST_TIMEOUT:-60}s (no host schedule for the role?)"
    return 1
}

host() {
    host_ask "$1" && host_wait "$1"
}

carrier_is() {
    local want=$1 i=0 c
    while :; do
        read -r c < "/sys/class/net/$SNIC_IF/carrier" 2>/dev/null || c=0
        [ "$c" = "$want" ] && { echo "$SNIC_IF: carrier $c"; return 0; }
        i=$((i + 1))
        [ $i -ge 100 ] && { echo "$SNIC_IF: carrier is $c, not $want, after 10 s"; return 1; }
        sleep 0.1
    done
}

echo "role ${SNIC_ROLE:-?}: side=${SNIC_SIDE:--} nic=${SNIC_NIC:--} ip=${SNIC_IP:--} peer=${SNIC_PEER:--} mtu=${SNIC_MTU:-9000} kernel=$(uname -r)"
