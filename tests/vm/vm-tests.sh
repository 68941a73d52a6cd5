#!/usr/bin/env bash
# VM end-to-end tests: boot guests with scripts/vm-run.sh (one VM) and
# scripts/vm-pair.sh (two VMs on one wire), one VM or one pair at a time, each
# under its own timeout. Writes TAP to RESULTS.
#
#   tests/vm/vm-tests.sh QEMU-BINARY RESULTS-FILE
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
qemu=$1 results=$2
cd "$repo" || exit 2     # QEMU -D paths below are relative to the repository
logs=$repo/build/vm-logs
mkdir -p "$logs"

tests=(
    # name            expect  vm-run.sh arguments
    "lspci            pass    --role lspci -- -device snic,netdev=n0 -netdev user,id=n0,restrict=on"
    # A control: the role must fail when there is no snic (proves the check can fail).
    "lspci-no-device  fail    --role lspci"
)

# Two-VM tests, run with scripts/vm-pair.sh: both roles must pass.
drv_dir=${SNIC_GUEST_DRIVER_DIR:-$repo/build/guest-driver}
pairs=(
    # name        timeout  needs           vm-pair.sh arguments
    # Linux soft RoCE on virtio-net both sides: proves the pair harness and guest userspace.
    "rxe-ping     300      -               --nic virtio --role rxe-ping"
    # Our driver and provider on snic both sides. Side a's device loses the MSI-X message
    # of the probe's first admin completion: the driver must re-poll, not give up.
    "guest-driver 600      snic.ko         --nic snic --role guest-driver --qemu-a -global --qemu-a snic.x-drop-msix=1 --append-a snicvm.lost_msix=1"
    # Unmodified RDMA applications + verbs-check over snic. The same role passes on
    # rxe (--nic virtio, ~80 s; not run here for time).
    # The devices mark CE on 10 % of the ECN-capable frames they receive: only DCQCN QPs
    # send such frames (transport-check's DCQCN run must see CNPs). Each has a shuffle
    # unit: rpc-check -S shuffles into VM b's memory.
    "verbs-apps   600      snic.ko         --nic snic --role verbs-apps -- -global snic.wire-ecn-mark=10 -global snic.shuffle-units=1"
    # Lossless RoCE with PFC: perftest over 256 .. 1024 QPs, no frame dropped by
    # either engine nor by the host sockets of the wire.
    "pfc          400      snic.ko         --nic snic --role pfc --lossless"
    # rdma_cm over the GSI QP: rping, ucmatose, perftest -R.
    "rdma-cm      400      snic.ko         --nic snic --role rdma-cm"
    # Interoperability with Linux rxe, snic as client and as server; the snic
    # device captures its frames (checked below: no transport extension but the SACK QP's).
    # They boot the ULP image: NVMe over RDMA runs between snic and rxe both ways.
    "interop-snic-rxe 400  snic.ko         --nic-a snic --nic-b virtio --role interop --initrd initramfs-ulp.cpio.gz --qemu-a -global --qemu-a snic.pcap=build/vm-logs/pair-interop-snic-rxe-snic.pcap"
    "interop-rxe-snic 400  snic.ko         --nic-a virtio --nic-b snic --role interop --initrd initramfs-ulp.cpio.gz --qemu-b -global --qemu-b snic.pcap=build/vm-logs/pair-interop-rxe-snic-snic.pcap"
    # Both devices drop and reorder 1 % of their frames: RC apps and verbs-check still pass.
    # Then the pair script changes them while they run (scripts/guest/roles/lossy.host, QMP
    # qom-set and set_link at the points the role names): wire-drop 0, 5, 1; VM a's link down
    # for 1 s under verbs-check, and past a QP's retry budget. NVMe over RDMA (ULP image)
    # recovers the same losses.
    "lossy        400      snic.ko         --nic snic --role lossy --initrd initramfs-ulp.cpio.gz -- -global snic.wire-drop=1 -global snic.wire-reorder=1"
    # SRNIC's selective repeat: both devices drop and reorder 2 % of their frames;
    # perftest and verbs-check with SRNIC selected through snicdv, goodput beside go-back-N's.
    "srnic        300      snic.ko         --nic snic --role srnic -- -global snic.wire-drop=2 -global snic.wire-reorder=2"
    # The connectionless transport through snicdv (role cl, tests/vm/cl-check.c): both
    # devices drop and reorder 2 % of their frames; two endpoints of VM a write into one of
    # VM b, every notification and byte checked, a write to a QP that is no endpoint fails.
    "cl           300      snic.ko         --nic snic --role cl -- -global snic.wire-drop=2 -global snic.wire-reorder=2"
    # The RDMA software people run (ULP image): UCX and libfabric, NVMe over RDMA (VM a on
    # two CPUs for four I/O queues), NFS over RDMA, then rmmod snic under a connected
    # NVMe controller with I/O running.
    "ulp          600      snic.ko         --nic snic --role ulp --initrd initramfs-ulp.cpio.gz --qemu-a -smp --qemu-a 2"
    # Both guests behind intel-iommu in translating, strict mode: data by content through
    # it, then a use-after-unmap made on purpose (snic.ko's fault_inject=1 hook) refused by
    # the IOMMU and completed as a protection error; QEMU's side is checked below.
    "iommu        300      snic.ko         --nic snic --role iommu --iommu --qemu-a -d --qemu-a guest_errors --qemu-a -D --qemu-a build/vm-logs/pair-iommu-a.qemu.log"
    # Doorbells for other contexts' queues refused, counted and logged by QEMU
    # (-d guest_errors, checked below); a process's whole SRQ-pool share held
    # mid-message while another's SRQ pingpong passes; kill -9 mid-run; CREATE_QP failed on purpose by VM a's
    # device (scripts/guest/roles/isolation.host: x-admin-fail-* through QMP); rmmod.
    "isolation    400      snic.ko         --nic snic --role isolation --qemu-a -d --qemu-a guest_errors --qemu-a -D --qemu-a build/vm-logs/pair-isolation-a.qemu.log"
)

