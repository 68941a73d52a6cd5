# shellcheck shell=dash disable=SC2317,SC2086  # functions run by step; word lists
# The software most RDMA NICs exist for, for the roles that run it (verbs-apps.sh sources
# this after lib.sh; role ulp runs all of it, interop and lossy nvme_rdma_io): the kernel's
# storage protocols NVMe over RDMA and NFS over RDMA, which register memory with fast
# registration work requests, and the user-space middleware UCX and libfabric. They are in
# the image initramfs-ulp.cpio.gz (scripts/guest-image.sh), which these pairs boot.
#
# Side b serves (nvmet target, NFS server, the servers of ucx_perftest and fi_pingpong),
# side a is the client. Every step checks content or the device's counters, never an exit
# status alone.
#
#   nvme_rdma_io NAME SEED MIB [nvme connect options]   b exports a brd ram disk through
#                        nvmet on rdma, a writes MIB MiB of pattern SEED with O_DIRECT 1 MiB
#                        writes, reads it back and compares, b compares the ram disk
#   nvme_rdma_4q         the same with four I/O queues (a boots with -smp 2): queue_count 5,
#                        snic's fast-register and invalidation counters grew
#   nfs_rdma_io          NFSv4.2 over RDMA: a 16 MiB file written, read back and compared
#   ucx_apps, fi_apps    ucx_info/ucx_perftest (UCT rc_verbs, ud_verbs; UCP tag_bw) and
#                        fi_info/fi_pingpong over the verbs provider
#   ulp_rmmod            rmmod snic under a connected NVMe controller with I/O running
#   ulp_dmesg_clean      dmesg_clean, and no drain failure or hung task

NVME_NQN=nqn.2014-08.io.snic:ulp-ram0
NVME_PORT=4420
NVME_RAM_MIB=64
# Given explicitly, so that every connect is the same host to the target.
NVME_HOSTID=5eb1c0de-0000-4000-8000-00000000000a
NVME_HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:$NVME_HOSTID
# coreutils dd: busybox's has no oflag=direct nor iflag=fullblock
DD=/usr/bin/dd
NVME_DEV=
NVME_CTRL=
NVME_TARGET_UP=
NFS_PORT=20049

# --- NVMe over RDMA ---------------------------------------------------------------------
# Side b: the target. A ram disk (brd) of NVME_RAM_MIB MiB is namespace 1 of subsystem
# NVME_NQN, open to any host, on an rdma port at this side's address.
nvme_target_up() {
    local s=/sys/kernel/config/nvmet
    modprobe_all nvmet nvmet-rdma || return 1
    modprobe brd rd_nr=1 rd_size=$((NVME_RAM_MIB * 1024)) max_part=0 ||
        { echo "modprobe brd failed"; return 1; }
    [ -b /dev/ram0 ] || { echo "no /dev/ram0 after modprobe brd"; return 1; }
    [ -d $s ] || { echo "no $s (configfs or nvmet missing)"; return 1; }
    { mkdir "$s/subsystems/$NVME_NQN" &&
        echo 1 > "$s/subsystems/$NVME_NQN/attr_allow_any_host" &&
        mkdir "$s/subsystems/$NVME_NQN/namespaces/1" &&
        echo -n /dev/ram0 > "$s/subsystems/$NVME_NQN/namespaces/1/device_path" &&
        echo 1 > "$s/subsystems/$NVME_NQN/namespaces/1/enable" &&
        mkdir "$s/ports/1" &&
        echo rdma > "$s/ports/1/addr_trtype" &&
        echo ipv4 > "$s/ports/1/addr_adrfam" &&
        echo "$OWN_IP" > "$s/ports/1/addr_traddr" &&
        echo "$NVME_PORT" > "$s/ports/1/addr_trsvcid" &&
        ln -s "$s/subsystems/$NVME_NQN" "$s/ports/1/subsystems/$NVME_NQN"; } ||
        { echo "nvmet configfs set-up failed"; return 1; }
    NVME_TARGET_UP=1
    echo "nvmet: $NVME_NQN on rdma $OWN_IP:$NVME_PORT, namespace 1 /dev/ram0 ($NVME_RAM_MIB MiB)"
}

# SHA-256 of pattern SEED over MIB MiB
pattern_sum() {
    pattern "$1" "$2M" | sha256sum | cut -d' ' -f1
}

