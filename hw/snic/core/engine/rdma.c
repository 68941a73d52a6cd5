/*
 * snic core: the top of the RDMA engine. Received RoCEv2 frames go to the
 * responder or the completer of their QP; one scheduling iteration of a
 * QP (its READ responses, its ACK, a flush in ERR, its requests); the
 * QP state machine's effects on the engine. The shared layers below are
 * wq.c (work queues, completions, the error flush) and xmit.c (transmit).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "engine/rdma.h"
#include "port/gid.h"
#include "port/wire.h"
#include "engine/scheduler.h"
#include "engine/wq.h"
#include "objects/mcast.h"
#include "objects/qp.h"
#include "cl/cl.h"
#include "srnic/sr.h"
#include "strom/hll.h"
#include "strom/rpc.h"

/* RC packets must come from the connected peer's address. */
static bool from_peer(const SnicQp *qp, const SnicPkt *p)
{
    const SnicQpAv *av = &qp->attr.av;

    if (p->addr.ipv6 != !!(av->flags & SNIC_AV_IPV6)) {
        return false;
    }
    return p->addr.ipv6 ? !memcmp(p->addr.sip, av->dgid, 16) :
                          !memcmp(p->addr.sip, av->dgid + 12, 4);
}

/*
 * DCQCN's notification point (docs/wire.md): a CE-marked data packet
 * asks for a CNP to the sender, at most one per QP every
 * SNIC_NP_CNP_INTERVAL_NS; only on QPs whose program reacts to them.
 * DCTCP's receiver (SNIC_PROG_ECE) counts it instead: its ACKs echo the
 * count, so the sender learns what fraction of its data was marked.
 */
static void congestion_seen(SnicCore *c, SnicQp *qp)
{
    SnicCeEcho *echo = snic_prog_ece(qp);
    SnicProgHead *h;
    uint64_t now;

    if (qp->state != SNIC_QPS_RTR && qp->state != SNIC_QPS_RTS) {
        return;
    }
    if (echo) {
        echo->ce_rx++;
        return;
    }
    if (!(snic_qp_program(qp)->flags & SNIC_PROG_ECN)) {
        return;
    }
    h = snic_prog_head(qp);
    now = c->ops->now_ns(c->opaque);
    if (h->cnp_at && now - h->cnp_at < SNIC_NP_CNP_INTERVAL_NS) {
        return;
    }
    h->cnp_at = now;
    qp->resp.cnp_pending = true;
    snic_sched_notify(c, qp);
}

/* The CNP a congestion_seen() asked for (RoCEv2 Annex A17.9.3). */
static void send_cnp(SnicCore *c, SnicQp *qp)
{
    SnicPkt p;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(c, qp, &p);
    p.opcode = SNIC_OP_CNP;
    p.becn = true;
    qp->resp.cnp_pending = false;
    snic_prog_head(qp)->cnp_tx++;   /* an ECN program's QP: it has one */
    snic_rdma_xmit(c, &p, 0);
}

