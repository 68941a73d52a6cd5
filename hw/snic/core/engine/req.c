/*
 * snic core: the RC requester. It turns send WQEs into segments (one PSN
 * each, path MTU bytes) as the data-delivery engine asks for them, new or
 * retransmitted: a segment is rebuilt from the WQE in host memory (wq.c
 * finds it again), never buffered. The completer is comp.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "engine/rdma.h"
#include "port/wire.h"
#include "objects/qp.h"
#include "srnic/sr.h"
#include "strom/rpc.h"


/* The message number of WQE sq_head (selective programs, SRNIC; else 0) */
static uint32_t head_msg(SnicQp *qp)
{
    SnicOooMsg *m = snic_prog_msg(qp);

    return m ? m->req_head : 0;
}

/* ---- building segments ---- */

/*
 * SRNIC's window may be a few segments (DCTCP's share of a congested
 * link): the packet that fills it asks for an ACK, or nothing would
 * acknowledge it before the AckReq every SNIC_ACKREQ_EVERY PSNs and the
 * QP would wait for its timeout.
 */
static bool window_full(const SnicQp *qp)
{
    return snic_qp_program(qp)->flags & SNIC_PROG_SR &&
           qp->req.dde.sent + 1 >= qp->req.credit.window;
}

/*
 * Build and send the request for psn of WQE e (a READ's: for count PSNs);
 * burst_end: the last segment the QP's scheduling iteration may send.
 */
static uint8_t send_segment(SnicCore *c, SnicQp *qp, const SnicReqWqe *e,
                            uint32_t psn, uint32_t count, bool burst_end)
{
    const SnicSendWqe *info = &e->info;
    const struct snic_sq_wqe *w = &e->w;
    uint32_t mtu = snic_qp_mtu_bytes(qp), seg = (psn - info->first_psn) &
                   SNIC_PSN_MASK;
    uint32_t off = seg * mtu, len = info->len > off ?
                   MIN(mtu, info->len - off) : 0;
    uint32_t host_bytes = 0;
    SnicRcMsg msg;
    SnicPkt p;
    uint8_t st;

    memset(&p, 0, sizeof(p));
    snic_rdma_fill_addr(c, qp, &p);
    p.psn = psn;
    p.reth.va = GUINT64_FROM_LE(w->rdma.remote_addr) + off;
    p.reth.rkey = GUINT32_FROM_LE(w->rdma.rkey);
    if (snic_wr_is_read(info->opcode)) {
        /* one request for the rest of this chunk of the READ */
        p.opcode = SNIC_OP_RC_READ_REQUEST;
        p.reth.len = MIN((uint64_t)count * mtu,
                         info->len - (uint64_t)MIN(off, info->len));
        p.ackreq = true;
        if (snic_sr_on(qp)) {
            /*
             * SRNIC: the responses that arrived (self-clocking); the
             * WQE, which the responses name so that placing one reads
             * no other
             */
            p.xport = true;
            p.xeth.flags = SNIC_XETH_F_RESP;
            p.xeth.sq_index = e->index;
            p.xeth.msg = qp->req.dde.wnd_start;
        }
    } else if (snic_rpc_wr(info->opcode)) {
        st = snic_rpc_request_segment(c, qp, w, info->len, seg, info->npsn,
                                      &p, &host_bytes);
        if (st != SNIC_WC_SUCCESS) {
            return st;
        }
    } else if (snic_wr_is_atomic(info->opcode)) {
        bool cas = info->opcode == SNIC_WR_ATOMIC_CMP_SWAP;

        p.opcode = cas ? SNIC_OP_RC_CMP_SWAP : SNIC_OP_RC_FETCH_ADD;
        p.atomic.va = GUINT64_FROM_LE(w->rdma.remote_addr);
        p.atomic.rkey = p.reth.rkey;
        p.atomic.swap_add = GUINT64_FROM_LE(cas ? w->rdma.swap :
                                            w->rdma.compare_add);
        p.atomic.compare = cas ? GUINT64_FROM_LE(w->rdma.compare_add) : 0;
        p.ackreq = true;
    } else {
        uint8_t *payload;

        msg = (SnicRcMsg) {
            .wr = info->opcode,
            .flags = info->flags,
            .len = info->len,
            .npsn = info->npsn,
            .va = GUINT64_FROM_LE(w->rdma.remote_addr),
            .rkey = GUINT32_FROM_LE(w->rdma.rkey),
            .imm = GUINT32_FROM_BE(w->imm),
            .numbered = true,
            .msg = e->msg,
        };
        /*
         * A burst that leaves its message unfinished asks for an ACK too:
         * the QP's next turn comes a scheduler round later, which with
         * many QPs lasts longer than the ACK timeout, and without that
         * ACK the burst's packets would time out and go again.
         */
        snic_rc_segment(qp, &msg, seg, NULL, len,
                        burst_end || window_full(qp), &p);
        /* gathered where the frame carries it: no copy to build it */
        payload = snic_rdma_payload_buf(c, &p);
        st = snic_wqe_gather(c, qp, w, off, payload, len);
        if (st != SNIC_WC_SUCCESS) {
            return st;
        }
        p.payload = payload;
        host_bytes = snic_wqe_host_bytes(w, len);
    }
    snic_rdma_xmit(c, &p, host_bytes);
    return SNIC_WC_SUCCESS;
}

