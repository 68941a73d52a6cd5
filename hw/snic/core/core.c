/*
 * snic core: the hub. Lifetime and reset, the engine run and the timer
 * (each unit does its share and reports its next deadline), and the
 * dispatch of received frames to the RDMA engine or the Ethernet function.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <assert.h>
#include <stdarg.h>
#include <string.h>

#include "core_int.h"
#include "cl/cl.h"
#include "engine/rdma.h"
#include "port/wire.h"
#include "engine/scheduler.h"
#include "engine/wq.h"
#include "objects/cq.h"
#include "objects/mr.h"
#include "objects/mw.h"
#include "objects/qp.h"
#include "objects/srq.h"
#include "port/link.h"
#include "srnic/sr.h"
#include "strom/hll.h"
#include "strom/rpc.h"

/* An error naming a field by its device property, for realize to report */
static bool config_error(GError **errp, const char *fmt, ...)
    G_GNUC_PRINTF(2, 3);

static bool config_error(GError **errp, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    g_propagate_error(errp, g_error_new_valist(
                          g_quark_from_static_string("snic-config"), 0, fmt,
                          ap));
    va_end(ap);
    return false;
}

bool snic_core_config_check(const SnicCoreConfig *cfg, GError **errp)
{
    const struct {
        const char *name;
        uint32_t value, max;
    } ranges[] = {
        { "vectors", cfg->num_vectors, SNIC_MAX_VECTORS },
        { "doorbell-pages", cfg->num_db_pages, SNIC_DB_MAX_PAGES },
        { "max-qps", cfg->max_qp, SNIC_MAX_OBJECTS },
        { "max-cqs", cfg->max_cq, SNIC_MAX_OBJECTS },
        { "max-mrs", cfg->max_mr, SNIC_MAX_OBJECTS },
        { "max_pd", cfg->max_pd, SNIC_MAX_OBJECTS },
        { "max_eq", cfg->max_eq, SNIC_MAX_OBJECTS },
        { "max_srq", cfg->max_srq, SNIC_MAX_OBJECTS },
        { "max_mw", cfg->max_mw, SNIC_MAX_OBJECTS },
        { "recv_pool", cfg->recv_pool, UINT16_MAX },
        { "resp-hold-ms", cfg->resp_hold_ms, SNIC_MAX_RESP_HOLD_MS },
        { "onchip-kb", cfg->onchip_kb, 1u << 22 },
        { "max_mr_pages", cfg->max_mr_pages, UINT32_MAX },
        { "sched-wqes", cfg->sched_wqes, SNIC_SCHED_MAX_WQES },
        { "sched-burst", cfg->sched_burst, SNIC_SCHED_MAX_BURST },
    };
    const struct {
        const char *name;
        uint32_t pct;
    } faults[] = {
        { "wire-drop", cfg->faults.drop_pct },
        { "wire-dup", cfg->faults.dup_pct },
        { "wire-reorder", cfg->faults.reorder_pct },
        { "wire-ecn-mark", cfg->faults.ce_pct },
        { "x-torn-reads", cfg->faults.torn_pct },
        { "x-wire-corrupt", cfg->faults.corrupt_pct },
    };
    unsigned i;

    for (i = 0; i < G_N_ELEMENTS(ranges); i++) {
        if (ranges[i].value < 1 || ranges[i].value > ranges[i].max) {
            return config_error(errp, "%s=%u is out of range 1..%u",
                                ranges[i].name, ranges[i].value,
                                ranges[i].max);
        }
    }
    if (cfg->sched_policy > SNIC_SCHED_SP) {
        return config_error(errp, "sched-policy=%u is not a policy",
                            cfg->sched_policy);
    }
    /* the cache is direct-mapped: a power of two indexes it with a mask */
    if (!cfg->tlb_entries || (cfg->tlb_entries & (cfg->tlb_entries - 1)) ||
        cfg->tlb_entries > SNIC_MAX_OBJECTS) {
        return config_error(errp, "tlb-entries=%u must be a power of two in "
                            "1..%u", cfg->tlb_entries, SNIC_MAX_OBJECTS);
    }
    for (i = 0; i < G_N_ELEMENTS(faults); i++) {
        if (faults[i].pct > 100) {
            return config_error(errp, "%s=%u is not a percentage (0..100)",
                                faults[i].name, faults[i].pct);
        }
    }
    if (!snic_admin_fail_check(&cfg->admin_fail, errp)) {
        return false;
    }
    if (cfg->rpc_opmap >= SNIC_RPC_OPMAPS) {
        return config_error(errp, "rpc-opcodes map %u does not exist",
                            cfg->rpc_opmap);
    }
    if (cfg->shuffle_units > SNIC_SHUFFLE_MAX_UNITS) {
        return config_error(errp, "shuffle-units=%u is out of range 0..%u",
                            cfg->shuffle_units, SNIC_SHUFFLE_MAX_UNITS);
    }
    if (!snic_cl_config_check(cfg, errp)) {
        return false;
    }
    if (cfg->hll_sketches > SNIC_HLL_MAX_SKETCHES) {
        return config_error(errp, "hll-sketches=%u is out of range 0..%u",
                            cfg->hll_sketches, SNIC_HLL_MAX_SKETCHES);
    }
    if (cfg->rx_buffer_kb < SNIC_RX_BUFFER_MIN_KB ||
        cfg->rx_buffer_kb > SNIC_RX_BUFFER_MAX_KB) {
        return config_error(errp, "rx-buffer-kb=%u is out of range %u..%u",
                            cfg->rx_buffer_kb, SNIC_RX_BUFFER_MIN_KB,
                            SNIC_RX_BUFFER_MAX_KB);
    }
    if (cfg->pfc_priority >= SNIC_PFC_PRIORITIES) {
        return config_error(errp, "pfc-priority=%u is not a priority (0..%u)",
                            cfg->pfc_priority, SNIC_PFC_PRIORITIES - 1);
    }
    if (cfg->link_speed_mbps < SNIC_MIN_LINK_SPEED_MBPS ||
        cfg->link_speed_mbps > SNIC_MAX_LINK_SPEED_MBPS) {
        return config_error(errp, "link-speed-mbps=%u is out of range %u..%u",
                            cfg->link_speed_mbps, SNIC_MIN_LINK_SPEED_MBPS,
                            SNIC_MAX_LINK_SPEED_MBPS);
    }
    return true;
}

