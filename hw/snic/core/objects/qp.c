/*
 * snic core: QP objects, their admin commands and SQ/RQ doorbells (qp.h).
 * What a state change, a doorbell or the destruction means to the engine
 * goes through the hooks it registered (SnicQpHooks).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "objects/cq.h"
#include "objects/qp.h"
#include "objects/qp_state.h"
#include "port/gid.h"
#include "objects/mcast.h"
#include "objects/mr.h"
#include "objects/mw.h"
#include "objects/srq.h"

void snic_qp_init(SnicCore *c)
{
    c->qps = g_new0(SnicQp, (size_t)c->cfg.max_qp + SNIC_FIRST_QPN);
    c->free_qpns = g_new(uint32_t, c->cfg.max_qp);
}

void snic_qp_free(SnicCore *c)
{
    g_free(c->qps);
    g_free(c->free_qpns);
}

void snic_qp_reset(SnicCore *c)
{
    uint32_t i;

    memset(c->qps, 0, sizeof(*c->qps) * (c->cfg.max_qp + SNIC_FIRST_QPN));
    for (i = 0; i < c->cfg.max_qp; i++) {
        c->free_qpns[i] = SNIC_FIRST_QPN + i;
    }
    c->free_qpn_head = 0;
    c->free_qpn_tail = c->cfg.max_qp;
}

/* Every state change goes through here, so each one is an event. */
void snic_qp_set_state(SnicCore *c, SnicQp *qp, uint8_t state)
{
    if (qp->state != state) {
        SNIC_EVENT(c, QP_STATE, qp - c->qps, qp->state, state);
        qp->state = state;
    }
}

SnicQp *snic_qp_get(SnicCore *c, uint32_t qpn)
{
    return qpn >= SNIC_GSI_QPN && qpn < c->cfg.max_qp + SNIC_FIRST_QPN &&
           c->qps[qpn].valid ? &c->qps[qpn] : NULL;
}

SnicMtt snic_qp_ring(const SnicQpRing *r, uint8_t log2_depth, size_t entry)
{
    uint64_t len = (uint64_t)entry << log2_depth;

    return (SnicMtt) {
        .length = len,
        .pbl = r->pbl,
        .npages = snic_mtt_pages(0, len, SNIC_QUEUE_PAGE_SHIFT),
        .page_shift = SNIC_QUEUE_PAGE_SHIFT,
    };
}

static bool log2_ok(uint8_t v, uint8_t max)
{
    return v >= SNIC_MIN_QUEUE_LOG2 && v <= max;
}

/* A free QP number for the type: 1 for GSI, else 2 .. max_qp + 1. */
static uint32_t qpn_alloc(SnicCore *c, uint8_t type)
{
    if (type == SNIC_QPT_GSI) {
        return c->qps[SNIC_GSI_QPN].valid ? 0 : SNIC_GSI_QPN;
    }
    if (c->free_qpn_head == c->free_qpn_tail) {
        return 0;
    }
    return c->free_qpns[c->free_qpn_head++ % c->cfg.max_qp];
}

