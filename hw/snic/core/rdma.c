/*
 * snic core: RDMA engine glue: received RoCEv2 frames to the responder or
 * the completer of their QP, the engine run loop (queued ACKs, flushes,
 * requesters in round robin), transport timers and QP state changes.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "rdma.h"
#include "wire.h"

/* RC packets must come from the connected peer's address. */
static bool from_peer(const SnicQp *qp, const SnicPkt *p)
{
    const struct snic_av *av = &qp->attr.av;

    if (p->addr.ipv6 != !!(av->flags & SNIC_AV_IPV6)) {
        return false;
    }
    return p->addr.ipv6 ? !memcmp(p->addr.sip, av->dgid, 16) :
                          !memcmp(p->addr.sip, av->dgid + 12, 4);
}

void snic_rdma_receive(SnicCore *c, const uint8_t *frame, size_t len)
{
    const struct snic_opcode_info *op;
    SnicParseStatus st;
    SnicPkt p;
    SnicQp *qp;

    snic_stat_inc(&c->stats.rdma_rx_packets);
    st = snic_wire_parse(frame, len, &p);
    if (st != SNIC_PARSE_OK) {
        snic_stat_inc(&c->stats.rdma_rx_dropped);
        return;
    }
    op = snic_opcode_info(p.opcode);
    qp = snic_qp_get(c, p.dqpn);
    if (!qp || p.pkey != SNIC_DEFAULT_PKEY) {
        snic_stat_inc(&c->stats.rdma_rx_dropped);
        return;
    }
    if (op->flags & SNIC_OPF_UD) {
        if (qp->type == SNIC_QPT_RC ||
            (qp->state != SNIC_QPS_RTR && qp->state != SNIC_QPS_RTS)) {
            snic_stat_inc(&c->stats.rdma_rx_dropped);
            return;
        }
        snic_ud_receive(c, qp, &p);
        return;
    }
    /* RC op-codes; snic extensions only when negotiated (not yet) */
    if (qp->type != SNIC_QPT_RC || (op->flags & SNIC_OPF_EXT) ||
        p.opcode >= 0x20 || !from_peer(qp, &p)) {
        snic_stat_inc(&c->stats.rdma_rx_dropped);
        return;
    }
    if (op->flags & SNIC_OPF_REQUEST) {
        if (qp->state != SNIC_QPS_RTR && qp->state != SNIC_QPS_RTS) {
            snic_stat_inc(&c->stats.rdma_rx_dropped);
            return;
        }
        snic_resp_request(c, qp, &p);
    } else {
        if (qp->state != SNIC_QPS_RTS) {
            snic_stat_inc(&c->stats.rdma_rx_dropped);
            return;
        }
        snic_req_response(c, qp, &p);
    }
}

/* In ERR, work posted is flushed at once (IBA 10.3.1); true in ERR. */
static bool flushed_in_err(SnicCore *c, SnicQp *qp)
{
    if (qp->state != SNIC_QPS_ERR) {
        return false;
    }
    if (qp->sq_comp != qp->sq_tail || qp->rq_head != qp->rq_tail) {
        snic_rdma_qp_error(c, qp);
    }
    return true;
}

/* One QP's share of engine work; true if it has more. */
static bool qp_run(SnicCore *c, SnicQp *qp, unsigned budget)
{
    bool more = false;

    if (qp->type != SNIC_QPT_RC) {
        return !flushed_in_err(c, qp) && qp->state == SNIC_QPS_RTS &&
               snic_ud_run(c, qp, budget);
    }
    if (qp->state == SNIC_QPS_RTR || qp->state == SNIC_QPS_RTS) {
        /* READ responses first: an ACK must not overtake them */
        more = snic_resp_run(c, qp, budget);
    }
    if (!more && qp->resp.ack_pending) {
        snic_resp_send_ack(c, qp);
    }
    if (flushed_in_err(c, qp)) {
        return false;       /* after the (fatal) NAK above went out */
    }
    if (qp->state == SNIC_QPS_RTS) {
        more |= snic_req_run(c, qp, budget);
    }
    return more;
}

bool snic_rdma_run(SnicCore *c, unsigned budget)
{
    uint32_t n = c->cfg.max_qp + 2, i;
    bool more = false;

    /* round robin from where the last run stopped */
    for (i = 0; i < n && snic_ready(c); i++) {
        uint32_t qpn = (c->rr_next + i) % n;
        SnicQp *qp = &c->qps[qpn];

        if (qp->valid && qp_run(c, qp, budget)) {
            more = true;
        }
    }
    c->rr_next = (c->rr_next + 1) % n;
    return more;
}

/*
 * Run the periodic hooks of QPs whose timers are due at 'now' and return
 * the next deadline (now = 0: only compute it).
 */
uint64_t snic_rdma_timer(SnicCore *c, uint64_t now)
{
    uint64_t next = UINT64_MAX;
    uint32_t i;

    for (i = 0; i < c->cfg.max_qp + 2; i++) {
        SnicQp *qp = &c->qps[i];
        SnicReq *r = &qp->req;

        if (!qp->valid || qp->state != SNIC_QPS_RTS) {
            continue;
        }
        if (now && (r->rto_deadline <= now || r->rnr_deadline <= now)) {
            qp->program->periodic(c, qp, now);
            c->ops->kick(c->opaque);
        }
        if (qp->state == SNIC_QPS_RTS) {
            next = MIN(next, MIN(r->rto_deadline, r->rnr_deadline));
        }
    }
    return next;
}

void snic_rdma_qp_reset(SnicCore *c, SnicQp *qp)
{
    memset(&qp->req, 0, sizeof(qp->req));
    memset(&qp->resp, 0, sizeof(qp->resp));
    qp->req.rto_deadline = qp->req.rnr_deadline = UINT64_MAX;
    qp->sq_tail = qp->sq_comp = qp->rq_tail = qp->rq_head = 0;
}

void snic_rdma_qp_rtr(SnicCore *c, SnicQp *qp)
{
    qp->resp.epsn = qp->attr.rq_psn;
}

void snic_rdma_qp_rts(SnicCore *c, SnicQp *qp)
{
    SnicReq *r = &qp->req;

    qp->program = &snic_program_gbn;
    r->next_psn = r->dde.wnd_start = qp->attr.sq_psn;
    r->credit = (SnicCredit) {
        .scheme = SNIC_CREDIT_WINDOW,
        .window = SNIC_TX_WINDOW,
    };
    r->retry_left = qp->attr.retry_cnt;
    r->rnr_left = qp->attr.rnr_retry;
    r->rto_deadline = r->rnr_deadline = UINT64_MAX;
    c->ops->kick(c->opaque);    /* WQEs may already be posted */
}
