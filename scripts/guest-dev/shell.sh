#!/bin/sh
# shellcheck shell=dash disable=SC2086  # word lists
# Role "shell" (scripts/vm.sh shell, scripts/vm.sh pair --shell): an interactive root shell on
# the console. Loads the RDMA core and snic (not with snicvm.nodriver=1, e.g. to break in the
# probe under gdb), brings the snic netdev up (snicvm.ip=, snicvm.mtu=), mounts the 9p shares
# (tag "snic", the host's checkout, on /mnt/snic; tag "user", vm.sh --share DIR, on
# /mnt/user), then runs bash on the serial console with job control. The role's exit status is
# the shell's: `exit` powers the guest off.
# Comes with the developer overlay (scripts/guest-devtools.sh), not in the test image.
# shellcheck source=scripts/guest/roles/lib.sh
. /roles/lib.sh

# 9p and the virtio transport are not in the test image's modules.dep: insmod them in the
# order the overlay lists (dependencies first), skipping what is loaded or built in.
load_9p() {
    local m name
    while read -r m; do
        name=$(basename "$m" .ko)
        [ -d "/sys/module/$(echo "$name" | tr - _)" ] && continue
        insmod "$m" || { echo "insmod $m failed"; return 1; }
    done < /etc/snic-dev/modules
    echo "9p and virtio-pci modules loaded"
}

mount_shares() {
    local tag dir rc=0
    for tag in $(echo "${SNIC_SHARES:-}" | tr , ' '); do
        case $tag in snic) dir=/mnt/snic ;; user) dir=/mnt/user ;; *) continue ;; esac
        mkdir -p "$dir"
        # msize: 512 KiB requests instead of 8 KiB make builds' reads from the share faster.
        if mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288,cache=none "$tag" "$dir"; then
            echo "host share '$tag' on $dir"
        else
            echo "mounting host share '$tag' on $dir failed"
            rc=1
        fi
    done
    return $rc
}

step modules-9p load_9p
step mount-shares mount_shares
step modules-rdma modprobe_all $RDMA_MODULES
if [ -z "${SNIC_NODRIVER:-}" ]; then
    step modprobe-snic modprobe snic
    step net-up net_up snic
fi
echo "role shell: $SNIC_STEPS setup steps, $SNIC_FAILED failed${SNIC_FAILED_NAMES:+:$SNIC_FAILED_NAMES}"

hostname "${SNIC_HOST:-snic}"
# The host terminal's type and size, if it has a terminfo entry here (else a plain vt100).
term=${SNIC_TERM:-vt100}
[ -e "/lib/terminfo/$(printf %.1s "$term")/$term" ] || term=vt100
export TERM=$term
[ -n "${SNIC_ROWS:-}" ] && [ -n "${SNIC_COLS:-}" ] && stty -F /dev/ttyS0 rows "$SNIC_ROWS" cols "$SNIC_COLS"
echo "snic: host checkout on /mnt/snic$([ -d /mnt/user ] && echo ', vm.sh --share directory on /mnt/user')"
[ -n "${SNIC_NODRIVER:-}" ] && echo "snic: snic.ko is not loaded (vm.sh --no-driver): modprobe snic, or snic-reload"
echo "snic: snic-reload loads the snic.ko and libsnic built on the host (scripts/vm.sh build); exit powers off"
echo "snic: shell ready on $(hostname)"
# setsid -c: a session whose controlling terminal is the console, so Ctrl-C and job control work.
setsid -c /bin/bash --rcfile /etc/snic-dev/bashrc -i <>/dev/ttyS0 >&0 2>&1
