#!/usr/bin/env bash
# Boot one snic guest VM under TCG, run one role in it, and report pass/fail.
#
#   scripts/vm-run.sh --qemu PATH --role NAME [--timeout SECONDS] [--log FILE]
#                     [--append "kernel args"] [--image DIR] [--initrd FILE] [--no-build]
#                     [-- extra qemu args...]
#
#   --timeout  whole-VM wall-clock limit (default 300)
#   --log      where to save the console (default <repo>/.cache/logs/vm-ROLE-TIME-PID.log)
#   --append   extra kernel command line (repeatable), e.g. "snicvm.ip=10.0.0.1/24"
#   --image    guest image directory (default <repo>/.cache/guest; built if out of date)
#   --initrd   initramfs, a path or a file name in the image directory (default
#              initramfs.cpio.gz; initramfs-rdma-core-tests.cpio.gz adds python3 and
#              rdma-core's Python tests, see scripts/guest-image.sh)
#   --no-build use the image as it is (the caller built it, e.g. scripts/vm-pair.sh)
#   after --   passed to QEMU as is, e.g. -device snic
#
# The guest console is echoed live and saved to the log. Exit status: 0 when the console
# shows `SNIC-ROLE-RESULT role=NAME rc=0` and QEMU exited cleanly; 1 role failed; 2 usage
# or setup error; 3 timeout; 4 QEMU exited (or crashed) without a result.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
die_status=2

QEMU=
ROLE=
TIMEOUT=300
LOG=
IMAGE=$REPO/.cache/guest
INITRD_NAME=initramfs.cpio.gz
APPEND=()
BUILD=1
while [ $# -gt 0 ]; do
    case $1 in
        --qemu|--role|--timeout|--log|--append|--image|--initrd)
            [ $# -ge 2 ] || die "$1 needs a value"
            case $1 in
                --qemu) QEMU=$2 ;; --role) ROLE=$2 ;; --timeout) TIMEOUT=$2 ;;
                --log) LOG=$2 ;; --append) APPEND+=("$2") ;; --image) IMAGE=$2 ;;
                --initrd) INITRD_NAME=$2 ;;
            esac
            shift 2 ;;
        --no-build) BUILD=; shift ;;
        --) shift; break ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1 (QEMU arguments go after --)" ;;
    esac
done
EXTRA=("$@")

[ -n "$QEMU" ] || die "--qemu PATH is required"
[ -n "$ROLE" ] || die "--role NAME is required"
[ -x "$QEMU" ] || die "QEMU binary '$QEMU' not found or not executable (build it first)"
case $ROLE in *[!A-Za-z0-9_-]*) die "role name '$ROLE': letters, digits, '_' and '-' only" ;; esac
[ -f "$REPO/scripts/guest/roles/$ROLE.sh" ] ||
    log "warning: scripts/guest/roles/$ROLE.sh does not exist; the guest will report rc=127"
case $TIMEOUT in ''|*[!0-9]*) die "--timeout must be a whole number of seconds" ;; esac
command -v timeout >/dev/null || die "'timeout' (coreutils) not found"

# qboot starts the kernel in ~5 s under TCG where SeaBIOS takes ~37 s. It and the
# linuxboot option ROM come from qemu-system-data; the -L dirs are searched for both.
FW_DIRS=(/usr/share/seabios /usr/share/qemu)
[ -f /usr/share/qemu/qboot.rom ] ||
    die "/usr/share/qemu/qboot.rom missing; install qemu-system-data (scripts/setup-deps.sh)"
[ -f /usr/share/qemu/linuxboot_dma.bin ] ||
    die "/usr/share/qemu/linuxboot_dma.bin missing; install qemu-system-data (scripts/setup-deps.sh)"

