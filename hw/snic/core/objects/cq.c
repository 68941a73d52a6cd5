/*
 * snic core: event queues and completion queues (see cq.h): the objects
 * and their admin commands, writing CQEs and EQEs with phase bits,
 * consumer-index and arm doorbells, completion events through EQs and
 * their MSI-X vectors, and CQ overflow as an async error.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "objects/table.h"
#include "objects/cq.h"

SNIC_TABLE_ENTRY(SnicEq);
SNIC_TABLE_ENTRY(SnicCq);

void snic_cq_init(SnicCore *c)
{
    c->eqs = g_new0(SnicEq, (size_t)c->cfg.max_eq + SNIC_FIRST_HANDLE);
    c->cqs = g_new0(SnicCq, (size_t)c->cfg.max_cq + SNIC_FIRST_HANDLE);
    c->cq_timers = g_new(uint32_t, c->cfg.max_cq);
    snic_slots_init(&c->eq_slots, c->cfg.max_eq);
    snic_slots_init(&c->cq_slots, c->cfg.max_cq);
}

void snic_cq_free(SnicCore *c)
{
    g_free(c->eqs);
    g_free(c->cqs);
    g_free(c->cq_timers);
    snic_slots_free(&c->eq_slots);
    snic_slots_free(&c->cq_slots);
}

void snic_cq_reset(SnicCore *c)
{
    memset(c->eqs, 0,
           sizeof(*c->eqs) * (c->cfg.max_eq + SNIC_FIRST_HANDLE));
    memset(c->cqs, 0,
           sizeof(*c->cqs) * (c->cfg.max_cq + SNIC_FIRST_HANDLE));
    snic_slots_reset(&c->eq_slots);
    snic_slots_reset(&c->cq_slots);
    c->cq_timers_len = 0;
}

static SnicEq *eq_get(SnicCore *c, uint32_t eqn)
{
    return eqn >= SNIC_FIRST_HANDLE &&
           eqn < c->cfg.max_eq + SNIC_FIRST_HANDLE &&
           c->eqs[eqn].valid ? &c->eqs[eqn] : NULL;
}

SnicCq *snic_cq_get(SnicCore *c, uint32_t cqn)
{
    return cqn >= SNIC_FIRST_HANDLE &&
           cqn < c->cfg.max_cq + SNIC_FIRST_HANDLE &&
           c->cqs[cqn].valid ? &c->cqs[cqn] : NULL;
}

/*
 * ---- the moderation timers: CQNs in a min-heap on their mod_deadline,
 * so the timer finds what is due without walking every CQ ----
 */

static bool timer_before(SnicCore *c, uint32_t a, uint32_t b)
{
    /* ties by CQN, as a walk of the table would fire them */
    return c->cqs[a].mod_deadline < c->cqs[b].mod_deadline ||
           (c->cqs[a].mod_deadline == c->cqs[b].mod_deadline && a < b);
}

static void timer_place(SnicCore *c, uint32_t slot, uint32_t cqn)
{
    c->cq_timers[slot] = cqn;
    c->cqs[cqn].mod_pos = slot + 1;
}

static void timer_sift(SnicCore *c, uint32_t slot)
{
    uint32_t cqn = c->cq_timers[slot], n = c->cq_timers_len, child;

    while (slot && timer_before(c, cqn, c->cq_timers[(slot - 1) / 2])) {
        timer_place(c, slot, c->cq_timers[(slot - 1) / 2]);
        slot = (slot - 1) / 2;
    }
    for (;;) {
        child = 2 * slot + 1;
        if (child >= n) {
            break;
        }
        if (child + 1 < n &&
            timer_before(c, c->cq_timers[child + 1], c->cq_timers[child])) {
            child++;
        }
        if (!timer_before(c, c->cq_timers[child], cqn)) {
            break;
        }
        timer_place(c, slot, c->cq_timers[child]);
        slot = child;
    }
    timer_place(c, slot, cqn);
}

static void timer_add(SnicCore *c, SnicCq *cq)
{
    timer_place(c, c->cq_timers_len++, cq - c->cqs);
    timer_sift(c, cq->mod_pos - 1);
}

static void timer_remove(SnicCore *c, SnicCq *cq)
{
    uint32_t slot = cq->mod_pos - 1, last;

    if (!cq->mod_pos) {
        return;
    }
    cq->mod_pos = 0;
    last = c->cq_timers[--c->cq_timers_len];
    if (slot < c->cq_timers_len) {
        timer_place(c, slot, last);
        timer_sift(c, slot);
    }
}

static bool log2_ok(uint8_t v)
{
    return v >= SNIC_MIN_QUEUE_LOG2 && v <= SNIC_MAX_CQE_LOG2;
}