# pattern_sum_start SEED MIB, then pattern_sum_wait: the same into WANT, computed in the
# background meanwhile (under TCG 64 MiB take seconds: the I/O, or the peer's, overlaps them)
# (one file per pattern: one a failed step left running writes only its own)
SUM_PID=
SUM_FILE=
pattern_sum_start() {
    SUM_FILE=/tmp/pattern-$1-$2.sum
    pattern_sum "$1" "$2" > "$SUM_FILE" &
    SUM_PID=$!
}
pattern_sum_wait() {
    WANT=
    [ -n "$SUM_PID" ] && wait "$SUM_PID" && read -r WANT < "$SUM_FILE"
    SUM_PID=
    [ -n "$WANT" ] || { echo "no pattern checksum"; return 1; }
}

# Side b: the ram disk's first MIB MiB are pattern SEED (what side a wrote arrived).
nvme_target_check() {
    local seed=$1 mib=$2 want got
    [ -n "$SUM_PID" ] || pattern_sum_start "$seed" "$mib"
    pattern_sum_wait || return 1
    want=$WANT
    # O_DIRECT: nvmet writes the ram disk past this side's page cache
    got=$($DD if=/dev/ram0 bs=1M count="$mib" iflag=direct status=none | sha256sum | cut -d' ' -f1)
    echo "target: /dev/ram0's first $mib MiB: sha256 $got, pattern $seed: $want"
    [ -n "$got" ] && [ "$got" = "$want" ]
}

