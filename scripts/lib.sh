# shellcheck shell=bash
# Shared helpers of the scripts in scripts/ (sourced).
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck disable=SC2034  # used by the scripts that source this
qemu_bin=$repo/build/qemu/qemu-system-x86_64

# log MSG...: "NAME: MSG" on stdout; die MSG...: "NAME: error: MSG" on stderr,
# then exit with $die_status (1 unless the script sets it). NAME is the
# script's file name without .sh.
prog=$(basename "$0" .sh)
die_status=1
log() { echo "$prog: $*"; }
die() { echo "$prog: error: $*" >&2; exit "$die_status"; }

# usage: the script's header comment (from line 2) without its leading '# ';
# usage_to LAST: only its lines up to line LAST.
usage_to() {
    awk -v last="$1" 'NR == 1 { next }
        /^#/ && (last == 0 || NR <= last) { sub(/^# ?/, ""); print; next }
        { exit }' "$0"
}
usage() { usage_to 0; }

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
