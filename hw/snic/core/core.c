/*
 * snic core: lifetime, reset, interrupts, DMA and timer plumbing.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <assert.h>
#include <stdarg.h>
#include <string.h>

#include "core_int.h"

SnicCore *snic_core_new(const SnicCoreConfig *cfg, const SnicHostOps *ops,
                        void *opaque)
{
    SnicCore *c;

    SnicCoreConfig cf = *cfg;

    cf.max_pd = cf.max_pd ? cf.max_pd : SNIC_DEFAULT_MAX_PD;
    cf.max_mr = cf.max_mr ? cf.max_mr : SNIC_DEFAULT_MAX_MR;
    cf.max_mr_pages = cf.max_mr_pages ? cf.max_mr_pages :
                      SNIC_DEFAULT_MAX_MR_PAGES;
    cf.tlb_entries = cf.tlb_entries ? cf.tlb_entries :
                     SNIC_DEFAULT_TLB_ENTRIES;
    cf.max_qp = cf.max_qp ? cf.max_qp : SNIC_DEFAULT_MAX_QP;
    cf.max_cq = cf.max_cq ? cf.max_cq : SNIC_DEFAULT_MAX_CQ;
    cf.max_eq = cf.max_eq ? cf.max_eq : SNIC_DEFAULT_MAX_EQ;
    if (cf.num_db_pages < 1 || cf.num_db_pages > SNIC_DB_MAX_PAGES ||
        cf.num_vectors < 1 || cf.max_pd > SNIC_MAX_OBJECTS ||
        cf.max_mr > SNIC_MAX_OBJECTS ||
        cf.tlb_entries > SNIC_MAX_OBJECTS || cf.max_qp > SNIC_MAX_OBJECTS ||
        cf.max_cq > SNIC_MAX_OBJECTS || cf.max_eq > SNIC_MAX_OBJECTS ||
        cf.faults.drop_pct > 100 || cf.faults.dup_pct > 100 ||
        cf.faults.reorder_pct > 100) {
        return NULL;
    }
    c = g_new0(SnicCore, 1);
    c->cfg = cf;
    c->ops = ops;
    c->opaque = opaque;
    c->link_up = true;
    snic_link_init(c, &cf.faults);
    if (snic_mr_init(c) || snic_qp_init(c)) {
        snic_core_free(c);
        return NULL;    /* tlb_entries is not a power of two */
    }
    snic_core_reset(c);
    return c;
}

void snic_core_free(SnicCore *c)
{
    snic_link_free(c);
    snic_qp_free(c);
    snic_mr_free(c);
    g_free(c);
}

static void snic_do_reset(SnicCore *c, SnicResetKind kind)
{
    unsigned v;

    snic_trace(c, SNIC_TRACE_RESET, kind, 0, 0, 0);
    if (kind == SNIC_RESET_FULL) {
        memset(&c->admin_sq_base, 0,
               sizeof(*c) - offsetof(SnicCore, admin_sq_base));
        memcpy(c->mac, c->cfg.mac, sizeof(c->mac));
        c->mtu = SNIC_ETH_DEFAULT_MTU;
    } else {
        memset(&c->ctrl, 0, sizeof(*c) - offsetof(SnicCore, ctrl));
    }
    snic_qp_reset(c);
    snic_mr_reset(c);
    snic_link_reset(c);
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
    c->busy++;
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

void snic_trace(SnicCore *c, SnicTracePoint tp, uint64_t a0, uint64_t a1,
                uint64_t a2, uint64_t a3)
{
    if (c->ops->trace) {
        c->ops->trace(c->opaque, tp, a0, a1, a2, a3);
    }
}

void snic_guest_error(SnicCore *c, const char *fmt, ...)
{
    va_list ap;

    snic_stat_inc(&c->stats.guest_errors);
    va_start(ap, fmt);
    c->ops->guest_error(c->opaque, fmt, ap);
    va_end(ap);
}

/* Every DMA goes through here so failures are counted and traced alike. */
int snic_dma_read(SnicCore *c, uint64_t addr, void *buf, size_t len)
{
    if (addr + len < addr || c->ops->dma_read(c->opaque, addr, buf, len)) {
        snic_stat_inc(&c->stats.dma_errors);
        snic_trace(c, SNIC_TRACE_DMA_ERROR, addr, len, 0, 0);
        return -1;
    }
    return 0;
}

int snic_dma_write(SnicCore *c, uint64_t addr, const void *buf, size_t len)
{
    if (addr + len < addr || c->ops->dma_write(c->opaque, addr, buf, len)) {
        snic_stat_inc(&c->stats.dma_errors);
        snic_trace(c, SNIC_TRACE_DMA_ERROR, addr, len, 1, 0);
        return -1;
    }
    return 0;
}

void snic_raise_irq(SnicCore *c, unsigned vector)
{
    if (vector >= c->cfg.num_vectors) {
        return;     /* validated at queue creation; never trust it twice */
    }
    snic_stat_inc(&c->stats.irqs);
    snic_trace(c, SNIC_TRACE_IRQ, vector, 0, 0, 0);
    c->ops->raise_irq(c->opaque, vector);
}

/* Vector 0 is shared by admin completions and async events. */
void snic_intr_cause(SnicCore *c, uint32_t cause)
{
    c->intr_cause |= cause;
    if (cause & ~c->intr_mask) {
        snic_raise_irq(c, 0);
    }
}

/*
 * A deadline was set: arm the host timer earlier if it must fire sooner.
 * Deadlines that move later or go away need nothing: the timer then fires
 * early, finds nothing due and re-arms for the true next one. So the
 * per-packet path never scans the QPs.
 */
void snic_timer_hint(SnicCore *c, uint64_t deadline)
{
    if (deadline < c->timer_deadline) {
        c->timer_deadline = deadline;
        c->ops->timer_mod(c->opaque, deadline);
    }
}

void snic_core_timer(SnicCore *c)
{
    uint64_t now, next;

    snic_enter(c);
    now = c->ops->now_ns(c->opaque);
    c->timer_deadline = UINT64_MAX;     /* the host timer is one-shot */
    /* one pass fires what is due and finds the earliest deadline left */
    next = snic_eth_irq_timer(c, now);
    if (snic_ready(c)) {
        next = MIN(next, snic_rdma_timer(c, now));
    }
    if (next != c->timer_deadline) {
        c->timer_deadline = next;
        c->ops->timer_mod(c->opaque, next);
    }
    snic_link_flush(c);
    snic_leave(c);
}

bool snic_core_run(SnicCore *c, unsigned budget)
{
    bool more = false;

    assert(budget > 0);     /* 0 would report work left forever */
    snic_enter(c);
    if (snic_ready(c)) {
        more |= snic_admin_run(c, budget);
        more |= snic_eth_run(c, budget);
        more |= snic_rdma_run(c, budget);
    }
    snic_link_flush(c);     /* the end of the burst */
    snic_leave(c);
    return more && snic_ready(c);
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

void snic_core_get_mac(SnicCore *c, uint8_t mac[6])
{
    memcpy(mac, c->mac, 6);
}

void snic_core_get_stats(SnicCore *c, struct snic_stats *out)
{
    *out = c->stats;
}