# Build (or confirm up to date) the guest kernel + initramfs; cheap when nothing changed.
KERNEL=$IMAGE/vmlinuz
case $INITRD_NAME in */*) INITRD=$INITRD_NAME ;; *) INITRD=$IMAGE/$INITRD_NAME ;; esac
if [ -n "$BUILD" ]; then
    "$REPO/scripts/guest-image.sh" --out "$IMAGE" || die "guest image build failed (see above)"
else
    { [ -f "$KERNEL" ] && [ -f "$INITRD" ]; } || die "--no-build: no $KERNEL or $INITRD (run scripts/guest-image.sh)"
fi
[ -f "$INITRD" ] || die "no initramfs $INITRD (scripts/guest-image.sh did not make it: see its warnings above)"

if [ -z "$LOG" ]; then
    mkdir -p "$REPO/.cache/logs"
    LOG=$REPO/.cache/logs/vm-$ROLE-$(date +%Y%m%d-%H%M%S)-$$.log
fi
mkdir -p "$(dirname "$LOG")"
: > "$LOG" || die "cannot write log file $LOG"

# no_timer_check: under TCG on a loaded host the kernel's check that the
# IO-APIC timer ticks can miss its window and panic at boot ("IO-APIC +
# timer doesn't work", seen here with other VMs running); the timer works.
CMDLINE="console=ttyS0 quiet loglevel=3 panic=-1 no_timer_check snicvm.role=$ROLE${APPEND[*]:+ ${APPEND[*]}}"
CMD=("$QEMU" -M "q35,accel=tcg" -cpu max -smp 1 -m 1024
     -bios qboot.rom -L "${FW_DIRS[0]}" -L "${FW_DIRS[1]}"
     -nographic -vga none -no-reboot -nodefaults -serial stdio
     -kernel "$KERNEL" -initrd "$INITRD" -append "$CMDLINE"
     "${EXTRA[@]}")
log "role $ROLE, timeout ${TIMEOUT}s, log $LOG"
log "running:$(printf ' %q' "${CMD[@]}")"

# QEMU and tee run in the background with known pids so that Ctrl-C or a SIGTERM to this
# script stops QEMU now rather than leaving it running until the timeout.
FIFO=$LOG.fifo
rm -f "$FIFO"
mkfifo "$FIFO"
trap 'rm -f "$FIFO"' EXIT
start=$(date +%s.%N)
tee "$LOG" <"$FIFO" &
tee_pid=$!
# stdin from /dev/null: QEMU must not put the caller's terminal into raw mode or eat input.
# QEMU's stderr goes to the log too, so device errors are kept next to the console.
timeout -k 10 "$TIMEOUT" "${CMD[@]}" </dev/null >"$FIFO" 2>&1 &
qemu_pid=$!
interrupted=
trap 'interrupted=1; kill -TERM "$qemu_pid" 2>/dev/null' INT TERM HUP
# wait returns early (>128) when a trapped signal arrives: wait again until QEMU is gone.
while :; do
    qrc=0
    wait "$qemu_pid" || qrc=$?
    kill -0 "$qemu_pid" 2>/dev/null || break
done
wait "$tee_pid" || true
trap - INT TERM HUP
elapsed=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')

# The serial console ends lines with \r\n.
result=$(tr -d '\r' < "$LOG" | grep -E "^SNIC-ROLE-RESULT role=[^ ]* rc=[0-9]+$" | tail -n 1 || true)
rrc=
case $result in "SNIC-ROLE-RESULT role=$ROLE rc="*) rrc=${result##*rc=} ;; esac

echo
if [ -n "$interrupted" ]; then
    log "FAIL role=$ROLE: interrupted after ${elapsed}s, QEMU stopped (log: $LOG)"
    exit 130
fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
    if [ -n "$rrc" ]; then
        log "FAIL role=$ROLE: guest reported rc=$rrc but did not power off within ${TIMEOUT}s (log: $LOG)"
    else
        log "FAIL role=$ROLE: TIMEOUT after ${TIMEOUT}s with no result line (log: $LOG)"
    fi
    exit 3
fi
if [ -z "$rrc" ]; then
    why="QEMU exited with status $qrc before the role reported a result"
    grep -q 'Kernel panic' "$LOG" && why="$why (kernel panic: see log)"
    [ -n "$result" ] && why="$why (found '$result' for another role)"
    log "FAIL role=$ROLE: $why after ${elapsed}s (log: $LOG)"
    exit 4
fi
if [ "$rrc" != 0 ]; then
    hint=
    [ "$rrc" = 127 ] && hint=" (role script or a command it runs not found)"
    log "FAIL role=$ROLE: role script exited rc=$rrc$hint after ${elapsed}s (log: $LOG)"
    exit 1
fi
if [ "$qrc" != 0 ]; then
    log "FAIL role=$ROLE: role passed but QEMU exited with status $qrc after ${elapsed}s (log: $LOG)"
    exit 4
fi
log "PASS role=$ROLE in ${elapsed}s (log: $LOG)"