uint16_t snic_cmd_create_eq(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result)
{
    const struct snic_admin_create_eq *p = &cmd->create_eq;
    uint16_t vector = GUINT16_FROM_LE(p->vector);
    SnicMtt ring;
    uint16_t st;
    uint32_t i;

    if (!log2_ok(p->log2_depth) ||
        vector >= c->cfg.num_vectors) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    st = snic_ring_mtt(c, &ring, GUINT64_FROM_LE(p->pbl_addr),
                       GUINT32_FROM_LE(p->npages),
                       (uint64_t)SNIC_EQE_SIZE << p->log2_depth);
    if (st != SNIC_ADMIN_OK) {
        return st;
    }
    i = snic_slots_take(&c->eq_slots);
    if (!i) {
        return SNIC_ADMIN_NO_RESOURCES;
    }
    c->eqs[i] = (SnicEq) {
        .valid = true,
        .log2_depth = p->log2_depth,
        .vector = vector,
        .ring = ring,
    };
    *result = i;
    return SNIC_ADMIN_OK;
}

uint16_t snic_cmd_destroy_eq(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result)
{
    SnicEq *eq = eq_get(c, GUINT32_FROM_LE(cmd->obj.handle));

    if (!eq) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (eq->refs) {
        return SNIC_ADMIN_BAD_STATE;
    }
    snic_tlb_invalidate(c, eq->ring.pbl, eq->ring.npages);
    snic_slots_put(&c->eq_slots, eq - c->eqs);
    memset(eq, 0, sizeof(*eq));
    return SNIC_ADMIN_OK;
}

uint16_t snic_cmd_create_cq(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result)
{
    const struct snic_admin_create_cq *p = &cmd->create_cq;
    uint16_t ctx = GUINT16_FROM_LE(p->ctx);
    uint32_t eqn = GUINT32_FROM_LE(p->eqn);
    SnicEq *eq = eq_get(c, eqn);
    SnicMtt ring;
    uint16_t st;
    uint32_t i;

    if (!eq || ctx >= c->cfg.num_db_pages ||
        !log2_ok(p->log2_depth)) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    st = snic_ring_mtt(c, &ring, GUINT64_FROM_LE(p->pbl_addr),
                       GUINT32_FROM_LE(p->npages),
                       (uint64_t)SNIC_CQE_SIZE << p->log2_depth);
    if (st != SNIC_ADMIN_OK) {
        return st;
    }
    i = snic_slots_take(&c->cq_slots);
    if (!i) {
        return SNIC_ADMIN_NO_RESOURCES;
    }
    c->cqs[i] = (SnicCq) {
        .valid = true,
        .log2_depth = p->log2_depth,
        .ctx = ctx,
        .eqn = eqn,
        .ring = ring,
        .mod_deadline = UINT64_MAX,
    };
    eq->refs++;
    *result = i;
    return SNIC_ADMIN_OK;
}

uint16_t snic_cmd_destroy_cq(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result)
{
    SnicCq *cq = snic_cq_get(c, GUINT32_FROM_LE(cmd->obj.handle));

    if (!cq) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (cq->refs) {
        return SNIC_ADMIN_BAD_STATE;    /* QPs still complete here */
    }
    c->eqs[cq->eqn].refs--;
    snic_tlb_invalidate(c, cq->ring.pbl, cq->ring.npages);
    timer_remove(c, cq);
    snic_slots_put(&c->cq_slots, cq - c->cqs);
    memset(cq, 0, sizeof(*cq));
    return SNIC_ADMIN_OK;
}

/*
 * The CQ goes on in a new ring at index 0; the old ring's CQEs up to the
 * returned producer index are the consumer's to drain, the device is done
 * with it. The new ring starts empty, so any depth in range will do.
 */
uint16_t snic_cmd_resize_cq(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result)
{
    const struct snic_admin_resize_cq *p = &cmd->resize_cq;
    SnicCq *cq = snic_cq_get(c, GUINT32_FROM_LE(p->cqn));
    SnicMtt ring;
    uint16_t st;

    if (!cq || !log2_ok(p->log2_depth)) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (cq->error) {
        return SNIC_ADMIN_BAD_STATE;    /* an overrun CQ is destroyed */
    }
    st = snic_ring_mtt(c, &ring, GUINT64_FROM_LE(p->pbl_addr),
                       GUINT32_FROM_LE(p->npages),
                       (uint64_t)SNIC_CQE_SIZE << p->log2_depth);
    if (st != SNIC_ADMIN_OK) {
        return st;
    }
    snic_tlb_invalidate(c, cq->ring.pbl, cq->ring.npages);
    *result = cq->tail;
    cq->ring = ring;
    cq->log2_depth = p->log2_depth;
    cq->head = cq->tail = 0;
    return SNIC_ADMIN_OK;
}

uint16_t snic_cmd_modify_cq(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result)
{
    const struct snic_admin_modify_cq *p = &cmd->modify_cq;
    SnicCq *cq = snic_cq_get(c, GUINT32_FROM_LE(p->cqn));

    if (!cq) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    cq->mod_count = GUINT16_FROM_LE(p->count);
    cq->mod_period_us = GUINT16_FROM_LE(p->period_us);
    return SNIC_ADMIN_OK;
}


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
        SNIC_EVENT(c, EQ_OVERRUN, eq - c->eqs);
        snic_aeq_post(c, SNIC_EVENT_EQ_OVERFLOW, eq - c->eqs);
        return;
    }
    off = (uint64_t)(eq->tail & ((1u << eq->log2_depth) - 1)) *
          SNIC_EQE_SIZE;
    e.flags = snic_ring_phase(eq->tail, eq->log2_depth);
    if (snic_mtt_write_last_after(c, &eq->ring, off, &e,
                                  offsetof(struct snic_eqe, flags) + 1)) {
        SNIC_GUEST_ERROR(c, GE_EQ_RING, eq - c->eqs);
        return;
    }
    eq->tail++;
    snic_raise_irq(c, eq->vector);
}

