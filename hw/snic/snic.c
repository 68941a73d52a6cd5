/*
 * snic: programmable RDMA NIC, PCIe device glue.
 *
 * This file only connects QEMU to the device core (hw/snic/core/): PCI
 * identity, BARs, MSI-X, the NIC backend, bottom half and virtual-clock
 * timer, reset and migration policy. Device behaviour lives in the core;
 * the hardware interface in include/snic/.
 *
 * BAR0: registers (include/snic/snic_regs.h), BAR2: doorbell pages, one
 * 4 KiB page per context, BAR4: MSI-X table and PBA.
 *
 * Copyright (c) 2026 snic authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/pci/msix.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/pcie.h"
#include "hw/qdev-properties.h"
#include "migration/blocker.h"
#include "net/net.h"
#include "system/runstate.h"

#include "core/host.h"
#include "core/snic_core.h"
#include "snic/snic_admin.h"
#include "snic/snic_opcodes.h"
#include "snic/snic_regs.h"
#include "trace.h"

#define TYPE_SNIC "snic"
OBJECT_DECLARE_SIMPLE_TYPE(SnicState, SNIC)

#define SNIC_MSIX_BAR_SIZE      (4 * KiB)
#define SNIC_MSIX_PBA_OFFSET    (2 * KiB)
#define SNIC_PCIE_CAP_OFFSET    0xa0
#define SNIC_PM_CAP_OFFSET      0x40
/*
 * The least a driver can work with: MSI-X vector 0 for the admin queue and
 * async events, one for the Ethernet rings, one per completion EQ; doorbell
 * page 0 for the kernel and one per user context. The core takes fewer, but
 * such a function cannot be driven (snic.ko fails to probe), so realize
 * refuses them and names the minimum.
 */
#define SNIC_MIN_VECTORS        3
#define SNIC_MIN_DB_PAGES       2
/* Units of work (commands, frames) per bottom-half run: keep vCPUs fed. */
#define SNIC_BH_BUDGET          SNIC_CORE_RUN_BUDGET
/*
 * Main-loop iterations the engine may leave to reception in a row (see
 * snic_bh): more than one run's budget, so that a sustained stream fills
 * the receive buffer to XOFF; bounded, so that a flood of frames the
 * buffer does not hold (Ethernet) cannot stall the engine.
 */
#define SNIC_RX_FIRST_MAX       (4 * SNIC_BH_BUDGET)
/*
 * A frame in each of this many main-loop iterations in a row: the socket
 * backends hand over one datagram per iteration, so the partner sends at
 * least as fast as we read, and the host socket, which PFC cannot see and
 * which drops when full, holds a queue. The port pauses the partner until
 * an iteration brings nothing (the socket is empty).
 */
#define SNIC_WIRE_BACKLOG_ITERS 16

struct SnicState {
    PCIDevice parent_obj;

    MemoryRegion bar_regs;
    MemoryRegion bar_doorbell;
    MemoryRegion bar_msix;

    NICState *nic;
    NICConf conf;
    QEMUBH *bh;
    QEMUTimer *timer;
    VMChangeStateEntry *vmstate_change;
    Error *migration_blocker;
    bool vm_running;
    bool rx_purge_pending;
    bool rx_arrived;            /* a frame came since the last BH run */
    unsigned rx_first;          /* BH runs left to reception in a row */
    unsigned rx_streak;         /* BH runs in a row a frame came before */
    /*
     * Work of the timer and the link-status callback, done by the guarded
     * BH: what the core does then writes guest memory (CQEs, EQEs, an AEQ
     * entry), and only the BH (and the net layer's receive, which engages
     * the same guard) runs under the device's re-entrancy guard, so DMA
     * aimed at the device's own BARs is refused instead of re-entering it.
     */
    bool timer_due;
    bool link_pending;
    bool link_up;               /* ... the state it reported */
    /*
     * Set by unrealize. The core lives until finalize, because unrealize
     * can run in the middle of a core operation (the device's own DMA can
     * power its slot off); from then on the host operations do nothing.
     */
    bool gone;

    SnicCore *core;

    /* properties */
    uint16_t vendor_id;
    uint16_t device_id;
    uint16_t subsys_vendor_id;
    uint16_t subsys_id;
    uint32_t vectors;
    uint32_t db_pages;
    uint32_t tlb_entries;
    uint32_t max_qps;
    uint32_t max_cqs;
    uint32_t max_mrs;
    char *sched_policy;
    uint32_t sched_wqes;
    uint32_t sched_burst;
    uint32_t onchip_kb;
    char *pcap;
    uint32_t wire_drop;
    uint32_t wire_dup;
    uint32_t wire_reorder;
    uint32_t wire_ecn_mark;
    uint32_t torn_reads;        /* x-torn-reads: fault injection (link.h) */
    uint32_t wire_corrupt;      /* x-wire-corrupt */
    uint64_t wire_seed;
    /* x-admin-fail-*: as set; after realize the count is the core's */
    uint32_t admin_fail_count;
    uint16_t admin_fail_status;
    uint16_t admin_fail_opcode;
    uint32_t rx_buffer_kb;
    bool pfc;
    uint32_t pfc_priority;
    uint32_t link_speed_mbps;
    uint32_t drop_msix;         /* x-drop-msix: this vector-0 message */
    char *rpc_opcodes;          /* StRoM RPC op-code map: strom | iba15 */
    uint32_t shuffle_units;     /* StRoM shuffle kernel units */
    uint32_t hll_sketches;      /* HyperLogLog sketches for QPs */
    /* the connectionless transport's tables */
    uint32_t cl_table, cl_mask_bits, cl_packet, cl_escape, cl_done;
    uint32_t cl_ops, cl_txns, cl_endpoints;
    uint32_t resp_hold_ms;      /* a held SRQ receive, QP timeout 0 */
    uint32_t msix0_sent;        /* vector-0 messages so far */
};

