/*
 * snic core: the engine's work queues: send WQEs fetched and their
 * payload gathered, receive WQEs (an RQ's, or an SRQ's through the
 * device's pool) taken and scattered into, send and receive completions,
 * and a QP's move to the error state with the flush of both queues.
 *
 * No table of outstanding send WQEs is kept (SRNIC's cache-free design,
 * NSDI'23 section 4.3): the QP context holds where the oldest uncompleted
 * WQE starts (comp_psn) and how far the newest one got (sq_head,
 * wqe_off). Which WQE a PSN belongs to, its length and op-code, are found
 * again by reading the WQEs from comp_psn on: when a segment is resent, a
 * response arrives, or WQEs complete.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "engine/wq.h"
#include "port/wire.h"
#include "engine/rdma.h"
#include "engine/scheduler.h"
#include "objects/cq.h"
#include "objects/mr.h"
#include "objects/mtt.h"
#include "objects/mw.h"
#include "objects/qp.h"
#include "objects/srq.h"
#include "strom/rpc.h"
#include "transport/transport.h"

/*
 * A completion of this QP could not be posted (its CQ overran or broke):
 * IBA makes that a local work queue catastrophic error. The QP enters ERR
 * with an async event; the engine's iteration flushes its queues (rdma.c) once
 * the caller, which may be walking them, is done.
 */
static void cq_lost(SnicCore *c, SnicQp *qp)
{
    if (qp->state == SNIC_QPS_ERR) {
        return;     /* flushing into the broken CQ: already reported */
    }
    snic_aeq_post(c, SNIC_EVENT_QP_FATAL, qp - c->qps);
    snic_qp_set_state(c, qp, SNIC_QPS_ERR);
    snic_req_disarm(&qp->req);
    snic_qp_timer_sync(c, qp);
    qp->resp.ack_pending = false;
    snic_sched_notify(c, qp);   /* the flush runs from the engine */
}

_Static_assert(offsetof(struct snic_sq_wqe, sge) + 3 * sizeof(struct snic_sge)
               == SNIC_SQ_WQE_FIRST, "the first part: header and 3 SGEs");

uint32_t snic_sq_wqe_used(const struct snic_sq_wqe *w)
{
    size_t body = w->flags & SNIC_WQE_INLINE ? w->inline_len :
                  (size_t)w->num_sge * sizeof(struct snic_sge);

    return MAX(SNIC_SQ_WQE_FIRST,
               MIN(offsetof(struct snic_sq_wqe, sge) + body,
                   SNIC_SQ_WQE_SIZE));
}

uint32_t snic_sq_wqe_used_at(SnicCore *c, SnicQp *qp, uint32_t index)
{
    uint64_t off = (uint64_t)(index & ((1u << qp->sq_log2_depth) - 1)) *
                   SNIC_SQ_WQE_SIZE;
    SnicMtt sq = snic_qp_ring(&qp->sq, qp->sq_log2_depth, SNIC_SQ_WQE_SIZE);
    struct snic_sq_wqe w;

    /* the header alone: wr_id .. imm */
    if (snic_mtt_read(c, &sq, off, &w, offsetof(struct snic_sq_wqe, rdma))) {
        return 0;
    }
    return snic_sq_wqe_used(&w);
}

int snic_sq_fetch(SnicCore *c, SnicQp *qp, uint32_t index,
                  struct snic_sq_wqe *w)
{
    uint64_t off = (uint64_t)(index & ((1u << qp->sq_log2_depth) - 1)) *
                   SNIC_SQ_WQE_SIZE;
    SnicMtt sq = snic_qp_ring(&qp->sq, qp->sq_log2_depth, SNIC_SQ_WQE_SIZE);
    uint8_t *b = (uint8_t *)w;
    uint32_t used;

    if (snic_mtt_read(c, &sq, off, w, SNIC_SQ_WQE_FIRST)) {
        goto fail;
    }
    used = snic_sq_wqe_used(w);
    if (used > SNIC_SQ_WQE_FIRST &&
        snic_mtt_read(c, &sq, off + SNIC_SQ_WQE_FIRST, b + SNIC_SQ_WQE_FIRST,
                      used - SNIC_SQ_WQE_FIRST)) {
        goto fail;
    }
    /* what the device did not read is not there for it */
    memset(b + used, 0, sizeof(*w) - used);
    return 0;

fail:
    SNIC_GUEST_ERROR(c, GE_WQE_FETCH, qp - c->qps, index, 0);
    return -1;
}

static uint64_t rq_off(const SnicQp *qp, uint32_t index)
{
    return (uint64_t)(index & ((1u << qp->rq_log2_depth) - 1)) *
           SNIC_RQ_WQE_SIZE;
}