SnicCore *snic_core_new(const SnicCoreConfig *cfg, const SnicHostOps *ops,
                        void *opaque, GError **errp)
{
    SnicCoreConfig cf = *cfg;
    SnicCore *c;

    cf.max_pd = cf.max_pd ? cf.max_pd : SNIC_DEFAULT_MAX_PD;
    cf.max_mr = cf.max_mr ? cf.max_mr : SNIC_DEFAULT_MAX_MR;
    cf.max_mr_pages = cf.max_mr_pages ? cf.max_mr_pages :
                      SNIC_DEFAULT_MAX_MR_PAGES;
    cf.tlb_entries = cf.tlb_entries ? cf.tlb_entries :
                     SNIC_DEFAULT_TLB_ENTRIES;
    cf.max_qp = cf.max_qp ? cf.max_qp : SNIC_DEFAULT_MAX_QP;
    cf.max_cq = cf.max_cq ? cf.max_cq : SNIC_DEFAULT_MAX_CQ;
    cf.max_eq = cf.max_eq ? cf.max_eq : SNIC_DEFAULT_MAX_EQ;
    cf.max_srq = cf.max_srq ? cf.max_srq : SNIC_DEFAULT_MAX_SRQ;
    cf.max_mw = cf.max_mw ? cf.max_mw : SNIC_DEFAULT_MAX_MW;
    cf.recv_pool = cf.recv_pool ? cf.recv_pool : SNIC_DEFAULT_RECV_POOL;
    cf.resp_hold_ms = cf.resp_hold_ms ? cf.resp_hold_ms :
                      SNIC_DEFAULT_RESP_HOLD_MS;
    cf.onchip_kb = cf.onchip_kb ? cf.onchip_kb : SNIC_DEFAULT_ONCHIP_KB;
    cf.sched_wqes = cf.sched_wqes ? cf.sched_wqes : SNIC_SCHED_DEFAULT_WQES;
    cf.sched_burst = cf.sched_burst ? cf.sched_burst :
                     SNIC_SCHED_DEFAULT_BURST;
    cf.rx_buffer_kb = cf.rx_buffer_kb ? cf.rx_buffer_kb :
                      SNIC_DEFAULT_RX_BUFFER_KB;
    cf.link_speed_mbps = cf.link_speed_mbps ? cf.link_speed_mbps :
                         SNIC_DEFAULT_LINK_SPEED_MBPS;
    if (!snic_core_config_check(&cf, errp)) {
        return NULL;
    }
    c = g_new0(SnicCore, 1);
    c->cfg = cf;
    c->ops = ops;
    c->opaque = opaque;
    c->link_up = true;
    snic_link_init(c, &cf.faults);
    c->admin_fail = cf.admin_fail;
    /* out of line: resets clear the indices, never the frames */
    c->rx_fifo = g_malloc(SNIC_ETH_RX_FIFO * sizeof(*c->rx_fifo));
    c->sr_ctx_hold = g_new0(SnicSrCtrlHold, cf.num_db_pages);
    snic_cq_init(c);
    snic_srq_init(c);
    snic_qp_init(c);
    snic_wq_init(c);
    snic_rdma_init(c);
    snic_sched_init(c);
    snic_mr_init(c);
    snic_rpc_init(c);
    snic_hll_init(c);
    snic_cl_init(c);
    snic_mw_init(c);
    snic_core_reset(c);
    return c;
}

