# shellcheck shell=bash
# Shared helpers of the scripts in scripts/ (sourced).
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck disable=SC2034  # used by the scripts that source this
qemu_bin=$repo/build/qemu/qemu-system-x86_64

# A guest behind a virtual IOMMU (vm-pair.sh and vm.sh --iommu): VT-d with interrupt
# remapping, given before the NIC (a PCI device takes its DMA address space when it is
# created), and a kernel that translates every DMA and unmaps at once, so a stale DMA
# address faults at its first use.
# shellcheck disable=SC2034,SC2054  # used by the scripts that source this; QEMU's commas
IOMMU_DEVICE=(-device intel-iommu,intremap=on)
# shellcheck disable=SC2034  # used by the scripts that source this
IOMMU_APPEND="intel_iommu=on iommu.passthrough=0 iommu.strict=1"

# log MSG...: "NAME: MSG" on stdout; die MSG...: "NAME: error: MSG" on stderr,
# then exit with $die_status (1 unless the script sets it). NAME is the
# script's file name without .sh.
prog=$(basename "$0" .sh)
die_status=1
log() { echo "$prog: $*"; }
die() { echo "$prog: error: $*" >&2; exit "$die_status"; }

# usage: the script's header comment (from line 2, all of it) without its leading '# '.
usage() {
    awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
}

# Time limits (seconds) of the steps that wait on something outside the
# script: apt and the network (SNIC_APT_TIMEOUT), another run holding a lock
# (SNIC_LOCK_TIMEOUT).
# shellcheck disable=SC2034  # used by the scripts that source this
apt_timeout=${SNIC_APT_TIMEOUT:-1800}
# shellcheck disable=SC2034  # used by the scripts that source this
lock_timeout=${SNIC_LOCK_TIMEOUT:-1800}

# phase NAME CMD...: run a phase under a time limit, print its duration.
# SNIC_PHASE_TIMEOUT (seconds) bounds any one phase.
phase() {
    local name=$1 t0 rc
    shift
    echo "==> $name"
    t0=$(date +%s)
    timeout --foreground "${SNIC_PHASE_TIMEOUT:-2400}" "$@"
    rc=$?
    printf '==> %s: %ds%s\n' "$name" $(( $(date +%s) - t0 )) \
        "$([ "$rc" = 0 ] || echo " (FAILED, exit $rc)")"
    return "$rc"
}

need_root() {
    if [ "$(id -u)" != 0 ]; then
        echo "$1: run as root (it installs Debian packages with apt): sudo $0" >&2
        exit 2
    fi
}

# help_or_no_args "$@": for scripts without options: print the usage on -h/--help and exit;
# refuse any other argument (instead of silently starting a long run).
help_or_no_args() {
    case ${1:-} in
        '') return 0 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1 (this script takes none)" ;;
    esac
}

# driver_sources DIR: one word naming the content of a driver's sources, DIR's files (and
# DIR/../common's) and the hardware headers (include/snic) they include. The builds record
# "WORD DIR" next to what they built (FILE.sources); stale_check FILE says when those
# sources have changed since, so that an old snic.ko or libsnic does not go into the image
# unnoticed.
driver_sources() {
    {
        (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
        # the host code the drivers share with the simulator (guest-driver/common)
        [ ! -d "$1/../common" ] || (cd "$1/../common" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
        (cd "$repo/include/snic" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
    } | sha256sum | cut -d' ' -f1
}

stale_check() {     # stale_check FILE: warn (and return 1) if FILE is older than its sources
    local word dir
    read -r word dir < "$1.sources" 2>/dev/null || return 0    # built before the records
    [ -d "$dir" ] || return 0
    [ "$(driver_sources "$dir")" = "$word" ] && return 0
    log "WARNING: $1 is stale: $dir or include/snic changed since it was built, and the old one is used (rebuild: scripts/vm.sh build)"
    return 1
}

# The wire between two guests on one host is QEMU's -netdev dgram, UDP on 127.0.0.1, whose
# sockets take the host's default receive buffer (net.core.rmem_default, 208 KiB on Debian):
# about 25 frames of 4 KiB, where one RoCE window is 128. Below WIRE_RMEM a pair loses the
# tail of every burst and completes only by retransmitting (measured here, the verbs-apps
# pair with 208 KiB forced on QEMU's sockets: every step passes, ib_write_bw 26 MB/s and
# ib_read_bw 17 MB/s where 4 MiB gives 187 and 134). scripts/vm-pair.sh and scripts/vm.sh
# raise it for their run (wire_rmem_raise, root only); every script says so once when it is
# low (wire_rmem_check). 64 MiB, not 4: the socket is the part of the wire PFC cannot see,
# and while the host deschedules the receiving QEMU for milliseconds (2 cores, 4 busy
# threads) the partner, not yet paused, fills it: the pfc role lost 14-32 thousand frames
# there per run at 4 MiB, 106 in one of 3 runs at 16 MiB, none in 2 at 64 MiB.
WIRE_RMEM=67108864
wire_rmem_file=/proc/sys/net/core/rmem_default

wire_rmem_check() {
    local cur
    cur=$(cat "$wire_rmem_file" 2>/dev/null) || return 0
    [ -n "${SNIC_WIRE_RMEM_WARNED:-}" ] && return 0
    [ "$cur" -ge "$WIRE_RMEM" ] && return 0
    export SNIC_WIRE_RMEM_WARNED=1
    echo "$prog: warning: net.core.rmem_default is $cur bytes, below $WIRE_RMEM: two guests on a -netdev dgram wire lose RoCE bursts and crawl on retransmissions. scripts/vm-pair.sh and scripts/vm.sh raise it for their run when root; for guests you start yourself: sysctl -w net.core.rmem_default=$WIRE_RMEM" >&2
}

# wire_rmem_raise: raise net.core.rmem_default to WIRE_RMEM until this script exits (root
# only; sets the EXIT trap). SNIC_WIRE_RMEM=0 leaves it as it is (to see what a hand-run
# pair sees).
wire_rmem_raise() {
    local cur
    cur=$(cat "$wire_rmem_file" 2>/dev/null) || return 0
    [ "$cur" -lt "$WIRE_RMEM" ] || return 0
    if [ "${SNIC_WIRE_RMEM:-}" = 0 ]; then
        log "wire buffer: net.core.rmem_default stays $cur (SNIC_WIRE_RMEM=0)"
    elif echo "$WIRE_RMEM" 2>/dev/null > "$wire_rmem_file"; then
        log "wire buffer: net.core.rmem_default $cur -> $WIRE_RMEM for this run"
        # shellcheck disable=SC2064  # expand now: restore this value
        trap "echo $cur > $wire_rmem_file" EXIT
    else
        log "warning: cannot raise net.core.rmem_default ($cur bytes; needs root): bursts of RoCE frames will be dropped on the wire"
    fi
}
wire_rmem_check
