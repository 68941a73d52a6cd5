/*
 * snic core: the connectionless transport's sender (section 3, Fig. 1):
 * work requests become operations in the DMA-operation table (a
 * segmented one, section 3.1, one per segment), each packet in flight an
 * entry of the transaction table until acknowledged. No retransmission
 * buffer (section 1): a packet sent again is read again from host memory,
 * so a work request completes only once every packet of every one of its
 * operations is acknowledged.
 *
 * An endpoint's timeout is constant, so its packets' deadlines come in
 * the order they were sent: its transactions form a FIFO (a resend goes
 * to its tail), and its one timer in the scheduler's heap is the head's
 * deadline. Nothing scans a table. A full table parks the endpoint until
 * an entry frees; no work request is dropped. No congestion control: the
 * port's lossless default (PFC) is the network's flow control (section 1).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "cl/cl_int.h"
#include "engine/scheduler.h"
#include "engine/wq.h"
#include "engine/xmit.h"
#include "objects/cq.h"

static uint32_t txn_bucket(const SnicClDev *d, uint32_t op, uint32_t pkt)
{
    return ((op * 2654435761u) ^ (pkt * 40503u)) & d->txn_hmask;
}

static ClTxn *txn_find(SnicClDev *d, uint32_t op, uint32_t pkt,
                       uint32_t *slot)
{
    uint32_t i = d->txn_hash[txn_bucket(d, op, pkt)];

    for (; i; i = d->txns[i - 1].hnext) {
        if (d->txns[i - 1].op == op && d->txns[i - 1].pkt == pkt) {
            *slot = i - 1;
            return &d->txns[i - 1];
        }
    }
    return NULL;
}

/* Append transaction 'slot' to its endpoint's FIFO, due a timeout on */
static void fifo_append(SnicCore *c, SnicQp *qp, uint32_t slot)
{
    SnicClDev *d = c->cl;
    SnicClEp *ep = cl_ep(c, qp);
    ClTxn *t = &d->txns[slot];

    t->deadline = cl_now(c) + (uint64_t)ep->timeout_us * 1000;
    t->next = 0;
    t->prev = ep->txn_tail;
    if (ep->txn_tail) {
        d->txns[ep->txn_tail - 1].next = slot + 1;
    } else {
        ep->txn_head = slot + 1;
    }
    ep->txn_tail = slot + 1;
}

static void fifo_unlink(SnicCore *c, SnicQp *qp, uint32_t slot)
{
    SnicClDev *d = c->cl;
    SnicClEp *ep = cl_ep(c, qp);
    ClTxn *t = &d->txns[slot];

    if (t->prev) {
        d->txns[t->prev - 1].next = t->next;
    } else {
        ep->txn_head = t->next;
    }
    if (t->next) {
        d->txns[t->next - 1].prev = t->prev;
    } else {
        ep->txn_tail = t->prev;
    }
}

/* Endpoints parked on a full table may go on */
static void wake_parked(SnicCore *c)
{
    SnicClDev *d = c->cl;

    while (d->park_head) {
        SnicQp *qp = &c->qps[d->park_head];
        SnicClEp *ep = cl_ep(c, qp);

        d->park_head = ep->park_next;
        ep->parked = false;
        snic_sched_notify(c, qp);
    }
}

static void park(SnicCore *c, SnicQp *qp)
{
    SnicClEp *ep = cl_ep(c, qp);

    if (!ep->parked) {
        ep->parked = true;
        ep->park_next = c->cl->park_head;
        c->cl->park_head = qp - c->qps;
    }
}

static void unpark(SnicCore *c, SnicQp *qp)
{
    SnicClDev *d = c->cl;
    SnicClEp *ep = cl_ep(c, qp);
    uint32_t *link = &d->park_head;

    while (*link) {
        if (&c->qps[*link] == qp) {
            *link = ep->park_next;
            break;
        }
        link = &cl_ep(c, &c->qps[*link])->park_next;
    }
    ep->parked = false;
}

static void txn_free(SnicCore *c, SnicQp *qp, uint32_t slot)
{
    SnicClDev *d = c->cl;
    ClTxn *t = &d->txns[slot];
    uint32_t *link = &d->txn_hash[txn_bucket(d, t->op, t->pkt)];

    while (*link != slot + 1) {
        link = &d->txns[*link - 1].hnext;
    }
    *link = t->hnext;
    fifo_unlink(c, qp, slot);
    memset(t, 0, sizeof(*t));
    d->txn_free[d->txn_nfree++] = slot;
    wake_parked(c);
}