uint16_t snic_cmd_create_qp(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result)
{
    const struct snic_admin_create_qp *p = &cmd->create_qp;
    uint16_t ctx = GUINT16_FROM_LE(p->ctx);
    uint32_t pdn = GUINT32_FROM_LE(p->pdn);
    uint32_t scqn = GUINT32_FROM_LE(p->send_cqn);
    uint32_t rcqn = GUINT32_FROM_LE(p->recv_cqn);
    uint32_t srqn = GUINT32_FROM_LE(p->srqn);
    uint64_t rdb = GUINT64_FROM_LE(p->rdb_addr);
    SnicCq *scq = snic_cq_get(c, scqn), *rcq = snic_cq_get(c, rcqn);
    SnicPd *pd = snic_pd_get(c, pdn);
    SnicSrq *srq = snic_srq_get(c, srqn);
    SnicMtt sq, rq = { 0 };
    uint32_t qpn;
    uint16_t st;

    if (p->type != SNIC_QPT_RC && p->type != SNIC_QPT_UC &&
        p->type != SNIC_QPT_UD && p->type != SNIC_QPT_GSI) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    /* a context uses only its own PD and CQs; GSI is the kernel's */
    if (ctx >= c->cfg.num_db_pages || !pd || pd->ctx != ctx ||
        !scq || scq->ctx != ctx || !rcq || rcq->ctx != ctx ||
        (p->type == SNIC_QPT_GSI && ctx != SNIC_DB_KERNEL_PAGE) ||
        !log2_ok(p->sq_log2_depth, SNIC_MAX_QP_WR_LOG2)) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    /* only RC answers READs and atomics; its RDB sits within one page */
    if (rdb && (p->type != SNIC_QPT_RC || rdb % SNIC_RDB_ALIGN)) {
        SNIC_GUEST_ERROR(c, GE_QP_RDB, p->type, rdb);
        return SNIC_ADMIN_BAD_PARAM;
    }
    /* with an SRQ (of the same context; not for GSI) the QP has no RQ */
    if (srqn ? !srq || srq->ctx != ctx || p->type == SNIC_QPT_GSI ||
               p->rq_log2_depth || p->rq_npages || p->rq_pbl_addr :
               !log2_ok(p->rq_log2_depth, SNIC_MAX_QP_WR_LOG2)) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    st = snic_ring_mtt(c, &sq, GUINT64_FROM_LE(p->sq_pbl_addr),
                       GUINT32_FROM_LE(p->sq_npages),
                       (uint64_t)SNIC_SQ_WQE_SIZE << p->sq_log2_depth);
    if (st == SNIC_ADMIN_OK && !srqn) {
        st = snic_ring_mtt(c, &rq, GUINT64_FROM_LE(p->rq_pbl_addr),
                           GUINT32_FROM_LE(p->rq_npages),
                           (uint64_t)SNIC_RQ_WQE_SIZE << p->rq_log2_depth);
    }
    if (st != SNIC_ADMIN_OK) {
        return st;
    }
    qpn = qpn_alloc(c, p->type);
    if (!qpn) {
        return SNIC_ADMIN_NO_RESOURCES;
    }
    c->qps[qpn] = (SnicQp) {
        .valid = true,
        .type = p->type,
        .state = SNIC_QPS_RESET,
        .ctx = ctx,
        .pdn = pdn,
        .send_cqn = scqn,
        .recv_cqn = rcqn,
        .srqn = srqn,
        .sq_log2_depth = p->sq_log2_depth,
        .rq_log2_depth = p->rq_log2_depth,
        .sq = { .pbl = sq.pbl },
        .rq = { .pbl = rq.pbl },
        .rdb = rdb,
        .attr = { .path_mtu = SNIC_MTU_1024 },
    };
    c->qp_hooks->reset(c, &c->qps[qpn]);
    pd->refs++;
    scq->refs++;
    rcq->refs++;
    if (srq) {
        srq->refs++;
    }
    *result = qpn;
    return SNIC_ADMIN_OK;
}

/* Range checks of the attributes a modify sets (beyond the state table). */
static bool attr_values_ok(uint32_t mask, const struct snic_qp_attr *a)
{
    uint32_t access = GUINT32_FROM_LE(a->qp_access_flags);

    return (!(mask & SNIC_QP_ATTR_PATH_MTU) ||
            (GUINT32_FROM_LE(a->path_mtu) >= SNIC_MTU_256 &&
             GUINT32_FROM_LE(a->path_mtu) <= SNIC_MTU_4096)) &&
           (!(mask & SNIC_QP_ATTR_TIMEOUT) || a->timeout <= 31) &&
           (!(mask & SNIC_QP_ATTR_RETRY_CNT) || a->retry_cnt <= 7) &&
           (!(mask & SNIC_QP_ATTR_RNR_RETRY) || a->rnr_retry <= 7) &&
           (!(mask & SNIC_QP_ATTR_MIN_RNR_TIMER) || a->min_rnr_timer <= 31) &&
           (!(mask & SNIC_QP_ATTR_MAX_QP_RD_ATOMIC) ||
            a->max_rd_atomic <= SNIC_MAX_RD_ATOMIC) &&
           (!(mask & SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC) ||
            a->max_dest_rd_atomic <= SNIC_MAX_RD_ATOMIC) &&
           (!(mask & SNIC_QP_ATTR_DEST_QPN) ||
            GUINT32_FROM_LE(a->dest_qp_num) <= 0xffffff) &&
           (!(mask & SNIC_QP_ATTR_RQ_PSN) ||
            GUINT32_FROM_LE(a->rq_psn) <= 0xffffff) &&
           (!(mask & SNIC_QP_ATTR_SQ_PSN) ||
            GUINT32_FROM_LE(a->sq_psn) <= 0xffffff) &&
           (!(mask & SNIC_QP_ATTR_PKEY_INDEX) || !a->pkey_index) &&
           (!(mask & SNIC_QP_ATTR_PORT) || a->port_num == 1) &&
           (!(mask & SNIC_QP_ATTR_ACCESS_FLAGS) ||
            !(access & ~(SNIC_ACCESS_LOCAL_WRITE | SNIC_ACCESS_REMOTE_WRITE |
                         SNIC_ACCESS_REMOTE_READ |
                         SNIC_ACCESS_REMOTE_ATOMIC))) &&
           (!(mask & SNIC_QP_ATTR_AV) ||
            (!(a->av.flags & ~SNIC_AV_IPV6) &&
             GUINT32_FROM_LE(a->av.flow_label) <= 0xfffff));
}