/* RQ WQE 'index' of the QP, read for the packet being placed: kept */
static void rx_wqe_keep(SnicCore *c, const SnicQp *qp, uint32_t index,
                        const struct snic_rq_wqe *w)
{
    if (c->rx_wqe) {
        *c->rx_wqe = (SnicRecvWqe) { .qp = qp, .index = index, .w = *w };
    }
}

/*
 * The held receive WQE: an RQ's is read from its slot (the slot is the
 * QP's until the completion) unless this packet read it already, an
 * SRQ's from the receive-WQE pool it was copied to (its SRQ slot is free
 * once taken). False if unreadable.
 */
static bool recv_wqe(SnicCore *c, const SnicQp *qp, struct snic_rq_wqe *w)
{
    const SnicResp *s = &qp->resp;
    SnicMtt rq;

    if (s->recv_slot) {
        *w = c->recv_pool[s->recv_slot - 1];
        return true;
    }
    if (c->rx_wqe && c->rx_wqe->qp == qp &&
        c->rx_wqe->index == s->recv_index) {
        *w = c->rx_wqe->w;
        return true;
    }
    rq = snic_qp_ring(&qp->rq, qp->rq_log2_depth, SNIC_RQ_WQE_SIZE);
    if (snic_mtt_read(c, &rq, rq_off(qp, s->recv_index), w, sizeof(*w))) {
        return false;
    }
    rx_wqe_keep(c, qp, s->recv_index, w);
    return true;
}

/* ... for its buffers: also well formed (the guest may rewrite it) */
static bool recv_sges(SnicCore *c, const SnicQp *qp, struct snic_rq_wqe *w)
{
    return qp->resp.recv_held && qp->resp.recv_ok && recv_wqe(c, qp, w) &&
           w->num_sge <= SNIC_RQ_WQE_MAX_SGE;
}

void snic_recv_release(SnicCore *c, SnicQp *qp)
{
    unsigned slot = qp->resp.recv_slot;

    if (slot) {
        c->recv_free[c->recv_free_n++] = slot - 1;
        c->recv_hold_at[slot - 1] = UINT64_MAX;
        c->recv_ctx_held[qp->ctx]--;
        qp->resp.recv_slot = 0;
    }
}

/*
 * How long a responder waits for the next packet of a message before it
 * lets go of the SRQ receive it holds: as long as the QP's requester
 * would retry (4.096 us * 2^timeout, retry_cnt + 1 times), or resp-hold-ms
 * with no timeout (0, infinite)
 */
static uint64_t hold_ns(const SnicCore *c, const SnicQp *qp)
{
    if (!qp->attr.timeout) {
        return (uint64_t)c->cfg.resp_hold_ms * 1000000;
    }
    return (4096ull << qp->attr.timeout) * (qp->attr.retry_cnt + 1u);
}

void snic_recv_hold_arm(SnicCore *c, SnicQp *qp)
{
    unsigned slot = qp->resp.recv_slot;

    if (slot) {
        c->recv_hold_at[slot - 1] = c->ops->now_ns(c->opaque) +
                                    hold_ns(c, qp);
        snic_qp_timer_sync(c, qp);
    }
}

uint64_t snic_recv_hold_deadline(const SnicCore *c, const SnicQp *qp)
{
    unsigned slot = qp->resp.recv_slot;

    return slot ? c->recv_hold_at[slot - 1] : UINT64_MAX;
}

void snic_wq_init(SnicCore *c)
{
    c->recv_pool = g_new0(struct snic_rq_wqe, c->cfg.recv_pool);
    c->recv_free = g_new(uint16_t, c->cfg.recv_pool);
    c->recv_hold_at = g_new(uint64_t, c->cfg.recv_pool);
    c->recv_ctx_held = g_new0(uint16_t, c->cfg.num_db_pages);
}

void snic_wq_free(SnicCore *c)
{
    g_free(c->recv_pool);
    g_free(c->recv_free);
    g_free(c->recv_hold_at);
    g_free(c->recv_ctx_held);
}

void snic_wq_reset(SnicCore *c)
{
    for (c->recv_free_n = 0; c->recv_free_n < c->cfg.recv_pool;
         c->recv_free_n++) {
        c->recv_free[c->recv_free_n] = c->recv_free_n;
        c->recv_hold_at[c->recv_free_n] = UINT64_MAX;
    }
    memset(c->recv_ctx_held, 0,
           c->cfg.num_db_pages * sizeof(*c->recv_ctx_held));
}

