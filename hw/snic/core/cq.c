/*
 * snic core: completion queues and event queues at run time: writing
 * CQEs and EQEs with phase bits, consumer-index and arm doorbells,
 * completion events through EQs and their MSI-X vectors, and CQ overflow
 * as an async error.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"

/* Post an EQE for a CQ and raise the EQ's vector. */
static void eq_post(SnicCore *c, SnicEq *eq, uint32_t cqn)
{
    struct snic_eqe e = {
        .cqn = GUINT32_TO_LE(cqn),
        .type = GUINT32_TO_LE(SNIC_EQE_COMPLETION),
    };
    uint64_t off;

    if (eq->tail - eq->head >= 1u << eq->log2_depth) {
        snic_stat_inc(&c->stats.async_events_lost);  /* EQ overrun */
        snic_aeq_post(c, SNIC_EVENT_EQ_OVERFLOW, eq - c->eqs);
        return;
    }
    off = (uint64_t)(eq->tail & ((1u << eq->log2_depth) - 1)) *
          SNIC_EQE_SIZE;
    e.flags = snic_ring_phase(eq->tail, eq->log2_depth);
    if (snic_mtt_write(c, &eq->ring, off, &e, offsetof(struct snic_eqe,
                                                       flags)) ||
        snic_mtt_write(c, &eq->ring, off + offsetof(struct snic_eqe, flags),
                       &e.flags, 1)) {
        snic_guest_error(c, "EQ %u: ring not writable",
                         (unsigned)(eq - c->eqs));
        return;
    }
    eq->tail++;
    snic_raise_irq(c, eq->vector);
}

int snic_cq_post(SnicCore *c, uint32_t cqn, const struct snic_cqe *cqe,
                 bool solicited)
{
    SnicCq *cq = &c->cqs[cqn];
    struct snic_cqe e = *cqe;
    uint64_t off;

    if (!cq->valid || cq->error) {
        return -1;
    }
    if (cq->tail - cq->head >= 1u << cq->log2_depth) {
        /* IBA: CQ overrun is an async error; the CQ stops. */
        snic_guest_error(c, "CQ %u: overrun, %u CQEs not consumed", cqn,
                         cq->tail - cq->head);
        cq->error = true;
        snic_aeq_post(c, SNIC_EVENT_CQ_ERROR, cqn);
        return -1;
    }
    off = (uint64_t)(cq->tail & ((1u << cq->log2_depth) - 1)) *
          SNIC_CQE_SIZE;
    e.flags = snic_ring_phase(cq->tail, cq->log2_depth);
    if (snic_mtt_write(c, &cq->ring, off, &e, offsetof(struct snic_cqe,
                                                       flags)) ||
        snic_mtt_write(c, &cq->ring, off + offsetof(struct snic_cqe, flags),
                       &e.flags, 1)) {
        snic_guest_error(c, "CQ %u: ring not writable through its page list",
                         cqn);
        cq->error = true;
        snic_aeq_post(c, SNIC_EVENT_CQ_ERROR, cqn);
        return -1;
    }
    cq->tail++;
    if (cq->armed == SNIC_CQ_ARMED_ANY ||
        (cq->armed == SNIC_CQ_ARMED_SOLICITED &&
         (solicited || e.status != SNIC_WC_SUCCESS))) {
        cq->armed = SNIC_CQ_DISARMED;   /* one event per arm */
        eq_post(c, &c->eqs[cq->eqn], cqn);
    }
    return 0;
}

void snic_cq_doorbell(SnicCore *c, uint16_t page, uint8_t type, uint32_t cqn,
                      uint32_t index)
{
    SnicCq *cq = cqn >= 1 && cqn <= c->cfg.max_cq && c->cqs[cqn].valid ?
                 &c->cqs[cqn] : NULL;

    if (!cq || cq->ctx != page) {
        snic_guest_error(c, "doorbell page %u: CQ %u is not owned by this "
                         "page's context", page, cqn);
        snic_stat_inc(&c->stats.doorbells_invalid);
        return;
    }
    if ((uint32_t)(index - cq->head) > (uint32_t)(cq->tail - cq->head)) {
        snic_guest_error(c, "CQ %u doorbell index %u outside [%u, %u]", cqn,
                         index, cq->head, cq->tail);
        snic_stat_inc(&c->stats.doorbells_invalid);
        return;
    }
    cq->head = index;
    snic_stat_inc(&c->stats.doorbells);
    if (type == SNIC_DB_CQ_ARM) {
        cq->armed = SNIC_CQ_ARMED_ANY;
    } else if (type == SNIC_DB_CQ_ARM_SOL && cq->armed != SNIC_CQ_ARMED_ANY) {
        cq->armed = SNIC_CQ_ARMED_SOLICITED;
    }
    /* IBA: arming with completions already queued raises the event now */
    if (cq->armed != SNIC_CQ_DISARMED && cq->head != cq->tail &&
        type != SNIC_DB_CQ) {
        cq->armed = SNIC_CQ_DISARMED;
        eq_post(c, &c->eqs[cq->eqn], cqn);
    }
}

void snic_eq_doorbell(SnicCore *c, uint16_t page, uint32_t eqn,
                      uint32_t index)
{
    SnicEq *eq = eqn >= 1 && eqn <= c->cfg.max_eq && c->eqs[eqn].valid ?
                 &c->eqs[eqn] : NULL;

    if (!eq || page != SNIC_DB_KERNEL_PAGE ||
        (uint32_t)(index - eq->head) > (uint32_t)(eq->tail - eq->head)) {
        snic_guest_error(c, "doorbell page %u: EQ %u index %u refused "
                         "(EQs are the kernel's; index outside [head, "
                         "tail])", page, eqn, index);
        snic_stat_inc(&c->stats.doorbells_invalid);
        return;
    }
    eq->head = index;
    snic_stat_inc(&c->stats.doorbells);
}
