# shellcheck shell=bash
# Shared helpers for scripts/run.sh and scripts/test.sh (sourced).
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck disable=SC2034  # used by the scripts that source this
qemu_bin=$repo/build/qemu/qemu-system-x86_64

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
