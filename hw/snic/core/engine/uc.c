/*
 * snic core: UC queue pairs (IBA 9.7 for the unreliable connected
 * service): SEND and RDMA WRITE, in PSN order, without acknowledgements.
 *
 * The requester sends each message once and completes its WQE when the
 * last packet is out. The responder takes packets at the expected PSN;
 * a gap (a lost packet) or any trouble with a message (no receive WQE, an
 * R_Key it may not use) silently drops the rest of that message, and
 * reception resumes at the next First or Only packet, whatever its PSN.
 * Only the responder's own failures (a receive WQE it cannot read, a
 * completion it cannot post) put the QP in the error state.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "engine/rdma.h"
#include "port/wire.h"
#include "objects/qp.h"

static bool is_send(uint8_t wr)
{
    return wr == SNIC_WR_SEND || wr == SNIC_WR_SEND_IMM;
}

static bool is_write(uint8_t wr)
{
    return wr == SNIC_WR_RDMA_WRITE || wr == SNIC_WR_RDMA_WRITE_IMM;
}

/*
 * Validate the WQE at sq_head and compute what it sends into *info: its
 * message started wqe_off PSNs ago. Read again for every packet: the QP
 * context keeps only how far the message got.
 */
static uint8_t uc_start(SnicCore *c, SnicQp *qp, struct snic_sq_wqe *w,
                        SnicSendWqe *info)
{
    uint32_t mtu = snic_qp_mtu_bytes(qp);
    uint64_t len;
    uint8_t st;

    if ((!is_send(w->opcode) && !is_write(w->opcode) &&
         !snic_wr_is_local(w->opcode)) ||
        w->num_sge > SNIC_SQ_WQE_MAX_SGE) {
        SNIC_GUEST_ERROR(c, GE_WQE_INVALID, qp - c->qps, qp->req.sq_head,
                         w->opcode, w->num_sge);
        return SNIC_WC_LOC_QP_OP_ERR;
    }
    if (w->flags & ~SNIC_WQE_FLAGS_ALL) {
        SNIC_GUEST_ERROR(c, GE_WQE_FLAGS, qp - c->qps, qp->req.sq_head,
                         w->flags);
        return SNIC_WC_LOC_QP_OP_ERR;
    }
    st = snic_wqe_payload_len(c, qp, qp->req.sq_head, w, &len);
    if (st != SNIC_WC_SUCCESS) {
        return st;
    }
    if (len > (1ull << 31)) {
        return SNIC_WC_LOC_LEN_ERR;
    }
    *info = (SnicSendWqe) {
        .first_psn = (qp->req.next_psn - qp->req.wqe_off) & SNIC_PSN_MASK,
        .len = snic_wr_is_local(w->opcode) ? 0 : len,
        .npsn = len ? (len + mtu - 1) / mtu : 1,
        .opcode = w->opcode,
        .flags = w->flags,
    };
    if (!qp->req.wqe_off) {
        qp->req.wqe_op = w->opcode;
    } else if (qp->req.wqe_off >= info->npsn ||
               w->opcode != qp->req.wqe_op) {
        /* rewritten shorter, or as another op-code, meanwhile */
        return SNIC_WC_LOC_QP_OP_ERR;
    }
    return SNIC_WC_SUCCESS;
}

/* Send packet 'seg' of the current message. */
static uint8_t uc_send_segment(SnicCore *c, SnicQp *qp,
                               const struct snic_sq_wqe *w,
                               const SnicSendWqe *info, uint32_t seg)
{
    uint32_t mtu = snic_qp_mtu_bytes(qp), off = seg * mtu;
    uint32_t len = info->len > off ? MIN(mtu, info->len - off) : 0;
    SnicPkt p;
    uint8_t st;

    st = snic_wqe_gather(c, qp, w, off, c->rdma_payload, len);
    if (st != SNIC_WC_SUCCESS) {
        return st;
    }
    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(c, qp, &p);
    p.opcode = snic_seg_opcode(info->opcode, seg, info->npsn) +
               SNIC_OP_UC_OFFSET;
    p.psn = (info->first_psn + seg) & SNIC_PSN_MASK;
    p.se = seg == info->npsn - 1 && (info->flags & SNIC_WQE_SOLICITED) &&
           is_send(info->opcode);
    p.reth.va = GUINT64_FROM_LE(w->rdma.remote_addr);
    p.reth.rkey = GUINT32_FROM_LE(w->rdma.rkey);
    p.reth.len = info->len;
    p.imm = GUINT32_FROM_BE(w->imm);
    p.payload = c->rdma_payload;
    p.payload_len = len;
    snic_rdma_xmit(c, &p, snic_wqe_host_bytes(w, len));
    return SNIC_WC_SUCCESS;
}

