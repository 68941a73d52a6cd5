#!/usr/bin/env bash
# Make the rxe reference of rdma-core's Python tests: run the rdma-core-tests
# role on Linux rxe (rdma_rxe over virtio-net, one TCG VM) and write its result list, which
# the snic run in tests/vm/vm-tests.sh is judged against. Commit the list it writes.
#
#   scripts/rdma-core-tests-reference.sh [--qemu BIN] [--out FILE] [--timeout SECONDS]
#
#   --qemu     QEMU binary (default build/qemu/qemu-system-x86_64, scripts/build-qemu.sh)
#   --out      the list (default tests/vm/rdma-core-rxe-results.txt)
#   --timeout  the VM's time limit (default 1200; the suite takes about 1 min on rxe)
#
# Run it again when the guest kernel (Debian's linux-image-amd64) or rdma-core
# (libibverbs1 / python3-pyverbs on the host) changes: the list records both, and the
# comparison notes a mismatch. The console is kept in build/vm-logs/rdma-core-rxe.log.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

QEMU=$qemu_bin
OUT=$repo/tests/vm/rdma-core-rxe-results.txt
TIMEOUT=1200
while [ $# -gt 0 ]; do
    case $1 in
        --qemu|--out|--timeout)
            [ $# -ge 2 ] || die "$1 needs a value"
            case $1 in --qemu) QEMU=$2 ;; --out) OUT=$2 ;; --timeout) TIMEOUT=$2 ;; esac
            shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
[ -x "$QEMU" ] || die "QEMU binary '$QEMU' not found (scripts/build-qemu.sh)"

logs=$repo/build/vm-logs
mkdir -p "$logs"
log_file=$logs/rdma-core-rxe.log
rm -f "$log_file"
rc=0
# The same role as the snic run, on rxe; no time budget short of the VM's.
"$repo/scripts/vm-run.sh" --qemu "$QEMU" --timeout "$TIMEOUT" --log "$log_file" \
    --initrd initramfs-rdma-core-tests.cpio.gz --role rdma-core-tests \
    --append "snicvm.nic=virtio snicvm.ip=10.0.0.1/24 snicvm.rdma_budget=$((TIMEOUT - 120))" \
    -- -device virtio-net-pci,netdev=n0,romfile= -netdev user,id=n0,restrict=on || rc=$?
# A failed role step (e.g. dmesg) does not spoil the results; a suite cut short does, and
# rdma-core-results.py refuses to write a list from it.
[ "$rc" = 0 ] || [ "$rc" = 1 ] || die "the rxe VM failed (vm-run exit $rc; console: $log_file)"
[ "$rc" = 0 ] || log "warning: a role step failed on rxe (console: $log_file)"
python3 "$repo/scripts/rdma-core-results.py" reference "$log_file" "$OUT"
grep '^# \(kernel\|rdma-core\|totals\):' "$OUT" | sed "s/^# /$prog: /"