bool snic_recv_take(SnicCore *c, SnicQp *qp)
{
    SnicResp *s = &qp->resp;
    struct snic_rq_wqe w;
    uint32_t index;
    SnicMtt rq;
    int st;

    if (s->recv_held) {
        return true;
    }
    if (qp->srqn) {
        if (!c->recv_free_n ||
            c->recv_ctx_held[qp->ctx] >= snic_ctx_share(c->cfg.recv_pool)) {
            /* the pool, or the context's share of it, is used up: none */
            return false;
        }
        st = snic_srq_take(c, snic_srq_get(c, qp->srqn), &w, &index);
        if (st < 0) {
            return false;
        }
        s->recv_index = index;      /* modulo 2^16, as the CQE has it */
        s->recv_slot = c->recv_free[--c->recv_free_n] + 1;
        c->recv_pool[s->recv_slot - 1] = w;
        c->recv_ctx_held[qp->ctx]++;
    } else {
        if (qp->rq_head == qp->rq_tail) {
            return false;
        }
        s->recv_index = qp->rq_head;
        rq = snic_qp_ring(&qp->rq, qp->rq_log2_depth, SNIC_RQ_WQE_SIZE);
        st = snic_mtt_read(c, &rq, rq_off(qp, qp->rq_head), &w, sizeof(w));
        if (!st) {
            rx_wqe_keep(c, qp, s->recv_index, &w);
        }
    }
    s->recv_held = true;
    s->recv_ok = false;
    s->recv_off = 0;
    if (st) {
        SNIC_GUEST_ERROR(c, GE_WQE_FETCH, qp - c->qps, s->recv_index, 1);
    } else if (w.num_sge > SNIC_RQ_WQE_MAX_SGE) {
        SNIC_GUEST_ERROR(c, GE_RQ_WQE_SGES, qp - c->qps, s->recv_index,
                         w.num_sge);
    } else {
        s->recv_ok = true;
    }
    return true;
}

int64_t snic_recv_room(SnicCore *c, const SnicQp *qp)
{
    struct snic_rq_wqe w;
    int64_t room = 0;
    unsigned i;

    if (!recv_sges(c, qp, &w)) {
        return -1;
    }
    for (i = 0; i < w.num_sge; i++) {
        room += GUINT32_FROM_LE(w.sge[i].length);
    }
    return room;
}

bool snic_rq_peek(SnicCore *c, const SnicQp *qp, uint32_t ahead,
                  struct snic_rq_wqe *w)
{
    SnicMtt rq;

    if (qp->srqn || ahead >= (uint16_t)(qp->rq_tail - qp->rq_head)) {
        return false;
    }
    rq = snic_qp_ring(&qp->rq, qp->rq_log2_depth, SNIC_RQ_WQE_SIZE);
    return !snic_mtt_read(c, &rq, rq_off(qp, qp->rq_head + ahead), w,
                          sizeof(*w)) &&
           w->num_sge <= SNIC_RQ_WQE_MAX_SGE;
}

/* Scatter into the held receive WQE at byte 'off' of its buffers. */
uint8_t snic_rq_scatter(SnicCore *c, SnicQp *qp, uint32_t off,
                        const uint8_t *buf, uint32_t len)
{
    /* an SRQ's WQEs are checked against the SRQ's PD */
    uint32_t pdn = qp->srqn ? snic_srq_get(c, qp->srqn)->pdn : qp->pdn;
    struct snic_rq_wqe w;

    /* read for every packet, once (SnicRecvWqe): none is kept for an RQ */
    if (!recv_sges(c, qp, &w)) {
        return SNIC_WC_LOC_QP_OP_ERR;
    }
    return snic_sge_scatter(c, qp - c->qps, pdn, w.sge, w.num_sge, off, buf,
                            len);
}

/* Complete the held receive WQE; it frees an RQ slot (SRQ: when taken). */
static void recv_complete(SnicCore *c, SnicQp *qp, struct snic_cqe *cqe,
                          bool se)
{
    SnicResp *s = &qp->resp;
    struct snic_rq_wqe w;
    bool held;

    cqe->wr_id = recv_wqe(c, qp, &w) ? w.wr_id : 0;
    cqe->qpn = GUINT32_TO_LE(qp - c->qps);
    cqe->wqe_index = GUINT16_TO_LE((uint16_t)s->recv_index);
    if (c->rx_wqe) {
        c->rx_wqe->qp = NULL;   /* the WQE is the guest's again */
    }
    if (!qp->srqn) {
        qp->rq_head++;
    }
    held = snic_recv_hold_deadline(c, qp) != UINT64_MAX;
    snic_recv_release(c, qp);
    if (held) {
        snic_qp_timer_sync(c, qp);      /* the hold's deadline is gone */
    }
    s->recv_held = false;
    s->recv_off = 0;
    if (snic_cq_post(c, qp->recv_cqn, cqe, se)) {
        cq_lost(c, qp);
    }
}