/* ---- host interface for the core ---- */

static int snic_host_dma_read(void *opaque, uint64_t addr, void *buf,
                              size_t len)
{
    SnicState *s = opaque;

    if (s->gone) {
        return -1;
    }
    return pci_dma_read(PCI_DEVICE(s), addr, buf, len) == MEMTX_OK ? 0 : -1;
}

static int snic_host_dma_write(void *opaque, uint64_t addr, const void *buf,
                               size_t len)
{
    SnicState *s = opaque;

    if (s->gone) {
        return -1;
    }
    return pci_dma_write(PCI_DEVICE(s), addr, buf, len) == MEMTX_OK ? 0 : -1;
}

/* QEMU's DMA costs no time: what the device read from guest memory is moot */
static void snic_host_tx_frame(void *opaque, const void *frame, size_t len,
                               size_t host_bytes)
{
    SnicState *s = opaque;

    if (!s->gone) {
        qemu_send_packet(qemu_get_queue(s->nic), frame, len);
    }
}

static void snic_host_raise_irq(void *opaque, unsigned vector)
{
    SnicState *s = opaque;

    if (s->gone || !msix_enabled(PCI_DEVICE(s))) {
        return;
    }
    /* fault injection for driver tests: lose one admin/async message */
    if (vector == 0 && s->drop_msix && ++s->msix0_sent == s->drop_msix) {
        trace_snic_msix_dropped(vector, s->msix0_sent);
        return;
    }
    msix_notify(PCI_DEVICE(s), vector);
}

static void snic_host_clear_irq(void *opaque, unsigned vector)
{
    SnicState *s = opaque;

    if (!s->gone) {
        msix_clr_pending(PCI_DEVICE(s), vector);
    }
}

static void snic_host_kick(void *opaque)
{
    SnicState *s = opaque;

    if (!s->gone) {
        qemu_bh_schedule(s->bh);
    }
}

/*
 * Called from reset: never drop frames in the middle of a device
 * operation, do it from the BH.
 */
static void snic_host_rx_purge(void *opaque)
{
    SnicState *s = opaque;

    s->rx_purge_pending = true;
    snic_host_kick(s);
}

static uint64_t snic_host_now_ns(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static void snic_host_timer_mod(void *opaque, uint64_t deadline_ns)
{
    SnicState *s = opaque;

    if (s->gone) {
        return;
    }
    if (deadline_ns == UINT64_MAX) {
        timer_del(s->timer);
    } else {
        timer_mod(s->timer, MIN(deadline_ns, INT64_MAX));
    }
}

/* Its typed trace event went out first (snic_ge_*); this is the log. */
static void snic_host_guest_error(void *opaque, SnicTracePoint ge,
                                  const char *msg)
{
    g_autofree char *event = g_ascii_strdown(snic_event_name(ge), -1);

    qemu_log_mask(LOG_GUEST_ERROR, "%s: %s (trace event snic_%s)\n",
                  TYPE_SNIC, msg, event);
}

/* Every core event to its QEMU trace event, generated from core/events.h */
static void snic_host_trace(void *opaque, SnicTracePoint tp,
                            const uint64_t arg[4])
{
    uint64_t a = arg[0], b = arg[1], c = arg[2], d = arg[3];

    switch (tp) {
#include "trace-switch.c.inc"
    case SNIC_TRACE__MAX:
        break;
    }
}

static const SnicHostOps snic_host_ops = {
    .dma_read = snic_host_dma_read,
    .dma_write = snic_host_dma_write,
    .tx_frame = snic_host_tx_frame,
    .raise_irq = snic_host_raise_irq,
    .clear_irq = snic_host_clear_irq,
    .kick = snic_host_kick,
    .rx_purge = snic_host_rx_purge,
    .now_ns = snic_host_now_ns,
    .timer_mod = snic_host_timer_mod,
    .guest_error = snic_host_guest_error,
    .trace = snic_host_trace,
};

/* ---- engine context: one guarded, burst-limited bottom half ---- */

static void snic_bh(void *opaque)
{
    SnicState *s = opaque;
    NetClientState *nc = qemu_get_queue(s->nic);

    if (!s->vm_running) {
        return;     /* rescheduled by the run-state handler */
    }
    object_ref(OBJECT(s));
    if (s->link_pending) {
        s->link_pending = false;
        snic_core_set_link(s->core, s->link_up);
    }
    if (s->timer_due) {
        s->timer_due = false;
        snic_core_timer(s->core);
    }
    object_unref(OBJECT(s));
    if (s->rx_purge_pending) {
        s->rx_purge_pending = false;
        qemu_flush_or_purge_queued_packets(nc, true);
    }
    /*
     * Reception first. The dgram and socket backends hand over one
     * datagram per main-loop iteration, and what waits behind it sits in
     * the host's socket, which PFC cannot see and which drops when full.
     * A real MAC takes frames at line rate whatever the engine is doing:
     * so while frames keep coming and the receive buffer has room (and no
     * PFC frame waits to go out), the engine waits one more iteration.
     * The wire's backlog moves into the receive buffer, where it pauses
     * the partner in time and its headroom takes what comes after.
     */
    s->rx_streak = s->rx_arrived ? s->rx_streak + 1 : 0;
    snic_core_wire_backlog(s->core, s->rx_streak >= SNIC_WIRE_BACKLOG_ITERS);
    if (s->rx_arrived && s->rx_first < SNIC_RX_FIRST_MAX &&
        snic_core_rx_can_wait(s->core)) {
        s->rx_arrived = false;
        s->rx_first++;
        qemu_bh_schedule(s->bh);
        return;
    }
    s->rx_arrived = false;
    s->rx_first = 0;
    /* The engine's DMA may unplug the device: keep it alive until done. */
    object_ref(OBJECT(s));
    if (snic_core_run(s->core, SNIC_BH_BUDGET) || s->rx_streak) {
        /* frames came: watch the wire until an iteration brings none */
        snic_host_kick(s);
    }
    object_unref(OBJECT(s));
}

static void snic_timer_cb(void *opaque)
{
    SnicState *s = opaque;

    s->timer_due = true;
    snic_host_kick(s);
}

static void snic_vm_state_change(void *opaque, bool running, RunState state)
{
    SnicState *s = opaque;

    s->vm_running = running;
    if (running) {
        qemu_bh_schedule(s->bh);
    }
}

/* ---- BARs ---- */

static uint64_t snic_regs_read(void *opaque, hwaddr addr, unsigned size)
{
    SnicState *s = opaque;

    return snic_core_reg_read(s->core, addr, size);
}

static void snic_regs_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    SnicState *s = opaque;

    snic_core_reg_write(s->core, addr, val, size);
}