void snic_core_free(SnicCore *c)
{
    snic_link_free(c);
    snic_sched_free(c);
    snic_transport_release_all(c);
    snic_qp_free(c);
    snic_wq_free(c);
    snic_cq_free(c);
    snic_srq_free(c);
    g_free(c->rx_fifo);
    g_free(c->sr_ctx_hold);
    snic_mw_free(c);
    snic_mr_free(c);
    snic_rpc_free(c);
    snic_hll_free(c);
    snic_cl_free(c);
    g_free(c);
}

static void snic_do_reset(SnicCore *c, SnicResetKind kind)
{
    unsigned v;

    SNIC_EVENT(c, RESET, kind);
    snic_link_reset(c);     /* first: it counts into the stats it may keep */
    if (kind == SNIC_RESET_FULL) {
        memset(&c->admin_sq_base, 0,
               sizeof(*c) - offsetof(SnicCore, admin_sq_base));
        memcpy(c->mac, c->cfg.mac, sizeof(c->mac));
        c->mtu = SNIC_ETH_DEFAULT_MTU;
    } else {
        memset(&c->ctrl, 0, sizeof(*c) - offsetof(SnicCore, ctrl));
    }
    snic_transport_release_all(c);
    snic_qp_reset(c);
    snic_wq_reset(c);
    snic_rpc_reset(c);
    snic_hll_reset(c);
    snic_cl_reset(c);
    snic_sched_reset(c);
    snic_cq_reset(c);
    snic_srq_reset(c);
    snic_mw_reset(c);
    snic_mr_reset(c);
    c->timer_deadline = UINT64_MAX;
    c->ops->timer_mod(c->opaque, UINT64_MAX);
    /* Nothing the old state raised or held back may reach the new one. */
    for (v = 0; v < c->cfg.num_vectors; v++) {
        c->ops->clear_irq(c->opaque, v);
    }
    c->ops->rx_purge(c->opaque);
}

/*
 * Device DMA can land on PCI config space (FLR, slot power) or on the
 * device's own registers, so a reset may be requested from inside any
 * operation. It is deferred to the outermost snic_leave(): the operation
 * in flight stops at its next snic_ready() check and never sees state
 * pulled from under it.
 */
void snic_request_reset(SnicCore *c, SnicResetKind kind)
{
    snic_enter(c);
    if (kind > c->reset_pending) {
        c->reset_pending = kind;
    }
    snic_leave(c);
}

void snic_enter(SnicCore *c)
{
    if (!c->busy++) {
        /* what one guest action or one engine run may cost (wq.h) */
        c->wqe_left = SNIC_WQES_PER_CALL;
    }
}

void snic_leave(SnicCore *c)
{
    SnicResetKind kind;

    if (--c->busy || !c->reset_pending) {
        return;
    }
    kind = c->reset_pending;
    c->reset_pending = SNIC_RESET_NONE;
    snic_do_reset(c, kind);
}

/* Power-on state (PCI reset, FLR, SNIC_CTRL_RESET). */
void snic_core_reset(SnicCore *c)
{
    snic_request_reset(c, SNIC_RESET_FULL);
}

