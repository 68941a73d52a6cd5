#!/usr/bin/env bash
# Interactive snic guests and the edit-build-reload loop, for driver and application developers.
#
#   scripts/vm.sh shell [OPTIONS] [-- QEMU ARGS]         one guest, a root shell on this terminal
#   scripts/vm.sh pair --shell [OPTIONS] [-- QEMU ARGS]  two guests on one wire, a shell each
#   scripts/vm.sh build [driver|provider|all] [--src DIR] [--out DIR]
#                                        rebuild only snic.ko and/or libsnic (default: all)
#   scripts/vm.sh cc [-o OUT] FILE.c... [GCC ARGS]       build a program to run in the guest
#
# shell and pair boot the test image (scripts/guest-image.sh) with the developer overlay
# (scripts/guest-devtools.sh: bash, gdb, strace, ethtool, snic-reload), load snic.ko, bring its
# netdev up with 10.0.0.1/24 (the pair's guest b: 10.0.0.2/24, the two joined by -netdev dgram
# on 127.0.0.1, each with its own MAC) and share this checkout read-write with virtio-9p on
# /mnt/snic. The console is this terminal: Ctrl-A x stops QEMU, Ctrl-A c switches to its
# monitor; `exit` in the guest powers it off. A copy of each console goes to
# build/vm-logs/NAME[-a|-b].console. Without a terminal, the guest's shell reads stdin once
# it is up and stops at the first command that fails, whose status vm.sh returns (pair: both
# guests read the same lines; guest a is host snic-a, guest b snic-b).
#
# Options of shell and pair:
#   --share DIR       also share DIR read-write, on /mnt/user
#   --gdb[=PORT]      QEMU's gdbstub on 127.0.0.1:PORT (default 1234; pair: guest b on PORT+1),
#                     the guest kernel booted with nokaslr. The first --gdb fetches the guest
#                     kernel's debug symbols (Debian's linux-image-KREL-dbg, about 860 MB) into
#                     .cache/guest/dbg/KREL/ and prints the gdb command line
#   --no-symbols      with --gdb: do not fetch the debug symbols (attach without them)
#   --no-driver       do not load snic.ko at boot (modprobe snic or snic-reload by hand, e.g.
#                     with a breakpoint in its probe)
#   --trace[=PATTERN] QEMU trace events PATTERN (default snic_*) into build/vm-logs/NAME.trace
#   --pcap FILE       capture every frame of the snic device into FILE (pair: FILE-a, FILE-b
#                     before the extension)
#   --mtu N           MTU of the snic netdev (default 9000: RoCE MTU 4096)
#   --name NAME       name of the logs (default shell, pair)
#   --timeout SECS    stop the guests after SECS seconds (default: never)
#   --no-build        boot the image as it is (default: rebuild what changed first)
#   --iommu           the guest behind a virtual IOMMU (-device intel-iommu,intremap=on, the
#                     kernel's intel_iommu=on iommu.passthrough=0 iommu.strict=1): every DMA
#                     of snic is translated, and refused where the driver has no mapping
#   -- QEMU ARGS      more QEMU arguments (pair: for both guests)
# Options of pair:
#   --shell           a shell in each guest (the only mode so far)
#   --sockets         each console on a unix socket (build/vm-logs/NAME-a.sock, -b.sock; attach
#                     with the socat command printed) instead of two tmux panes
#
# build: `driver` runs scripts/build-guest-driver.sh (kbuild: only what changed), `provider`
# scripts/build-provider.sh; --src DIR builds the driver from DIR instead of
# guest-driver/kernel, --out DIR puts snic.ko there instead of build/guest-driver. The guest
# takes the new ones with `snic-reload` (`snic-reload --ko /mnt/...` for another --out).
#
# cc: gcc with the guest's rdma-core headers (the host's libibverbs-dev and librdmacm-dev: the
# same Debian 12 packages the guest's libraries come from) and include/ (the hardware
# headers), linked with -libverbs -lrdmacm; OUT defaults to build/guest-user/NAME, which the
# guest runs as /mnt/snic/build/guest-user/NAME.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
die_status=2

IMAGE=$REPO/.cache/guest
LOGDIR=$REPO/build/vm-logs