# An interop pair's capture of the snic device's frames: a snic QP that did not
# select an extension program never sends one. Every RoCE frame has BTH TVer 0 except those
# of the one QP that selected SACK against rxe (transport-check -O -f logs "selected QP
# N (SACK) to peer QP M"): its frames, to rxe's QP M, carry TVer 2 (there must be some: the
# control that this check sees an extension when there is one), and, where snic sends,
# those of the connectionless endpoint that wrote to rxe (cl-check -O logs "CL endpoint N
# writes to peer QP M"): TVer 3 to that QP, and some. Prints why on failure.
xport_capture_ok() {
    local name=$1 pcap=$logs/pair-$1-snic.pcap peer clpeer=none fields consoles
    [ -s "$pcap" ] || { echo "no capture $pcap"; return 1; }
    consoles=$(cat "$logs/pair-$name-a.log" "$logs/pair-$name-b.log" 2>/dev/null | tr -d '\r')
    peer=$(printf '%s\n' "$consoles" |
           sed -n 's/.*selected QP [0-9]* (SACK) to peer QP \([0-9]*\)$/\1/p' | head -n 1)
    [ -n "$peer" ] || { echo "no 'selected QP ... (SACK) to peer QP N' line in the consoles"; return 1; }
    clpeer=$(printf '%s\n' "$consoles" |
             sed -n 's/.*CL endpoint [0-9]* writes to peer QP \([0-9]*\)$/\1/p' | head -n 1)
    [ -n "$clpeer" ] && clpeer=$(printf '0x%06x' "$clpeer")
    fields=$(tshark -r "$pcap" -X lua_script:"$repo/tests/tools/roce_icrc.lua" -Y infiniband.bth.opcode \
                    -T fields -e infiniband.bth.tver -e infiniband.bth.destqp 2>"$pcap.tshark.err") ||
        { echo "tshark failed on $pcap: $(tail -n 1 "$pcap.tshark.err")"; return 1; }
    # tshark prints the destination QP in hex (0x000011)
    printf '%s\n' "$fields" | awk -v peer="$(printf '0x%06x' "$peer")" -v cl="${clpeer:-none}" '
        { n++; q = tolower($2) }
        $1 == 3 && q == cl { c++; next }
        $1 != 0 && ($1 != 2 || q != peer) { if (!w++) print "frame with TVer " $1 " to QP " $2; bad = 1 }
        $1 == 2 && q == peer { x++ }
        END { printf "%d RoCE frames, %d with TVer 2 to the SACK peer QP %s, %d with TVer 3 to the CL peer QP %s, %d others with TVer != 0\n", n, x, peer, c, cl, w
              exit bad || !n || !x || (cl != "none" && !c) }'
}

