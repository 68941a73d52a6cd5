/*
 * snic core: what the RDMA engine's units share. Received RoCEv2 frames
 * go to the responder or the completer of their QP; the engine run loop
 * (queued ACKs, flushes, requesters in round robin), transport timers and
 * QP state changes; and the helpers the requester, the responder and UD
 * all use: addressing and transmit, work queue entry access, send and
 * receive completions, and a QP's move to the error state with its flush.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "engine/rdma.h"
#include "port/wire.h"

/*
 * The port's GID table (SET_GID): the addresses the port owns. RoCE is
 * taken only for them, a user context's datagrams carry only them, and a
 * packet to one of them turns around inside the port (loopback).
 */
uint16_t snic_cmd_set_gid(SnicCore *c, const struct snic_admin_cmd *cmd,
                          uint64_t *result)
{
    const struct snic_admin_set_gid *p = &cmd->set_gid;
    static const uint8_t zero[6];

    if (p->index >= SNIC_MAX_GIDS || p->flags & ~SNIC_GID_VALID ||
        memcmp(p->rsvd, zero, sizeof(p->rsvd))) {
        return SNIC_ADMIN_BAD_PARAM;
    }
    if (p->flags & SNIC_GID_VALID) {
        memcpy(c->gids[p->index], p->gid, 16);
        c->gid_valid |= 1u << p->index;
    } else {
        c->gid_valid &= ~(1u << p->index);
    }
    return SNIC_ADMIN_OK;
}

/*
 * Is this address the port's? IPv6: its 16 bytes; IPv4: its 4 bytes, as
 * the IPv4-mapped GID made of them (whatever else the caller's GID holds).
 */
bool snic_port_owns(const SnicCore *c, bool ipv6, const uint8_t *ip)
{
    uint8_t gid[16] = { [10] = 0xff, [11] = 0xff };
    unsigned i;

    memcpy(ipv6 ? gid : gid + 12, ip, ipv6 ? 16 : 4);
    for (i = 0; i < SNIC_MAX_GIDS; i++) {
        if (c->gid_valid & (1u << i) && !memcmp(c->gids[i], gid, 16)) {
            return true;
        }
    }
    return false;
}

/* The GID table's index of a source address; -1 if it is not there. */
int snic_gid_index(const SnicCore *c, bool ipv6, const uint8_t gid[16])
{
    static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };
    unsigned i;

    for (i = 0; i < SNIC_MAX_GIDS; i++) {
        if (c->gid_valid & (1u << i) &&
            (ipv6 ? !memcmp(c->gids[i], gid, 16) :
             !memcmp(c->gids[i], v4mapped, 12) &&
             !memcmp(c->gids[i] + 12, gid + 12, 4))) {
            return i;
        }
    }
    return -1;
}

void snic_gid_get(const SnicCore *c, uint8_t index, uint8_t gid[16])
{
    memcpy(gid, c->gids[index % SNIC_MAX_GIDS], 16);
}

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

void snic_rdma_receive(SnicCore *c, const uint8_t *frame, size_t len)
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
        snic_mcast_receive(c, &p);
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

/* A receive WQE is held or waits in the QP's own RQ (not in an SRQ). */
static bool recv_pending(const SnicQp *qp)
{
    return qp->resp.recv_held || (!qp->srqn && qp->rq_head != qp->rq_tail);
}

/* In ERR, work posted is flushed at once (IBA 10.3.1); true in ERR. */
static bool flushed_in_err(SnicCore *c, SnicQp *qp)
{
    if (qp->state != SNIC_QPS_ERR) {
        return false;
    }
    if (qp->sq_comp != qp->sq_tail || recv_pending(qp)) {
        snic_rdma_qp_error(c, qp);
    }
    return true;
}

/* Segments an iteration may send: its burst in path-MTU packets. */
static unsigned burst_segments(SnicCore *c, const SnicQp *qp)
{
    uint32_t mtu = qp->type == SNIC_QPT_RC || qp->type == SNIC_QPT_UC ?
                   128u << qp->attr.path_mtu : SNIC_IB_MAX_MTU;

    return MAX(c->cfg.sched_burst / mtu, 1);
}