void snic_rq_complete(SnicCore *c, SnicQp *qp, uint8_t status,
                      uint8_t opcode, uint32_t len, const SnicPkt *p)
{
    struct snic_cqe cqe;

    memset(&cqe, 0, sizeof(cqe));
    cqe.byte_len = GUINT32_TO_LE(len);
    cqe.status = status;
    cqe.opcode = opcode;
    if (p->headers & SNIC_HDR_IMMDT) {
        cqe.imm = GUINT32_TO_BE(p->imm);
        cqe.wc_flags = SNIC_WC_F_IMM;
    }
    if (p->headers & SNIC_HDR_IETH) {
        cqe.imm = GUINT32_TO_BE(p->ieth_rkey);
        cqe.wc_flags = SNIC_WC_F_INV;
    }
    if (p->headers & SNIC_HDR_DETH) {
        cqe.src_qp = GUINT32_TO_LE(p->deth.sqpn);
        cqe.wc_flags |= SNIC_WC_F_GRH |
                        (p->addr.ipv6 ? SNIC_WC_F_IPV6 : 0);
    }
    recv_complete(c, qp, &cqe, p->se);
}

/* Invalidate a window's R_Key (SNIC_KEY_MW) or an FRWR MR's key. */
static bool invalidate(SnicCore *c, SnicQp *qp, uint32_t key, bool remote)
{
    return key & SNIC_KEY_MW ? snic_mw_invalidate(c, qp, key) :
           snic_mr_invalidate(c, qp->pdn, key, remote);
}

bool snic_remote_invalidate(SnicCore *c, SnicQp *qp, uint32_t rkey)
{
    return invalidate(c, qp, rkey, true);
}

/*
 * Execute a local work request (BIND_MW, LOCAL_INV, REG_MR) of an RC or
 * UC QP: it moves no data and completes in post order like any other.
 */
uint8_t snic_local_op(SnicCore *c, SnicQp *qp, const struct snic_sq_wqe *w)
{
    switch (w->opcode) {
    case SNIC_WR_BIND_MW:
        return snic_mw_bind(c, qp, &w->bind);
    case SNIC_WR_REG_MR:
        return snic_mr_fast_register(c, qp->pdn, &w->reg);
    default:
        return invalidate(c, qp, GUINT32_FROM_BE(w->imm), false) ?
               SNIC_WC_SUCCESS : SNIC_WC_LOC_QP_OP_ERR;
    }
}

/*
 * The payload a send WQE names: the sum of its SGEs, or with SNIC_WQE_INLINE
 * inline_len bytes of the WQE itself, which only SEND and WRITE carry and
 * which must fit the WQE (else a guest error and LOC_LEN_ERR).
 */
uint8_t snic_wqe_payload_len(SnicCore *c, SnicQp *qp, uint32_t index,
                             const struct snic_sq_wqe *w, uint64_t *len)
{
    unsigned i;

    if (w->flags & SNIC_WQE_INLINE) {
        if (w->inline_len > SNIC_MAX_INLINE_DATA ||
            w->opcode == SNIC_WR_RDMA_READ ||
            w->opcode == SNIC_WR_ATOMIC_CMP_SWAP ||
            w->opcode == SNIC_WR_ATOMIC_FETCH_ADD) {
            SNIC_GUEST_ERROR(c, GE_WQE_INLINE, qp - c->qps, index,
                             w->inline_len);
            return SNIC_WC_LOC_LEN_ERR;
        }
        *len = w->inline_len;
        return SNIC_WC_SUCCESS;
    }
    *len = 0;
    for (i = 0; i < w->num_sge; i++) {
        *len += GUINT32_FROM_LE(w->sge[i].length);
    }
    return SNIC_WC_SUCCESS;
}

/* Bytes [off, off + len) of a send WQE's payload, SGEs or inline. */
uint8_t snic_wqe_gather(SnicCore *c, SnicQp *qp, const struct snic_sq_wqe *w,
                        uint32_t off, void *buf, uint32_t len)
{
    if (w->flags & SNIC_WQE_INLINE) {
        /* re-read for every segment: the length was checked on another */
        if (w->inline_len > SNIC_MAX_INLINE_DATA || off > w->inline_len ||
            len > w->inline_len - off) {
            return SNIC_WC_LOC_LEN_ERR;
        }
        memcpy(buf, w->inline_data + off, len);
        return SNIC_WC_SUCCESS;
    }
    return snic_sge_gather(c, qp - c->qps, qp->pdn, w->sge, w->num_sge, off,
                           buf, len);
}