# Side a: discover the target, connect (extra options: "$@"), find the controller
# (NVME_CTRL) and its namespace's block device (NVME_DEV).
nvme_connect() {
    local out i c n
    modprobe_all nvme-fabrics nvme-rdma || return 1
    out=$(nvme discover -t rdma -a "$PEER_IP" -s "$NVME_PORT" --hostnqn="$NVME_HOSTNQN" \
              --hostid="$NVME_HOSTID" 2>&1)
    printf '%s\n' "$out"
    printf '%s\n' "$out" | grep -Eq "^subnqn: +$NVME_NQN\$" ||
        { echo "nvme discover: $NVME_NQN not in the discovery log"; return 1; }
    printf '%s\n' "$out" | grep -Eq '^trtype: +rdma$' ||
        { echo "nvme discover: no rdma entry"; return 1; }
    echo "nvme connect -t rdma -n $NVME_NQN -a $PEER_IP -s $NVME_PORT -k 30 $*"
    nvme connect -t rdma -n "$NVME_NQN" -a "$PEER_IP" -s "$NVME_PORT" --hostnqn="$NVME_HOSTNQN" \
        --hostid="$NVME_HOSTID" --keep-alive-tmo=30 "$@" || { echo "nvme connect failed"; return 1; }
    NVME_CTRL=''
    NVME_DEV=''
    i=0
    while [ -z "$NVME_DEV" ]; do
        for c in /sys/class/nvme/nvme*; do
            { [ -e "$c/subsysnqn" ] && [ "$(cat "$c/subsysnqn")" = "$NVME_NQN" ]; } || continue
            NVME_CTRL=${c##*/}
            for n in /sys/block/nvme*n1; do
                [ -e "$n" ] && NVME_DEV=/dev/${n##*/}
            done
        done
        [ -n "$NVME_DEV" ] && [ -b "$NVME_DEV" ] && break
        NVME_DEV=
        i=$((i + 1))
        [ $i -ge 60 ] && { echo "no namespace block device 30 s after connecting"; ls /sys/class/nvme /sys/block; return 1; }
        sleep 0.5
    done
    echo "connected: $NVME_CTRL ($(cat /sys/class/nvme/$NVME_CTRL/transport) $(cat /sys/class/nvme/$NVME_CTRL/address)), namespace $NVME_DEV, $(($(cat /sys/block/${NVME_DEV#/dev/}/size) / 2048)) MiB, queue_count $(cat /sys/class/nvme/$NVME_CTRL/queue_count)"
}

nvme_disconnect() {
    local out
    out=$(nvme disconnect -n "$NVME_NQN" 2>&1)
    printf '%s\n' "$out"
    printf '%s\n' "$out" | grep -q 'disconnected 1 controller' ||
        { echo "nvme disconnect did not disconnect one controller"; return 1; }
    ! [ -e "/sys/class/nvme/$NVME_CTRL" ] || { echo "$NVME_CTRL still in /sys/class/nvme"; return 1; }
}

# Side a: write MIB MiB of pattern SEED to NVME_DEV with O_DIRECT 1 MiB writes (above the
# target's 4 KiB of in-capsule data: the target READs them from this host's memory through
# a fast-registered key), read them back with O_DIRECT and compare.
nvme_io() {
    local seed=$1 mib=$2 t0 t1 t2 want got _
    pattern_sum_start "$seed" "$mib"
    read -r t0 _ < /proc/uptime
    pattern "$seed" "${mib}M" | $DD of="$NVME_DEV" bs=1M iflag=fullblock oflag=direct status=none ||
        { echo "writing $NVME_DEV failed"; return 1; }
    read -r t1 _ < /proc/uptime
    got=$($DD if="$NVME_DEV" bs=1M count="$mib" iflag=direct status=none | sha256sum | cut -d' ' -f1)
    read -r t2 _ < /proc/uptime
    pattern_sum_wait || return 1
    want=$WANT
    echo "wrote $mib MiB of pattern $seed to $NVME_DEV and read it back: sha256 $got, expected $want"
    awk -v n="$NAME_IO" -v m="$mib" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
        printf "SNIC-RESULT name=%s mib=%d write_MBps=%.2f read_MBps=%.2f\n", n, m,
               m * 1.048576 / (b - a), m * 1.048576 / (c - b) }'
    [ -n "$got" ] && [ "$got" = "$want" ]
}

# Side a's step: connect, I/O, the check NVME_CHECK (a function, while connected) if set,
# disconnect.
nvme_host_io() {
    local seed=$1 mib=$2 rc=0
    shift 2
    nvme_connect "$@" || { nvme disconnect -n "$NVME_NQN" 2>&1; return 1; }
    nvme_io "$seed" "$mib" || rc=1
    if [ $rc = 0 ] && [ -n "${NVME_CHECK:-}" ]; then
        $NVME_CHECK || rc=1
    fi
    nvme_disconnect || rc=1
    return $rc
}

# nvme_rdma_io NAME SEED MIB [connect options]: one step NAME on both sides.
nvme_rdma_io() {
    local name=$1 seed=$2 mib=$3
    shift 3
    if [ "$SNIC_SIDE" = b ] && [ -z "$NVME_TARGET_UP" ]; then
        step nvme-target nvme_target_up
    fi
    barrier "$name"
    if [ "$SNIC_SIDE" = a ]; then
        NAME_IO=$name
        step "$name" nvme_host_io "$seed" "$mib" "$@"
        barrier "$name-done"
    else
        pattern_sum_start "$seed" "$mib"
        barrier "$name-done"
        step "$name" nvme_target_check "$seed" "$mib"
    fi
}

# Four I/O queues (two read, two write: the host boots with two CPUs and snic gives two
# completion vectors) and the device's fast registration at work.
nvme_4q_check() {
    local q
    q=$(cat "/sys/class/nvme/$NVME_CTRL/queue_count")
    echo "queue_count $q (admin + 4 I/O queues expected)"
    [ "$q" = 5 ] || return 1
    counters_grew frwr_registered frwr_invalidated
}

nvme_rdma_4q() {
    [ "$SNIC_SIDE" = b ] || counters_snapshot frwr_registered frwr_invalidated > /dev/null
    NVME_CHECK=nvme_4q_check
    nvme_rdma_io nvme-rdma-4q 2 "$NVME_RAM_MIB" --nr-io-queues=2 --nr-write-queues=2
    NVME_CHECK=
}

# --- device removal under a ULP ----------------------------------------------------------
# Side a: with a controller connected and a reader looping over the namespace, rmmod snic
# must return within 30 s (nvme-rdma's remove callback tears its queues down, draining
# them), leave no controller and a clean kernel log; then the driver comes back and a new
# connect does 4 MiB of verified I/O.
rmmod_under_nvme() {
    local reader t0 t1 rc=0 _
    nvme_connect || return 1
    ( while $DD if="$NVME_DEV" of=/dev/null bs=1M iflag=direct status=none; do :; done ) &
    reader=$!
    sleep 3
    kill -0 "$reader" 2>/dev/null || { echo "the reader stopped before rmmod"; return 1; }
    read -r t0 _ < /proc/uptime
    timeout 30 rmmod snic || rc=$?
    read -r t1 _ < /proc/uptime
    echo "rmmod snic: exit $rc after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
    kill "$reader" 2>/dev/null
    wait "$reader" 2>/dev/null
    [ $rc = 0 ] || return 1
    [ -z "$(ls /sys/class/nvme 2>/dev/null)" ] ||
        { echo "/sys/class/nvme is not empty:"; ls /sys/class/nvme; return 1; }
    ulp_dmesg_clean || return 1
    modprobe snic || return 1
    net_up snic || return 1
    retry 20 port_active "$DEV" || return 1
    # the GID of our address is back before rdma_cm resolves the route
    retry 20 gid_check "$DEV" > /dev/null || return 1
    NAME_IO=ulp-rmmod-reconnect
    nvme_host_io 5 4
}

ulp_rmmod() {
    if [ "$SNIC_SIDE" = b ] && [ -z "$NVME_TARGET_UP" ]; then
        step nvme-target nvme_target_up
    fi
    barrier ulp-rmmod
    if [ "$SNIC_SIDE" = a ]; then
        step ulp-rmmod rmmod_under_nvme
        barrier ulp-rmmod-done
    else
        barrier ulp-rmmod-done
        step ulp-rmmod nvme_target_check 5 4
    fi
}

# --- NFS over RDMA ----------------------------------------------------------------------
# Side b: an NFSv4-only server exporting a tmpfs over rdma port NFS_PORT (and TCP 2049).
# rpc.mountd answers the kernel's export upcalls; with NFSv2/3 off nothing registers with
# rpcbind, which is not run. No client tracking daemon runs: the kernel records clients in
# /var/lib/nfs/v4recovery, and the grace period is ended by hand (else OPENs wait 90 s).
nfs_server_up() {
    modprobe_all nfsd rpcrdma || return 1
    grep -q ' /proc/fs/nfsd ' /proc/mounts || mount -t nfsd nfsd /proc/fs/nfsd || return 1
    mkdir -p /export
    mount -t tmpfs -o size=64m tmpfs /export || return 1
    : > /etc/exports
    exportfs -o rw,fsid=0,insecure,no_root_squash "*:/export" || { echo "exportfs failed"; return 1; }
    exportfs -v
    rpc.mountd -N 2 -N 3 || { echo "rpc.mountd failed"; return 1; }
    # (this rpc.nfsd knows no NFSv2 to turn off: "-N 2" is an unsupported version)
    rpc.nfsd -N 3 --rdma="$NFS_PORT" 4 || { echo "rpc.nfsd failed"; return 1; }
    echo "portlist: $(tr '\n' ' ' < /proc/fs/nfsd/portlist)versions: $(cat /proc/fs/nfsd/versions)"
    grep -q "^rdma $NFS_PORT\$" /proc/fs/nfsd/portlist || { echo "no rdma listener"; return 1; }
    echo Y > /proc/fs/nfsd/v4_end_grace || return 1
}

nfs_client_io() {
    local seed=3 mib=16 want got
    modprobe_all nfsv4 rpcrdma || return 1
    mkdir -p /mnt/nfs
    /sbin/mount.nfs "$PEER_IP:/" /mnt/nfs -o "vers=4.2,proto=rdma,port=$NFS_PORT" ||
        { echo "mount.nfs failed"; dmesg | tail -n 20; return 1; }
    grep ' /mnt/nfs ' /proc/mounts
    grep ' /mnt/nfs nfs4 .*proto=rdma' /proc/mounts > /dev/null ||
        { echo "/proc/mounts does not show /mnt/nfs with proto=rdma"; umount /mnt/nfs; return 1; }
    want=$(pattern_sum $seed $mib)
    { pattern $seed ${mib}M > /mnt/nfs/data && sync; } || { echo "writing /mnt/nfs/data failed"; umount /mnt/nfs; return 1; }
    # read from the server, not from this client's page cache
    echo 3 > /proc/sys/vm/drop_caches
    got=$(sha256sum < /mnt/nfs/data | cut -d' ' -f1)
    echo "wrote $mib MiB of pattern $seed to /mnt/nfs/data, read back: sha256 $got, expected $want"
    umount /mnt/nfs || { echo "umount failed"; return 1; }
    [ "$got" = "$want" ]
}

nfs_server_check() {
    local want got
    want=$(pattern_sum 3 16)
    got=$(sha256sum < /export/data | cut -d' ' -f1)
    echo "server: /export/data sha256 $got, pattern 3: $want"
    [ -n "$got" ] && [ "$got" = "$want" ]
}

nfs_rdma_io() {
    [ "$SNIC_SIDE" = b ] && step nfs-server nfs_server_up
    barrier nfs-rdma-io
    if [ "$SNIC_SIDE" = a ]; then
        step nfs-rdma-io nfs_client_io
        barrier nfs-rdma-io-done
    else
        barrier nfs-rdma-io-done
        step nfs-rdma-io nfs_server_check
    fi
}

# --- UCX -------------------------------------------------------------------------------
# ucx_info -d lists rc_verbs and ud_verbs on snic's port
ucx_devices() {
    local out t
    out=$(UCX_NET_DEVICES="$DEV:1" timeout 120 ucx_info -d 2>&1)
    printf '%s\n' "$out" | grep -E '^#[[:space:]]+(Transport|Device):'
    for t in rc_verbs ud_verbs; do
        printf '%s\n' "$out" | awk -v t="$t" -v d="$DEV:1" '
            /^#[[:space:]]+Transport:/ { tl = $3 }
            /^#[[:space:]]+Device:/ && tl == t && $3 == d { f = 1 }
            END { exit !f }' || { echo "ucx_info -d: no $t on $DEV:1"; return 1; }
    done
}

# ucx_perftest's final line of each run as a SNIC-RESULT (for grep and the docs)
ucx_report() {
    local name=$1 line
    line=$(grep -E '^[[:space:]]*Final:' "$LOGD/$name.log" | tail -n 1)
    [ -n "$line" ] || { echo "$name: no 'Final:' line"; return 1; }
    # Final: iterations typical_lat avg_lat overall_lat bw_avg bw_overall rate_avg rate_overall
    set -- $line
    echo "SNIC-RESULT name=$name iters=$2 lat_typical_us=$3 lat_avg_us=$4 bw_avg_MBps=$6 msgrate_avg=$8"
}

# The client logs each run's figures; both sides' RoCE packet counters grew.
ucx_summary() {
    local n rc=0
    if [ "$SNIC_SIDE" = a ]; then
        for n in ucx-am-lat-rc ucx-am-lat-ud ucx-tag-bw; do
            ucx_report $n || rc=1
        done
    fi
    counters_grew rdma_tx_packets rdma_rx_packets || rc=1
    return $rc
}

# UCX keeps its shared-memory transports' segments in /dev/shm
shm_up() {
    mkdir -p /dev/shm
    grep -q ' /dev/shm ' /proc/mounts || mount -t tmpfs -o size=64m tmpfs /dev/shm
}

# SNIC_UCX_ENV (snicvm.ucx_env=VAR=VALUE): one more UCX setting for every run, e.g.
# UCX_LOG_LEVEL=debug
ucx_apps() {
    local u="env UCX_NET_DEVICES=$DEV:1 ${SNIC_UCX_ENV:-}"
    step shm shm_up
    step ucx-info ucx_devices
    step ucx-counters-before counters_snapshot rdma_tx_packets rdma_rx_packets
    app ucx-am-lat-rc 240 $u ucx_perftest -t am_lat -x rc_verbs -d "$DEV:1" -n 1000 -w 100 -s 64
    app ucx-am-lat-ud 240 $u ucx_perftest -t am_lat -x ud_verbs -d "$DEV:1" -n 1000 -w 100 -s 64
    app ucx-tag-bw 240 $u UCX_TLS=rc_v ucx_perftest -t tag_bw -n 200 -w 20 -s 65536
    step ucx-perftest ucx_summary
}

# --- libfabric -------------------------------------------------------------------------
fi_domain() {
    local out
    out=$(timeout 120 fi_info -p verbs -t FI_EP_MSG 2>&1)
    printf '%s\n' "$out" | grep -E '^(provider|    fabric|    domain|    type|    protocol):' | head -n 20
    printf '%s\n' "$out" | grep -Eq "^[[:space:]]+domain: $DEV\$" && return 0
    printf '%s\n' "$out" | tail -n 5
    echo "fi_info -p verbs: no domain $DEV for FI_EP_MSG; the provider's own account:"
    FI_LOG_LEVEL=debug timeout 120 fi_info -p verbs -t FI_EP_MSG 2>&1 | grep -i verbs | tail -n 40
    return 1
}

fi_apps() {
    step fi-info fi_domain
    # fi_pingpong takes its control port as -B (server) and -P (client); -c checks every
    # message's bytes (its -v prints each byte it fills in: minutes on a serial console)
    # shellcheck disable=SC2034  # app() in verbs-apps.sh reads them
    APP_PORT_OPT_SERVER=-B APP_PORT_OPT_CLIENT=-P
    app fi-pingpong 180 fi_pingpong -p verbs -e msg -d "$DEV" -I 100 -S 4096 -c
    # shellcheck disable=SC2034
    APP_PORT_OPT_SERVER=-p APP_PORT_OPT_CLIENT=-p
}

# --- the kernel log -----------------------------------------------------------------------
# dmesg_clean, and none of the ULPs' own signs of trouble: a QP drain that failed (the
# generic drain the ULPs call at teardown) or a task hung on one.
ulp_dmesg_clean() {
    local bad
    dmesg_clean || return 1
    bad=$(dmesg | grep -Ei 'failed to drain|hung_task|blocked for more than')
    [ -z "$bad" ] || { printf '%s\n' "$bad"; return 1; }
    echo "dmesg: no drain failure or hung task"
}