static const MemoryRegionOps snic_regs_ops = {
    .read = snic_regs_read,
    .write = snic_regs_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    /* Every size reaches the core, which counts the wrong ones. */
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

static uint64_t snic_doorbell_read(void *opaque, hwaddr addr, unsigned size)
{
    return 0;   /* doorbells are write-only: reads would stall the vCPU */
}

static void snic_doorbell_write(void *opaque, hwaddr addr, uint64_t val,
                                unsigned size)
{
    SnicState *s = opaque;

    snic_core_doorbell(s->core, addr, val, size);
}

static const MemoryRegionOps snic_doorbell_ops = {
    .read = snic_doorbell_read,
    .write = snic_doorbell_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    /* A 64-bit doorbell must arrive as one write, not two halves. */
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

/* ---- NIC backend ---- */

static ssize_t snic_net_receive(NetClientState *nc, const uint8_t *buf,
                                size_t size)
{
    SnicState *s = qemu_get_nic_opaque(nc);
    ssize_t ret;

    object_ref(OBJECT(s));
    s->rx_arrived = true;
    ret = snic_core_receive(s->core, buf, size);
    object_unref(OBJECT(s));
    return ret;
}

static void snic_net_link_status_changed(NetClientState *nc)
{
    SnicState *s = qemu_get_nic_opaque(nc);

    trace_snic_link(!nc->link_down);
    s->link_up = !nc->link_down;
    s->link_pending = true;
    snic_host_kick(s);
}

static NetClientInfo snic_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .receive = snic_net_receive,
    .link_status_changed = snic_net_link_status_changed,
};

/* ---- PCI ---- */

static void snic_write_config(PCIDevice *pdev, uint32_t addr, uint32_t val,
                              int len)
{
    pci_default_write_config(pdev, addr, val, len);
    pcie_cap_flr_write_config(pdev, addr, val, len);
}

/* ---- faults at run time (qom-set) ---- */

static const PropertyInfo snic_prop_admin_fail_status;

static SnicLinkFaults snic_faults(SnicState *s)
{
    return (SnicLinkFaults) {
        .drop_pct = s->wire_drop,
        .dup_pct = s->wire_dup,
        .reorder_pct = s->wire_reorder,
        .ce_pct = s->wire_ecn_mark,
        .torn_pct = s->torn_reads,
        .corrupt_pct = s->wire_corrupt,
        .seed = s->wire_seed,
    };
}

/*
 * A fault property changed: before realize it is configuration, after it
 * the running device's state (its PRNG restarts only when the seed is set).
 */
static void snic_faults_changed(SnicState *s, bool reseed)
{
    SnicLinkFaults f = snic_faults(s);
    bool ok;

    if (!DEVICE(s)->realized) {
        return;
    }
    trace_snic_faults(f.drop_pct, f.dup_pct, f.reorder_pct, f.ce_pct,
                      f.torn_pct, f.corrupt_pct, f.seed, reseed);
    ok = snic_core_set_faults(s->core, &f, reseed, NULL);
    assert(ok);     /* every value was checked by its setter */
}

static void snic_set_fault_pct(Object *obj, Visitor *v, const char *name,
                               void *opaque, Error **errp)
{
    uint32_t *field = object_field_prop_ptr(obj, opaque);
    uint32_t pct;

    if (!visit_type_uint32(v, name, &pct, errp)) {
        return;
    }
    if (pct > 100) {
        error_setg(errp, "snic: %s=%" PRIu32 " is not a percentage (0..100)",
                   name, pct);
        return;
    }
    *field = pct;
    snic_faults_changed(SNIC(obj), false);
}

static void snic_set_fault_seed(Object *obj, Visitor *v, const char *name,
                                void *opaque, Error **errp)
{
    uint64_t *field = object_field_prop_ptr(obj, opaque);

    if (visit_type_uint64(v, name, field, errp)) {
        snic_faults_changed(SNIC(obj), true);
    }
}

/* The admin failures to arm: the properties, with the core's count left */
static SnicAdminFail snic_admin_fail(SnicState *s)
{
    SnicAdminFail f = {
        .count = s->admin_fail_count,
        .status = s->admin_fail_status,
        .opcode = s->admin_fail_opcode,
    };

    if (DEVICE(s)->realized) {
        SnicAdminFail now;

        snic_core_get_admin_fail(s->core, &now);
        f.count = now.count;
    }
    return f;
}

/* Arm f: into the properties, and into the core once realized */
static bool snic_admin_fail_set(SnicState *s, const SnicAdminFail *f,
                                Error **errp)
{
    g_autoptr(GError) err = NULL;

    if (DEVICE(s)->realized) {
        if (!snic_core_set_admin_fail(s->core, f, &err)) {
            error_setg(errp, "snic: %s", err->message);
            return false;
        }
        trace_snic_admin_fail(f->count, f->status, f->opcode);
    }
    s->admin_fail_count = f->count;
    s->admin_fail_status = f->status;
    s->admin_fail_opcode = f->opcode;
    return true;
}

static void snic_get_admin_fail_count(Object *obj, Visitor *v,
                                      const char *name, void *opaque,
                                      Error **errp)
{
    SnicAdminFail f = snic_admin_fail(SNIC(obj));

    visit_type_uint32(v, name, &f.count, errp);
}

static void snic_set_admin_fail_count(Object *obj, Visitor *v,
                                      const char *name, void *opaque,
                                      Error **errp)
{
    SnicState *s = SNIC(obj);
    SnicAdminFail f = snic_admin_fail(s);

    if (visit_type_uint32(v, name, &f.count, errp)) {
        snic_admin_fail_set(s, &f, errp);
    }
}

/*
 * x-admin-fail-status and -opcode: names (NO_RESOURCES, CREATE_QP,
 * create) or numbers; read back as names where they have one.
 */
static void snic_get_admin_fail_name(Object *obj, Visitor *v,
                                     const char *name, void *opaque,
                                     Error **errp)
{
    const Property *prop = opaque;
    SnicAdminFail f = snic_admin_fail(SNIC(obj));
    bool status = prop->info == &snic_prop_admin_fail_status;
    uint16_t val = status ? f.status : f.opcode;
    const char *known = status ? snic_admin_status_name(val) :
                                 snic_admin_opcode_name(val);
    g_autofree char *text = known ? g_strdup(known) :
                            g_strdup_printf("%u", val);

    visit_type_str(v, name, &text, errp);
}

static void snic_set_admin_fail_name(Object *obj, Visitor *v,
                                     const char *name, void *opaque,
                                     Error **errp)
{
    const Property *prop = opaque;
    SnicState *s = SNIC(obj);
    SnicAdminFail f = snic_admin_fail(s);
    g_autofree char *text = NULL;
    bool status = prop->info == &snic_prop_admin_fail_status;
    bool ok;

    if (!visit_type_str(v, name, &text, errp)) {
        return;
    }
    ok = status ? snic_admin_status_parse(text, &f.status) :
                  snic_admin_opcode_parse(text, &f.opcode);
    if (!ok) {
        error_setg(errp, "snic: %s=%s is not %s", name, text,
                   status ? "an admin status (e.g. NO_RESOURCES)" :
                   "an admin op-code (e.g. CREATE_QP) nor create");
        return;
    }
    snic_admin_fail_set(s, &f, errp);
}

/* Settable after realize: cloned from QEMU's integer properties */
static PropertyInfo snic_prop_fault_pct;
static PropertyInfo snic_prop_fault_seed;
static PropertyInfo snic_prop_admin_fail_count;

static const PropertyInfo snic_prop_admin_fail_status = {
    .type = "str",
    .get = snic_get_admin_fail_name,
    .set = snic_set_admin_fail_name,
    .realized_set_allowed = true,
};

static const PropertyInfo snic_prop_admin_fail_opcode = {
    .type = "str",
    .get = snic_get_admin_fail_name,
    .set = snic_set_admin_fail_name,
    .realized_set_allowed = true,
};

/*
 * The core's configuration from the properties, every value checked
 * (the core validates its own; the glue the PCI function's limits).
 */
static bool snic_realize_config(SnicState *s, SnicCoreConfig *cfg,
                                Error **errp)
{
    g_autoptr(GError) err = NULL;

    *cfg = (SnicCoreConfig) {
        .num_db_pages = s->db_pages,
        .num_vectors = s->vectors,
        .tlb_entries = s->tlb_entries,
        .max_qp = s->max_qps,
        .max_cq = s->max_cqs,
        .max_mr = s->max_mrs,
        .sched_wqes = s->sched_wqes,
        .sched_burst = s->sched_burst,
        .onchip_kb = s->onchip_kb,
        /* limits that are not properties */
        .max_pd = SNIC_DEFAULT_MAX_PD,
        .max_eq = SNIC_DEFAULT_MAX_EQ,
        .max_srq = SNIC_DEFAULT_MAX_SRQ,
        .max_mw = SNIC_DEFAULT_MAX_MW,
        .recv_pool = SNIC_DEFAULT_RECV_POOL,
        .max_mr_pages = SNIC_DEFAULT_MAX_MR_PAGES,
        .faults = snic_faults(s),
        .admin_fail = snic_admin_fail(s),
        .rx_buffer_kb = s->rx_buffer_kb,
        .shuffle_units = s->shuffle_units,
        .hll_sketches = s->hll_sketches,
        .cl_table = s->cl_table,
        .cl_mask_bits = s->cl_mask_bits,
        .cl_packet = s->cl_packet,
        .cl_escape = s->cl_escape,
        .cl_done = s->cl_done,
        .cl_ops = s->cl_ops,
        .cl_txns = s->cl_txns,
        .cl_endpoints = s->cl_endpoints,
        .resp_hold_ms = s->resp_hold_ms,
        .pfc_priority = s->pfc_priority,
        .link_speed_mbps = s->link_speed_mbps,
        .lossy = !s->pfc,
    };
    if (!s->rpc_opcodes || !strcmp(s->rpc_opcodes, "strom")) {
        cfg->rpc_opmap = SNIC_RPC_OPMAP_STROM;
    } else if (!strcmp(s->rpc_opcodes, "iba15")) {
        cfg->rpc_opmap = SNIC_RPC_OPMAP_IBA15;
    } else {
        error_setg(errp, "snic: rpc-opcodes=%s: use strom or iba15",
                   s->rpc_opcodes);
        return false;
    }
    if (!g_strcmp0(s->sched_policy, "wrr")) {
        cfg->sched_policy = SNIC_SCHED_WRR;
    } else if (!g_strcmp0(s->sched_policy, "sp")) {
        cfg->sched_policy = SNIC_SCHED_SP;
    } else if (s->sched_policy && strcmp(s->sched_policy, "rr")) {
        error_setg(errp, "snic: sched-policy=%s is not rr, wrr or sp",
                   s->sched_policy);
        return false;
    }
    /* one validation of every property, the core's */
    if (!snic_core_config_check(cfg, &err)) {
        error_setg(errp, "snic: %s", err->message);
        return false;
    }
    if (s->vectors < SNIC_MIN_VECTORS) {
        error_setg(errp, "snic: vectors=%u is below the minimum of %u (vector "
                   "0: admin queue and async events, 1: Ethernet, 2 and up: "
                   "completion EQs)", s->vectors, SNIC_MIN_VECTORS);
        return false;
    }
    if (s->db_pages < SNIC_MIN_DB_PAGES) {
        error_setg(errp, "snic: doorbell-pages=%u is below the minimum of %u "
                   "(page 0 is the kernel's, each user context needs one)",
                   s->db_pages, SNIC_MIN_DB_PAGES);
        return false;
    }
    return true;
}

/* IDs and the three BARs: registers, doorbells, MSI-X table and PBA */
static void snic_realize_bars(SnicState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    pci_config_set_vendor_id(pdev->config, s->vendor_id);
    pci_config_set_device_id(pdev->config, s->device_id);
    pci_set_word(pdev->config + PCI_SUBSYSTEM_VENDOR_ID, s->subsys_vendor_id);
    pci_set_word(pdev->config + PCI_SUBSYSTEM_ID, s->subsys_id);

    memory_region_init_io(&s->bar_regs, OBJECT(s), &snic_regs_ops, s,
                          "snic-regs", SNIC_BAR0_SIZE);
    pci_register_bar(pdev, SNIC_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->bar_regs);
    memory_region_init_io(&s->bar_doorbell, OBJECT(s), &snic_doorbell_ops, s,
                          "snic-doorbells",
                          pow2ceil((uint64_t)s->db_pages * SNIC_DB_PAGE_SIZE));
    pci_register_bar(pdev, SNIC_BAR_DOORBELL, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->bar_doorbell);
    memory_region_init(&s->bar_msix, OBJECT(s), "snic-msix",
                       SNIC_MSIX_BAR_SIZE);
    pci_register_bar(pdev, SNIC_BAR_MSIX, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->bar_msix);
}

/*
 * The capabilities: PCI Express with FLR, power management, MSI-X with
 * every vector in use. Undone by snic_exit() (or here, on failure).
 */
static bool snic_realize_caps(SnicState *s, Error **errp)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    unsigned v;
    int ret;

    ret = pcie_endpoint_cap_init(pdev, SNIC_PCIE_CAP_OFFSET);
    if (ret < 0) {
        error_setg(errp, "snic: cannot add the PCIe capability (%d)", ret);
        return false;
    }
    pcie_cap_flr_init(pdev);
    if (pci_pm_init(pdev, SNIC_PM_CAP_OFFSET, errp) < 0) {
        goto err_pcie;
    }
    /*
     * D0/D3hot only, like igb: the guest may write the power state, and
     * D3hot -> D0 keeps the device state (No_Soft_Reset, as nvme).
     */
    pci_set_word(pdev->config + SNIC_PM_CAP_OFFSET + PCI_PM_PMC,
                 PCI_PM_CAP_VER_1_1);
    pci_set_word(pdev->config + SNIC_PM_CAP_OFFSET + PCI_PM_CTRL,
                 PCI_PM_CTRL_NO_SOFT_RESET);
    pci_set_word(pdev->wmask + SNIC_PM_CAP_OFFSET + PCI_PM_CTRL,
                 PCI_PM_CTRL_STATE_MASK);
    if (msix_init(pdev, s->vectors, &s->bar_msix, SNIC_BAR_MSIX, 0,
                  &s->bar_msix, SNIC_BAR_MSIX, SNIC_MSIX_PBA_OFFSET, 0,
                  errp)) {
        goto err_pcie;
    }
    /* Without msix_vector_use, msix_notify silently drops the message. */
    for (v = 0; v < s->vectors; v++) {
        msix_vector_use(pdev, v);
    }
    return true;

err_pcie:
    pcie_cap_exit(pdev);
    return false;
}

