#!/usr/bin/env bash
# Command 1, the main job: set up, build QEMU with snic, the guest kernel module, the
# rdma-core provider and the guest image, then boot two Debian guests with -device snic on
# one wire under TCG. Each loads snic.ko, brings the snic netdev up (MTU 9000), pings the
# other, shows the RoCEv2 device (ibv_devinfo -v, rdma link, GID table, rdma statistic),
# unloads and reloads the driver, and powers off.
#
#   scripts/run.sh        (as root: it installs Debian packages; no options)
#
# Prints one line per phase and ends with one line saying what ran and whether it passed.
# Everything else (builds, both guests' steps) goes to build/run-logs/run.log; the guests'
# consoles are build/run-logs/guest-driver-a.log and -b.log. Exit status 0 when it passed.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
help_or_no_args "$@"
need_root "$0"
cd "$repo" || exit 2

logdir=$repo/build/run-logs
mkdir -p "$logdir"
runlog=$logdir/run.log
: > "$runlog"
t_start=$(date +%s)
ran=()

# run_phase NAME CMD...: the phase's output into the log, its one-line result here.
run_phase() {
    local name=$1 rc
    shift
    phase "$name" "$@" >>"$runlog" 2>&1
    rc=$?
    grep "^==> $name: " "$runlog" | tail -n 1
    ran+=("$name")
    return "$rc"
}

# verdict PASS|FAIL DETAIL: the last line.
verdict() {
    local what
    what=$(printf '%s, ' "${ran[@]}")
    echo "run: $1: ${what%, } in $(( $(date +%s) - t_start ))s${2:+; $2} (full log: ${runlog#"$repo"/})"
}

failed_phase() {
    echo "--- last lines of ${runlog#"$repo"/}:"
    tail -n 25 "$runlog"
    verdict FAIL "phase '$1' failed"
    exit 1
}

run_phase "setup" scripts/setup-deps.sh || failed_phase setup
run_phase "QEMU build" scripts/build-qemu.sh || failed_phase "QEMU build"
run_phase "guest image" scripts/build-guest.sh || failed_phase "guest image"
run_phase "two VMs with snic" scripts/vm-pair.sh --qemu "$qemu_bin" --role guest-driver \
    --timeout 600 --log-dir "$logdir" --name guest-driver
rc=$?

# What the guests did: vm-pair's report, one line per guest plus the steps that failed.
steps=$(sed -n 's/^vm-pair: VM \([ab]\) (guest-driver): \([0-9]*\) steps passed, \([0-9]*\) failed.*/\1 \2 \3/p' "$runlog")
summary=$(awk '{ printf "%sVM %s %d/%d steps passed", (NR > 1 ? ", " : ""), $1, $2, $2 + $3 }' <<<"$steps")
if [ "$rc" = 0 ]; then
    verdict PASS "guest-driver role: ${summary:-no step report}"
    exit 0
fi
grep -E '^  FAIL |^vm-pair: (FAIL|VM )' "$runlog"
verdict FAIL "guest-driver role: ${summary:-no step report}; consoles: build/run-logs/guest-driver-{a,b}.log"
exit 1
