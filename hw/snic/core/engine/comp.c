/*
 * snic core: the RC completer. ACKs, NAKs, READ responses and atomic
 * ACKs slide the data-delivery engine's window; WQEs complete in post
 * order (wq.c) and the feedback goes to the QP's transport program. A
 * response implicitly acknowledges only what precedes it (IBA 9.7.5.1.4):
 * a READ or atomic whose response is missing is asked for again.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "core_int.h"
#include "engine/rdma.h"
#include "port/wire.h"
#include "engine/scheduler.h"
#include "objects/mr.h"
#include "objects/qp.h"
#include "srnic/sr.h"
#include "strom/rpc.h"


/*
 * The first PSN whose READ response or atomic ACK has not arrived: an ACK
 * for a later PSN means those responses were lost (IBA 9.7.5.1.4: a
 * response implicitly acknowledges only what precedes it). That is the
 * oldest READ/atomic outstanding's first PSN, or wnd_start if responses
 * of it arrived: kept in the QP context (dde.rd_off), no WQE read.
 */
static bool rd_atomic_barrier(SnicQp *qp, uint32_t *barrier)
{
    SnicReq *r = &qp->req;

    if (!r->rd_atomic) {
        return false;       /* none outstanding */
    }
    *barrier = (r->dde.wnd_start + r->dde.rd_off) & SNIC_PSN_MASK;
    return true;
}

/*
 * An ACK, NAK or response acknowledges every PSN up to 'upto' - except
 * READ/atomic PSNs whose responses did not arrive: those were lost (IBA
 * 9.7.5.1.4). Acknowledge up to the first of them and complete what that
 * covers; true if a missing response stopped it (resume from wnd_start).
 */
static bool ack_implied(SnicCore *c, SnicQp *qp, uint32_t upto)
{
    uint32_t barrier;
    bool stopped = rd_atomic_barrier(qp, &barrier) &&
                   snic_psn_cmp(upto, barrier) >= 0;

    snic_dde_ack_upto(qp,
                      stopped ? (barrier - 1) & SNIC_PSN_MASK : upto);
    snic_sq_complete_acked(c, qp);
    return stopped;
}

/*
 * A READ response or atomic ACK for psn, which must be the next one
 * (SRNIC's READ responses: any one sent, sr_read.c). Returns 1 with
 * feedback for the program, 0 to drop it silently, -1 if it failed the
 * QP or was taken without feedback.
 */
static int rd_atomic_response(SnicCore *c, SnicQp *qp, const SnicPkt *p,
                              SnicFeedback *fb)
{
    SnicReq *r = &qp->req;
    uint32_t mtu = snic_qp_mtu_bytes(qp), s, off, want, chunk_s, chunk_n;
    bool atomic_ack = p->opcode == SNIC_OP_RC_ATOMIC_ACK, end;
    const SnicSendWqe *info;
    const struct snic_sq_wqe *w;
    SnicReqWqe e;
    uint8_t op, st;
    int found;

    if (snic_psn_cmp(p->psn, r->dde.wnd_start) < 0) {
        /* a duplicate of a response already taken */
        snic_stat_inc(&c->stats.rdma_rx_stale);
        return 0;
    }
    if (snic_sr_on(qp) && !atomic_ack) {
        /* SRNIC: placed whatever its order (srnic/sr_read.c) */
        return snic_sr_read_response(c, qp, p, fb);
    }
    if (p->psn != r->dde.wnd_start) {
        /* if a response before it is missing, resume from that one, once */
        ack_implied(c, qp, (p->psn - 1) & SNIC_PSN_MASK);
        if (qp->state != SNIC_QPS_RTS) {
            return -1;      /* a WQE before it failed: all is flushed */
        }
    }
    if (p->psn != r->dde.wnd_start) {
        if (r->resp_retry) {
            return 0;
        }
        r->resp_retry = true;
        fb->kind = SNIC_FB_NAK_SEQ;
        fb->psn = r->dde.wnd_start;
        return 1;
    }
    r->resp_retry = false;
    found = snic_sq_wqe_of_psn(c, qp, p->psn, &e);
    if (found < 0) {
        return -1;
    }
    info = &e.info;
    w = &e.w;
    if (!found || (atomic_ack ? !snic_wr_is_atomic(info->opcode) :
                                !snic_wr_is_read(info->opcode))) {
        snic_sq_fail(c, qp, SNIC_WC_BAD_RESP_ERR);
        return -1;
    }
    if (atomic_ack) {
        uint64_t orig = GUINT64_TO_LE(p->atomic_ack);

        st = snic_sge_scatter(c, qp - c->qps, qp->pdn, w->sge, w->num_sge,
                              0, &orig, 8);
    } else {
        /* the position within its chunk decides the op-code */
        s = (p->psn - info->first_psn) & SNIC_PSN_MASK;
        off = s * mtu;
        want = info->len > off ? MIN(mtu, info->len - off) : 0;
        /*
         * A retried request may start mid-chunk, so only the end of a
         * chunk is known: LAST or ONLY there, FIRST or MIDDLE before it.
         */
        chunk_s = s % SNIC_READ_CHUNK;
        chunk_n = snic_sq_seg_count(info, (p->psn - chunk_s) & SNIC_PSN_MASK);
        end = chunk_s == chunk_n - 1;
        op = p->opcode;
        if (p->payload_len != want ||
            (end && op != SNIC_OP_RC_READ_RESP_LAST &&
             op != SNIC_OP_RC_READ_RESP_ONLY) ||
            (!end && op != SNIC_OP_RC_READ_RESP_FIRST &&
             op != SNIC_OP_RC_READ_RESP_MIDDLE)) {
            snic_sq_fail(c, qp, SNIC_WC_BAD_RESP_ERR);
            return -1;
        }
        st = snic_sge_scatter(c, qp - c->qps, qp->pdn, w->sge, w->num_sge,
                              off, p->payload, want);
    }
    if (st != SNIC_WC_SUCCESS) {
        snic_sq_fail_local(c, qp, e.index, st);
        return -1;
    }
    snic_dde_ack_upto(qp, p->psn);
    fb->kind = SNIC_FB_ACK;
    return 1;
}