/*
 * The device core and its host side: the engine's bottom half and timer,
 * the wire (the NIC backend) and the VM's run state.
 */
static void snic_realize_core(SnicState *s, SnicCoreConfig *cfg,
                              SnicPcap *pcap)
{
    s->bh = qemu_bh_new_guarded(snic_bh, s, &DEVICE(s)->mem_reentrancy_guard);
    s->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, snic_timer_cb, s);
    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    memcpy(cfg->mac, s->conf.macaddr.a, sizeof(cfg->mac));
    s->core = snic_core_new(cfg, &snic_host_ops, s, NULL);
    assert(s->core);    /* its configuration was checked before */
    if (pcap) {
        snic_core_set_pcap(s->core, pcap);
    }
    s->nic = qemu_new_nic(&snic_net_info, &s->conf,
                          object_get_typename(OBJECT(s)), DEVICE(s)->id,
                          &DEVICE(s)->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);
    snic_core_set_link(s->core, !qemu_get_queue(s->nic)->link_down);
    s->vm_running = runstate_is_running();
    s->vmstate_change = qdev_add_vm_change_state_handler(DEVICE(s),
                                                         snic_vm_state_change,
                                                         s);
}

/* As igb_pci_realize(): configuration, PCI function, then the device */
static void snic_realize(PCIDevice *pdev, Error **errp)
{
    SnicState *s = SNIC(pdev);
    SnicCoreConfig cfg;
    SnicPcap *pcap = NULL;

    if (!snic_realize_config(s, &cfg, errp)) {
        return;
    }
    if (s->pcap) {
        pcap = snic_pcap_open(s->pcap);
        if (!pcap) {
            error_setg_errno(errp, errno, "snic: cannot create pcap=%s",
                             s->pcap);
            return;
        }
    }
    snic_realize_bars(s);
    if (!snic_realize_caps(s, errp)) {
        goto err_pcap;
    }
    error_setg(&s->migration_blocker, "snic: migration is not supported yet: "
               "queue and transport state live only in the device model");
    if (migrate_add_blocker(&s->migration_blocker, errp) < 0) {
        goto err_caps;
    }
    snic_realize_core(s, &cfg, pcap);
    return;

err_caps:
    msix_unuse_all_vectors(pdev);
    msix_uninit(pdev, &s->bar_msix, &s->bar_msix);
    pcie_cap_exit(pdev);
err_pcap:
    if (pcap) {
        snic_pcap_close(pcap);
    }
}