void snic_post_send_cqe(SnicCore *c, SnicQp *qp, const SnicSendWqe *info,
                        uint64_t wr_id, uint8_t status)
{
    static const uint8_t wc_op[] = {
        [SNIC_WR_RDMA_WRITE] = SNIC_WC_RDMA_WRITE,
        [SNIC_WR_RDMA_WRITE_IMM] = SNIC_WC_RDMA_WRITE,
        [SNIC_WR_SEND] = SNIC_WC_SEND,
        [SNIC_WR_SEND_IMM] = SNIC_WC_SEND,
        [SNIC_WR_SEND_INV] = SNIC_WC_SEND,
        [SNIC_WR_RDMA_READ] = SNIC_WC_RDMA_READ,
        [SNIC_WR_ATOMIC_CMP_SWAP] = SNIC_WC_COMP_SWAP,
        [SNIC_WR_ATOMIC_FETCH_ADD] = SNIC_WC_FETCH_ADD,
        [SNIC_WR_LOCAL_INV] = SNIC_WC_LOCAL_INV,
        [SNIC_WR_BIND_MW] = SNIC_WC_BIND_MW,
        [SNIC_WR_REG_MR] = SNIC_WC_REG_MR,
        [SNIC_WR_RPC] = SNIC_WC_RPC,
        [SNIC_WR_RPC_WRITE] = SNIC_WC_RPC,
    };
    struct snic_cqe cqe = {
        .wr_id = GUINT64_TO_LE(wr_id),
        .byte_len = GUINT32_TO_LE(info ? info->len : 0),
        .qpn = GUINT32_TO_LE(qp - c->qps),
        .status = status,
        .opcode = info && info->opcode < G_N_ELEMENTS(wc_op) ?
                  wc_op[info->opcode] : SNIC_WC_SEND,
        /* send CQEs are posted in SQ order, for the WQE at sq_comp */
        .wqe_index = GUINT16_TO_LE((uint16_t)qp->sq_comp),
    };

    if (snic_cq_post(c, qp->send_cqn, &cqe, false)) {
        cq_lost(c, qp);
    }
}

bool snic_recv_pending(const SnicQp *qp)
{
    return qp->resp.recv_held || (!qp->srqn && qp->rq_head != qp->rq_tail);
}

bool snic_wq_flush_owed(const SnicQp *qp)
{
    return qp->state == SNIC_QPS_ERR &&
           (qp->sq_comp != qp->sq_tail || snic_recv_pending(qp));
}

/* The held receive WQE, or else the RQ's next, completed FLUSH_ERR */
static void flush_recv(SnicCore *c, SnicQp *qp)
{
    struct snic_cqe cqe;

    if (!qp->resp.recv_held) {
        /* the RQ's next, held only to be completed: read once, there */
        qp->resp.recv_held = true;
        qp->resp.recv_ok = false;
        qp->resp.recv_index = qp->rq_head;
    }
    memset(&cqe, 0, sizeof(cqe));
    cqe.status = SNIC_WC_WR_FLUSH_ERR;
    cqe.opcode = SNIC_WC_RECV;
    recv_complete(c, qp, &cqe, false);
    c->wqe_left -= !!c->wqe_left;
}

/*
 * Flush the outstanding WQEs of both queues (the QP is in ERR), as many
 * as the call's bound has left: one MODIFY_QP to ERR, or one doorbell of
 * a QP in ERR, then costs at most SNIC_WQES_PER_CALL CQEs and the reads
 * of as many WQEs, not a queue's 32K. True if some are left.
 */
static bool flush_queues(SnicCore *c, SnicQp *qp)
{
    /*
     * WQEs acknowledged and still owed their completion are flushed with
     * the rest, as work completed by a flush may or may not have executed
     */
    qp->req.comp_owed = false;
    qp->req.wqe_off = 0;
    qp->req.rd_atomic = 0;
    /*
     * The held receive first, whatever the bound (one per QP entering
     * ERR): with an SRQ it is the last WQE the QP took, and the
     * LAST_WQE event that tells its consumer so must follow its CQE
     */
    if (qp->resp.recv_held) {
        flush_recv(c, qp);
    }
    while (qp->sq_comp != qp->sq_tail && c->wqe_left) {
        struct snic_sq_wqe w;

        if (snic_sq_fetch(c, qp, qp->sq_comp, &w)) {
            w.wr_id = 0;
        }
        snic_post_send_cqe(c, qp, NULL, GUINT64_FROM_LE(w.wr_id),
                           SNIC_WC_WR_FLUSH_ERR);
        qp->sq_comp++;
        c->wqe_left--;
    }
    qp->req.sq_head = qp->sq_comp;
    /* then (without an SRQ) the rest of the RQ */
    while (snic_recv_pending(qp) && c->wqe_left) {
        flush_recv(c, qp);
    }
    return snic_wq_flush_owed(qp);
}

void snic_wq_error(SnicCore *c, SnicQp *qp)
{
    bool entered = qp->state != SNIC_QPS_ERR;

    snic_qp_set_state(c, qp, SNIC_QPS_ERR);
    snic_req_disarm(&qp->req);
    snic_qp_timer_sync(c, qp);
    qp->resp.ack_pending = false;
    snic_rpc_qp_gone(c, qp);    /* RPCs in flight die with the connection */
    if (flush_queues(c, qp)) {
        snic_sched_notify(c, qp);   /* the rest in its next iteration */
    }
    if (entered && qp->srqn) {
        /* it takes no more WQEs from the SRQ: its consumer may detach */
        snic_aeq_post(c, SNIC_EVENT_QP_LAST_WQE, qp - c->qps);
    }
}