static void attr_apply(SnicQpAttr *q, uint32_t mask,
                       const struct snic_qp_attr *a, uint8_t sgid_index)
{
#define SET(bit, field, val) do { \
        if (mask & SNIC_QP_ATTR_##bit) { \
            q->field = (val); \
        } \
    } while (0)
    SET(PATH_MTU, path_mtu, GUINT32_FROM_LE(a->path_mtu));
    SET(QKEY, qkey, GUINT32_FROM_LE(a->qkey));
    SET(RQ_PSN, rq_psn, GUINT32_FROM_LE(a->rq_psn));
    SET(SQ_PSN, sq_psn, GUINT32_FROM_LE(a->sq_psn));
    SET(DEST_QPN, dest_qpn, GUINT32_FROM_LE(a->dest_qp_num));
    SET(ACCESS_FLAGS, access, GUINT32_FROM_LE(a->qp_access_flags));
    SET(TIMEOUT, timeout, a->timeout);
    SET(RETRY_CNT, retry_cnt, a->retry_cnt);
    SET(RNR_RETRY, rnr_retry, a->rnr_retry);
    SET(MIN_RNR_TIMER, min_rnr_timer, a->min_rnr_timer);
    SET(MAX_QP_RD_ATOMIC, max_rd_atomic, a->max_rd_atomic);
    SET(MAX_DEST_RD_ATOMIC, max_dest_rd_atomic, a->max_dest_rd_atomic);
#undef SET
    if (mask & SNIC_QP_ATTR_AV) {
        SnicQpAv *av = &q->av;

        memcpy(av->dgid, a->av.dgid, 16);
        memcpy(av->dmac, a->av.dmac, 6);
        av->sgid_index = sgid_index;
        av->hop_limit = a->av.hop_limit;
        av->traffic_class = a->av.traffic_class;
        av->flags = a->av.flags;
        av->flow_label = GUINT32_FROM_LE(a->av.flow_label);
    }
}