static uint32_t txn_alloc(SnicCore *c, SnicQp *qp, uint32_t op, uint32_t pkt)
{
    SnicClDev *d = c->cl;
    uint32_t slot = d->txn_free[--d->txn_nfree];
    ClTxn *t = &d->txns[slot];
    uint32_t b = txn_bucket(d, op, pkt);

    *t = (ClTxn) {
        .valid = true, .op = op, .pkt = pkt,
        .retries_left = cl_ep(c, qp)->retries,
        .rnr_left = SNIC_CL_RNR_RETRIES, .hnext = d->txn_hash[b],
    };
    d->txn_hash[b] = slot + 1;
    fifo_append(c, qp, slot);
    return slot;
}

static uint32_t op_id(const SnicClDev *d, const ClOp *o)
{
    return (uint32_t)(o - d->ops) | (uint32_t)o->gen << 16;
}

/* Did the ACK come from where operation 'o' went? */
static bool ack_from_dst(const ClOp *o, const SnicPkt *p)
{
    return p->cl.src_ep == o->dst_ep && p->addr.ipv6 == o->dst_ipv6 &&
           !memcmp(p->addr.sip, o->dst_ip, o->dst_ipv6 ? 16 : 4);
}

/*
 * Packet 'pkt' of operation 'o' (npkts: its NOTIFY) built from host
 * memory - the WQE, then the payload - and sent; an SNIC_WC_* status
 */
static uint8_t send_packet(SnicCore *c, SnicQp *qp, ClOp *o, uint32_t pkt)
{
    SnicClDev *d = c->cl;
    struct snic_sq_wqe w = { 0 };
    uint32_t off = pkt * d->packet, len = 0, ep;
    uint64_t base;
    SnicPkt p;
    uint8_t st;

    if (snic_sq_fetch(c, qp, o->wqe, &w) || w.opcode != SNIC_WR_CL_WRITE ||
        w.num_sge > SNIC_SQ_WQE_MAX_SGE) {
        return SNIC_WC_LOC_QP_OP_ERR;   /* the guest rewrote it */
    }
    ep = GUINT32_FROM_LE(w.cl.remote_ep) & SNIC_QPN_MASK;
    base = GUINT64_FROM_LE(w.cl.remote_addr) + o->off;
    memset(&p, 0, sizeof(p));
    if (pkt < o->npkts) {
        len = MIN(d->packet, o->len - off);
        st = snic_wqe_gather(c, qp, &w, o->off + off, d->payload, len);
        if (st != SNIC_WC_SUCCESS) {
            return st;
        }
        p.opcode = o->registered && !pkt ? SNIC_OP_CL_REGISTER :
                                           SNIC_OP_CL_WRITE;
        p.cl.flags = o->registered ? SNIC_CL_F_REGISTERED : 0;
        p.cl.va = base + off;
        p.payload = d->payload;
        p.payload_len = len;
    } else {
        p.opcode = SNIC_OP_CL_NOTIFY;
        p.cl.va = base;
        snic_stat_inc(&c->stats.cl_notify_sent);
    }
    snic_rdma_av_addr(c, &w.cl.av, qp - c->qps, ep, &p.addr);
    o->dst_ipv6 = p.addr.ipv6;
    memcpy(o->dst_ip, p.addr.dip, sizeof(o->dst_ip));
    o->dst_ep = ep;
    p.pkey = SNIC_DEFAULT_PKEY;
    p.dqpn = ep;
    p.psn = pkt & SNIC_PSN_MASK;
    p.cl.src_ep = qp - c->qps;
    p.cl.op_id = op_id(d, o);
    p.cl.index = pkt;
    p.cl.rkey = GUINT32_FROM_LE(w.cl.rkey);
    p.cl.len = o->len;
    p.cl.npkts = o->npkts;
    p.cl.tag = GUINT32_FROM_BE(w.imm);
    p.cl.timeout_us = cl_ep(c, qp)->timeout_us;
    p.cl.retries = cl_ep(c, qp)->retries;
    snic_rdma_xmit(c, &p, snic_wqe_host_bytes(&w, len));
    return SNIC_WC_SUCCESS;
}