/* ---- the send queue walked from its oldest uncompleted WQE ---- */


static uint32_t wqe_last_psn(const SnicSendWqe *w)
{
    return (w->first_psn + w->npsn - 1) & SNIC_PSN_MASK;
}

/* The PSNs a message of 'len' bytes and op-code 'op' occupies */
static uint32_t wqe_npsn(const SnicQp *qp, uint8_t op, uint64_t len)
{
    if (snic_wr_is_local(op)) {
        return 0;           /* runs in the SQ's order, sends nothing */
    }
    return len && !snic_wr_is_atomic(op) ?
           (len + snic_qp_mtu_bytes(qp) - 1) / snic_qp_mtu_bytes(qp) : 1;
}

/*
 * Read WQE 'index', which starts at PSN first_psn; its span in e->info.
 * A WQE is validated (with guest errors) once, when it starts; one that
 * the guest made unreadable or malformed after that fails quietly.
 */
uint8_t snic_sq_wqe_read(SnicCore *c, SnicQp *qp, uint32_t index,
                         uint32_t first_psn, SnicReqWqe *e)
{
    e->index = index;
    if (snic_sq_fetch(c, qp, index, &e->w)) {
        return SNIC_WC_LOC_QP_OP_ERR;
    }
    return snic_sq_wqe_span(qp, first_psn, e);
}

uint8_t snic_sq_wqe_span(const SnicQp *qp, uint32_t first_psn, SnicReqWqe *e)
{
    const struct snic_sq_wqe *w = &e->w;
    uint64_t len = 0;
    unsigned i;

    if (w->num_sge > SNIC_SQ_WQE_MAX_SGE) {
        return SNIC_WC_LOC_QP_OP_ERR;
    }
    if (w->flags & SNIC_WQE_INLINE) {
        if (w->inline_len > SNIC_MAX_INLINE_DATA) {
            return SNIC_WC_LOC_LEN_ERR;
        }
        len = w->inline_len;
    } else {
        for (i = 0; i < w->num_sge; i++) {
            len += GUINT32_FROM_LE(w->sge[i].length);
        }
    }
    if (snic_rpc_wr(w->opcode)) {
        len += SNIC_RPC_HDR_LEN;    /* the message starts with its header */
    }
    if (len > (1ull << 31)) {
        return SNIC_WC_LOC_LEN_ERR;
    }
    e->info = (SnicSendWqe) {
        .first_psn = first_psn,
        .len = snic_wr_is_local(w->opcode) ? 0 : len,
        .npsn = wqe_npsn(qp, w->opcode, len),
        .opcode = w->opcode,
        .flags = w->flags,
    };
    return SNIC_WC_SUCCESS;
}

/*
 * The started WQE that PSN psn belongs to, read from comp_psn on (its
 * message number counted from sq_comp's): 1 found, 0 not in flight, -1 a
 * WQE could not be read (the QP failed).
 */
int snic_sq_wqe_of_psn(SnicCore *c, SnicQp *qp, uint32_t psn, SnicReqWqe *e)
{
    SnicReq *r = &qp->req;
    SnicOooMsg *m = snic_prog_msg(qp);
    uint32_t first = r->comp_psn, msg = m ? m->req_comp : 0;
    uint16_t i, end = r->sq_head + (r->wqe_off ? 1 : 0);

    for (i = qp->sq_comp; i != end; i++) {
        uint8_t st;

        first = snic_rpc_skip(c, qp, first, i);     /* answers before it */
        st = snic_sq_wqe_read(c, qp, i, first, e);

        if (st != SNIC_WC_SUCCESS) {
            snic_sq_fail_at(c, qp, i, st);
            return -1;
        }
        e->msg = msg;
        if (e->info.npsn &&
            ((psn - first) & SNIC_PSN_MASK) < e->info.npsn) {
            return 1;
        }
        first = (first + e->info.npsn) & SNIC_PSN_MASK;
        msg += snic_wr_takes_recv(e->info.opcode);
    }
    return 0;
}

/*
 * The started READ that an SRNIC READ response names (its WQE 'index'),
 * for response PSN psn whose data came from remote address va: read
 * alone, so a response costs one WQE read however many WQEs are in
 * flight before it. What the peer says is checked against what this end
 * knows without a walk: the WQE is between the oldest uncompleted and the
 * next to start, a READ, psn was sent and va is an MTU boundary of the
 * READ's remote range, which puts the WQE's first PSN within what was
 * sent (exactly comp_psn for the oldest, next_psn - wqe_off for the one
 * half sent). 1 found, 0 not one of its responses, -1 the WQE could not
 * be read (the QP failed).
 */
