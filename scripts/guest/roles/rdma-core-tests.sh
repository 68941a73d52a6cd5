#!/bin/sh
# shellcheck shell=dash disable=SC2086,SC2317  # word lists; functions run by step
# Role "rdma-core-tests": rdma-core's own Python test suite (run_tests.py, on Debian's
# python3-pyverbs) against one RDMA device in one VM. Needs the image with python
# (vm-run.sh --initrd initramfs-rdma-core-tests.cpio.gz):
#
#   scripts/vm-run.sh ... --initrd initramfs-rdma-core-tests.cpio.gz --role rdma-core-tests \
#       --append "snicvm.nic=snic snicvm.ip=10.0.0.1/24" -- -device snic,netdev=n0 -netdev user,id=n0,restrict=on
#   (snicvm.nic=virtio with -device virtio-net-pci,...: Linux rxe, the reference)
#
# Set-up: the RDMA core modules and the device's (snic: snic.ko; virtio: virtio-net and
# rdma_rxe with `rdma link add rxe0 type rxe netdev IF`), the netdev up with SNIC_IP (the
# tests need an IPv4-based RoCE v2 GID; they run two QPs on one port, so no peer), the
# port ACTIVE, /dev/shm mounted (multiprocessing's semaphores), run_tests.py itself on
# test_pd (the unmodified entry point works), then every test of the suite, each in its own
# process under a timeout (scripts/guest/roles/rdma-core-runner.py), one line each:
#   SNIC-RDMA-TEST result=pass|fail|error|skip|timeout|notrun id=ID time=S [reason=TEXT]
# The host judges those lines (scripts/rdma-core-results.py); the role's steps pass when
# the suite ran to the end, whatever the tests' results.
#
# Environment (snicvm.X=Y): SNIC_NIC snic|virtio; SNIC_RDMADEV (snic_0 / rxe0);
# SNIC_IP (10.0.0.1/24); SNIC_RDMA_TIMEOUT seconds per test (45); SNIC_RDMA_BUDGET seconds
# for the whole suite (900; tests after it are `notrun`); SNIC_RDMA_TESTS comma-separated
# fnmatch patterns of test ids to run (default all), e.g. '*test_cq_events*';
# SNIC_RDMA_SEED (0): each test's `random` draws (QP sizes, create masks) come from
# SEED:TEST-ID, the same in every run with the same seed.
# shellcheck source=scripts/guest/roles/lib.sh
. /roles/lib.sh

NIC=${SNIC_NIC:-snic}
case $NIC in
    snic) DEV=${SNIC_RDMADEV:-snic_0} ;;
    virtio) DEV=${SNIC_RDMADEV:-rxe0} ;;
    *) echo "rdma-core-tests: snicvm.nic must be snic or virtio, not '$NIC'"; exit 2 ;;
esac
SNIC_IP=${SNIC_IP:-10.0.0.1/24}
OWN_IP=${SNIC_IP%/*}
TESTS_DIR=/usr/share/doc/rdma-core/tests
TMO=${SNIC_RDMA_TIMEOUT:-45}
BUDGET=${SNIC_RDMA_BUDGET:-900}
# Python: no .pyc writes (the image has them all), UTF-8 whatever the locale.
export PYTHONDONTWRITEBYTECODE=1 PYTHONUTF8=1
echo "rdma-core-tests: nic $NIC, RDMA device $DEV, $TMO s per test, budget $BUDGET s"

python_ready() {
    [ -f "$TESTS_DIR/run_tests.py" ] ||
        { echo "no $TESTS_DIR/run_tests.py: boot the image with python (vm-run.sh --initrd initramfs-rdma-core-tests.cpio.gz)"; return 1; }
    python3 -c 'import sys, pyverbs.device as d; print("python", sys.version.split()[0], "pyverbs", d.__file__); print("devices:", [x.name.decode() for x in d.get_device_list()])' ||
        return 1
    echo "SNIC-RDMA-VERSIONS kernel=$(uname -r) pyverbs=$(cat "$TESTS_DIR/.pyverbs-version" 2>/dev/null) nic=$NIC dev=$DEV"
}

shm_up() {
    mkdir -p /dev/shm && mount -t tmpfs -o mode=1777 tmpfs /dev/shm && grep ' /dev/shm ' /proc/mounts
}

step modules-rdma modprobe_all $RDMA_MODULES
step configfs configfs_ready
if [ "$NIC" = snic ]; then
    step modules-snic modprobe_all snic
    step net-up net_up snic
else
    step modules-rxe modprobe_all $RXE_MODULES
    step modules-virtio modprobe_all $VIRTIO_MODULES
    step net-up net_up virtio
    step rxe-add rdma link add "$DEV" type rxe netdev "$SNIC_IF"
fi
step port-active retry 20 port_active "$DEV"
step gid-table retry 10 gid_check "$DEV"
step shm shm_up
step python python_ready
# The unmodified entry point, on one small module.
step run-tests-py python3 "$TESTS_DIR/run_tests.py" --dev "$DEV" -v test_pd
set -- --dev "$DEV" --tests "$TESTS_DIR" --timeout "$TMO" --budget "$BUDGET" --seed "${SNIC_RDMA_SEED:-0}"
if [ -n "${SNIC_RDMA_TESTS:-}" ]; then
    # The comma-separated list becomes words, not globbed.
    set -f
    # shellcheck disable=SC2046
    set -- "$@" $(echo "$SNIC_RDMA_TESTS" | tr ',' ' ')
    set +f
fi
SNIC_STEP_TIMEOUT=$((BUDGET + TMO + 120))      # the runner bounds itself: a backstop
step suite python3 /roles/rdma-core-runner.py "$@"
SNIC_STEP_TIMEOUT=120
step dmesg-clean dmesg_clean
finish