uint16_t snic_cmd_modify_qp(SnicCore *c, const struct snic_admin_cmd *cmd,
                            uint64_t *result)
{
    const struct snic_admin_modify_qp *p = &cmd->modify_qp;
    SnicQp *qp = snic_qp_get(c, GUINT32_FROM_LE(p->qpn));
    uint32_t mask = GUINT32_FROM_LE(p->attr_mask);
    uint64_t addr = GUINT64_FROM_LE(p->attr_addr);
    struct snic_qp_attr a;
    uint32_t next, cur;
    uint8_t sgid_index = 0;

    if (!qp) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (addr % 8 || snic_dma_read(c, addr, &a, sizeof(a))) {
        return SNIC_ADMIN_BAD_ADDRESS;
    }
    next = mask & SNIC_QP_ATTR_STATE ? GUINT32_FROM_LE(a.qp_state) :
                                       qp->state;
    if (mask & SNIC_QP_ATTR_CUR_STATE &&
        GUINT32_FROM_LE(a.cur_qp_state) != qp->state) {
        return SNIC_ADMIN_BAD_STATE;    /* the driver's view is stale */
    }
    if (!snic_qp_modify_is_ok(qp->state, next, qp->type, mask) ||
        !attr_values_ok(mask, &a)) {
        SNIC_GUEST_ERROR(c, GE_MODIFY_QP, GUINT32_FROM_LE(p->qpn), qp->state,
                         next, mask);
        return SNIC_ADMIN_BAD_PARAM;
    }
    /*
     * A connection's path MTU must fit the port when it is set up (RTR);
     * a later port MTU change is caught per frame, as on the wire.
     */
    if ((qp->type == SNIC_QPT_RC || qp->type == SNIC_QPT_UC) &&
        next == SNIC_QPS_RTR &&
        128u << (mask & SNIC_QP_ATTR_PATH_MTU ?
                 GUINT32_FROM_LE(a.path_mtu) : qp->attr.path_mtu) >
        snic_port_mtu(c)) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    /* a responder's READ/atomic resources live in its RDB */
    if (mask & SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC && a.max_dest_rd_atomic &&
        !qp->rdb) {
        SNIC_GUEST_ERROR(c, GE_QP_RDB, qp->type, 0);
        return SNIC_ADMIN_BAD_PARAM;
    }
    /* the source address of a connection is one of the port's */
    if (mask & SNIC_QP_ATTR_AV) {
        int i = snic_gid_index(c, !!(a.av.flags & SNIC_AV_IPV6), a.av.sgid);

        if (i < 0) {
            SNIC_GUEST_ERROR(c, GE_QP_SGID, GUINT32_FROM_LE(p->qpn));
            return SNIC_ADMIN_BAD_PARAM;
        }
        sgid_index = i;
    }
    /* Draining states need the data path to pause sends: not yet. */
    if (next == SNIC_QPS_SQD || next == SNIC_QPS_SQE ||
        qp->state == SNIC_QPS_SQD || qp->state == SNIC_QPS_SQE) {
        return SNIC_ADMIN_NOT_SUPPORTED;
    }
    attr_apply(&qp->attr, mask, &a, sgid_index);
    if (mask & SNIC_QP_ATTR_EN_SQD_ASYNC_NOTIFY) {
        qp->en_sqd_async_notify = a.en_sqd_async_notify;
    }
    cur = qp->state;
    if (next == SNIC_QPS_ERR && cur != SNIC_QPS_ERR) {
        c->qp_hooks->error(c, qp);     /* enters ERR and flushes */
        return SNIC_ADMIN_OK;
    }
    snic_qp_set_state(c, qp, next);
    if (next == SNIC_QPS_RESET) {
        SnicQpAttr keep = { .path_mtu = SNIC_MTU_1024 };

        qp->attr = keep;    /* RESET forgets the connection */
        qp->en_sqd_async_notify = false;
        c->qp_hooks->reset(c, qp);
    } else if (cur == SNIC_QPS_INIT && next == SNIC_QPS_RTR) {
        c->qp_hooks->rtr(c, qp);
    } else if (cur == SNIC_QPS_RTR && next == SNIC_QPS_RTS) {
        c->qp_hooks->rts(c, qp);
    }
    return SNIC_ADMIN_OK;
}