/* Payload bytes of the request for psn (the credit it takes) */
static uint32_t seg_bytes(const SnicQp *qp, const SnicSendWqe *info,
                          uint32_t psn)
{
    uint32_t off = ((psn - info->first_psn) & SNIC_PSN_MASK) *
                   snic_qp_mtu_bytes(qp);

    if (snic_wr_is_rd_atomic(info->opcode)) {
        return 0;   /* a request: its responses are the peer's to pace */
    }
    return info->len > off ? MIN(snic_qp_mtu_bytes(qp), info->len - off) : 0;
}

#define SNIC_WQE_WAIT   0xff    /* start_wqe: not now (rd_atomic, fence) */

/*
 * Start the WQE at sq_head: validate it (guest errors for what the driver
 * got wrong) and read its PSN range into e; run it if it is local.
 */
static uint8_t start_wqe(SnicCore *c, SnicQp *qp, SnicReqWqe *e)
{
    SnicReq *r = &qp->req;
    const struct snic_sq_wqe *w = &e->w;
    uint64_t len;
    uint8_t st;

    e->index = r->sq_head;
    if (snic_sq_fetch(c, qp, r->sq_head, &e->w)) {
        return SNIC_WC_LOC_QP_OP_ERR;
    }
    if (w->num_sge > SNIC_SQ_WQE_MAX_SGE ||
        (w->opcode != SNIC_WR_SEND && w->opcode != SNIC_WR_SEND_IMM &&
         w->opcode != SNIC_WR_SEND_INV && w->opcode != SNIC_WR_RDMA_WRITE &&
         w->opcode != SNIC_WR_RDMA_WRITE_IMM && !snic_wr_is_read(w->opcode) &&
         !snic_wr_is_atomic(w->opcode) && !snic_wr_is_local(w->opcode) &&
         !snic_rpc_wr(w->opcode))) {
        SNIC_GUEST_ERROR(c, GE_WQE_INVALID, qp - c->qps, r->sq_head,
                         w->opcode, w->num_sge);
        return SNIC_WC_LOC_QP_OP_ERR;
    }
    if (w->flags & ~SNIC_WQE_FLAGS_ALL) {
        SNIC_GUEST_ERROR(c, GE_WQE_FLAGS, qp - c->qps, r->sq_head, w->flags);
        return SNIC_WC_LOC_QP_OP_ERR;
    }
    /* the fence indicator: wait for earlier READs and atomics to finish */
    if (w->flags & SNIC_WQE_FENCE && r->rd_atomic) {
        return SNIC_WQE_WAIT;
    }
    st = snic_wqe_payload_len(c, qp, r->sq_head, w, &len);
    if (st == SNIC_WC_SUCCESS) {
        st = snic_sq_wqe_span(qp, r->next_psn, e);
    }
    if (st != SNIC_WC_SUCCESS) {
        return st;
    }
    if (snic_wr_is_local(w->opcode)) {
        /*
         * No PSN: it completes once every WQE before it has, and runs
         * now, in post order with the requests before it (which may
         * still be in flight: a FENCE waits for READs and atomics).
         */
        return snic_local_op(c, qp, w);
    }
    if (snic_wr_is_atomic(w->opcode) && e->info.len != 8) {
        return SNIC_WC_LOC_LEN_ERR;
    }
    if (snic_rpc_wr(w->opcode)) {
        st = snic_rpc_wqe_check(c, qp, r->sq_head, w, e->info.len);
        if (st != SNIC_WC_SUCCESS) {
            return st;
        }
    }
    if (snic_wr_is_rd_atomic(w->opcode)) {
        if (!qp->attr.max_rd_atomic) {
            return SNIC_WC_LOC_QP_OP_ERR;   /* initiator depth 0 */
        }
        if (r->rd_atomic >= qp->attr.max_rd_atomic) {
            return SNIC_WQE_WAIT;
        }
    }
    return SNIC_WC_SUCCESS;
}