void snic_req_response(SnicCore *c, SnicQp *qp, const SnicPkt *p)
{
    SnicReq *r = &qp->req;
    uint8_t syn = p->aeth.syndrome;
    SnicFeedback fb = { .psn = p->psn, .syndrome = SNIC_AETH_VALUE(syn) };
    uint32_t last_sent = (r->dde.wnd_start + r->dde.sent - 1) & SNIC_PSN_MASK;
    uint32_t wnd_start = r->dde.wnd_start;
    /* a SACK block only for a program that places out of order */
    bool sack = p->xport && p->xeth.flags & SNIC_XETH_F_SACK &&
                (snic_prog_ooo(qp) || snic_sr_on(qp));
    SnicReqWqe e;

    if (r->comp_owed) {
        /*
         * Completions the call's budget held back (wq.h) come first: what
         * a response implies rests on them, the READ/atomic barrier
         * (dde.rd_off) being the oldest READ/atomic not completed, which
         * may be one of them. Still owed (the call has no budget left):
         * the response is dropped, as the wire may drop it.
         */
        if (c->wqe_left) {
            snic_sq_complete_acked(c, qp);
            if (qp->state != SNIC_QPS_RTS) {
                return;     /* one of them failed: all is flushed */
            }
        }
        if (r->comp_owed) {
            snic_stat_inc(&c->stats.rdma_rx_dropped);
            return;
        }
    }
    /*
     * A receiver-driven program's PULL (a grant) or NACK (a PSN that
     * arrived trimmed): feedback of its own, not an acknowledgement, and
     * a PULL comes even with nothing in flight
     */
    if (p->opcode == SNIC_OP_RC_ACK && p->xport &&
        p->xeth.flags & (SNIC_XETH_F_PULL | SNIC_XETH_F_NACK)) {
        if (!(snic_qp_program(qp)->flags & SNIC_PROG_PULL) ||
            SNIC_AETH_KIND(syn) != SNIC_AETH_KIND_ACK) {
            snic_stat_inc(&c->stats.rdma_rx_dropped);
            return;
        }
        fb.kind = p->xeth.flags & SNIC_XETH_F_PULL ? SNIC_FB_PULL :
                  p->xeth.flags & SNIC_XETH_F_TRIMMED ? SNIC_FB_TRIMMED :
                  SNIC_FB_NACK;
        fb.psn = fb.kind == SNIC_FB_PULL ? p->xeth.msg : p->xeth.sack_lo;
        fb.old_wnd_start = wnd_start;
        snic_qp_program(qp)->incoming(c, qp, &fb);
        snic_sched_notify(c, qp);
        return;
    }
    /* SRNIC: the peer's acknowledgement of our READ responses */
    if (p->opcode == SNIC_OP_RC_ACK && p->xport &&
        p->xeth.flags & SNIC_XETH_F_RESP) {
        if (!snic_sr_on(qp) || !snic_sr_read_peer_ack(c, qp, p->xeth.msg)) {
            snic_stat_inc(&c->stats.rdma_rx_dropped);
        }
        return;
    }
    /* the CE count echoed: only a program that reacts to it (DCTCP) */
    if (p->xport && p->xeth.flags & SNIC_XETH_F_ECE &&
        snic_qp_program(qp)->flags & SNIC_PROG_ECE) {
        fb.ece = true;
        fb.ce_count = p->xeth.offset;
    }
    if (snic_psn_cmp(p->psn, (r->dde.wnd_start - 1) & SNIC_PSN_MASK) < 0 ||
        (!r->dde.sent && snic_psn_cmp(p->psn, last_sent) <= 0)) {
        /* stale: a resent request's answer, the original already taken */
        snic_stat_inc(&c->stats.rdma_rx_stale);
        snic_stat_inc(&c->stats.rdma_rx_dropped);
        return;
    }
    if (!r->dde.sent || snic_psn_cmp(p->psn, last_sent) > 0) {
        snic_stat_inc(&c->stats.rdma_rx_dropped);   /* for nothing sent */
        return;
    }
    if (p->opcode != SNIC_OP_RC_ACK) {
        int ret = rd_atomic_response(c, qp, p, &fb);

        if (ret <= 0) {
            if (!ret) {
                snic_stat_inc(&c->stats.rdma_rx_dropped);
            }
            return;
        }
    } else {
        uint8_t kind = SNIC_AETH_KIND(syn);
        bool fatal = kind == SNIC_AETH_KIND_NAK && SNIC_AETH_VALUE(syn);
        bool stopped;

        if (kind != SNIC_AETH_KIND_ACK) {
            SNIC_EVENT(c, NAK_RECV, qp - c->qps, p->psn, syn);
        }
        if (kind == SNIC_AETH_KIND_RESERVED) {
            snic_stat_inc(&c->stats.rdma_rx_dropped);  /* reserved code */
            return;
        }
        if (kind == SNIC_AETH_KIND_ACK &&
            snic_psn_cmp(p->psn, r->dde.wnd_start) < 0) {
            /* nothing new: a duplicate ACK, evidence for TCP's programs */
            if (snic_qp_program(qp)->ack_policy == SNIC_ACK_TCP ||
                p->xport) {
                fb.kind = sack ?
                          SNIC_FB_SACK : SNIC_FB_DUP_ACK;
                fb.sack = p->xeth.sack_lo;
                fb.sack_end = p->xeth.sack_hi;
                fb.old_wnd_start = wnd_start;
                snic_qp_program(qp)->incoming(c, qp, &fb);
                snic_sched_notify(c, qp);
            }
            return;
        }
        /* an ACK covers its PSN; a NAK only what precedes it */
        stopped = ack_implied(c, qp, kind != SNIC_AETH_KIND_ACK ?
                                     (p->psn - 1) & SNIC_PSN_MASK : p->psn);
        if (qp->state != SNIC_QPS_RTS) {
            return;             /* a WQE it completed failed locally */
        }
        if (fatal) {
            /*
             * The NAK names the failed request by its PSN; a READ before
             * it whose response was lost is flushed, not blamed.
             */
            int found = snic_sq_wqe_of_psn(c, qp, p->psn, &e);

            if (found < 0) {
                return;
            }
            if (!found && snic_rpc_refused(c, qp, p->psn)) {
                return;         /* an RPC answer: no WQE to blame */
            }
            snic_sq_fail_at(c, qp, found ? e.index : qp->sq_comp,
                    syn == SNIC_AETH_NAK_INV_REQ ? SNIC_WC_REM_INV_REQ_ERR :
                    syn == SNIC_AETH_NAK_REM_ACCESS ? SNIC_WC_REM_ACCESS_ERR :
                    SNIC_WC_REM_OP_ERR);
            return;
        }
        if (stopped) {
            if (r->resp_retry) {
                return;         /* already resuming from it */
            }
            r->resp_retry = true;
            fb.kind = SNIC_FB_NAK_SEQ;
            fb.psn = r->dde.wnd_start;
        } else {
            fb.kind = kind == SNIC_AETH_KIND_ACK ? SNIC_FB_ACK :
                      kind == SNIC_AETH_KIND_RNR ? SNIC_FB_RNR :
                      SNIC_FB_NAK_SEQ;
            if (fb.kind == SNIC_FB_ACK && sack) {
                fb.kind = SNIC_FB_SACK;
                fb.sack = p->xeth.sack_lo;
                fb.sack_end = p->xeth.sack_hi;
            }
        }
    }
    snic_sq_acked(c, qp, wnd_start, &fb);
}

/* A CNP from the peer's notification point: the program reacts. */
void snic_req_cnp(SnicCore *c, SnicQp *qp)
{
    SnicFeedback fb = {
        .kind = SNIC_FB_CNP,
        .psn = qp->req.dde.wnd_start,
        .old_wnd_start = qp->req.dde.wnd_start,
    };

    if (qp->pstate) {
        snic_prog_head(qp)->cnp_rx++;   /* go-back-N ignores CNPs */
    }
    snic_qp_program(qp)->incoming(c, qp, &fb);
    snic_sched_notify(c, qp);
}
