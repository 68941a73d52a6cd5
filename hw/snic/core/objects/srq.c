/*
 * snic core: shared receive queue objects, their admin commands and
 * doorbells (srq.h). The responder takes WQEs from them through
 * snic_recv_take() in engine/wq.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "objects/table.h"
#include "objects/srq.h"
#include "objects/cq.h"
#include "objects/mr.h"
#include "objects/qp.h"

SNIC_TABLE_ENTRY(SnicSrq);


void snic_srq_init(SnicCore *c)
{
    c->srqs = g_new0(SnicSrq, (size_t)c->cfg.max_srq + SNIC_FIRST_HANDLE);
    snic_slots_init(&c->srq_slots, c->cfg.max_srq);
}

void snic_srq_free(SnicCore *c)
{
    g_free(c->srqs);
    snic_slots_free(&c->srq_slots);
}

void snic_srq_reset(SnicCore *c)
{
    memset(c->srqs, 0,
           sizeof(*c->srqs) * (c->cfg.max_srq + SNIC_FIRST_HANDLE));
    snic_slots_reset(&c->srq_slots);
}

SnicSrq *snic_srq_get(SnicCore *c, uint32_t srqn)
{
    return srqn >= SNIC_FIRST_HANDLE &&
           srqn < c->cfg.max_srq + SNIC_FIRST_HANDLE &&
           c->srqs[srqn].valid ? &c->srqs[srqn] : NULL;
}

static uint32_t srq_depth(const SnicSrq *srq)
{
    return 1u << srq->log2_depth;
}

/* A limit above the depth is meaningless: refused. Zero disarms. */
static bool limit_ok(const SnicSrq *srq, uint32_t limit)
{
    return limit <= srq_depth(srq);
}

uint16_t snic_cmd_create_srq(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result)
{
    const struct snic_admin_create_srq *p = &cmd->create_srq;
    uint16_t ctx = GUINT16_FROM_LE(p->ctx);
    uint32_t pdn = GUINT32_FROM_LE(p->pdn);
    SnicPd *pd = snic_pd_get(c, pdn);
    SnicSrq srq = {
        .valid = true,
        .log2_depth = p->log2_depth,
        .ctx = ctx,
        .pdn = pdn,
        .limit = GUINT32_FROM_LE(p->limit),
    };
    uint16_t st;
    uint32_t i;

    if (ctx >= c->cfg.num_db_pages || !pd || pd->ctx != ctx ||
        p->log2_depth < SNIC_MIN_QUEUE_LOG2 ||
        p->log2_depth > SNIC_MAX_QP_WR_LOG2 || !limit_ok(&srq, srq.limit)) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    st = snic_ring_mtt(c, &srq.ring, GUINT64_FROM_LE(p->pbl_addr),
                       GUINT32_FROM_LE(p->npages),
                       (uint64_t)SNIC_RQ_WQE_SIZE << p->log2_depth);
    if (st != SNIC_ADMIN_OK) {
        return st;
    }
    i = snic_slots_take(&c->srq_slots);
    if (!i) {
        return SNIC_ADMIN_NO_RESOURCES;
    }
    c->srqs[i] = srq;
    pd->refs++;
    *result = i;
    return SNIC_ADMIN_OK;
}

uint16_t snic_cmd_modify_srq(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result)
{
    const struct snic_admin_modify_srq *p = &cmd->modify_srq;
    SnicSrq *srq = snic_srq_get(c, GUINT32_FROM_LE(p->srqn));
    uint32_t limit = GUINT32_FROM_LE(p->limit);

    if (!srq || !limit_ok(srq, limit)) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    srq->limit = limit;
    /* armed below the current level: the event is due at once */
    snic_srq_check_limit(c, srq);
    return SNIC_ADMIN_OK;
}

uint16_t snic_cmd_query_srq(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result)
{
    SnicSrq *srq = snic_srq_get(c, GUINT32_FROM_LE(cmd->obj.handle));

    if (!srq) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    *result = srq->limit;
    return SNIC_ADMIN_OK;
}

uint16_t snic_cmd_destroy_srq(SnicCore *c, const struct snic_admin_cmd *cmd,
                              uint64_t *result)
{
    SnicSrq *srq = snic_srq_get(c, GUINT32_FROM_LE(cmd->obj.handle));

    if (!srq) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (srq->refs) {
        return SNIC_ADMIN_BAD_STATE;    /* QPs still take from it */
    }
    c->pds[srq->pdn].refs--;
    snic_tlb_invalidate(c, srq->ring.pbl, srq->ring.npages);
    snic_slots_put(&c->srq_slots, srq - c->srqs);
    memset(srq, 0, sizeof(*srq));
    return SNIC_ADMIN_OK;
}

void snic_srq_check_limit(SnicCore *c, SnicSrq *srq)
{
    if (srq->limit && srq->tail - srq->head < srq->limit) {
        srq->limit = 0;     /* one event per arming */
        snic_aeq_post(c, SNIC_EVENT_SRQ_LIMIT, srq - c->srqs);
    }
}

int snic_srq_take(SnicCore *c, SnicSrq *srq, struct snic_rq_wqe *w,
                  uint32_t *index)
{
    uint64_t off;
    int st = 0;

    if (srq->head == srq->tail) {
        return -1;
    }
    *index = srq->head++;
    off = (uint64_t)(*index & (srq_depth(srq) - 1)) * SNIC_RQ_WQE_SIZE;
    if (snic_mtt_read(c, &srq->ring, off, w, sizeof(*w))) {
        memset(w, 0, sizeof(*w));
        st = 1;
    }
    snic_srq_check_limit(c, srq);
    return st;
}

void snic_srq_doorbell(SnicCore *c, uint16_t page, uint32_t srqn,
                       uint32_t index)
{
    SnicSrq *srq = snic_srq_get(c, srqn);
    uint32_t limit;

    if (!srq || srq->ctx != page) {
        SNIC_GUEST_ERROR(c, GE_DB_SRQ_OWNER, page, srqn);
        snic_stat_inc(&c->stats.doorbells_invalid);
        return;
    }
    /* a slot is free again once a QP took (copied) its WQE */
    limit = srq->head + srq_depth(srq);
    if ((uint32_t)(index - srq->tail) > (uint32_t)(limit - srq->tail)) {
        SNIC_GUEST_ERROR(c, GE_DB_INDEX, SNIC_DB_SRQ, srqn, index, limit);
        snic_stat_inc(&c->stats.doorbells_invalid);
        return;
    }
    srq->tail = index;
    snic_stat_inc(&c->stats.doorbells);
    c->ops->kick(c->opaque);
}