# ---- build and cc -----------------------------------------------------------------------
cmd_build() {
    local what=all src='' out='' t0
    while [ $# -gt 0 ]; do
        case $1 in
            driver|provider|all) what=$1; shift ;;
            --src|--out)
                [ $# -ge 2 ] || die "$1 needs a directory"
                [ "$1" = --src ] && src=$2 || out=$2
                shift 2 ;;
            *) die "build: unknown argument $1 (driver|provider|all, --src DIR, --out DIR)" ;;
        esac
    done
    t0=$EPOCHREALTIME
    if [ "$what" != provider ]; then
        "$REPO/scripts/build-guest-driver.sh" ${src:+--src "$src"} ${out:+--out "$out"} ||
            die_status=1 die "snic.ko did not build (errors above)"
    fi
    if [ "$what" != driver ]; then
        { [ -z "$src" ] && [ -z "$out" ]; } || die "--src and --out apply to the driver only"
        "$REPO/scripts/build-provider.sh" || die_status=1 die "libsnic did not build (errors above)"
    fi
    log "$what rebuilt in $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')s; in the guest: snic-reload${out:+ --ko /mnt/.../snic.ko}"
}

cmd_cc() {
    local out='' srcs=() args=() v_dev v_lib
    while [ $# -gt 0 ]; do
        case $1 in
            -o) [ $# -ge 2 ] || die "-o needs a file"; out=$2; shift 2 ;;
            *.c) srcs+=("$1"); shift ;;
            *) args+=("$1"); shift ;;
        esac
    done
    [ ${#srcs[@]} -gt 0 ] || die "cc: no FILE.c given"
    # The headers must be those of the libraries the guest runs: the host's, same package.
    v_dev=$(dpkg-query -W -f='${Version}' libibverbs-dev 2>/dev/null) ||
        die "libibverbs-dev is not installed (scripts/setup-deps.sh)"
    v_lib=$(dpkg-query -W -f='${Version}' libibverbs1 2>/dev/null)
    [ "$v_dev" = "$v_lib" ] || die "libibverbs-dev $v_dev differs from the guest's libibverbs1 $v_lib"
    dpkg-query -W librdmacm-dev >/dev/null 2>&1 || die "librdmacm-dev is not installed (scripts/setup-deps.sh)"
    [ -n "$out" ] || out=$REPO/build/guest-user/$(basename "${srcs[0]}" .c)
    mkdir -p "$(dirname "$out")"
    # a program of snic's direct verbs: libsnic's header and library as the guest has them
    if grep -q 'infiniband/snicdv\.h' "${srcs[@]}"; then
        [ -f "$REPO/build/guest-driver/libsnic-rdmav34.so" ] ||
            die "libsnic is not built: scripts/vm.sh build provider"
        args+=(-I"$REPO/build/guest-driver/include" "$REPO/build/guest-driver/libsnic-rdmav34.so")
    fi
    gcc -O2 -g -Wall -Wextra -I"$REPO/include" -o "$out" "${srcs[@]}" "${args[@]}" -libverbs -lrdmacm ||
        die_status=1 die "gcc failed"
    out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
    case $out in
        "$REPO"/*) log "built $out: in the guest /mnt/snic/${out#"$REPO"/}" ;;
        *) log "built $out (share its directory with --share DIR: /mnt/user in the guest)" ;;
    esac
}

# ---- guests ------------------------------------------------------------------------------
SHARE='' GDB='' GDB_PORT=1234 SYMBOLS=1 DRIVER=1 TRACE='' PCAP='' MTU=9000 NAME='' TIMEOUT=''
BUILD=1 SOCKETS='' SHELL_MODE='' IOMMU='' EXTRA=()
parse_vm_opts() {   # parse_vm_opts pair|shell ARGS...
    local mode=$1
    shift
    while [ $# -gt 0 ]; do
        case $1 in
            --share|--pcap|--mtu|--name|--timeout)
                [ $# -ge 2 ] || die "$1 needs a value"
                case $1 in
                    --share) SHARE=$(cd "$2" 2>/dev/null && pwd) || die "--share: no directory $2" ;;
                    --pcap) PCAP=$2 ;; --mtu) MTU=$2 ;; --name) NAME=$2 ;; --timeout) TIMEOUT=$2 ;;
                esac
                shift 2 ;;
            --gdb) GDB=1; shift ;;
            --gdb=*) GDB=1; GDB_PORT=${1#--gdb=}; shift ;;
            --no-symbols) SYMBOLS=; shift ;;
            --no-driver) DRIVER=; shift ;;
            --trace) TRACE='snic_*'; shift ;;
            --trace=*) TRACE=${1#--trace=}; shift ;;
            --no-build) BUILD=; shift ;;
            --iommu) IOMMU=1; shift ;;
            --shell) [ "$mode" = pair ] || die "--shell is an option of pair"; SHELL_MODE=1; shift ;;
            --sockets) [ "$mode" = pair ] || die "--sockets is an option of pair"; SOCKETS=1; shift ;;
            --) shift; EXTRA=("$@"); break ;;
            *) die "$mode: unknown argument $1 (QEMU arguments go after --; see --help)" ;;
        esac
    done
    for v in "$MTU" "$GDB_PORT" ${TIMEOUT:+"$TIMEOUT"}; do
        case $v in ''|*[!0-9]*) die "--mtu, --gdb=PORT and --timeout take numbers, not '$v'" ;; esac
    done
    [ -x "$qemu_bin" ] || die "$qemu_bin not built: scripts/build-qemu.sh"
}

# Fetch the guest kernel's debug symbols once: vmlinux and the RDMA core modules' debug files
# from Debian's -dbg package (the .deb, ~860 MB, is deleted once they are out).
fetch_symbols() {
    local krel=$1 dir=$IMAGE/dbg/$1 pkg deb sandbox=()
    pkg=linux-image-$krel-dbg
    [ -f "$dir/.complete" ] && return 0
    log "first --gdb: fetching $pkg (about 860 MB) for the guest kernel's symbols"
    mkdir -p "$dir/deb"
    [ "$(id -u)" = 0 ] && sandbox=(-o APT::Sandbox::User=root)
    if [ -z "$(find "$dir/deb" -name "${pkg}_*.deb")" ]; then
        (cd "$dir/deb" && timeout "$apt_timeout" apt-get download -q "${sandbox[@]}" "$pkg") ||
            die "apt-get download $pkg failed (or took over ${apt_timeout}s); --no-symbols attaches without symbols"
    fi
    deb=$(find "$dir/deb" -name "${pkg}_*.deb" | head -n 1)
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir" --wildcards \
        "./usr/lib/debug/boot/vmlinux-$krel" "./usr/lib/debug/lib/modules/$krel/kernel/drivers/infiniband/*" ||
        die "extracting vmlinux from $deb failed"
    mv "$dir/usr/lib/debug/boot/vmlinux-$krel" "$dir/vmlinux"
    rm -rf "$dir/deb"
    touch "$dir/.complete"
}

# The image with the developer overlay appended (rebuilt when either part changed).
dev_image() {
    if [ -n "$BUILD" ]; then
        "$REPO/scripts/guest-image.sh" --out "$IMAGE" >"$LOGDIR/$NAME.image.log" 2>&1 ||
            { cat "$LOGDIR/$NAME.image.log" >&2; die "guest image build failed"; }
        grep -i 'warning' "$LOGDIR/$NAME.image.log" >&2
        "$REPO/scripts/guest-devtools.sh" --out "$IMAGE" >>"$LOGDIR/$NAME.image.log" 2>&1 ||
            { cat "$LOGDIR/$NAME.image.log" >&2; die "developer overlay build failed"; }
    fi
    for f in initramfs.cpio.gz devtools.cpio.gz vmlinuz; do
        [ -f "$IMAGE/$f" ] || die "$IMAGE/$f missing: run without --no-build"
    done
    DEV_INITRD=$IMAGE/initramfs-dev.cpio.gz
    if [ ! -f "$DEV_INITRD" ] || [ "$DEV_INITRD" -ot "$IMAGE/initramfs.cpio.gz" ] ||
       [ "$DEV_INITRD" -ot "$IMAGE/devtools.cpio.gz" ]; then
        { cat "$IMAGE/initramfs.cpio.gz" "$IMAGE/devtools.cpio.gz" > "$DEV_INITRD.tmp" &&
              mv "$DEV_INITRD.tmp" "$DEV_INITRD"; } || die "cannot write $DEV_INITRD"
    fi
}

# qemu_cmd SIDE CONSOLE-CHARDEV: the QEMU command of guest SIDE (a, or b of a pair) into QCMD.
qemu_cmd() {
    local side=$1 chardev=$2 ip mac host port=$GDB_PORT netdev append pcap=$PCAP
    local shares=snic
    case $side in
        a) ip=10.0.0.1/24 host=snic-a ;;
        b) ip=10.0.0.2/24 host=snic-b port=$((GDB_PORT + 1)) ;;
        one) ip=10.0.0.1/24 host=snic ;;
    esac
    # Distinct MACs: QEMU would give every guest 52:54:00:12:34:56. A single guest takes one
    # from this process's id, so two shells started side by side differ too.
    case $side in
        a) mac=52:54:00:5a:00:01 ;;
        b) mac=52:54:00:5a:00:02 ;;
        one) mac=$(printf '52:54:00:5b:%02x:%02x' $(( ($$ >> 8) & 255 )) $(( $$ & 255 ))) ;;
    esac
    if [ "$side" = one ]; then
        # One guest: a wire to nowhere (user networking without host access).
        netdev=user,id=n0,restrict=on
    else
        local lport=$PORT_A rport=$PORT_B
        [ "$side" = b ] && lport=$PORT_B rport=$PORT_A
        netdev=dgram,id=n0,local.type=inet,local.host=127.0.0.1,local.port=$lport,remote.type=inet,remote.host=127.0.0.1,remote.port=$rport
        case $PCAP in *.*) pcap=${PCAP%.*}-$side.${PCAP##*.} ;; ?*) pcap=$PCAP-$side ;; esac
    fi
    [ -n "$SHARE" ] && shares=snic,user
    append="console=ttyS0 quiet loglevel=3 panic=-1 no_timer_check snicvm.role=shell snicvm.host=$host"
    append+=" snicvm.ip=$ip snicvm.mtu=$MTU snicvm.shares=$shares"
    [ -n "$DRIVER" ] || append+=" snicvm.nodriver=1"
    [ -n "$GDB" ] && append+=" nokaslr"
    [ -n "$IOMMU" ] && append+=" $IOMMU_APPEND"
    if [ -t 0 ] && [ -t 1 ]; then
        append+=" snicvm.term=${TERM:-vt100} snicvm.rows=$(tput lines 2>/dev/null || echo 24) snicvm.cols=$(tput cols 2>/dev/null || echo 80)"
    else
        # Typed by a program: stop at the first command that fails, with its status.
        append+=" snicvm.term=dumb snicvm.errexit=1"
    fi
    # shellcheck disable=SC2054  # the commas are QEMU's
    QCMD=("$qemu_bin" -M q35,accel=tcg -cpu max -smp 1 -m 1024
          -bios qboot.rom -L /usr/share/seabios -L /usr/share/qemu
          -display none -vga none -no-reboot -nodefaults
          -chardev "$chardev" -serial chardev:con0 -mon chardev=con0,mode=readline
          -kernel "$IMAGE/vmlinuz" -initrd "$DEV_INITRD" -append "$append"
          ${IOMMU:+"${IOMMU_DEVICE[@]}"}
          -netdev "$netdev" -device "snic,netdev=n0,mac=$mac${pcap:+,pcap=$pcap}"
          -fsdev "local,id=fs0,path=$REPO,security_model=none"
          -device virtio-9p-pci,fsdev=fs0,mount_tag=snic)
    if [ -n "$SHARE" ]; then
        # shellcheck disable=SC2054  # the commas are QEMU's
        QCMD+=(-fsdev "local,id=fs1,path=$SHARE,security_model=none"
               -device virtio-9p-pci,fsdev=fs1,mount_tag=user)
    fi
    [ -z "$GDB" ] || QCMD+=(-gdb "tcp:127.0.0.1:$port")
    [ -z "$TRACE" ] || QCMD+=(-trace "enable=$TRACE,file=$LOGDIR/$NAME${side/one/}.trace")
    QCMD+=("${EXTRA[@]}")
    [ -z "$TIMEOUT" ] || QCMD=(timeout --foreground -k 10 "$TIMEOUT" "${QCMD[@]}")
}

gdb_hint() {    # gdb_hint PORT
    local krel vmlinux=''
    krel=$(cat "$IMAGE/kernel.release")
    [ -n "$SYMBOLS" ] && vmlinux=" $IMAGE/dbg/$krel/vmlinux"
    log "gdbstub on 127.0.0.1:$1: gdb -q${vmlinux} -x $REPO/scripts/snic-gdb.py -ex 'target remote 127.0.0.1:$1'"
}

vm_prepare() {
    mkdir -p "$LOGDIR"
    dev_image
    if [ -n "$GDB" ] && [ -n "$SYMBOLS" ]; then
        fetch_symbols "$(cat "$IMAGE/kernel.release")"
    fi
}

cmd_shell() {
    local rc console
    parse_vm_opts shell "$@"
    NAME=${NAME:-shell}
    vm_prepare
    console=$LOGDIR/$NAME.console
    qemu_cmd one "stdio,id=con0,mux=on,signal=off,logfile=$console"
    [ -z "$GDB" ] || gdb_hint "$GDB_PORT"
    [ -z "$TRACE" ] || log "trace events '$TRACE' -> $LOGDIR/$NAME.trace"
    log "booting (console copy: $console; Ctrl-A x stops QEMU)"
    if [ -t 0 ]; then
        "${QCMD[@]}"
        rc=$?
    else
        start_fed "$console" ''
        feed
        rc=$(cat "$LOGDIR/$NAME.status" 2>/dev/null || echo 4)
    fi
    guest_verdict "$console" "$rc"
}

# Without a terminal the guests' consoles read this script's stdin, fed once every shell has
# shown its prompt: input that arrives while bash sets the serial line up is partly lost.
# start_fed CONSOLE PREFIX: start QCMD in the background, its console input on a FIFO, its
# output prefixed with PREFIX; its exit status goes to CONSOLE's .status file.
FED_PIDS=() FED_FDS=() FED_CONSOLES=()
start_fed() {
    local base=${1%.console} fd
    # (QEMU truncates the console only when it opens it: until then the last run's prompt
    # would pass for this guest's, and its input would go to a guest still booting)
    rm -f "$base.in" "$base.status" "$1"
    mkfifo "$base.in" || die "mkfifo $base.in failed"
    if [ -n "$2" ]; then
        ( "${QCMD[@]}" <"$base.in" 2>&1 | sed -u "s/^/$2/"; echo "${PIPESTATUS[0]}" > "$base.status" ) &
    else    # (sed would hold back a prompt until its line ends)
        ( "${QCMD[@]}" <"$base.in" 2>&1; echo $? > "$base.status" ) &
    fi
    FED_PIDS+=($!)
    # Held open here: QEMU's redirection waits for a writer, and sees EOF only when we close.
    exec {fd}>"$base.in"
    rm -f "$base.in"
    FED_FDS+=("$fd")
    FED_CONSOLES+=("$1")
}

# feed: wait until every fed guest's shell shows its prompt (or its QEMU ended), copy stdin
# to each, close their input, wait for them.
feed() {
    local i ready line pending fd deadline=$(( $(date +%s) + ${TIMEOUT:-600} ))
    trap '' PIPE    # a guest that is gone must not take this script with it
    while :; do
        ready=0
        for i in "${!FED_CONSOLES[@]}"; do
            # The first prompt: bash's readline has set the terminal up by then (bytes that
            # arrive before are partly lost when it does).
            if grep -q 'root@snic[-ab]*:[^ ]*# ' "${FED_CONSOLES[$i]}" 2>/dev/null ||
               ! kill -0 "${FED_PIDS[$i]}" 2>/dev/null; then
                ready=$((ready + 1))
            fi
        done
        if [ "$ready" = "${#FED_CONSOLES[@]}" ] || [ "$(date +%s)" -ge "$deadline" ]; then
            break
        fi
        sleep 0.5
    done
    # Until stdin ends or every guest is off (a caller may keep stdin open after `exit`).
    pending=''
    while :; do
        if IFS= read -r -t 1 line; then
            line=$pending$line pending=''
            # (A guest that is gone just misses the line.)
            for fd in "${FED_FDS[@]}"; do { printf '%s\n' "$line" >&"$fd"; } 2>/dev/null; done
        elif [ $? -gt 128 ]; then
            pending+=$line      # a timeout keeps what came of the line so far
            for i in "${FED_PIDS[@]}"; do kill -0 "$i" 2>/dev/null && continue 2; done
            break
        else
            line=$pending$line
            [ -z "$line" ] || for fd in "${FED_FDS[@]}"; do { printf '%s\n' "$line" >&"$fd"; } 2>/dev/null; done
            break
        fi
    done
    for fd in "${FED_FDS[@]}"; do exec {fd}>&-; done
    wait "${FED_PIDS[@]}"
}

# guest_verdict CONSOLE QEMU-STATUS: the shell's exit status as the guest reported it.
guest_verdict() {
    local res
    res=$(tr -d '\r' < "$1" | sed -n 's/^SNIC-ROLE-RESULT role=shell rc=\([0-9]*\)$/\1/p' | tail -n 1)
    if [ -z "$res" ]; then
        log "the guest ended without powering off from its shell (QEMU exit $2; console: $1)"
        return 3
    fi
    [ "$2" = 0 ] || { log "QEMU exited with $2 (console: $1)"; return 3; }
    return "$res"
}

cmd_pair() {
    local s rc=0 t ports
    parse_vm_opts pair "$@"
    [ -n "$SHELL_MODE" ] || die "pair needs --shell (two interactive guests); scripted pairs: scripts/vm-pair.sh"
    NAME=${NAME:-pair}
    vm_prepare
    command -v python3 >/dev/null || die "python3 not found (used to pick free UDP ports)"
    ports=$(timeout 30 python3 -c '
import socket
s = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))') || die "cannot pick free UDP ports"
    read -r PORT_A PORT_B <<<"$ports"
    wire_rmem_raise
    rm -f "$LOGDIR/$NAME"-[ab].console "$LOGDIR/$NAME"-[ab].status
    if [ -n "$GDB" ]; then gdb_hint "$GDB_PORT"; gdb_hint $((GDB_PORT + 1)); fi
    if [ -n "$SOCKETS" ]; then
        pair_sockets
    elif [ -t 0 ] && [ -t 1 ] && command -v tmux >/dev/null; then
        pair_tmux
    else
        pair_stdin
    fi
    for s in a b; do
        guest_verdict "$LOGDIR/$NAME-$s.console" "$(cat "$LOGDIR/$NAME-$s.status" 2>/dev/null || echo 4)"
        t=$?
        log "guest $s: shell exit $t"
        [ "$t" = 0 ] || rc=$t
    done
    return "$rc"
}

# Two tmux panes side by side, one console each; returns when both guests are off.
pair_tmux() {
    local s session=snic-$NAME-$$ cmds=()
    for s in a b; do
        qemu_cmd "$s" "stdio,id=con0,mux=on,signal=off,logfile=$LOGDIR/$NAME-$s.console"
        cmds+=("$(printf '%q ' "${QCMD[@]}"); echo \$? > $(printf '%q' "$LOGDIR/$NAME-$s.status")")
    done
    log "tmux session $session: guest a left, guest b right (Ctrl-B o switches panes)"
    TMUX='' tmux new-session -s "$session" "${cmds[0]}" \; split-window -h "${cmds[1]}" \; \
        select-pane -t 0 || die "tmux failed"
    if tmux has-session -t "$session" 2>/dev/null; then
        log "detached: the guests run on (tmux attach -t $session)"
        exit 0
    fi
}

# Each console on a unix socket; the guests run in the background until both are off.
pair_sockets() {
    local s pids=()
    for s in a b; do
        rm -f "$LOGDIR/$NAME-$s.sock"
        qemu_cmd "$s" "socket,id=con0,path=$LOGDIR/$NAME-$s.sock,server=on,wait=off,mux=on,logfile=$LOGDIR/$NAME-$s.console"
        ( "${QCMD[@]}" </dev/null >"$LOGDIR/$NAME-$s.qemu.log" 2>&1; echo $? > "$LOGDIR/$NAME-$s.status" ) &
        pids+=($!)
        log "guest $s console: socat -,rawer,escape=0x1d UNIX-CONNECT:$LOGDIR/$NAME-$s.sock (Ctrl-] leaves)"
    done
    wait "${pids[@]}"
}

# No terminal: every line of stdin goes to both guests; their consoles come out prefixed.
pair_stdin() {
    local s
    for s in a b; do
        qemu_cmd "$s" "stdio,id=con0,mux=on,signal=off,logfile=$LOGDIR/$NAME-$s.console"
        start_fed "$LOGDIR/$NAME-$s.console" "[$s] "
    done
    feed
}

case ${1:-} in
    shell) shift; cmd_shell "$@" ;;
    pair) shift; cmd_pair "$@" ;;
    build) shift; cmd_build "$@" ;;
    cc) shift; cmd_cc "$@" ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "${1:+unknown command $1: }use shell, pair --shell, build or cc" ;;
esac