/* The earlier of two deadlines, each unit's timer run once (not MIN()) */
static uint64_t earlier(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

void snic_core_timer(SnicCore *c)
{
    uint64_t now, next;

    snic_enter(c);
    now = c->ops->now_ns(c->opaque);
    c->timer_deadline = UINT64_MAX;     /* the host timer is one-shot */
    /* one pass fires what is due and finds the earliest deadline left */
    next = snic_eth_irq_timer(c, now);
    next = earlier(next, snic_link_timer(c, now));
    if (snic_ready(c)) {
        next = earlier(next, snic_sched_timer(c, now));
        next = earlier(next, snic_rpc_timer(c, now));
        next = earlier(next, snic_cq_timer(c, now));
    }
    if (next != c->timer_deadline) {
        c->timer_deadline = next;
        c->ops->timer_mod(c->opaque, next);
    }
    snic_sr_ctrlq_flush(c);
    snic_link_flush(c);
    snic_leave(c);
}

/* Where a received frame goes: the RDMA engine, the Ethernet ring, or away */
static void snic_dispatch_rx(SnicCore *c, const uint8_t *f, size_t len)
{
    if (!snic_ready(c) || !c->link_up || len < SNIC_ETH_HLEN) {
        snic_eth_rx_drop(c, &c->stats.rx_dropped, len, SNIC_DROP_NOT_READY);
    } else if (!(f[0] & 1) && memcmp(f, c->mac, 6)) {
        snic_eth_rx_drop(c, &c->stats.rx_filtered, len, SNIC_DROP_MAC_FILTER);
    } else if (snic_link_is_mac_control(f, len)) {
        snic_link_mac_control(c, f, len);   /* PFC: the MAC's own */
    } else if (len > snic_max_frame(c)) {
        /* the port's MTU bounds every frame, RoCE too, as on a real MAC */
        snic_eth_rx_drop(c, &c->stats.rx_too_long, len, SNIC_DROP_OVER_MTU);
    } else if (snic_frame_is_rocev2(f, len)) {
        /* the RDMA engine's, whether or not an RX ring runs */
        snic_link_rx_queue(c, f, len);
        snic_eth_rx_drop(c, &c->stats.rx_rdma_reserved, len,
                         SNIC_DROP_ROCEV2);
    } else {
        snic_eth_receive(c, f, len);
    }
}

bool snic_core_run(SnicCore *c, unsigned budget)
{
    bool more = false;

    assert(budget > 0);     /* 0 would report work left forever */
    snic_enter(c);
    if (snic_ready(c)) {
        more |= snic_admin_run(c, budget);
        more |= snic_eth_run(c, budget);
        /* received RoCE (wire and loopback) first, then transmission */
        more |= snic_link_rx_run(c, budget, snic_rdma_receive);
        /* kernels first: an answer they finish goes out in this run */
        more |= snic_rpc_run(c, budget);
        snic_link_run_start(c);
        more |= snic_sched_run(c, budget);
    }
    snic_sr_ctrlq_flush(c);
    snic_link_flush(c);     /* the end of the burst */
    snic_leave(c);
    return more && snic_ready(c);
}

ssize_t snic_core_receive(SnicCore *c, const void *buf, size_t len)
{
    snic_enter(c);
    snic_link_rx(c, buf, len);
    snic_dispatch_rx(c, buf, len);
    snic_leave(c);
    return len;
}

bool snic_core_rx_can_wait(SnicCore *c)
{
    return snic_link_rx_can_wait(c);
}

void snic_core_wire_backlog(SnicCore *c, bool backlog)
{
    snic_link_wire_backlog(c, backlog);
}

void snic_core_set_link(SnicCore *c, bool up)
{
    if (up == c->link_up) {
        return;
    }
    snic_enter(c);
    c->link_up = up;
    snic_aeq_post(c, SNIC_EVENT_LINK_CHANGE, up);
    snic_leave(c);
}

bool snic_core_set_faults(SnicCore *c, const SnicLinkFaults *faults,
                          bool reseed, GError **errp)
{
    SnicCoreConfig cfg = c->cfg;

    cfg.faults = *faults;
    if (!snic_core_config_check(&cfg, errp)) {
        return false;
    }
    c->cfg.faults = *faults;
    snic_link_set_faults(c, faults, reseed);
    return true;
}

bool snic_core_set_admin_fail(SnicCore *c, const SnicAdminFail *fail,
                              GError **errp)
{
    if (!snic_admin_fail_check(fail, errp)) {
        return false;
    }
    c->admin_fail = *fail;
    return true;
}

void snic_core_get_admin_fail(SnicCore *c, SnicAdminFail *fail)
{
    *fail = c->admin_fail;
}

void snic_core_get_mac(SnicCore *c, uint8_t mac[6])
{
    memcpy(mac, c->mac, 6);
}

void snic_core_get_stats(SnicCore *c, struct snic_stats *out)
{
    snic_stats_objects(c);
    *out = c->stats;
}
