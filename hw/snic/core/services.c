/*
 * snic core: the services every unit calls, over SnicHostOps: DMA with
 * failures counted and traced alike, interrupts, guest errors, trace
 * events, the timer deadline, the async event queue and the device's
 * fatal error. A leaf: it calls into no other unit.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "core_int.h"

void snic_trace(SnicCore *c, SnicTracePoint tp, const uint64_t a[4])
{
    if (c->ops->trace) {
        c->ops->trace(c->opaque, tp, a);
    }
}

static const struct {
    const char *name;
    const char *fmt;
} snic_events[SNIC_TRACE__MAX] = {
#define SNIC_EVENT_ENTRY_(name_, fmt_, ...) \
    [SNIC_TRACE_##name_] = { .name = #name_, .fmt = fmt_ },
    SNIC_EVENTS(SNIC_EVENT_ENTRY_)
#undef SNIC_EVENT_ENTRY_
};

const char *snic_event_name(SnicTracePoint tp)
{
    return tp < SNIC_TRACE__MAX ? snic_events[tp].name : "?";
}

/* The format takes at most four uint64_t (checked by the generator). */
char *snic_event_text(SnicTracePoint tp, const uint64_t a[4])
{
    if (tp >= SNIC_TRACE__MAX) {
        return g_strdup("?");
    }
    return g_strdup_printf(snic_events[tp].fmt, a[0], a[1], a[2], a[3]);
}

void snic_guest_error(SnicCore *c, SnicTracePoint ge, const uint64_t a[4])
{
    char *msg = snic_event_text(ge, a);

    snic_stat_inc(&c->stats.guest_errors);
    snic_trace(c, ge, a);
    c->ops->guest_error(c->opaque, ge, msg);
    g_free(msg);
}

/*
 * Every DMA goes through here so failures are counted, traced and
 * recorded alike. Behind an IOMMU a failure is the IOMMU's refusal.
 */
static int dma_refused(SnicCore *c, uint64_t addr, size_t len, bool write)
{
    snic_stat_inc(&c->stats.dma_errors);
    SNIC_EVENT(c, DMA_ERROR, addr, len, write);
    c->dma_fault.addr = addr;
    c->dma_fault.write = write;
    return -1;
}

int snic_dma_read(SnicCore *c, uint64_t addr, void *buf, size_t len)
{
    if (addr + len < addr || c->ops->dma_read(c->opaque, addr, buf, len)) {
        return dma_refused(c, addr, len, false);
    }
    return 0;
}

int snic_dma_write(SnicCore *c, uint64_t addr, const void *buf, size_t len)
{
    if (addr + len < addr || c->ops->dma_write(c->opaque, addr, buf, len)) {
        return dma_refused(c, addr, len, true);
    }
    return 0;
}

int snic_dma_try(SnicCore *c, uint64_t addr, void *buf, size_t len,
                 bool write)
{
    if (addr + len < addr) {
        return -1;
    }
    return write ? c->ops->dma_write(c->opaque, addr, buf, len) :
                   c->ops->dma_read(c->opaque, addr, buf, len);
}

/*
 * A buffer the driver unmapped faults on every packet that touches it:
 * the first fault is logged, then at most one a second, each saying how
 * many went unlogged since the last (dma_errors counts them all).
 */
#define SNIC_DMA_FAULT_LOG_NS   1000000000ull

void snic_dma_fault_report(SnicCore *c, uint32_t qpn)
{
    uint64_t now = c->ops->now_ns(c->opaque);

    if (now < c->dma_fault.quiet_until) {
        c->dma_fault.unlogged++;
        return;
    }
    SNIC_GUEST_ERROR(c, GE_DMA_FAULT, qpn, c->dma_fault.write,
                     c->dma_fault.addr, c->dma_fault.unlogged);
    c->dma_fault.unlogged = 0;
    c->dma_fault.quiet_until = now + SNIC_DMA_FAULT_LOG_NS;
}

void snic_raise_irq(SnicCore *c, unsigned vector)
{
    if (vector >= c->cfg.num_vectors) {
        return;     /* validated at queue creation; never trust it twice */
    }
    snic_stat_inc(&c->stats.irqs);
    SNIC_EVENT(c, IRQ, vector);
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

/* The device stops: the guest must reset it (SNIC_STATUS_FATAL). */
void snic_fatal(SnicCore *c, uint32_t err)
{
    c->error = err;
    c->status |= SNIC_STATUS_FATAL;
    SNIC_GUEST_ERROR(c, GE_FATAL, err);
    snic_intr_cause(c, SNIC_INTR_ADMIN);
}

void snic_aeq_post(SnicCore *c, uint32_t event, uint64_t data)
{
    struct snic_aeqe e = {
        .data = GUINT64_TO_LE(data),
        .event = GUINT32_TO_LE(event),
    };
    const size_t body = offsetof(struct snic_aeqe, flags);
    uint64_t addr;

    SNIC_EVENT(c, ASYNC_EVENT, event, data);
    if (!snic_ready(c) || !c->aeq_base) {
        snic_stat_inc(&c->stats.async_events_lost);
        return;
    }
    /* aeq_log2_depth was validated at enable because aeq_base != 0 */
    if (c->aeq_tail - c->aeq_head >= 1u << c->aeq_log2_depth) {
        c->status |= SNIC_STATUS_AEQ_OVERFLOW;
        snic_stat_inc(&c->stats.async_events_lost);
        return;
    }
    addr = c->aeq_base +
        (uint64_t)(c->aeq_tail & ((1u << c->aeq_log2_depth) - 1)) * SNIC_AEQE_SIZE;
    e.flags = snic_ring_phase(c->aeq_tail, c->aeq_log2_depth);
    if (snic_dma_write(c, addr, &e, body) ||
        snic_dma_write(c, addr + body, &e.flags, 1)) {
        snic_fatal(c, SNIC_ERR_AEQ_DMA);
        return;
    }
    c->aeq_tail++;
    snic_stat_inc(&c->stats.async_events);
    snic_intr_cause(c, SNIC_INTR_AEQ);
}