/* Would another iteration send something now? */
static bool req_has_work(const SnicQp *qp)
{
    const SnicReq *r = &qp->req;

    uint32_t psn;
    bool rtx;

    if (qp->state != SNIC_QPS_RTS || r->rnr_wait ||
        snic_credit_blocked(qp) || !snic_dde_next(qp, &psn, &rtx)) {
        return false;   /* the window is full, for resent segments too */
    }
    return rtx || (r->sq_head != qp->sq_tail && !r->local_err &&
                   (uint16_t)(r->sq_head - qp->sq_comp) < snic_dde_span(qp));
}

/* Send up to 'budget' segments of one QP; true if it has more to do. */
bool snic_req_run(SnicCore *c, SnicQp *qp, unsigned budget, unsigned wqes)
{
    SnicReq *r = &qp->req;
    unsigned done = 0, started = 0, sent = 0;
    /* a WQE half sent by the last iteration is fetched again */
    bool resumed = r->wqe_off != 0, have = false;
    /* the WQE this iteration works on, dropped at its end (no cache) */
    SnicReqWqe e;

    /*
     * The responder asked for time with an RNR NAK: nothing goes out until
     * the wait ends, new work included (it would only draw more NAKs).
     */
    while (done < budget && qp->state == SNIC_QPS_RTS && snic_ready(c) &&
           !r->rnr_wait) {
        uint32_t psn, count;
        bool rtx;
        uint8_t st;

        if (!snic_dde_next(qp, &psn, &rtx)) {
            break;      /* the window is full */
        }
        if (!snic_credit_ready(c, qp)) {
            break;      /* no rate credit or token: its timer or a grant */
        }
        /*
         * RPC answers (rpc.c) are this QP's requests too, made by the
         * device: between two messages of the SQ, and sent again from
         * their records.
         */
        if (rtx ? snic_rpc_resend(c, qp, psn) :
                  !r->wqe_off && snic_rpc_send_new(c, qp, psn)) {
            snic_dde_sent(qp, psn, 1, rtx);
            snic_credit_spend(c, qp, snic_qp_mtu_bytes(qp));
            if (!rtx) {
                r->next_psn = (r->next_psn + 1) & SNIC_PSN_MASK;
            }
            if (r->deadline == UINT64_MAX) {     /* no RNR wait here */
                snic_transport_arm_rto(c, qp);
            }
            done++;
            continue;
        }
        if (rtx) {
            if (!have || ((psn - e.info.first_psn) & SNIC_PSN_MASK) >=
                         e.info.npsn) {
                int found = snic_sq_wqe_of_psn(c, qp, psn, &e);

                if (found <= 0) {
                    break;      /* failed the QP, or not in flight */
                }
                have = true;
            }
        } else {
            if (r->sq_head == qp->sq_tail || r->local_err ||
                (uint16_t)(r->sq_head - qp->sq_comp) >= snic_dde_span(qp)) {
                break;  /* nothing new to send */
            }
            if (!r->wqe_off) {
                if (started == wqes) {
                    /* this iteration's WQEs are used: the next fetches */
                    done = budget;
                    break;
                }
                started++;
                st = start_wqe(c, qp, &e);
                e.msg = head_msg(qp);
                if (st == SNIC_WQE_WAIT) {
                    break;
                }
                if (st != SNIC_WC_SUCCESS) {
                    snic_sq_fail_local(c, qp, r->sq_head, st);
                    break;
                }
                have = true;
                if (snic_wr_is_local(e.info.opcode)) {
                    r->sq_head++;       /* done: no segment to send */
                    snic_sq_complete_acked(c, qp);
                    done++;
                    continue;
                }
                r->wqe_op = e.info.opcode;
            } else {
                st = SNIC_WC_SUCCESS;
                if (!have || e.index != r->sq_head) {
                    st = snic_sq_wqe_read(c, qp, r->sq_head,
                                          (r->next_psn - r->wqe_off) &
                                          SNIC_PSN_MASK, &e);
                    e.msg = head_msg(qp);
                }
                /*
                 * Half sent, read again: the guest may have rewritten it
                 * meanwhile, shorter than what went out or as another
                 * op-code (UC checks the same)
                 */
                if (st == SNIC_WC_SUCCESS &&
                    (r->wqe_off >= e.info.npsn ||
                     e.info.opcode != r->wqe_op)) {
                    st = SNIC_WC_LOC_QP_OP_ERR;
                }
                if (st != SNIC_WC_SUCCESS) {
                    snic_sq_fail_local(c, qp, r->sq_head, st);
                    break;
                }
                have = true;
            }
        }
        count = snic_sq_seg_count(&e.info, psn);
        if (rtx && snic_wr_is_read(e.info.opcode) && snic_sr_on(qp)) {
            /*
             * SRNIC asks again for the hole alone (the responses after
             * it were placed, sr_read.c): up to the end of the range
             * marked, which its host sent (SNIC_SR_RETRY_RTX)
             */
            uint32_t k = 1;

            while (k < count &&
                   snic_transport_rtx_marked(qp, (psn + k) & SNIC_PSN_MASK)) {
                k++;
            }
            count = k;
        }
        if (!rtx && snic_wr_is_read(e.info.opcode) &&
            ((r->dde.sent && r->dde.sent + count > r->credit.window) ||
             (r->wqe_off && r->dde.wnd_start != r->next_psn))) {
            /*
             * a READ chunk needs room, and goes after the previous one;
             * with nothing in flight it goes whole even if the window
             * is smaller (DCTCP's 10 segments, or 2), or nothing would
             * ever open it
             */
            break;
        }
        st = send_segment(c, qp, &e, psn, count, done + 1 == budget);
        if (st != SNIC_WC_SUCCESS) {
            snic_sq_fail_local(c, qp, e.index, st);
            break;
        }
        snic_dde_sent(qp, psn, count, rtx);
        snic_credit_spend(c, qp, seg_bytes(qp, &e.info, psn));
        sent++;
        if (!rtx) {
            /*
             * counted once its first request is out: a READ started but
             * held back for room is started again by the next iteration
             */
            if (!r->wqe_off && snic_wr_is_rd_atomic(e.info.opcode) &&
                !r->rd_atomic++) {
                /* the oldest outstanding: where an ACK's barrier is */
                r->dde.rd_off = (psn - r->dde.wnd_start) & SNIC_PSN_MASK;
            }
            r->next_psn = (r->next_psn + count) & SNIC_PSN_MASK;
            r->wqe_off += count;
            if (r->wqe_off == e.info.npsn) {
                r->wqe_off = 0;
                r->sq_head++;
                if (snic_prog_msg(qp) && snic_wr_takes_recv(e.info.opcode)) {
                    snic_prog_msg(qp)->req_head++;
                }
            }
        }
        if (r->deadline == UINT64_MAX) {
            snic_transport_arm_rto(c, qp);
        }
        done++;
    }
    SNIC_EVENT(c, SCHED_ITERATION, qp - c->qps, started + resumed, sent);
    return done == budget && !snic_credit_blocked(qp) &&
           (req_has_work(qp) || (snic_rpc_answer_due(c, qp) &&
                                 qp->state == SNIC_QPS_RTS &&
                                 !r->rnr_wait &&
                                 r->dde.sent < r->credit.window));
}