static void snic_exit(PCIDevice *pdev)
{
    SnicState *s = SNIC(pdev);

    s->gone = true;
    qemu_del_vm_change_state_handler(s->vmstate_change);
    qemu_del_nic(s->nic);
    timer_free(s->timer);
    qemu_bh_delete(s->bh);
    migrate_del_blocker(&s->migration_blocker);
    msix_unuse_all_vectors(pdev);
    msix_uninit(pdev, &s->bar_msix, &s->bar_msix);
    pcie_cap_exit(pdev);
}

static void snic_instance_init(Object *obj)
{
    SnicState *s = SNIC(obj);

    s->admin_fail_status = SNIC_ADMIN_NO_RESOURCES;
    s->admin_fail_opcode = SNIC_ADMIN_FAIL_CREATE;
}

static void snic_instance_finalize(Object *obj)
{
    SnicState *s = SNIC(obj);

    if (s->core) {
        snic_core_free(s->core);
    }
}

/*
 * Device reset and FLR: the PCI core resets config space and MSI-X; the
 * core drops its state (after the operation in flight, if any) and asks
 * for held-back frames to be purged.
 */
static void snic_reset_hold(Object *obj, ResetType type)
{
    SnicState *s = SNIC(obj);

    snic_core_reset(s->core);
    qemu_purge_queued_packets(qemu_get_queue(s->nic));
}