/* The endpoint's finished operations leave in issue order; WQEs complete */
static void retire(SnicCore *c, SnicQp *qp)
{
    SnicClDev *d = c->cl;
    SnicClEp *ep = cl_ep(c, qp);

    while (ep->op_head && d->ops[ep->op_head - 1].done) {
        uint32_t slot = ep->op_head - 1;
        ClOp *o = &d->ops[slot];

        if (ep->comp_status == SNIC_WC_SUCCESS) {
            ep->comp_status = o->status;
        }
        if (o->last) {
            struct snic_cqe cqe = {
                .wr_id = GUINT64_TO_LE(o->wr_id),
                .byte_len = GUINT32_TO_LE(o->off + o->len),
                .qpn = GUINT32_TO_LE(qp - c->qps),
                .status = ep->comp_status,
                .opcode = SNIC_WC_CL_WRITE,
                .wqe_index = GUINT16_TO_LE(qp->sq_comp),
            };

            if (o->signaled || ep->comp_status != SNIC_WC_SUCCESS) {
                snic_cq_post(c, qp->send_cqn, &cqe, false);
            }
            qp->sq_comp++;
            ep->comp_status = SNIC_WC_SUCCESS;
        }
        ep->op_head = o->next;
        if (!ep->op_head) {
            ep->op_tail = 0;
        }
        o->valid = false;
        o->gen++;           /* a late ACK of it names another operation */
        d->op_free[d->op_nfree++] = slot;
        wake_parked(c);
    }
}

/* Operation 'o' ends with 'status': its packets in flight are let go of */
static void op_end(SnicCore *c, SnicQp *qp, ClOp *o, uint8_t status)
{
    SnicClDev *d = c->cl;
    SnicClEp *ep = cl_ep(c, qp);
    uint32_t i = ep->txn_head;

    if (status != SNIC_WC_SUCCESS) {
        while (i) {
            uint32_t next = d->txns[i - 1].next;

            if (&d->ops[d->txns[i - 1].op] == o) {
                txn_free(c, qp, i - 1);
            }
            i = next;
        }
    }
    if (ep->cur_op == (uint32_t)(o - d->ops) + 1) {
        ep->cur_op = 0;         /* its packets not sent yet never go */
    }
    if (status != SNIC_WC_SUCCESS && ep->seg && o->wqe == ep->sq_head) {
        /*
         * A failed segment fails its WQE: no further segment starts (one
         * that failed in gather would fail each of millions of segments
         * alike), and the last one started posts the one CQE
         */
        d->ops[ep->op_tail - 1].last = true;
        ep->sq_head++;
        ep->seg = 0;
    }
    SNIC_EVENT(c, CL_OP_DONE, qp - c->qps, op_id(d, o), status);
    o->status = status;
    o->done = true;
    retire(c, qp);
}

/*
 * WQE sq_head's next operation: the WQE whole, or its next segment
 * (section 3.1). A WQE that cannot be taken completes in error, in its
 * turn; the endpoint goes on (it serves every other peer too). False if
 * it failed so.
 */