int snic_sq_read_named(SnicCore *c, SnicQp *qp, uint16_t index, uint32_t psn,
                       uint64_t va, SnicReqWqe *e)
{
    SnicReq *r = &qp->req;
    uint16_t end = r->sq_head + (r->wqe_off ? 1 : 0);
    uint32_t sent = (r->next_psn - r->comp_psn) & SNIC_PSN_MASK;
    uint32_t mtu = snic_qp_mtu_bytes(qp), first;
    uint64_t off;
    uint8_t st;

    if ((uint16_t)(index - qp->sq_comp) >= (uint16_t)(end - qp->sq_comp) ||
        ((psn - r->comp_psn) & SNIC_PSN_MASK) >= sent) {
        return 0;
    }
    st = snic_sq_wqe_read(c, qp, index, 0, e);
    if (st != SNIC_WC_SUCCESS) {
        snic_sq_fail_at(c, qp, index, st);
        return -1;
    }
    off = va - GUINT64_FROM_LE(e->w.rdma.remote_addr);
    if (!snic_wr_is_read(e->info.opcode) || off % mtu ||
        off / mtu >= e->info.npsn) {
        return 0;
    }
    first = (psn - off / mtu) & SNIC_PSN_MASK;
    if (((first - r->comp_psn) & SNIC_PSN_MASK) >= sent ||
        (index == qp->sq_comp &&
         first != snic_rpc_skip(c, qp, r->comp_psn, index)) ||
        (index == r->sq_head &&
         first != ((r->next_psn - r->wqe_off) & SNIC_PSN_MASK))) {
        return 0;
    }
    e->info.first_psn = first;
    return 1;
}

/*
 * The oldest READ/atomic outstanding completed and others are: the next
 * is the first READ/atomic from sq_comp on, its first PSN kept as
 * dde.rd_off. Read once per READ/atomic completed, not per ACK. None
 * found among the started WQEs where the count says there is one, or one
 * that starts beyond the span (WQEs rewritten since they started), or a
 * WQE unreadable now: the QP fails here, as a barrier made up would hold
 * every later ACK (false then).
 */
static bool rd_atomic_next(SnicCore *c, SnicQp *qp)
{
    SnicReq *r = &qp->req;
    uint32_t first = r->comp_psn;
    uint16_t i, end = r->sq_head + (r->wqe_off ? 1 : 0);
    SnicReqWqe e;
    uint8_t st;

    for (i = qp->sq_comp; i != end; i++) {
        first = snic_rpc_skip(c, qp, first, i);
        st = snic_sq_wqe_read(c, qp, i, first, &e);
        if (st != SNIC_WC_SUCCESS) {
            snic_sq_fail_at(c, qp, i, st);
            return false;
        }
        if (snic_wr_is_rd_atomic(e.info.opcode)) {
            uint32_t off = snic_psn_cmp(first, r->dde.wnd_start) > 0 ?
                           (first - r->dde.wnd_start) & SNIC_PSN_MASK : 0;

            if (off >= SNIC_DDE_SPAN) {
                break;      /* started, it lies within the span */
            }
            r->dde.rd_off = off;
            return true;
        }
        first = (first + e.info.npsn) & SNIC_PSN_MASK;
    }
    snic_sq_fail_at(c, qp, qp->sq_comp, SNIC_WC_LOC_QP_OP_ERR);
    return false;
}

/*
 * Complete, in post order, every WQE whose last PSN is acknowledged;
 * 'bounded': no more than the call's budget of WQEs has left, the rest
 * owed. A failure settles them all first (snic_sq_fail_at).
 */
static void complete_acked(SnicCore *c, SnicQp *qp, bool bounded)
{
    SnicReq *r = &qp->req;
    SnicOooMsg *m = snic_prog_msg(qp);

    r->comp_owed = false;
    for (;;) {
        SnicReqWqe e;
        uint8_t st;
        bool rd;

        /* RPC answers sent before this WQE: it starts after them */
        r->comp_psn = snic_rpc_skip(c, qp, r->comp_psn, qp->sq_comp);
        if (r->local_err && qp->sq_comp == r->local_err_index) {
            snic_sq_fail_at(c, qp, qp->sq_comp, r->local_err_status);
            return;
        }
        if (qp->sq_comp == r->sq_head) {
            break;
        }
        /* wr_id lives in host memory: the WQE is ours until here */
        st = snic_sq_wqe_read(c, qp, qp->sq_comp, r->comp_psn, &e);
        if (st != SNIC_WC_SUCCESS) {
            snic_sq_fail_at(c, qp, qp->sq_comp, st);
            return;
        }
        if (snic_psn_cmp(wqe_last_psn(&e.info), r->dde.wnd_start) >= 0) {
            break;
        }
        if (bounded && !c->wqe_left) {
            /*
             * A cumulative ACK of a whole window would cost the call some
             * 3 DMA operations per WQE: this one (read to know it is
             * acknowledged) and the rest complete in the QP's next
             * iteration, which the run then reports
             */
            r->comp_owed = true;
            snic_sched_notify(c, qp);
            return;
        }
        /*
         * rd_atomic counts the READs and atomics started and not complete:
         * a WQE rewritten to or from one since it started would make it
         * wrap or stay up for good (checked exactly once the last started
         * WQE completes, when none may be left)
         */
        rd = snic_wr_is_rd_atomic(e.info.opcode);
        if (r->rd_atomic < rd ||
            ((uint16_t)(qp->sq_comp + 1) == r->sq_head && !r->wqe_off &&
             r->rd_atomic != rd)) {
            snic_sq_fail_at(c, qp, qp->sq_comp, SNIC_WC_LOC_QP_OP_ERR);
            return;
        }
        if (e.info.flags & SNIC_WQE_SIGNALED) {
            snic_post_send_cqe(c, qp, &e.info, GUINT64_FROM_LE(e.w.wr_id),
                               SNIC_WC_SUCCESS);
        }
        c->wqe_left -= !!c->wqe_left;
        r->rd_atomic -= rd;
        r->comp_psn = (r->comp_psn + e.info.npsn) & SNIC_PSN_MASK;
        qp->sq_comp++;
        if (m && snic_wr_takes_recv(e.info.opcode)) {
            m->req_comp++;
        }
        if (rd && r->rd_atomic && !rd_atomic_next(c, qp)) {
            return;
        }
    }
}