static const Property snic_properties[] = {
    DEFINE_NIC_PROPERTIES(SnicState, conf),
    DEFINE_PROP_UINT16("vendor-id", SnicState, vendor_id, SNIC_PCI_VENDOR_ID),
    DEFINE_PROP_UINT16("device-id", SnicState, device_id, SNIC_PCI_DEVICE_ID),
    DEFINE_PROP_UINT16("subsystem-vendor-id", SnicState, subsys_vendor_id,
                       SNIC_PCI_VENDOR_ID),
    DEFINE_PROP_UINT16("subsystem-id", SnicState, subsys_id, 0x0001),
    DEFINE_PROP_UINT32("vectors", SnicState, vectors, 8),
    DEFINE_PROP_UINT32("doorbell-pages", SnicState, db_pages, 64),
    DEFINE_PROP_UINT32("tlb-entries", SnicState, tlb_entries,
                       SNIC_DEFAULT_TLB_ENTRIES),
    DEFINE_PROP_UINT32("max-qps", SnicState, max_qps, SNIC_DEFAULT_MAX_QP),
    DEFINE_PROP_UINT32("max-cqs", SnicState, max_cqs, SNIC_DEFAULT_MAX_CQ),
    DEFINE_PROP_UINT32("max-mrs", SnicState, max_mrs, SNIC_DEFAULT_MAX_MR),
    DEFINE_PROP_STRING("sched-policy", SnicState, sched_policy),
    DEFINE_PROP_UINT32("sched-wqes", SnicState, sched_wqes,
                       SNIC_SCHED_DEFAULT_WQES),
    DEFINE_PROP_UINT32("sched-burst", SnicState, sched_burst,
                       SNIC_SCHED_DEFAULT_BURST),
    DEFINE_PROP_UINT32("onchip-kb", SnicState, onchip_kb,
                       SNIC_DEFAULT_ONCHIP_KB),
    DEFINE_PROP_STRING("pcap", SnicState, pcap),
    /* faults: settable after realize too (qom-set) */
    DEFINE_PROP_UNSIGNED("wire-drop", SnicState, wire_drop, 0,
                         snic_prop_fault_pct, uint32_t),
    DEFINE_PROP_UNSIGNED("wire-dup", SnicState, wire_dup, 0,
                         snic_prop_fault_pct, uint32_t),
    DEFINE_PROP_UNSIGNED("wire-reorder", SnicState, wire_reorder, 0,
                         snic_prop_fault_pct, uint32_t),
    DEFINE_PROP_UNSIGNED("wire-ecn-mark", SnicState, wire_ecn_mark, 0,
                         snic_prop_fault_pct, uint32_t),
    DEFINE_PROP_UNSIGNED("x-torn-reads", SnicState, torn_reads, 0,
                         snic_prop_fault_pct, uint32_t),
    DEFINE_PROP_UNSIGNED("x-wire-corrupt", SnicState, wire_corrupt, 0,
                         snic_prop_fault_pct, uint32_t),
    DEFINE_PROP_UNSIGNED("wire-seed", SnicState, wire_seed, 1,
                         snic_prop_fault_seed, uint64_t),
    DEFINE_PROP_UNSIGNED("x-admin-fail-count", SnicState, admin_fail_count, 0,
                         snic_prop_admin_fail_count, uint32_t),
    DEFINE_PROP("x-admin-fail-status", SnicState, admin_fail_status,
                snic_prop_admin_fail_status, uint16_t),
    DEFINE_PROP("x-admin-fail-opcode", SnicState, admin_fail_opcode,
                snic_prop_admin_fail_opcode, uint16_t),
    DEFINE_PROP_UINT32("rx-buffer-kb", SnicState, rx_buffer_kb,
                       SNIC_DEFAULT_RX_BUFFER_KB),
    DEFINE_PROP_BOOL("pfc", SnicState, pfc, true),
    DEFINE_PROP_UINT32("pfc-priority", SnicState, pfc_priority,
                       SNIC_DEFAULT_PFC_PRIORITY),
    DEFINE_PROP_UINT32("link-speed-mbps", SnicState, link_speed_mbps,
                       SNIC_DEFAULT_LINK_SPEED_MBPS),
    DEFINE_PROP_UINT32("x-drop-msix", SnicState, drop_msix, 0),
    DEFINE_PROP_STRING("rpc-opcodes", SnicState, rpc_opcodes),
    DEFINE_PROP_UINT32("shuffle-units", SnicState, shuffle_units, 0),
    DEFINE_PROP_UINT32("hll-sketches", SnicState, hll_sketches, 2),
    DEFINE_PROP_UINT32("cl-table", SnicState, cl_table, 256),
    DEFINE_PROP_UINT32("cl-mask-bits", SnicState, cl_mask_bits, 128),
    DEFINE_PROP_UINT32("cl-packet", SnicState, cl_packet, 512),
    DEFINE_PROP_UINT32("cl-escape", SnicState, cl_escape, 64),
    DEFINE_PROP_UINT32("cl-done", SnicState, cl_done, 256),
    DEFINE_PROP_UINT32("cl-ops", SnicState, cl_ops, 256),
    DEFINE_PROP_UINT32("cl-txns", SnicState, cl_txns, 256),
    DEFINE_PROP_UINT32("cl-endpoints", SnicState, cl_endpoints, 64),
    DEFINE_PROP_UINT32("resp-hold-ms", SnicState, resp_hold_ms,
                       SNIC_DEFAULT_RESP_HOLD_MS),
};