static bool start_op(SnicCore *c, SnicQp *qp)
{
    SnicClDev *d = c->cl;
    SnicClEp *ep = cl_ep(c, qp);
    uint32_t slot = d->op_free[--d->op_nfree];
    ClOp *o = &d->ops[slot];
    struct snic_sq_wqe w = { 0 };
    uint16_t gen = o->gen;
    uint64_t total = 0;
    uint32_t nseg = 1;
    uint8_t st;

    st = snic_sq_fetch(c, qp, ep->sq_head, &w) ? SNIC_WC_LOC_QP_OP_ERR :
         w.opcode != SNIC_WR_CL_WRITE || w.num_sge > SNIC_SQ_WQE_MAX_SGE ||
         w.flags & ~(SNIC_WQE_FLAGS_ALL | SNIC_WQE_CL_UNREGISTERED) ||
         w.cl.av.flags & ~SNIC_AV_IPV6 ? SNIC_WC_LOC_QP_OP_ERR :
         snic_wqe_payload_len(c, qp, ep->sq_head, &w, &total);
    *o = (ClOp) {
        .valid = true, .gen = gen, .wqe = ep->sq_head, .qpn = qp - c->qps,
        .wr_id = GUINT64_FROM_LE(w.wr_id),
        .signaled = w.flags & SNIC_WQE_SIGNALED,
    };
    if (st == SNIC_WC_SUCCESS && total > (1ull << 31)) {
        st = SNIC_WC_LOC_LEN_ERR;           /* as an RC WQE's (wq.c) */
    }
    /* as a UD datagram's: a user context sends only from the port's address */
    if (st == SNIC_WC_SUCCESS && qp->ctx != SNIC_DB_KERNEL_PAGE &&
        !snic_av_source_owned(c, &w.cl.av)) {
        SNIC_GUEST_ERROR(c, GE_UD_SOURCE, qp - c->qps, ep->sq_head);
        st = SNIC_WC_LOC_PROT_ERR;
    }
    if (st != SNIC_WC_SUCCESS) {
        /* nothing of it is sent: the CQE's byte_len is 0 */
    } else if (ep->seg_threshold && total > ep->seg_threshold) {
        uint64_t off = (uint64_t)ep->seg * ep->seg_size;

        nseg = (total + ep->seg_size - 1) / ep->seg_size;
        if (off < total) {
            o->off = off;
            o->len = MIN(ep->seg_size, total - off);
        } else {
            st = SNIC_WC_LOC_QP_OP_ERR;     /* the guest shortened it */
        }
    } else if (ep->seg) {
        st = SNIC_WC_LOC_QP_OP_ERR;         /* ... below the threshold */
    } else {
        o->len = total;
    }
    o->npkts = MAX((o->len + d->packet - 1) / d->packet, 1);
    /* beyond what a mask covers, an operation is not registered */
    o->registered = !(w.flags & SNIC_WQE_CL_UNREGISTERED) &&
                    o->npkts <= d->mask_bits;
    o->last = ++ep->seg == nseg || st != SNIC_WC_SUCCESS;
    if (o->last) {
        ep->sq_head++;
        ep->seg = 0;
    }
    if (ep->op_tail) {
        d->ops[ep->op_tail - 1].next = slot + 1;
    } else {
        ep->op_head = slot + 1;
    }
    ep->op_tail = slot + 1;
    if (st != SNIC_WC_SUCCESS) {
        op_end(c, qp, o, st);
        return false;
    }
    ep->cur_op = slot + 1;
    return true;
}

bool snic_cl_wants_fetch(SnicCore *c, const SnicQp *qp)
{
    return cl_ep(c, qp)->sq_head != qp->sq_tail;
}

bool snic_cl_run(SnicCore *c, SnicQp *qp, unsigned budget)
{
    SnicClDev *d = c->cl;
    SnicClEp *ep = cl_ep(c, qp);
    unsigned sent = 0;

    while (qp->state == SNIC_QPS_RTS && snic_ready(c)) {
        if (ep->cur_op) {
            ClOp *o = &d->ops[ep->cur_op - 1];
            uint8_t st;

            if (sent >= budget) {
                snic_qp_timer_sync(c, qp);
                return true;
            }
            if (!d->txn_nfree) {
                park(c, qp);
                break;
            }
            txn_alloc(c, qp, ep->cur_op - 1, o->next_pkt);
            st = send_packet(c, qp, o, o->next_pkt);
            sent++;             /* a failed one counts too: never a spin */
            if (st != SNIC_WC_SUCCESS) {
                op_end(c, qp, o, st);
                continue;
            }
            if (++o->next_pkt == o->npkts) {
                /* where the paper's sender is notified (section 4.1) */
                SNIC_EVENT(c, CL_OP_SENT, qp - c->qps, op_id(d, o), o->len);
                ep->cur_op = 0;
            }
            continue;
        }
        if (ep->sq_head == qp->sq_tail) {
            break;
        }
        if (!d->op_nfree) {
            park(c, qp);
            break;
        }
        if (!start_op(c, qp) && ++sent >= budget) {
            snic_qp_timer_sync(c, qp);      /* a run of failing WQEs */
            return true;
        }
    }
    snic_qp_timer_sync(c, qp);
    return false;
}