# The iommu pair's QEMU side (VM a): the IOVA that snic.ko's hook poisoned (verbs-check -U
# prints "use-after-unmap: armed=0 iova=0x... unmapped=1") is the one the device's guest
# error names and intel-iommu's translation failure too; the device logged nothing else
# (-d guest_errors), and QEMU printed nothing but intel-iommu's own lines (one refused DMA
# is several translation failures to it: the later ones it does not record). Prints why on
# failure, the IOVA on success.
iommu_qemu_ok() {
    local console=$logs/pair-iommu-a.log qlog=$logs/pair-iommu-a.qemu.log iova other
    iova=$(tr -d '\r' < "$console" 2>/dev/null |
           sed -n 's/.*use-after-unmap: armed=0 iova=\(0x[0-9a-f]*\) unmapped=1.*/\1/p' | head -n 1)
    [ -n "$iova" ] || { echo "no 'use-after-unmap: ... iova=' line in $console"; return 1; }
    grep -q "snic: QP [0-9]*: DMA (write 0) at IOVA $iova of a data buffer refused" "$qlog" 2>/dev/null ||
        { echo "no guest error naming IOVA $iova in $qlog"; return 1; }
    other=$(grep -v 'snic: QP [0-9]*: DMA (write [01]) at IOVA 0x[0-9a-f]* of a data buffer refused' "$qlog" | head -n 1)
    [ -z "$other" ] || { echo "another line in $qlog: $other"; return 1; }
    tr -d '\r' < "$console" | grep -q "^qemu-system-x86_64: vtd_iommu_translate: detected translation failure (dev=[0-9a-f:]*, iova=$iova)" ||
        { echo "no intel-iommu translation failure at $iova in $console"; return 1; }
    # intel-iommu's own lines: its functions' names, and how it records (or not) a fault
    other=$(tr -d '\r' < "$console" | grep '^qemu-system-x86_64: ' |
            grep -Ev '^qemu-system-x86_64: (vtd_|New fault is not recorded|Next Fault Recording Reg is used|There are pending faults)' |
            head -n 1)
    [ -z "$other" ] || { echo "QEMU printed: $other"; return 1; }
    echo "IOVA $iova: the device's guest error and intel-iommu's translation failure name it"
}