uint16_t snic_cmd_query_qp(SnicCore *c, const struct snic_admin_cmd *cmd,
                           uint64_t *result)
{
    const struct snic_admin_query_qp *p = &cmd->query_qp;
    SnicQp *qp = snic_qp_get(c, GUINT32_FROM_LE(p->qpn));
    uint64_t addr = GUINT64_FROM_LE(p->resp_addr);
    const SnicQpAttr *q;
    struct snic_qp_attr a;

    if (!qp) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    q = &qp->attr;
    memset(&a, 0, sizeof(a));
    a.qp_state = GUINT32_TO_LE(qp->state);
    a.cur_qp_state = GUINT32_TO_LE(qp->state);
    a.path_mtu = GUINT32_TO_LE(q->path_mtu);
    a.qkey = GUINT32_TO_LE(q->qkey);
    a.rq_psn = GUINT32_TO_LE(q->rq_psn);
    a.sq_psn = GUINT32_TO_LE(q->sq_psn);
    a.dest_qp_num = GUINT32_TO_LE(q->dest_qpn);
    a.qp_access_flags = GUINT32_TO_LE(q->access);
    a.pkey_index = 0;                   /* the only values modify takes */
    a.port_num = 1;
    a.timeout = q->timeout;
    a.retry_cnt = q->retry_cnt;
    a.rnr_retry = q->rnr_retry;
    a.min_rnr_timer = q->min_rnr_timer;
    a.max_rd_atomic = q->max_rd_atomic;
    a.max_dest_rd_atomic = q->max_dest_rd_atomic;
    a.en_sqd_async_notify = qp->en_sqd_async_notify;
    memcpy(a.av.dgid, q->av.dgid, 16);
    snic_gid_get(c, q->av.sgid_index, a.av.sgid);
    memcpy(a.av.dmac, q->av.dmac, 6);
    a.av.hop_limit = q->av.hop_limit;
    a.av.traffic_class = q->av.traffic_class;
    a.av.flow_label = GUINT32_TO_LE(q->av.flow_label);
    a.av.flags = q->av.flags;
    if (addr % 8 || snic_dma_write(c, addr, &a, sizeof(a))) {
        return SNIC_ADMIN_BAD_ADDRESS;
    }
    *result = sizeof(a);
    return SNIC_ADMIN_OK;
}

uint16_t snic_cmd_destroy_qp(SnicCore *c, const struct snic_admin_cmd *cmd,
                             uint64_t *result)
{
    SnicQp *qp = snic_qp_get(c, GUINT32_FROM_LE(cmd->obj.handle));

    if (!qp) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    c->qp_hooks->destroy(c, qp);
    c->pds[qp->pdn].refs--;
    snic_cq_get(c, qp->send_cqn)->refs--;
    snic_cq_get(c, qp->recv_cqn)->refs--;
    if (qp->srqn) {
        snic_srq_get(c, qp->srqn)->refs--;
    }
    snic_tlb_invalidate(c, qp->sq.pbl,
                        snic_qp_ring(&qp->sq, qp->sq_log2_depth,
                                     SNIC_SQ_WQE_SIZE).npages);
    if (!qp->srqn) {
        snic_tlb_invalidate(c, qp->rq.pbl,
                            snic_qp_ring(&qp->rq, qp->rq_log2_depth,
                                         SNIC_RQ_WQE_SIZE).npages);
    }
    snic_mw_qp_destroyed(c, qp - c->qps);
    snic_mcast_qp_destroyed(c, qp - c->qps);
    if (qp != &c->qps[SNIC_GSI_QPN]) {
        c->free_qpns[c->free_qpn_tail++ % c->cfg.max_qp] = qp - c->qps;
    }
    memset(qp, 0, sizeof(*qp));
    return SNIC_ADMIN_OK;
}

void snic_qp_doorbell(SnicCore *c, uint16_t page, uint8_t type, uint32_t qpn,
                      uint32_t index)
{
    SnicQp *qp = snic_qp_get(c, qpn);
    bool sq = type == SNIC_DB_SQ;
    uint16_t *tail, limit;

    if (!qp || qp->ctx != page) {
        SNIC_GUEST_ERROR(c, GE_DB_QP_OWNER, page, qpn);
        snic_stat_inc(&c->stats.doorbells_invalid);
        return;
    }
    if (!sq && qp->srqn) {
        SNIC_GUEST_ERROR(c, GE_DB_RQ_OF_SRQ_QP, page, qpn);
        snic_stat_inc(&c->stats.doorbells_invalid);
        return;
    }
    tail = sq ? &qp->sq_tail : &qp->rq_tail;
    /* a slot is free again once its work request completed */
    limit = sq ? qp->sq_comp + (1u << qp->sq_log2_depth) :
                 qp->rq_head + (1u << qp->rq_log2_depth);
    /* indices are kept modulo 2^16 (SnicQp): so is the guest's */
    if ((uint16_t)(index - *tail) > (uint16_t)(limit - *tail)) {
        SNIC_GUEST_ERROR(c, GE_DB_INDEX, type, qpn, index, limit);
        snic_stat_inc(&c->stats.doorbells_invalid);
        return;
    }
    *tail = index;
    snic_stat_inc(&c->stats.doorbells);
    c->qp_hooks->work(c, qp);
}