void snic_sq_complete_acked(SnicCore *c, SnicQp *qp)
{
    complete_acked(c, qp, true);
}

/*
 * WQE 'index' failed with 'status': the WQEs before it are flushed, it
 * completes with the status, and the QP goes to ERR (flushing the rest).
 */
void snic_sq_fail_at(SnicCore *c, SnicQp *qp, uint32_t index, uint8_t status)
{
    uint16_t from = qp->sq_comp;

    if (qp->req.comp_owed) {
        bool was_err = qp->state == SNIC_QPS_ERR;

        /*
         * WQEs acknowledged before the budget ran out complete as they
         * would have (no more of them than this loop flushes: within the
         * span); the one failing is never one of them, nor is "the
         * oldest" (snic_sq_fail()) the oldest acknowledged
         */
        complete_acked(c, qp, false);
        if (!was_err && qp->state == SNIC_QPS_ERR) {
            return;     /* one of them failed first */
        }
        if ((uint16_t)(index - from) < (uint16_t)(qp->sq_comp - from)) {
            index = qp->sq_comp;
        }
    }
    while (qp->sq_comp != qp->sq_tail) {
        bool failing = qp->sq_comp == index;
        bool started = qp->sq_comp != qp->req.sq_head || qp->req.wqe_off;
        SnicReqWqe e;

        /* only a started WQE's op-code is known; the rest are flushed */
        if (snic_sq_wqe_read(c, qp, qp->sq_comp, 0, &e) != SNIC_WC_SUCCESS) {
            started = false;
            if (snic_sq_fetch(c, qp, qp->sq_comp, &e.w)) {
                e.w.wr_id = 0;
            }
        }
        snic_post_send_cqe(c, qp, started ? &e.info : NULL,
                           GUINT64_FROM_LE(e.w.wr_id),
                           failing ? status : SNIC_WC_WR_FLUSH_ERR);
        qp->sq_comp++;
        if (failing) {
            break;
        }
    }
    snic_wq_error(c, qp);
}

void snic_sq_fail(SnicCore *c, SnicQp *qp, uint8_t status)
{
    snic_sq_fail_at(c, qp, qp->sq_comp, status);
}

/*
 * WQE 'index' failed locally (bad SGE, page list, ...). WQEs before it may
 * already have reached the responder, so they are not flushed: no new
 * segment goes out, they complete as their ACKs arrive (or time out), then
 * 'index' completes with 'status' and the QP goes to ERR.
 */
void snic_sq_fail_local(SnicCore *c, SnicQp *qp, uint32_t index,
                        uint8_t status)
{
    SnicReq *r = &qp->req;

    if (r->local_err && (uint16_t)(index - qp->sq_comp) >=
                        (uint16_t)(r->local_err_index - qp->sq_comp)) {
        return;     /* an earlier WQE failed first */
    }
    r->local_err = true;
    r->local_err_index = index;
    r->local_err_status = status;
    snic_sq_complete_acked(c, qp);
}

void snic_sq_acked(SnicCore *c, SnicQp *qp, uint32_t wnd_start,
                   SnicFeedback *fb)
{
    SnicReq *r = &qp->req;

    snic_sq_complete_acked(c, qp);
    fb->progress = r->dde.wnd_start != wnd_start;
    fb->newly_acked = (r->dde.wnd_start - wnd_start) & SNIC_PSN_MASK;
    fb->old_wnd_start = wnd_start;
    if (qp->state == SNIC_QPS_RTS) {
        snic_qp_program(qp)->incoming(c, qp, fb);
    }
    snic_sched_notify(c, qp);   /* credit, or segments to resend */
}