static void rdma_receive(SnicCore *c, const uint8_t *frame, size_t len)
{
    const struct snic_opcode_info *op;
    SnicParseStatus st;
    SnicPkt p;
    SnicQp *qp;

    snic_stat_inc(&c->stats.rdma_rx_packets);
    st = snic_wire_parse(frame, len, &p);
    if (st != SNIC_PARSE_OK) {
        if (st == SNIC_PARSE_BAD_ICRC) {
            snic_stat_inc(&c->stats.rdma_rx_icrc_errors);
        }
        snic_stat_inc(&c->stats.rdma_rx_dropped);
        return;
    }
    /* a group's datagram, under the MAC its address maps to */
    if (snic_ip_is_mcast(p.addr.ipv6, p.addr.dip)) {
        if (!snic_mcast_mac_ok(p.addr.ipv6, p.addr.dip, frame)) {
            snic_stat_inc(&c->stats.rdma_rx_dropped);
            return;
        }
        snic_ud_mcast_receive(c, &p);
        return;
    }
    /* RoCE for another address, or to a group MAC, is not ours */
    if ((frame[0] & 1) || !snic_port_owns(c, p.addr.ipv6, p.addr.dip)) {
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
        if ((qp->type != SNIC_QPT_UD && qp->type != SNIC_QPT_GSI) ||
            (qp->state != SNIC_QPS_RTR && qp->state != SNIC_QPS_RTS)) {
            snic_stat_inc(&c->stats.rdma_rx_dropped);
            return;
        }
        snic_ud_receive(c, qp, &p);
        return;
    }
    /* the connectionless transport: only an endpoint takes its packets */
    if (op->flags & SNIC_OPF_CL) {
        if (qp->type != SNIC_QPT_UD || !snic_cl_on(qp)) {
            snic_stat_inc(&c->stats.rdma_rx_dropped);
            return;
        }
        snic_cl_receive(c, qp, &p);
        return;
    }
    if (op->flags & SNIC_OPF_UC) {
        if (qp->type != SNIC_QPT_UC || !from_peer(qp, &p) ||
            (qp->state != SNIC_QPS_RTR && qp->state != SNIC_QPS_RTS)) {
            snic_stat_inc(&c->stats.rdma_rx_dropped);
            return;
        }
        snic_uc_request(c, qp, &p);
        return;
    }
    /* a CNP for a QP whose program reacts to congestion (DCQCN's RP) */
    if (p.opcode == SNIC_OP_CNP) {
        if (qp->type != SNIC_QPT_RC || !from_peer(qp, &p) ||
            qp->state != SNIC_QPS_RTS ||
            !(snic_qp_program(qp)->flags & SNIC_PROG_ECN)) {
            snic_stat_inc(&c->stats.rdma_rx_dropped);
            return;
        }
        snic_req_cnp(c, qp);
        return;
    }
    /*
     * RC op-codes. An extension one (RPC) reaches the responder, which
     * refuses it unless the QP agreed to it (SET_QP_RPC).
     */
    if (qp->type != SNIC_QPT_RC || p.opcode >= 0x20 || !from_peer(qp, &p)) {
        snic_stat_inc(&c->stats.rdma_rx_dropped);
        return;
    }
    /*
     * the selective-transport extension: only where both ends chose it;
     * a CE-echoing program's QP takes it on ACKs alone
     */
    if (p.xport &&
        !(snic_qp_program(qp)->flags & (SNIC_PROG_XPORT | SNIC_PROG_SR)) &&
        !(snic_qp_program(qp)->flags & SNIC_PROG_ECE &&
          p.opcode == SNIC_OP_RC_ACK)) {
        snic_stat_inc(&c->stats.rdma_rx_dropped);
        return;
    }
    /* a trimmed header: only a receiver-driven program's responder */
    if (p.trimmed) {
        if (!snic_prog_trim(qp) || !(op->flags & SNIC_OPF_REQUEST) ||
            (qp->state != SNIC_QPS_RTR && qp->state != SNIC_QPS_RTS)) {
            snic_stat_inc(&c->stats.rdma_rx_dropped);
            return;
        }
        snic_resp_trimmed(c, qp, &p);
        snic_pull_owe(c, qp);
        return;
    }
    if ((p.addr.tclass & SNIC_ECN_MASK) == SNIC_ECN_CE &&
        op->flags & SNIC_OPF_PAYLOAD) {
        congestion_seen(c, qp);
    }
    if (op->flags & SNIC_OPF_REQUEST) {
        if (qp->state != SNIC_QPS_RTR && qp->state != SNIC_QPS_RTS) {
            snic_stat_inc(&c->stats.rdma_rx_dropped);
            return;
        }
        /*
         * The first packet in RTR establishes the connection (IBA
         * 11.6.2): its consumer may move to RTS without the CM's RTU
         */
        if (qp->state == SNIC_QPS_RTR && !qp->comm_est) {
            qp->comm_est = true;
            snic_aeq_post(c, SNIC_EVENT_QP_COMM_EST, qp - c->qps);
        }
        if (snic_prog_trim(qp) && op->flags & SNIC_OPF_PAYLOAD) {
            snic_pull_owe(c, qp);   /* NDP: one pulled for each arrival */
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

void snic_rdma_receive(SnicCore *c, const uint8_t *frame, size_t len)
{
    SnicRecvWqe rx = { .qp = NULL };

    /* packets looped back to the port queue: this never nests */
    c->rx_wqe = &rx;
    rdma_receive(c, frame, len);
    c->rx_wqe = NULL;
}

/*
 * In ERR, work posted is flushed (IBA 10.3.1), as much of it as the
 * call's bound allows (wq.h); true in ERR.
 */
static bool flushed_in_err(SnicCore *c, SnicQp *qp)
{
    if (qp->state != SNIC_QPS_ERR) {
        return false;
    }
    if (snic_wq_flush_owed(qp) && c->wqe_left) {
        snic_wq_error(c, qp);
    }
    return true;
}

/* Segments an iteration may send: its burst in path-MTU packets. */
static unsigned burst_segments(SnicCore *c, const SnicQp *qp)
{
    uint32_t mtu = qp->type == SNIC_QPT_RC || qp->type == SNIC_QPT_UC ?
                   snic_qp_mtu_bytes(qp) : SNIC_IB_MAX_MTU;

    return MAX(c->cfg.sched_burst / mtu, 1);
}

bool snic_rdma_wants_fetch(SnicCore *c, const SnicQp *qp)
{
    if (qp->state != SNIC_QPS_RTS) {
        return false;
    }
    if (qp->type == SNIC_QPT_RC) {
        return qp->req.sq_head != qp->sq_tail ||
               snic_dde_rtx_pending(qp);
    }
    if (snic_cl_on(qp)) {
        return snic_cl_wants_fetch(c, qp);
    }
    return qp->sq_comp != qp->sq_tail;
}

/*
 * One scheduling iteration of a QP (scheduler.c): its READ responses and its
 * ACK, a flush in ERR, and up to a burst of its requests; true if it has
 * more to do.
 */
static bool iteration(SnicCore *c, SnicQp *qp)
{
    unsigned budget = burst_segments(c, qp);
    bool more = false;

    if (snic_cl_on(qp)) {
        if (qp->state == SNIC_QPS_ERR) {
            snic_cl_qp_error(c, qp);    /* before the flush completes all */
        }
        return !flushed_in_err(c, qp) && snic_cl_run(c, qp, budget);
    }
    if (qp->type != SNIC_QPT_RC) {
        return !flushed_in_err(c, qp) && qp->state == SNIC_QPS_RTS &&
               (qp->type == SNIC_QPT_UC ? snic_uc_run(c, qp, budget) :
                                          snic_ud_run(c, qp, budget));
    }
    if (qp->req.comp_owed && qp->state != SNIC_QPS_ERR && c->wqe_left) {
        /* what an ACK acknowledged beyond its call's budget (wq.h) */
        snic_sq_complete_acked(c, qp);
    }
    if (snic_sr_on(qp)) {
        snic_sr_retry_run(c, qp);   /* SRNIC: ePSNs, ranges to resend */
    }
    if (qp->state == SNIC_QPS_RTR || qp->state == SNIC_QPS_RTS) {
        /* READ responses first: an ACK must not overtake them */
        more = snic_resp_run(c, qp, budget);
    }
    if (!more && qp->resp.ack_pending) {
        snic_resp_send_ack(c, qp);
    }
    if (qp->state == SNIC_QPS_RTR || qp->state == SNIC_QPS_RTS) {
        snic_resp_send_nacks(c, qp);    /* receiver-driven programs */
        snic_pull_run(c, qp);
    }
    if (qp->resp.cnp_pending) {
        send_cnp(c, qp);
    }
    if (flushed_in_err(c, qp)) {
        return false;       /* after the (fatal) NAK above went out */
    }
    if (snic_sr_on(qp)) {
        snic_sr_read_ack_run(c, qp);    /* SRNIC: READ responses taken */
    }
    if (qp->state == SNIC_QPS_RTS) {
        more |= snic_req_run(c, qp, budget, c->cfg.sched_wqes);
    }
    return more || (snic_sr_on(qp) && snic_sr_retry_pending(qp));
}

bool snic_rdma_iteration(SnicCore *c, SnicQp *qp)
{
    bool more = iteration(c, qp);

    /*
     * A flush or completions the call's bound cut short (wq.h) resume in
     * the QP's next iteration, however the QP came to ERR during this one
     */
    return more || snic_wq_flush_owed(qp) || qp->req.comp_owed;
}

void snic_rdma_qp_reset(SnicCore *c, SnicQp *qp)
{
    snic_sched_remove(c, qp);
    snic_recv_release(c, qp);
    snic_cl_qp_reset(c, qp);
    memset(&qp->req, 0, sizeof(qp->req));
    qp->rtx_segments = 0;
    memset(&qp->resp, 0, sizeof(qp->resp));
    snic_req_disarm(&qp->req);
    qp->sq_tail = qp->sq_comp = qp->rq_tail = qp->rq_head = 0;
    snic_rpc_qp_gone(c, qp);
    snic_hll_qp_gone(c, qp);    /* its sketch goes back to the pool */
    qp->rpc.flags = 0;      /* RESET forgets what the ends agreed */
    snic_transport_release(qp);     /* and the transport they chose */
}

void snic_rdma_qp_rtr(SnicCore *c, SnicQp *qp)
{
    static const uint8_t empty[SNIC_RDB_BYTES];

    qp->resp.epsn = qp->attr.rq_psn;
    qp->comm_est = false;
    /* no entry of an earlier connection may match a duplicate */
    if (qp->rdb) {
        snic_dma_write(c, qp->rdb, empty, sizeof(empty));
    }
}

void snic_rdma_qp_rts(SnicCore *c, SnicQp *qp)
{
    SnicReq *r = &qp->req;

    r->next_psn = r->dde.wnd_start = r->comp_psn = qp->attr.sq_psn;
    r->retry_left = qp->attr.retry_cnt;
    r->rnr_left = qp->attr.rnr_retry;
    snic_req_disarm(r);
    snic_transport_start(c, qp);
    snic_sched_notify(c, qp);   /* WQEs may already be posted */
}

/* The QP is about to be destroyed: the engine lets go of it */
static void qp_destroy(SnicCore *c, SnicQp *qp)
{
    snic_rpc_qp_gone(c, qp);
    snic_hll_qp_gone(c, qp);
    snic_cl_qp_reset(c, qp);
    snic_sched_remove(c, qp);
    snic_recv_release(c, qp);
    snic_transport_release(qp);
}

static const SnicQpHooks qp_hooks = {
    .reset = snic_rdma_qp_reset,
    .rtr = snic_rdma_qp_rtr,
    .rts = snic_rdma_qp_rts,
    .error = snic_wq_error,
    .destroy = qp_destroy,
    .work = snic_sched_notify,
};

/* A QP's timers: its transport's, and its responder's hold of a receive */
static uint64_t rdma_deadline(SnicCore *c, SnicQp *qp)
{
    if (snic_cl_on(qp)) {
        return snic_cl_deadline(c, qp);
    }
    return MIN(snic_transport_deadline(qp), snic_recv_hold_deadline(c, qp));
}

static void rdma_timer(SnicCore *c, SnicQp *qp, uint64_t now)
{
    if (snic_cl_on(qp)) {
        snic_cl_timer(c, qp, now);
        return;
    }
    snic_resp_hold_expired(c, qp, now);
    snic_transport_timer(c, qp, now);
}

static const SnicSchedOps sched_ops = {
    .iteration = snic_rdma_iteration,
    .wants_fetch = snic_rdma_wants_fetch,
    .wqe_bytes = snic_sq_wqe_used_at,
    .deadline = rdma_deadline,
    .timer = rdma_timer,
};

static const SnicTransportHooks transport_hooks = {
    .fail = snic_sq_fail,
};

void snic_rdma_init(SnicCore *c)
{
    c->qp_hooks = &qp_hooks;
    c->transport_hooks = &transport_hooks;
    c->sched.ops = &sched_ops;
}
