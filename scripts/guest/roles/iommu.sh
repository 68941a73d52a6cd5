#!/bin/sh
# shellcheck shell=dash disable=SC2317  # functions run by step
# Role "iommu": snic behind a virtual IOMMU on both sides (scripts/vm-pair.sh --iommu:
# intel-iommu with interrupt remapping, the kernel translating every DMA in strict mode).
# The firmware's ACPI tables gave the kernel the DMAR and it enabled the IOMMU; snic's IOMMU
# group translates (type DMA); ibv_rc_pingpong and verbs-check (WRITE and READ by content)
# pass through it. In the same verbs-check run side a makes a driver bug happen on purpose
# with snic.ko's fault_inject=1 hook (debugfs snic/<pci-name>/mr_use_after_unmap): -U's WRITE
# from an MR whose first page is a DMA address the driver has unmapped completes
# IBV_WC_LOC_PROT_ERR, its QP in ERR, and another QP of the process passes a WRITE and a
# READ by content; dma_errors grew and the kernel logged the DMAR fault of snic's BDF at the
# IOVA the hook reported. (tests/vm/vm-tests.sh checks QEMU's side: the device's guest error
# names that IOVA and nothing else of snic went wrong.)
SNIC_VERBS_SUITE=iommu
# shellcheck disable=SC2034  # read by verbs-apps.sh
SNIC_KO_ARGS=fault_inject=1
DEBUGFS=/sys/kernel/debug

# The snic PCI function's sysfs name (e.g. 0000:00:01.0), from the RDMA device
snic_pci() {
    basename "$(readlink -f "/sys/class/infiniband/$DEV/device")"
}

# The kernel found the DMAR table and translates every DMA, unmapping at once.
iommu_dmar() {
    local want
    dmesg | grep -E 'ACPI: DMAR|DMAR: IOMMU enabled|DMAR-IR: Enabled|iommu: Default domain|iommu: DMA domain'
    for want in 'ACPI: DMAR ' 'DMAR: IOMMU enabled' 'iommu: Default domain type: Translated' \
                'iommu: DMA domain TLB invalidation policy: strict mode'; do
        dmesg | grep -qF "$want" || { echo "iommu: no '$want' in dmesg"; return 1; }
    done
}

iommu_group_dma() {
    local pci type group
    pci=$(snic_pci)
    [ -e "/sys/bus/pci/devices/$pci/iommu_group" ] || { echo "snic $pci has no IOMMU group"; return 1; }
    group=$(basename "$(readlink "/sys/bus/pci/devices/$pci/iommu_group")")
    read -r type < "/sys/bus/pci/devices/$pci/iommu_group/type"
    echo "snic $pci: IOMMU group $group, type $type"
    [ "$type" = DMA ]
}

debugfs_hook() {
    grep -q " $DEBUGFS debugfs " /proc/mounts || mount -t debugfs debugfs "$DEBUGFS" || return 1
    ls -l "$DEBUGFS/snic/$(snic_pci)/mr_use_after_unmap"
}

# After verbs-check -U: what the hook reports, the device's counter, the kernel's DMAR fault.
use_after_unmap_seen() {
    local pci report iova
    pci=$(snic_pci)
    report=$(cat "$DEBUGFS/snic/$pci/mr_use_after_unmap")
    echo "mr_use_after_unmap: $report"
    iova=$(echo "$report" | sed -n 's/^armed=0 iova=\(0x[0-9a-f]*\) unmapped=1$/\1/p')
    [ -n "$iova" ] || { echo "the hook poisoned no MR, or its IOVA was still mapped"; return 1; }
    counters_grew dma_errors || return 1
    # "DMAR: [DMA Read NO_PASID] Request device [00:01.0] fault addr 0x... [fault reason ...]"
    retry 10 sh -c "dmesg | grep -E 'DMAR: .* Request device \\[${pci#0000:}\\] fault addr (0x)?${iova#0x} '" ||
        { echo "no DMAR fault of ${pci#0000:} at $iova in dmesg:"; dmesg | grep DMAR | tail -n 5; return 1; }
}

iommu_apps() {
    step iommu-dmar iommu_dmar
    step iommu-group-dma iommu_group_dma
    app rc-pingpong 120 ibv_rc_pingpong -d "$DEV" -g "$GIDX" -n 200 -s 4096 -c
    step debugfs-hook debugfs_hook
    # verbs-check's checks a and b WRITE and READ 1 MiB by content through the IOMMU; with -U
    # (the client, side a) its check c's bad WRITE is the use after unmap
    if [ "$SNIC_SIDE" = a ]; then
        step counters-before counters_snapshot dma_errors
        app verbs-check 180 verbs-check -d "$DEV" -g "$GIDX" \
            -U "$DEBUGFS/snic/$(snic_pci)/mr_use_after_unmap"
        step iommu-use-after-unmap use_after_unmap_seen
    else
        app verbs-check 180 verbs-check -d "$DEV" -g "$GIDX"
    fi
}

# shellcheck source=scripts/guest/roles/verbs-apps.sh
. /roles/verbs-apps.sh