bool snic_rdma_wants_fetch(SnicCore *c, const SnicQp *qp)
{
    if (qp->state != SNIC_QPS_RTS) {
        return false;
    }
    if (qp->type == SNIC_QPT_RC) {
        return qp->req.sq_head != qp->sq_tail ||
               snic_dde_rtx_pending(&qp->req);
    }
    return qp->sq_comp != qp->sq_tail;
}

/*
 * One scheduling iteration of a QP (scheduler.c): its READ responses and its
 * ACK, a flush in ERR, and up to a burst of its requests; true if it has
 * more to do.
 */
bool snic_rdma_iteration(SnicCore *c, SnicQp *qp)
{
    unsigned budget = burst_segments(c, qp);
    bool more = false;

    if (qp->type != SNIC_QPT_RC) {
        return !flushed_in_err(c, qp) && qp->state == SNIC_QPS_RTS &&
               (qp->type == SNIC_QPT_UC ? snic_uc_run(c, qp, budget) :
                                          snic_ud_run(c, qp, budget));
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

void snic_rdma_qp_reset(SnicCore *c, SnicQp *qp)
{
    snic_sched_remove(c, qp);
    snic_recv_release(c, qp);
    memset(&qp->req, 0, sizeof(qp->req));
    qp->rtx_segments = 0;
    memset(&qp->resp, 0, sizeof(qp->resp));
    snic_req_disarm(&qp->req);
    qp->sq_tail = qp->sq_comp = qp->rq_tail = qp->rq_head = 0;
    snic_rpc_qp_gone(c, qp);
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

/* ---- transmit ---- */

/*
 * The port's active MTU, which bounds a datagram and an RC path MTU: the
 * largest IB MTU that fits the Ethernet MTU with the headers, derived as
 * Linux derives it.
 */
uint32_t snic_port_mtu(const SnicCore *c)
{
    uint32_t mtu = SNIC_IB_MAX_MTU;

    while (mtu > 256 && mtu + SNIC_ROCE_HDR_MAX > c->mtu) {
        mtu >>= 1;
    }
    return mtu;
}

/*
 * Addressing of a packet on the path an address vector describes: the
 * connected peer of an RC QP, or a UD WQE's destination.
 */
void snic_rdma_av_addr(SnicCore *c, const struct snic_av *av, uint32_t lqpn,
                       uint32_t rqpn, SnicWireAddr *a)
{
    memcpy(a->dmac, av->dmac, 6);
    memcpy(a->smac, c->mac, 6);
    a->ipv6 = av->flags & SNIC_AV_IPV6;
    if (a->ipv6) {
        memcpy(a->sip, av->sgid, 16);
        memcpy(a->dip, av->dgid, 16);
    } else {
        memcpy(a->sip, av->sgid + 12, 4);
        memcpy(a->dip, av->dgid + 12, 4);
    }
    a->tclass = av->traffic_class;
    a->hop_limit = av->hop_limit ? av->hop_limit : 64;
    a->flow_label = GUINT32_FROM_LE(av->flow_label) & 0xfffff;
    a->ip_id = c->ip_id++;
    a->sport = snic_wire_udp_sport(lqpn, rqpn);
}

/* A packet of an RC QP to its connected peer. */
void snic_rdma_fill_addr(SnicCore *c, SnicQp *qp, SnicPkt *p)
{
    const SnicQpAv *qav = &qp->attr.av;
    struct snic_av av = {
        .hop_limit = qav->hop_limit,
        .traffic_class = qav->traffic_class,
        .flow_label = GUINT32_TO_LE(qav->flow_label),
        .flags = qav->flags,
    };

    memcpy(av.dgid, qav->dgid, 16);
    snic_gid_get(c, qav->sgid_index, av.sgid);
    memcpy(av.dmac, qav->dmac, 6);
    snic_rdma_av_addr(c, &av, qp - c->qps, qp->attr.dest_qpn, &p->addr);
    if (snic_qp_program(qp)->flags & (SNIC_PROG_ECN | SNIC_PROG_ECE)) {
        /* ECN-capable transport, so switches mark instead of dropping */
        p->addr.tclass = (p->addr.tclass & ~SNIC_ECN_MASK) | SNIC_ECN_ECT0;
    }
    p->pkey = SNIC_DEFAULT_PKEY;
    p->dqpn = qp->attr.dest_qpn;
}

void snic_rdma_xmit(SnicCore *c, const SnicPkt *p, uint32_t host_bytes)
{
    size_t len = snic_wire_build(p, c->rdma_frame, sizeof(c->rdma_frame));
    bool mcast;

    if (!len) {
        return;     /* built from validated state: cannot happen */
    }
    if (!c->link_up) {
        snic_stat_inc(&c->stats.tx_dropped);
        return;
    }
    if (len > snic_max_frame(c)) {
        /*
         * A path MTU the port's Ethernet MTU cannot carry: the MAC does
         * not send it, and the transport sees a loss, as on a real network
         */
        snic_stat_inc(&c->stats.tx_dropped);
        SNIC_EVENT(c, ETH_DROP, 0, len, SNIC_DROP_OVER_MTU);
        return;
    }
    snic_stat_inc(&c->stats.rdma_tx_packets);
    mcast = snic_ip_is_mcast(p->addr.ipv6, p->addr.dip);
    if (mcast || snic_port_owns(c, p->addr.ipv6, p->addr.dip)) {
        /* for QPs of this port: it turns around inside the port */
        if (!snic_link_loop(c, c->rdma_frame, len)) {
            snic_stat_inc(&c->stats.tx_dropped);
        }
        c->ops->kick(c->opaque);
        if (!mcast) {
            return;
        }
    }
    snic_link_tx(c, c->rdma_frame, len, host_bytes);
}

/* ---- work queues and their completions ---- */

/*
 * A completion of this QP could not be posted (its CQ overran or broke):
 * IBA makes that a local work queue catastrophic error. The QP enters ERR
 * with an async event; the engine flushes its queues (flushed_in_err) once
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

/*
 * The held receive WQE: an RQ's is read from its slot (the slot is the
 * QP's until the completion), an SRQ's from the receive-WQE pool it was
 * copied to (its SRQ slot is free once taken). False if unreadable.
 */
static bool recv_wqe(SnicCore *c, const SnicQp *qp, struct snic_rq_wqe *w)
{
    const SnicResp *s = &qp->resp;
    SnicMtt rq;

    if (s->recv_slot) {
        *w = c->recv_pool[s->recv_slot - 1];
        return true;
    }
    rq = snic_qp_ring(&qp->rq, qp->rq_log2_depth, SNIC_RQ_WQE_SIZE);
    return !snic_mtt_read(c, &rq, rq_off(qp, s->recv_index), w, sizeof(*w));
}

/* ... for its buffers: also well formed (the guest may rewrite it) */
static bool recv_sges(SnicCore *c, const SnicQp *qp, struct snic_rq_wqe *w)
{
    return qp->resp.recv_held && qp->resp.recv_ok && recv_wqe(c, qp, w) &&
           w->num_sge <= SNIC_RQ_WQE_MAX_SGE;
}

void snic_recv_release(SnicCore *c, SnicQp *qp)
{
    if (qp->resp.recv_slot) {
        c->recv_free[c->recv_free_n++] = qp->resp.recv_slot - 1;
        qp->resp.recv_slot = 0;
    }
}

void snic_recv_pool_reset(SnicCore *c)
{
    for (c->recv_free_n = 0; c->recv_free_n < c->cfg.recv_pool;
         c->recv_free_n++) {
        c->recv_free[c->recv_free_n] = c->recv_free_n;
    }
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
        if (!c->recv_free_n) {
            return false;       /* the pool is used up: as if none */
        }
        st = snic_srq_take(c, snic_srq_get(c, qp->srqn), &w, &index);
        if (st < 0) {
            return false;
        }
        s->recv_index = index;      /* modulo 2^16, as the CQE has it */
        s->recv_slot = c->recv_free[--c->recv_free_n] + 1;
        c->recv_pool[s->recv_slot - 1] = w;
    } else {
        if (qp->rq_head == qp->rq_tail) {
            return false;
        }
        s->recv_index = qp->rq_head;
        rq = snic_qp_ring(&qp->rq, qp->rq_log2_depth, SNIC_RQ_WQE_SIZE);
        st = snic_mtt_read(c, &rq, rq_off(qp, qp->rq_head), &w, sizeof(w));
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

    /* read again for every packet: nothing of it is kept for an RQ */
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

    cqe->wr_id = recv_wqe(c, qp, &w) ? w.wr_id : 0;
    cqe->qpn = GUINT32_TO_LE(qp - c->qps);
    cqe->wqe_index = GUINT16_TO_LE((uint16_t)s->recv_index);
    if (!qp->srqn) {
        qp->rq_head++;
    }
    snic_recv_release(c, qp);
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

/*
 * Place a WRITE packet's payload at its message's next address through
 * the message's R_Key (a First or Only packet's RETH starts the message,
 * bounded to 2 GiB): SNIC_AETH_ACK, or the NAK that refuses it.
 */
uint8_t snic_write_place(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                         bool first, bool last)
{
    SnicResp *s = &qp->resp;
    SnicMrCheck why;
    SnicMr *mr;

    if (first) {
        if (p->reth.len > (1u << 31)) {
            return SNIC_AETH_NAK_INV_REQ;
        }
        s->write_va = p->reth.va;
        s->write_rkey = p->reth.rkey;
        s->write_len = s->write_left = p->reth.len;
    }
    if (p->payload_len > s->write_left ||
        (last && p->payload_len != s->write_left)) {
        return SNIC_AETH_NAK_INV_REQ;   /* length mismatch */
    }
    if (p->payload_len) {
        mr = snic_rkey_check(c, qp, s->write_rkey, SNIC_ACCESS_REMOTE_WRITE,
                             s->write_va, p->payload_len, &why);
        if (!mr || snic_xlate_failed(c, qp - c->qps,
                                     snic_mtt_write(c, &mr->mtt, s->write_va,
                                                    p->payload,
                                                    p->payload_len))) {
            return SNIC_AETH_NAK_REM_ACCESS;
        }
    }
    s->write_va += p->payload_len;
    s->write_left -= p->payload_len;
    return SNIC_AETH_ACK;
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

/* ---- the error state ---- */

/* Flush every outstanding WQE of both queues (the QP is in ERR). */
static void flush_queues(SnicCore *c, SnicQp *qp)
{
    struct snic_cqe cqe;

    while (qp->sq_comp != qp->sq_tail) {
        struct snic_sq_wqe w;

        if (snic_sq_fetch(c, qp, qp->sq_comp, &w)) {
            w.wr_id = 0;
        }
        snic_post_send_cqe(c, qp, NULL, GUINT64_FROM_LE(w.wr_id),
                           SNIC_WC_WR_FLUSH_ERR);
        qp->sq_comp++;
    }
    qp->req.sq_head = qp->sq_comp;
    qp->req.wqe_off = 0;
    qp->req.rd_atomic = 0;
    /* the held WQE, then (without an SRQ) the rest of the RQ */
    while (recv_pending(qp) && snic_recv_take(c, qp)) {
        memset(&cqe, 0, sizeof(cqe));
        cqe.status = SNIC_WC_WR_FLUSH_ERR;
        cqe.opcode = SNIC_WC_RECV;
        recv_complete(c, qp, &cqe, false);
    }
}

void snic_rdma_qp_error(SnicCore *c, SnicQp *qp)
{
    bool entered = qp->state != SNIC_QPS_ERR;

    snic_qp_set_state(c, qp, SNIC_QPS_ERR);
    snic_req_disarm(&qp->req);
    snic_qp_timer_sync(c, qp);
    qp->resp.ack_pending = false;
    snic_rpc_qp_gone(c, qp);    /* RPCs in flight die with the connection */
    flush_queues(c, qp);
    if (entered && qp->srqn) {
        /* it takes no more WQEs from the SRQ: its consumer may detach */
        snic_aeq_post(c, SNIC_EVENT_QP_LAST_WQE, qp - c->qps);
    }
}