static void snic_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    k->realize = snic_realize;
    k->exit = snic_exit;
    k->config_write = snic_write_config;
    k->vendor_id = SNIC_PCI_VENDOR_ID;
    k->device_id = SNIC_PCI_DEVICE_ID;
    k->revision = SNIC_PCI_REVISION;
    k->class_id = PCI_CLASS_NETWORK_ETHERNET;
    rc->phases.hold = snic_reset_hold;
    dc->desc = "snic programmable RDMA NIC";
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
    /*
     * Faults change on a running device (hw/misc/xlnx-versal-trng.c does
     * the same): QEMU's integer properties, allowed after realize, with
     * setters that check the value and pass it to the core.
     */
    snic_prop_fault_pct = qdev_prop_uint32;
    snic_prop_fault_pct.set = snic_set_fault_pct;
    snic_prop_fault_pct.realized_set_allowed = true;
    snic_prop_fault_seed = qdev_prop_uint64;
    snic_prop_fault_seed.set = snic_set_fault_seed;
    snic_prop_fault_seed.realized_set_allowed = true;
    snic_prop_admin_fail_count = qdev_prop_uint32;
    snic_prop_admin_fail_count.get = snic_get_admin_fail_count;
    snic_prop_admin_fail_count.set = snic_set_admin_fail_count;
    snic_prop_admin_fail_count.realized_set_allowed = true;
    device_class_set_props(dc, snic_properties);

    object_class_property_set_description(klass, "mac",
        "Ethernet MAC address at power-on");
    object_class_property_set_description(klass, "netdev",
        "Network backend (e.g. -netdev dgram/hubport/socket) for the wire");
    object_class_property_set_description(klass, "vendor-id",
        "PCI vendor ID (0x1af4 = 6900: QEMU's experimental range)");
    object_class_property_set_description(klass, "device-id",
        "PCI device ID (0x10f0 = 4336)");
    object_class_property_set_description(klass, "subsystem-vendor-id",
        "PCI subsystem vendor ID");
    object_class_property_set_description(klass, "subsystem-id",
        "PCI subsystem ID");
    object_class_property_set_description(klass, "vectors",
        "Number of MSI-X vectors, 3..64; vector 0 is admin + async events, "
        "1 Ethernet, 2.. completion EQs");
    object_class_property_set_description(klass, "doorbell-pages",
        "Number of 4 KiB doorbell pages in BAR2, 2..4096; page 0 is the "
        "kernel's, one more per user context");
    object_class_property_set_description(klass, "tlb-entries",
        "Entries of the on-device address translation cache (a power of "
        "two); misses read the MR's page list from guest memory");
    object_class_property_set_description(klass, "max-qps",
        "Number of RC/UD queue pairs besides the GSI QP (QUERY_DEVICE "
        "reports it; CREATE_QP beyond it fails)");
    object_class_property_set_description(klass, "max-cqs",
        "Number of completion queues");
    object_class_property_set_description(klass, "max-mrs",
        "Number of memory regions");
    object_class_property_set_description(klass, "sched-policy",
        "The QP scheduler's policy: rr (round robin, default), wrr "
        "(weighted by traffic class) or sp (strict priority)");
    object_class_property_set_description(klass, "sched-wqes",
        "WQEs a QP's turn of the scheduler fetches at most (fetch-and-drop)");
    object_class_property_set_description(klass, "sched-burst",
        "Bytes a QP's turn of the scheduler sends at most; what is not "
        "sent is fetched again");
    object_class_property_set_description(klass, "onchip-kb",
        "KiB of on-chip memory the budget counts (QUERY_DEVICE reports the "
        "QPs that fit it)");
    object_class_property_set_description(klass, "pcap",
        "Capture every frame the device sends or receives into this "
        "pcap file (time stamps from the virtual clock)");
    object_class_property_set_description(klass, "wire-drop",
        "Percentage of transmitted frames dropped (fault injection; "
        "qom-set changes it on a running device, as every fault property)");
    object_class_property_set_description(klass, "wire-dup",
        "Percentage of transmitted frames sent twice (fault injection)");
    object_class_property_set_description(klass, "wire-reorder",
        "Percentage of transmitted frames held back behind the next one "
        "(fault injection)");
    object_class_property_set_description(klass, "wire-ecn-mark",
        "Percentage of received ECN-capable RoCE frames marked CE, as a "
        "congested switch would (DCQCN's input)");
    object_class_property_set_description(klass, "x-torn-reads",
        "Percentage of host reads (RDMA READ responses, StRoM kernels) "
        "returned torn, as racing a writer (fault injection, Fig. 10)");
    object_class_property_set_description(klass, "x-wire-corrupt",
        "Percentage of transmitted RoCE frames with one byte between the "
        "BTH and the ICRC flipped: the receiver's ICRC check drops them");
    object_class_property_set_description(klass, "wire-seed",
        "Seed of the fault injection: same seed, same faults (setting it "
        "on a running device starts the faults over from it)");
    object_class_property_set_description(klass, "x-admin-fail-count",
        "Test hook: the next N admin commands of x-admin-fail-opcode "
        "complete with x-admin-fail-status without executing; reads back "
        "how many are left");
    object_class_property_set_description(klass, "x-admin-fail-status",
        "Status the failed admin commands complete with: a name "
        "(NO_RESOURCES, the default; BAD_STATE, ...) or a number");
    object_class_property_set_description(klass, "x-admin-fail-opcode",
        "Admin commands x-admin-fail-count fails: create (the default: "
        "every CREATE, ALLOC and REG command), a name (CREATE_QP) or a "
        "number");
    object_class_property_set_description(klass, "rx-buffer-kb",
        "KiB of the port's receive buffer, where RoCE frames wait for the "
        "engine (64..65536); with PFC, XOFF at a quarter, XON at an eighth");
    object_class_property_set_description(klass, "pfc",
        "802.1Qbb priority flow control for the RoCE priority: lossless "
        "(on) or lossy (off: a full receive buffer drops)");
    object_class_property_set_description(klass, "pfc-priority",
        "The RoCE priority (0..7) PFC pauses and obeys; untagged RoCE "
        "belongs to it");
    object_class_property_set_description(klass, "link-speed-mbps",
        "The port's speed in Mb/s, 1000..800000: QUERY_DEVICE reports it, "
        "PFC times pause quanta by it, rate-based transports start at it");
    object_class_property_set_description(klass, "x-drop-msix",
        "Test hook: do not send the Nth MSI-X message of vector 0 (admin "
        "completions and async events), counted from realize; 0 = off");
    object_class_property_set_description(klass, "resp-hold-ms",
        "How long a responder holds an SRQ receive for a SEND whose next "
        "packet does not come, on a QP with timeout 0 (else 4.096 us * "
        "2^timeout * (retry_cnt + 1)); then IBV_WC_REM_ABORT_ERR");
    object_class_property_set_description(klass, "shuffle-units",
        "StRoM shuffle kernel units (0..4), 144 KiB of on-chip memory "
        "each; 0: no shuffle kernel");
    object_class_property_set_description(klass, "hll-sketches",
        "HyperLogLog sketches QPs may attach (0..16), 64 KiB of on-chip "
        "memory each");
    object_class_property_set_description(klass, "cl-table",
        "Connectionless transport: receive registration table entries "
        "(1..65535)");
    object_class_property_set_description(klass, "cl-mask-bits",
        "Connectionless transport: bits of a registration mask, the "
        "packets of the largest registered operation (32..1024)");
    object_class_property_set_description(klass, "cl-packet",
        "Connectionless transport: payload bytes of a packet (64..4096, "
        "a multiple of 4)");
    object_class_property_set_description(klass, "cl-escape",
        "Connectionless transport: packets the escape channel holds "
        "(1..1024)");
    object_class_property_set_description(klass, "cl-done",
        "Connectionless transport: completed-operations cache entries "
        "(1..65535)");
    object_class_property_set_description(klass, "cl-ops",
        "Connectionless transport: the sender's DMA-operation table "
        "entries (1..65535)");
    object_class_property_set_description(klass, "cl-txns",
        "Connectionless transport: the sender's transaction table "
        "entries, packets in flight (1..65535)");
    object_class_property_set_description(klass, "cl-endpoints",
        "Connectionless transport: endpoints at once (1..255)");
    object_class_property_set_description(klass, "rpc-opcodes",
        "Where StRoM's RPC op-codes sit on the wire: strom (default, the "
        "paper's 0x18-0x1C) or iba15 (RPC WRITE Only at 0x1E, clear of "
        "IBA 1.5's FLUSH); both ends must agree");
}

static const TypeInfo snic_info = {
    .name = TYPE_SNIC,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(SnicState),
    .instance_init = snic_instance_init,
    .instance_finalize = snic_instance_finalize,
    .class_init = snic_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void snic_register_types(void)
{
    type_register_static(&snic_info);
}

type_init(snic_register_types)