void snic_cl_ack(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    SnicClDev *d = c->cl;
    uint32_t slot = p->cl.op_id & 0xffff, ts = 0;
    ClOp *o = slot < d->nops ? &d->ops[slot] : NULL;
    ClTxn *t = NULL;

    if (qp->state == SNIC_QPS_RTS && o && o->valid &&
        o->gen == p->cl.op_id >> 16 &&
        o->qpn == (uint32_t)(qp - c->qps) && ack_from_dst(o, p)) {
        t = txn_find(d, slot, p->cl.index, &ts);
    }
    if (!t) {
        /*
         * for an operation gone, a packet acknowledged already, or from
         * a peer it was not sent to
         */
        snic_stat_inc(&c->stats.rdma_rx_dropped);
        return;
    }
    switch (p->cl.syndrome) {
    case SNIC_CL_ACK:
        txn_free(c, qp, ts);
        if (p->cl.index == o->npkts) {
            op_end(c, qp, o, SNIC_WC_SUCCESS);  /* its NOTIFY taken */
        } else if (++o->acked == o->npkts) {
            if (o->registered) {
                op_end(c, qp, o, SNIC_WC_SUCCESS);
            } else {
                /* section 3.4: the receiver hears of it from the sender */
                txn_alloc(c, qp, slot, o->npkts);
                if (send_packet(c, qp, o, o->npkts) != SNIC_WC_SUCCESS) {
                    op_end(c, qp, o, SNIC_WC_LOC_QP_OP_ERR);
                }
            }
        }
        break;
    case SNIC_CL_NACK_NOT_READY:
        /*
         * Only a REGISTER or a NOTIFY is refused so (recv.c); any other
         * is no reply of this receiver's. As IBA's RNR: wait a timeout,
         * using no retry - but a bounded number of times
         */
        if (!(o->registered && !p->cl.index) && p->cl.index != o->npkts) {
            snic_stat_inc(&c->stats.rdma_rx_dropped);
            break;
        }
        if (!t->rnr_left) {
            op_end(c, qp, o, SNIC_WC_RNR_RETRY_EXC_ERR);
            break;
        }
        t->rnr_left--;
        fifo_unlink(c, qp, ts);
        fifo_append(c, qp, ts);
        t->rnr = true;
        break;
    default:
        op_end(c, qp, o, SNIC_WC_REM_ACCESS_ERR);
        break;
    }
    snic_qp_timer_sync(c, qp);
}

void snic_cl_send_timer(SnicCore *c, SnicQp *qp, uint64_t now)
{
    SnicClDev *d = c->cl;
    SnicClEp *ep = cl_ep(c, qp);

    while (ep->txn_head && d->txns[ep->txn_head - 1].deadline <= now &&
           qp->state == SNIC_QPS_RTS) {
        uint32_t slot = ep->txn_head - 1;
        ClTxn *t = &d->txns[slot];
        ClOp *o = &d->ops[t->op];
        bool rnr;
        uint8_t st;

        if (!t->rnr && !t->retries_left) {
            op_end(c, qp, o, SNIC_WC_RETRY_EXC_ERR);
            continue;
        }
        rnr = t->rnr;
        if (!rnr) {
            t->retries_left--;
        }
        t->rnr = false;
        fifo_unlink(c, qp, slot);
        fifo_append(c, qp, slot);
        snic_stat_inc(&c->stats.cl_retransmits);
        SNIC_EVENT(c, CL_RESEND, qp - c->qps, op_id(d, o), t->pkt, !!rnr);
        st = send_packet(c, qp, o, t->pkt);
        if (st != SNIC_WC_SUCCESS) {
            op_end(c, qp, o, st);
        }
    }
}

void snic_cl_send_reset(SnicCore *c, SnicQp *qp)
{
    SnicClDev *d = c->cl;
    SnicClEp *ep = cl_ep(c, qp);

    while (ep->txn_head) {
        txn_free(c, qp, ep->txn_head - 1);
    }
    while (ep->op_head) {
        uint32_t slot = ep->op_head - 1;
        ClOp *o = &d->ops[slot];

        ep->op_head = o->next;
        o->valid = false;
        o->gen++;
        d->op_free[d->op_nfree++] = slot;
    }
    ep->op_tail = ep->cur_op = ep->seg = 0;
    ep->comp_status = SNIC_WC_SUCCESS;
    unpark(c, qp);
    wake_parked(c);
}