# Each TAP line goes to RESULTS as soon as it is known, the plan last (TAP allows a
# trailing plan): if the run is cut short, what ran is still there, and the missing
# plan marks the file incomplete.
: > "$results"
n=0
tap() { n=$((n + 1)); echo "$1 $n - $2" >> "$results"; }
# TAP diagnostics under a failed step: the last lines the guest printed for it (CI shows
# only the end of a run; the summary repeats these under the failure).
diag() {
    local l
    [ -f "$1" ] || return 0
    while IFS= read -r l; do echo "#   $l" >> "$results"; done < <(
        tr -d '\r' 2>/dev/null < "$1" |
        awk -v head="--- step $2: " -v end="SNIC-STEP name=$2 result=FAIL" '
            !inside && index($0, head) == 1 { inside = 1 }
            inside { buf[n++] = $0 }
            inside && $0 == end { exit }
            END { for (i = (n > 15 ? n - 15 : 0); i < n; i++) print buf[i] }')
}
for t in "${tests[@]}"; do
    read -r name expect args <<<"$t"
    [ "$expect" = fail ] &&
        echo "==> vm/$name is a control: it must FAIL; the FAIL lines it prints are expected"
    # shellcheck disable=SC2086  # args is a word list by construction
    "$repo/scripts/vm-run.sh" --qemu "$qemu" --timeout 300 \
        --log "$logs/$name.log" $args
    rc=$?
    if [ "$expect" = pass ] && [ "$rc" = 0 ]; then
        tap ok "vm/$name"
    elif [ "$expect" = fail ] && [ "$rc" = 1 ]; then
        tap ok "vm/$name (control: failed as it must)"
        echo "==> vm/$name: the control failed as it must"
    else
        tap "not ok" "vm/$name (expected $expect, vm-run exit $rc; console: $logs/$name.log)"
    fi
done
# rdma-core's own Python tests (run_tests.py on python3-pyverbs) on snic in one VM, judged
# against Linux rxe's committed results: one TAP case per test, named
# vm/rdma-core/<test id>; see scripts/rdma-core-results.py for the rules. The role bounds
# every test (45 s) and the whole suite (SNIC_RDMA_BUDGET, 600 s): a hang costs its timeout.
rdma_core_tests() {
    local log=$logs/rdma-core-snic.log rc line
    local budget=${SNIC_RDMA_BUDGET:-600}
    if [ ! -f "$drv_dir/snic.ko" ]; then
        tap "not ok" "vm/rdma-core (not run: $drv_dir/snic.ko is not built; run scripts/build-guest-driver.sh)"
        return
    fi
    rm -f "$log"
    "$repo/scripts/vm-run.sh" --qemu "$qemu" --timeout $((budget + 180)) --log "$log" \
        --initrd initramfs-rdma-core-tests.cpio.gz --role rdma-core-tests \
        --append "snicvm.nic=snic snicvm.ip=10.0.0.1/24 snicvm.rdma_budget=$budget" \
        -- -device snic,netdev=n0 -netdev user,id=n0,restrict=on
    rc=$?
    while IFS= read -r line; do
        case $line in
            "ok "*) tap ok "${line#ok }" ;;
            "not ok "*) tap "not ok" "${line#not ok }" ;;
            *) echo "$line" >> "$results" ;;
        esac
    done < <(python3 "$repo/scripts/rdma-core-results.py" compare "$log" \
                 --reference "$repo/tests/vm/rdma-core-rxe-results.txt" \
                 --exceptions "$repo/tests/vm/rdma-core-exceptions.txt" ||
             echo "not ok vm/rdma-core/results (scripts/rdma-core-results.py failed on $log)")
    if [ "$rc" = 0 ]; then
        tap ok "vm/rdma-core"
    else
        tap "not ok" "vm/rdma-core (vm-run exit $rc; console: $log)"
    fi
}
rdma_core_tests
for t in "${pairs[@]}"; do
    read -r name tmo needs args <<<"$t"
    if [ "$needs" = snic.ko ] && [ ! -f "$drv_dir/snic.ko" ]; then
        tap "not ok" "vm/pair-$name (not run: $drv_dir/snic.ko is not built; run scripts/build-guest-driver.sh)"
        continue
    fi
    rm -f "$logs/pair-$name"-*    # no stale console can be read as this run's
    # The outer timeout is a backstop: vm-pair bounds each VM by --timeout itself.
    # shellcheck disable=SC2086  # args is a word list by construction
    timeout -k 10 $((tmo + 120)) "$repo/scripts/vm-pair.sh" --qemu "$qemu" --timeout "$tmo" \
        --log-dir "$logs" --name "pair-$name" $args
    rc=$?
    # One TAP case per step each guest reported, then one for the pair as a whole.
    for side in a b; do
        while read -r step result; do
            if [ "$result" = PASS ]; then
                tap ok "vm/pair-$name/$side/$step"
            else
                tap "not ok" "vm/pair-$name/$side/$step (console: $logs/pair-$name-$side.log)"
                diag "$logs/pair-$name-$side.log" "$step"
            fi
        done < <(tr -d '\r' < "$logs/pair-$name-$side.log" 2>/dev/null |
                 sed -n 's/^SNIC-STEP name=\([^ ]*\) result=\(PASS\|FAIL\)$/\1 \2/p')
    done
    if [ "$name" = isolation ]; then
        # The device itself said why it ignored the other context's doorbells.
        if grep -q "is not owned by this page's context" "$logs/pair-isolation-a.qemu.log" 2>/dev/null; then
            tap ok "vm/pair-$name/qemu-logged-guest-errors"
        else
            tap "not ok" "vm/pair-$name/qemu-logged-guest-errors (no 'not owned' line in $logs/pair-isolation-a.qemu.log)"
        fi
    fi
    if [ "$name" = iommu ]; then
        if out=$(iommu_qemu_ok); then
            echo "# $out" >> "$results"
            tap ok "vm/pair-$name/qemu-logged-the-fault"
        else
            tap "not ok" "vm/pair-$name/qemu-logged-the-fault ($out)"
        fi
    fi
    case $name in
        interop-*)
            if out=$(xport_capture_ok "$name"); then
                echo "# $out" >> "$results"
                tap ok "vm/pair-$name/no-extension-on-the-wire"
            else
                tap "not ok" "vm/pair-$name/no-extension-on-the-wire ($out)"
            fi ;;
    esac
    if [ "$rc" = 0 ]; then
        tap ok "vm/pair-$name"
    else
        tap "not ok" "vm/pair-$name (vm-pair exit $rc; consoles: $logs/pair-$name-{a,b}.log)"
    fi
done
echo "1..$n" >> "$results"
cat "$results"
! grep -q '^not ok' "$results"