static void cq_event(SnicCore *c, SnicCq *cq)
{
    cq->armed = SNIC_CQ_DISARMED;       /* one event per arm */
    cq->event_due = false;
    cq->mod_pending = 0;
    timer_remove(c, cq);
    cq->mod_deadline = UINT64_MAX;
    eq_post(c, &c->eqs[cq->eqn], cq - c->cqs);
}

/*
 * A CQE was queued while the CQ's event is due: raise it once mod_count
 * CQEs are queued (0: no count limit) or mod_period_us after the first
 * (0: no period); neither set is no moderation.
 */
static void cq_moderate(SnicCore *c, SnicCq *cq)
{
    cq->mod_pending++;
    if ((cq->mod_count && cq->mod_pending >= cq->mod_count) ||
        (!cq->mod_count && !cq->mod_period_us)) {
        cq_event(c, cq);
    } else if (cq->mod_period_us && cq->mod_deadline == UINT64_MAX) {
        cq->mod_deadline = c->ops->now_ns(c->opaque) +
                           cq->mod_period_us * 1000ull;
        timer_add(c, cq);
        snic_timer_hint(c, cq->mod_deadline);
    }
}

uint64_t snic_cq_timer(SnicCore *c, uint64_t now)
{
    unsigned fired = 0;
    SnicCq *cq;

    while (c->cq_timers_len) {
        cq = &c->cqs[c->cq_timers[0]];
        if (!now || cq->mod_deadline > now) {
            return cq->mod_deadline;
        }
        if (fired++ == SNIC_CQ_EVENTS_PER_CALL) {
            return now;         /* the rest in the next call, at once */
        }
        cq_event(c, cq);
    }
    return UINT64_MAX;
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
        SNIC_GUEST_ERROR(c, GE_CQ_OVERRUN, cqn, cq->tail - cq->head);
        cq->error = true;
        snic_aeq_post(c, SNIC_EVENT_CQ_ERROR, cqn);
        return -1;
    }
    off = (uint64_t)(cq->tail & ((1u << cq->log2_depth) - 1)) *
          SNIC_CQE_SIZE;
    e.flags = snic_ring_phase(cq->tail, cq->log2_depth);
    if (snic_mtt_write_last_after(c, &cq->ring, off, &e,
                                  offsetof(struct snic_cqe, flags) + 1)) {
        SNIC_GUEST_ERROR(c, GE_CQ_RING, cqn);
        cq->error = true;
        snic_aeq_post(c, SNIC_EVENT_CQ_ERROR, cqn);
        return -1;
    }
    cq->tail++;
    if (cq->armed == SNIC_CQ_ARMED_ANY ||
        (cq->armed == SNIC_CQ_ARMED_SOLICITED &&
         (solicited || e.status != SNIC_WC_SUCCESS))) {
        cq->event_due = true;
    }
    if (cq->event_due) {
        cq_moderate(c, cq);
    }
    return 0;
}

void snic_cq_doorbell(SnicCore *c, uint16_t page, uint8_t type, uint32_t cqn,
                      uint32_t index)
{
    SnicCq *cq = cqn >= 1 && cqn <= c->cfg.max_cq && c->cqs[cqn].valid ?
                 &c->cqs[cqn] : NULL;

    if (!cq || cq->ctx != page) {
        SNIC_GUEST_ERROR(c, GE_DB_CQ_OWNER, page, cqn);
        snic_stat_inc(&c->stats.doorbells_invalid);
        return;
    }
    if ((uint32_t)(index - cq->head) > (uint32_t)(cq->tail - cq->head)) {
        SNIC_GUEST_ERROR(c, GE_DB_INDEX, type, cqn, index, cq->tail);
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
        cq_event(c, cq);
    }
}

void snic_eq_doorbell(SnicCore *c, uint16_t page, uint32_t eqn,
                      uint32_t index)
{
    SnicEq *eq = eqn >= 1 && eqn <= c->cfg.max_eq && c->eqs[eqn].valid ?
                 &c->eqs[eqn] : NULL;

    if (!eq || page != SNIC_DB_KERNEL_PAGE ||
        (uint32_t)(index - eq->head) > (uint32_t)(eq->tail - eq->head)) {
        SNIC_GUEST_ERROR(c, GE_DB_EQ, page, eqn, index);
        snic_stat_inc(&c->stats.doorbells_invalid);
        return;
    }
    eq->head = index;
    snic_stat_inc(&c->stats.doorbells);
}