/* Send up to 'budget' packets; true if the QP has more to do. */
bool snic_uc_run(SnicCore *c, SnicQp *qp, unsigned budget)
{
    SnicReq *r = &qp->req;
    unsigned done = 0;

    while (done < budget && qp->state == SNIC_QPS_RTS &&
           qp->sq_comp != qp->sq_tail && snic_ready(c)) {
        SnicSendWqe info = { 0 };
        struct snic_sq_wqe w;
        uint8_t st;

        st = snic_sq_fetch(c, qp, qp->sq_comp, &w) ? SNIC_WC_LOC_QP_OP_ERR :
             uc_start(c, qp, &w, &info);
        if (st == SNIC_WC_SUCCESS && snic_wr_is_local(w.opcode)) {
            st = snic_local_op(c, qp, &w);
            if (st == SNIC_WC_SUCCESS) {
                /* UC completes in post order as it goes: this one now */
                if (w.flags & SNIC_WQE_SIGNALED) {
                    snic_post_send_cqe(c, qp, &info,
                                       GUINT64_FROM_LE(w.wr_id),
                                       SNIC_WC_SUCCESS);
                }
                qp->sq_comp++;
                r->sq_head = qp->sq_comp;
                done++;
                continue;
            }
        }
        if (st == SNIC_WC_SUCCESS) {
            st = uc_send_segment(c, qp, &w, &info, r->wqe_off);
        }
        if (st != SNIC_WC_SUCCESS) {
            snic_post_send_cqe(c, qp, r->wqe_off ? &info : NULL,
                               GUINT64_FROM_LE(w.wr_id), st);
            qp->sq_comp++;
            r->sq_head = qp->sq_comp;
            r->wqe_off = 0;
            snic_wq_error(c, qp);
            break;
        }
        r->next_psn = (r->next_psn + 1) & SNIC_PSN_MASK;
        done++;
        if (++r->wqe_off < info.npsn) {
            continue;
        }
        /* the whole message is out: nothing is acknowledged on UC */
        if (info.flags & SNIC_WQE_SIGNALED) {
            snic_post_send_cqe(c, qp, &info, GUINT64_FROM_LE(w.wr_id),
                               SNIC_WC_SUCCESS);
        }
        qp->sq_comp++;
        r->sq_head = qp->sq_comp;
        r->wqe_off = 0;
    }
    return done == budget;
}

/* Drop the rest of the current message; resume at a First or Only. */
static void uc_drop_message(SnicCore *c, SnicQp *qp)
{
    SnicResp *s = &qp->resp;

    snic_stat_inc(&c->stats.rdma_rx_dropped);
    s->in_send = s->in_write = false;
    s->recv_off = 0;            /* the receive WQE serves the next one */
    s->uc_resync = true;
}

/* SEND packet at ePSN; false if the message was dropped. */
static bool uc_send(SnicCore *c, SnicQp *qp, const SnicPkt *p, bool last)
{
    SnicResp *s = &qp->resp;
    uint8_t st;

    if (!snic_recv_take(c, qp)) {
        return false;           /* no receive WQE: UC has no RNR */
    }
    if ((uint64_t)s->recv_off + p->payload_len > (1u << 31)) {
        return false;
    }
    st = snic_rq_scatter(c, qp, s->recv_off, p->payload, p->payload_len);
    if (st == SNIC_WC_LOC_LEN_ERR) {
        return false;           /* longer than the buffers: dropped */
    }
    if (st != SNIC_WC_SUCCESS) {
        /* the receive WQE itself is bad: the QP's own failure */
        snic_rq_complete(c, qp, st, SNIC_WC_RECV, s->recv_off, p);
        snic_wq_error(c, qp);
        return false;
    }
    s->recv_off += p->payload_len;
    s->in_send = !last;
    if (last) {
        snic_rq_complete(c, qp, SNIC_WC_SUCCESS, SNIC_WC_RECV, s->recv_off,
                         p);
    }
    return true;
}

/* WRITE packet at ePSN; false if the message was dropped. */
static bool uc_write(SnicCore *c, SnicQp *qp, const SnicPkt *p, bool first,
                     bool last)
{
    SnicResp *s = &qp->resp;
    bool imm = p->headers & SNIC_HDR_IMMDT;

    if (!(qp->attr.access & SNIC_ACCESS_REMOTE_WRITE) ||
        (imm && !snic_recv_take(c, qp))) {
        return false;
    }
    if (snic_place_write(c, qp, p, first, last) != SNIC_AETH_ACK) {
        return false;
    }
    s->in_write = !last;
    if (last && imm) {
        snic_rq_complete(c, qp, SNIC_WC_SUCCESS, SNIC_WC_RECV_RDMA_WITH_IMM,
                         s->write_len, p);
    }
    return true;
}

void snic_uc_request(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    SnicResp *s = &qp->resp;
    uint8_t rc_op = p->opcode - SNIC_OP_UC_OFFSET;
    const struct snic_opcode_info *op = snic_opcode_info(p->opcode);
    bool first = op->flags & SNIC_OPF_FIRST, last = op->flags & SNIC_OPF_LAST;
    bool send = rc_op <= SNIC_OP_RC_SEND_ONLY_IMM;
    uint32_t mtu = snic_qp_mtu_bytes(qp);

    if (p->psn != s->epsn || s->uc_resync) {
        /*
         * Out of sequence (a packet lost or late): the message in hand
         * is lost; a new message may start at any PSN.
         */
        if (s->in_send || s->in_write || !first) {
            uc_drop_message(c, qp);
            if (!first) {
                return;
            }
        }
        s->epsn = p->psn;
    }
    s->uc_resync = false;
    /* a message continues only what it started, packets are MTU-sized */
    if ((first && (s->in_send || s->in_write)) ||
        (!first && !(send ? s->in_send : s->in_write)) ||
        (!last && p->payload_len != mtu) || (last && p->payload_len > mtu) ||
        !(send ? uc_send(c, qp, p, last) :
                 uc_write(c, qp, p, first, last))) {
        if (qp->state == SNIC_QPS_ERR) {
            return;
        }
        uc_drop_message(c, qp);
        return;
    }
    s->epsn = (s->epsn + 1) & SNIC_PSN_MASK;
}
